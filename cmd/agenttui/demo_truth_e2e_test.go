package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/internal/txtar"
)

// The built-in demo must tell the truth on a new user's machine: its go test
// passes in the sandbox with Go's default build cache in a fresh home, a
// failing command looks failed, and its summary claims only what was done.

// demoGoal is what the headless demo runs.
const demoGoal = "Customers say the last page is missing"

// sharedGoHome returns a home folder the demo's pty tests share, in the
// TMPDIR TestMain made, which goes at the end. Go's default build cache in
// it is filled once, outside the sandbox and any command's time limit, by
// testing the demo's sample project, so that each test's go test finds the
// standard library built, as on a machine that has built Go before.
func sharedGoHome(t *testing.T) string {
	t.Helper()
	home, err := goHome()
	if err != nil {
		t.Fatalf("filling a home's Go build cache: %v", err)
	}
	return home
}

var goHome = sync.OnceValues(func() (string, error) {
	home, err := os.MkdirTemp("", "agenttui-home-")
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "assets", "sample.txtar"))
	if err != nil {
		return "", err
	}
	ar, err := txtar.Parse(data)
	if err != nil {
		return "", err
	}
	sample := filepath.Join(home, "sample")
	if err := os.Mkdir(sample, 0o755); err != nil {
		return "", err
	}
	if err := ar.Unpack(sample); err != nil {
		return "", err
	}
	// The sample's tests fail until the demo fixes them: only the build
	// matters here.
	build := exec.Command("go", "test", "-count=1", "-run", "XXX", "./...")
	build.Dir = sample
	build.Env = freshGoEnv(home)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return home, os.RemoveAll(sample)
})

// consoleGoDefaults are the environment of a console whose Go uses its
// defaults in home: startConsole gives Go the test process's build cache,
// which these tests must not.
func consoleGoDefaults(home string) []string {
	return []string{"HOME=" + home, "GOCACHE=", "GOMODCACHE=", "GOPATH=", "XDG_CACHE_HOME="}
}

// demoRun runs the built-in demo headless in auto mode in a home of its
// own, with args before the goal, and returns its events.
func demoRun(t *testing.T, home string, args ...string) []map[string]any {
	t.Helper()
	args = append(append([]string{"run", "--model", "demo", "--mode", "auto", "--json", "--answer", "Keep zero pages for an empty list"},
		args...), demoGoal)
	cmd := exec.Command(binary, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = freshGoEnv(home)
	r := execute(t, cmd)
	if r.code != 0 {
		t.Fatalf("the demo exited %d: %s", r.code, r.stderr)
	}
	return events(t, r.stdout)
}

// finishedCall returns the call_finished event of call index of turn.
func finishedCall(t *testing.T, evs []map[string]any, turn, index int) map[string]any {
	t.Helper()
	for _, ev := range evs {
		if ev["type"] == "call_finished" && num(ev["turn"]) == turn && num(ev["index"]) == index {
			return ev
		}
	}
	t.Fatalf("no call_finished for call %d of turn %d", index+1, turn)
	return nil
}

// TestDemoTestsPassInAFreshHome runs the demo headless on a new user's
// machine: a fresh home with Go's default build cache in it, the sandbox
// on. Its go test passes (the sandbox once let it read that cache but not
// write it), its summary claims the changelog entry it wrote, and when the
// changelog write is refused, the summary does not claim it. (A build in
// a home with no cache yet is TestSandboxedToolchainsWriteTheirCaches'.)
func TestDemoTestsPassInAFreshHome(t *testing.T) {
	needLandlock(t)
	needGo(t)
	home := sharedGoHome(t)
	evs := demoRun(t, home)
	tests := finishedCall(t, evs, 6, 1)
	if result, _ := tests["result"].(string); tests["name"] != "run_shell" || tests["outcome"] != "success" ||
		!strings.Contains(result, "ok  \texample.com/pager") || !strings.HasSuffix(result, "exit status: 0") {
		t.Errorf("the demo's go test: %v", tests)
	}
	if s := lastOutcome(t, evs)["summary"]; s != "Fixed the missing last page: Pages now rounds up (pager.go), with a changelog entry." {
		t.Errorf("the summary with the changelog written: %q", s)
	}

	evs = demoRun(t, home, "--deny", "write_file(path=CHANGELOG.md)")
	if w := finishedCall(t, evs, 6, 0); w["name"] != "write_file" || w["outcome"] != "skipped" {
		t.Fatalf("the changelog write: %v", w)
	}
	out := lastOutcome(t, evs)
	if s, _ := out["summary"].(string); s != "Fixed the missing last page: Pages now rounds up (pager.go). No changelog entry was written." {
		t.Errorf("the summary with the changelog refused: %q", s)
	}
	if data, _ := out["extracted_data"].(map[string]any); data["fixed_file"] != "pager.go" {
		t.Errorf("extracted data %v", data)
	}
}

// TestDemoPlaysItselfInAFreshHome plays the demo in a pty with its
// autopilot, in a fresh home with Go's default cache: its go test's row
// says it succeeded with ok example.com/pager, and the outcome claims the
// changelog entry the autopilot approved.
func TestDemoPlaysItselfInAFreshHome(t *testing.T) {
	needLandlock(t)
	needGo(t)
	term := startConsole(t, e2eCols, e2eRows, consoleGoDefaults(sharedGoHome(t)), "--autopilot", "--speed", pilotSpeed)
	// Its row, on the board and then in the transcript, until later turns
	// push it off the screen.
	term.WaitForFunc("the go test row to say it passed", func(s string) bool {
		return len(rowsWith(s, "#2 run_shell", `command="go test ./..."`, "succeeded → ok example.com/pager")) > 0
	}, 8*e2eStep)
	s := term.WaitForFunc("the demo to succeed", func(s string) bool {
		return strings.Contains(s, "✓ Succeeded") && strings.Contains(s, "autopilot: the scenario is played out")
	}, 4*e2eStep)
	if !strings.Contains(s, "with a changelog entry") {
		t.Errorf("the outcome does not claim the changelog it wrote:\n%s", s)
	}
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// demoScenario writes the built-in demo's scenario, changed by the
// replacements (old, new, …), beside its sample workspace, and returns its
// path.
func demoScenario(t *testing.T, replacements ...string) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "assets", "demo.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i := 0; i+1 < len(replacements); i += 2 {
		if !strings.Contains(text, replacements[i]) {
			t.Fatalf("the demo's scenario has no %q", replacements[i])
		}
		text = strings.Replace(text, replacements[i], replacements[i+1], 1)
	}
	sample, err := os.ReadFile(filepath.Join("..", "..", "assets", "sample.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sample.txtar"), string(sample))
	writeFile(t, filepath.Join(dir, "demo.json"), text)
	return filepath.Join(dir, "demo.json")
}

