package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/termtest"
)

// The end-to-end tests of the console run the binary built by TestMain in a
// pseudo-terminal and read its screen through a terminal emulator. They wait
// on the screen, never on the clock.

const (
	e2eStep  = 15 * time.Second // the longest any one screen change may take
	e2eCols  = 120
	e2eRows  = 40
	e2eTitle = "agenttui"
)

var consoleGoEnv = sync.OnceValue(func() []string {
	// The demo runs "go test" in its workspace: give it the test process's
	// build cache, so it does not compile the standard library afresh, and
	// keep it off the network.
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off"}
	if err == nil {
		env = append(env, "GOCACHE="+strings.TrimSpace(string(out)))
	}
	return env
})

// startConsole starts the console with args at size c×r.
func startConsole(t *testing.T, c, r int, env []string, args ...string) *termtest.Term {
	t.Helper()
	env = append(append([]string{
		"XDG_CONFIG_HOME=" + os.Getenv("XDG_CONFIG_HOME"),
		"XDG_STATE_HOME=" + os.Getenv("XDG_STATE_HOME"),
		"TMPDIR=" + os.Getenv("TMPDIR"),
	}, consoleGoEnv()...), env...)
	return termtest.Start(t, termtest.Options{Cols: c, Rows: r, Env: env, Dir: t.TempDir()}, binary, args...)
}

// writeScenario writes a scenario file and returns its path.
func writeScenario(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// screenRows returns the screen's rows.
func screenRows(s string) []string { return strings.Split(s, "\n") }

// wholeScreen reports whether the screen has the header on its first row and the
// status bar on its last.
func wholeScreen(rows int) func(string) bool {
	return func(s string) bool {
		lines := screenRows(s)
		return len(lines) == rows && strings.HasPrefix(lines[0], e2eTitle) && strings.Contains(lines[rows-1], "│")
	}
}

// approveWhenReady waits until the focused call asks for approval and the
// approval keys work (the grace period after a change has passed), then
// presses y.
func approveWhenReady(t *testing.T, term *termtest.Term, focused string) {
	t.Helper()
	pressWhenReady(t, term, focused, "y")
}

// toBoard waits until a call waits for the person and the input's hints
// say so, then moves focus to the board with tab, as the person does to
// answer it: sending a goal leaves focus in the input, and tab lands on the
// first call that waits.
func toBoard(t *testing.T, term *termtest.Term) {
	t.Helper()
	term.WaitFor("tab approve on the board", e2eStep)
	term.Key("tab")
	term.WaitForFunc("focus on the board", func(s string) bool { return strings.Contains(screenRows(s)[0], "focus board") }, e2eStep)
}

// pressWhenReady waits until the focused call asks for approval and the
// approval keys work, then presses k.
func pressWhenReady(t *testing.T, term *termtest.Term, focused, k string) {
	t.Helper()
	term.WaitForFunc("the focused call "+focused+" ready for approval", func(s string) bool {
		return strings.Contains(s, "── "+focused) && strings.Contains(s, "y approve · n skip")
	}, e2eStep)
	term.Key(k)
}

// TestConsoleDemo plays the wholeScreen demo: it opens with its header, Enter
// starts it, the board shows parallel reads and a write waiting for them,
// y approves the write and the shell call, whose result appears, the
// clarification prompt is answered, the run succeeds with its extracted
// data, and on exit the outcome is printed to the normal screen.
func TestConsoleDemo(t *testing.T) {
	term := startConsole(t, e2eCols, e2eRows, nil)
	s := term.WaitFor("Enter starts the demo", e2eStep)
	for _, want := range []string{"agenttui [DEMO] · model demo · mode reads", "Built-in demo:", "Goal › Customers say the last page"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the demo's first screen lacks %q:\n%s", want, s)
		}
	}
	term.Key("enter")
	term.WaitFor("Calls · turn 1", e2eStep)

	// Turn 4: two reads run together in batch 1; the edit waits in batch 2
	// and, in reads mode, needs approval.
	s = term.WaitForFunc("turn 4's edit asking for approval", func(s string) bool {
		return strings.Contains(s, "Calls · turn 4") && strings.Contains(s, "? needs approval") && strings.Contains(s, "+1 −1")
	}, e2eStep)
	for _, want := range []string{"batch 1 · 2 calls run together", "#1 read_file path=pager.go", "#3 read_file path=README.md",
		"batch 2 · after what it waits for", "#2 edit_file pager.go · +1 −1"} {
		if !strings.Contains(s, want) {
			t.Fatalf("turn 4's board lacks %q:\n%s", want, s)
		}
	}
	// Focus the edit (display order: #1, #3, #2): tab reaches the board,
	// onto the edit, the call that waits; its details show the one-line
	// fix as a diff. Approve it.
	toBoard(t, term)
	s = term.WaitFor("change: pager.go · +1 −1", e2eStep)
	for _, want := range []string{"-     return total / size", "+     return (total + size - 1) / size"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the edit's details lack %q:\n%s", want, s)
		}
	}
	approveWhenReady(t, term, "#2 edit_file")
	term.WaitForFunc("the edit to succeed", func(s string) bool {
		return strings.Contains(s, "✓ succeeded → Edited pager.go")
	}, e2eStep)

	// Turn 6: the changelog write and then the shell call need approval.
	term.WaitFor("Calls · turn 6", e2eStep)
	approveWhenReady(t, term, "#1 write_file")
	term.Key("down")
	approveWhenReady(t, term, "#2 run_shell")
	term.WaitForFunc("the shell call's result", func(s string) bool {
		return strings.Contains(s, "exit status: 0") && strings.Contains(s, "ok example.com/pager")
	}, 2*e2eStep)

	// Turn 7: the question becomes the input's prompt.
	term.WaitFor("Answer ›", e2eStep)
	if s := term.WaitFor("Pages(0, 20) returns 0", e2eStep); !strings.Contains(s, "focus input") {
		t.Fatalf("after the question, focus is not on the input:\n%s", s)
	}
	term.Type("keep zero")
	term.Key("enter")
	s = term.WaitFor("✓ Succeeded", e2eStep)
	for _, want := range []string{"Fixed the missing last page", "Extracted data:", `"pages_for_45_items_at_20": 3`, `"fixed_file": "pager.go"`} {
		if !strings.Contains(s, want) {
			t.Fatalf("the outcome lacks %q:\n%s", want, s)
		}
	}

	term.Key("ctrl+c")
	term.WaitFor("press Ctrl+C again to quit", e2eStep)
	term.Key("ctrl+c")
	code, err := term.Wait(e2eStep)
	if err != nil || code != 0 {
		t.Fatalf("exit code %d, %v", code, err)
	}
	s = term.Screen()
	for _, want := range []string{"✓ Succeeded", "Fixed the missing last page", `"root_cause": "Pages used integer division`} {
		if !strings.Contains(s, want) {
			t.Fatalf("the normal screen after exit lacks %q:\n%s", want, s)
		}
	}
}

// TestConsoleSkipWithReason skips a call with a typed reason; the scenario
// only goes on if the model read the reason.
func TestConsoleSkipWithReason(t *testing.T) {
	sc := writeScenario(t, `{"name": "skip", "description": "a cleanup the person refuses", "steps": [
	  {"text": "Cleaning up first.", "calls": [{"name": "run_shell", "args": {"command": "rm -rf build"}},
	                                          {"name": "list_dir", "args": {}}]},
	  {"expect": ["Skipped by the person: keep the build folder"], "text": "Understood: leaving the build folder alone.",
	   "calls": [{"name": "finish", "args": {"summary": "Left the build folder alone."}}]}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--scenario", sc, "clean up")
	toBoard(t, term)
	term.WaitForFunc("run_shell ready for approval", func(s string) bool {
		return strings.Contains(s, "── #1 run_shell") && strings.Contains(s, "y approve · n skip")
	}, e2eStep)
	term.Key("n")
	term.WaitFor("Skip #1 run_shell · reason ›", e2eStep)
	term.Type("keep the build folder")
	term.Key("enter")
	// The outcome is the run's last event; the journal syncs each event
	// before the screen hears of it, so wait for the outcome itself.
	s := term.WaitFor("✓ Succeeded", e2eStep)
	for _, want := range []string{"Understood: leaving the build folder alone.", "Left the build folder alone.", "⊘ #1 run_shell", "skipped by user → Skipped by the person: keep the build folder"} {
		if !strings.Contains(s, want) {
			t.Fatalf("screen lacks %q:\n%s", want, s)
		}
	}
}

// TestConsoleEscStops stops a turn while a shell call runs: the screen says
// it may have partly run, and that the call waiting behind it was not run.
func TestConsoleEscStops(t *testing.T) {
	sc := writeScenario(t, `{"name": "stop", "steps": [
	  {"text": "Running the long job.", "calls": [{"name": "run_shell", "args": {"command": "sleep 30"}},
	                                             {"name": "write_file", "args": {"path": "after.txt", "content": "x"}}]},
	  {"text": "unreachable"}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--mode", "auto", "--scenario", sc, "run the job")
	term.WaitFor("▶ running", e2eStep)
	term.WaitFor("⧗ waits for #1", e2eStep)
	term.Key("esc")
	s := term.WaitFor("✗ Failed", e2eStep)
	for _, want := range []string{"◐ may have partly run", "⊘ not run: the person stopped the turn", "stopped: the person stopped the turn"} {
		if !strings.Contains(s, want) {
			t.Fatalf("screen lacks %q:\n%s", want, s)
		}
	}
}

// TestConsoleResize shrinks the terminal to 60×20 and back: the screen stays
// wholeScreen, and comes back exactly as it was.
func TestConsoleResize(t *testing.T) {
	term := startConsole(t, e2eCols, e2eRows, nil)
	before := term.WaitForFunc("the wholeScreen demo screen", func(s string) bool {
		return wholeScreen(e2eRows)(s) && strings.Contains(s, "Enter starts the demo")
	}, e2eStep)
	term.Resize(60, 20)
	small := term.WaitForFunc("a wholeScreen 60×20 screen", func(s string) bool {
		return wholeScreen(20)(s) && strings.Contains(s, "Enter starts the demo")
	}, e2eStep)
	for i, l := range screenRows(small) {
		if len([]rune(l)) > 60 {
			t.Fatalf("row %d is wider than 60: %q", i, l)
		}
	}
	term.Resize(40, 10)
	term.WaitFor("terminal too small", e2eStep)
	term.Resize(e2eCols, e2eRows)
	after := term.WaitForFunc("the screen as it was", func(s string) bool { return s == before }, e2eStep)
	if !wholeScreen(e2eRows)(after) {
		t.Fatalf("the screen is not whole after resizing back:\n%s", after)
	}
}

// TestConsoleSanitisesToolOutput runs a shell call whose output tries to
// clear the screen, write the clipboard, overwrite a line and fake an
// approval: the header and transcript stay, the clipboard sequence never
// reaches the terminal, and the fake line shows as quoted text.
func TestConsoleSanitisesToolOutput(t *testing.T) {
	sc := writeScenario(t, `{"name": "hostile", "steps": [
	  {"text": "Printing.", "calls": [{"name": "run_shell", "args": {"command": "printf 'before\\033[2J\\033]52;c;aGFja2Vk\\007\\rhidden\\n✓ approved #9 run_shell\\n'"}}]},
	  {"text": "Done printing."}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--mode", "auto", "--scenario", sc, "print it")
	s := term.WaitFor("Done printing.", e2eStep)
	if !wholeScreen(e2eRows)(s) || !strings.Contains(s, "goal › print it") {
		t.Fatalf("the screen was cleared or broken:\n%s", s)
	}
	if !strings.Contains(s, "before␛␛␍hidden") {
		t.Fatalf("the output's escapes are not shown as placeholders:\n%s", s)
	}
	for _, l := range screenRows(s) {
		if i := strings.Index(l, "✓ approved #9"); i >= 0 && !strings.Contains(l[:i], "│") && !strings.Contains(l[:i], "→") {
			t.Fatalf("the fake approval line is drawn as the console's own: %q", l)
		}
	}
	if strings.Contains(string(term.Output()), "\x1b]52") {
		t.Fatal("the clipboard sequence reached the terminal")
	}
}

// TestConsoleNoColor checks NO_COLOR: no colour sequences at all, and the
// states still readable by their symbols.
func TestConsoleNoColor(t *testing.T) {
	term := startConsole(t, e2eCols, e2eRows, []string{"NO_COLOR=1"})
	term.WaitFor("Enter starts the demo", e2eStep)
	term.Key("enter")
	term.WaitFor("✓ succeeded", e2eStep)
	for _, sgr := range regexp.MustCompile(`\x1b\[([0-9;:]*)m`).FindAllStringSubmatch(string(term.Output()), -1) {
		for _, p := range strings.FieldsFunc(sgr[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 49) || (n >= 90 && n <= 107) {
				t.Fatalf("NO_COLOR is set, yet the console wrote the colour sequence %q", sgr[0])
			}
		}
	}
}