// TestDemoDoesNotClaimASkippedChangelog plays the demo with a person who
// skips the changelog write: the summary says no entry was written.
func TestDemoDoesNotClaimASkippedChangelog(t *testing.T) {
	needLandlock(t)
	needGo(t)
	sc := demoScenario(t, `"content": "# Changelog\n\n## Unreleased\n\n- Pages rounds up, so a partial last page is no longer lost.\n"}, "decision": "approve"`,
		`"content": "# Changelog\n\n## Unreleased\n\n- Pages rounds up, so a partial last page is no longer lost.\n"}, "decision": {"skip": "no changelog today"}`)
	term := startConsole(t, e2eCols, e2eRows, consoleGoDefaults(sharedGoHome(t)), "--scenario", sc, "--autopilot", "--speed", pilotSpeed)
	s := term.WaitForFunc("the demo to succeed", func(s string) bool {
		return strings.Contains(s, "✓ Succeeded") && strings.Contains(s, "autopilot: the scenario is played out")
	}, 8*e2eStep)
	if !strings.Contains(s, "No changelog entry was written.") || strings.Contains(s, "with a changelog entry") {
		t.Errorf("the outcome after the changelog was skipped:\n%s", s)
	}
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// failingTests is a scenario in the demo's workspace that makes the demo's
// fix and runs its go test made to fail with exit status 3, then thinks
// for a long while, so the board keeps showing the command.
const failingTests = `{"name": "failing", "workspace": "sample.txtar", "steps": [
  {"text": "Fixing Pages and running the tests.", "calls": [
    {"name": "edit_file", "args": {"path": "pager.go", "old": "return total / size", "new": "return (total + size - 1) / size"}},
    {"name": "run_shell", "args": {"command": "go test ./... && exit 3", "timeout_s": 120}}]},
  {"delay_ms": 600000, "text": "The tests failed."}]}`

// TestFailedCommandLooksFailed runs the demo's go test made to fail (exit
// 3): in --json its call ends as an error with the code exit:3, and the
// console's board row says ✗ exit 3.
func TestFailedCommandLooksFailed(t *testing.T) {
	needLandlock(t)
	needGo(t)
	sc := filepath.Join(filepath.Dir(demoScenario(t)), "failing.json")
	writeFile(t, sc, failingTests)
	home := sharedGoHome(t)

	cmd := exec.Command(binary, "run", "--json", "--mode", "auto", "--scenario", sc, "run the tests")
	cmd.Dir = t.TempDir()
	cmd.Env = freshGoEnv(home)
	r := execute(t, cmd)
	call := finishedCall(t, events(t, r.stdout), 1, 1)
	if result, _ := call["result"].(string); call["outcome"] != "error" || call["kind"] != "other" || call["code"] != "exit:3" ||
		!strings.Contains(result, "ok  \texample.com/pager") || !strings.HasSuffix(result, "exit status: 3") {
		t.Errorf("the failed command in --json: %v", call)
	}

	term := startConsole(t, e2eCols, e2eRows, consoleGoDefaults(home), "--scenario", sc, "--mode", "auto", "run the tests")
	s := term.WaitForFunc("the command's row to say how it ended", func(s string) bool {
		return len(rowsWith(s, "#2 run_shell", "✗ exit 3 → ok example.com/pager")) == 1
	}, 4*e2eStep)
	if rows := rowsWith(s, "#2 run_shell", "succeeded"); len(rows) > 0 {
		t.Errorf("the failed command looks succeeded: %q", rows)
	}
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
