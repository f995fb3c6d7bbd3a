package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agenttui/agenttui/internal/termtest"
)

// The end-to-end tests of the console's sessions: grants, the journal,
// resuming a session, and MCP servers. Like the other console tests they
// run the built binary in a pseudo-terminal and wait on its screen.

// quitConsole quits the console with Ctrl+C twice and waits for it to exit.
func quitConsole(t *testing.T, term *termtest.Term) int {
	t.Helper()
	term.Key("ctrl+c")
	term.WaitFor("press Ctrl+C again to quit", e2eStep)
	term.Key("ctrl+c")
	code, err := term.Wait(e2eStep)
	if err != nil {
		t.Fatalf("the console did not exit: %v", err)
	}
	return code
}

// rowsWith returns the screen's rows that hold every one of want.
func rowsWith(s string, want ...string) []string {
	var out []string
	for _, l := range screenRows(s) {
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(l, w)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// TestConsoleGrantReleasesQueuedCalls gives one grant, "write_file within
// docs/", from the first of two writes that wait for approval in reads
// mode: both run at once, and the board says the grant cleared each.
func TestConsoleGrantReleasesQueuedCalls(t *testing.T) {
	ws := t.TempDir()
	sc := writeScenario(t, `{"name": "grant", "steps": [
	  {"text": "Writing both docs.", "calls": [{"name": "write_file", "args": {"path": "docs/a.md", "content": "a"}},
	                                          {"name": "write_file", "args": {"path": "docs/sub/b.md", "content": "b"}}]},
	  {"expect": ["docs/a.md", "docs/sub/b.md"], "text": "Both docs written."}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", sc, "write the docs")
	// Both ask before tab, so that it lands on the first.
	term.WaitFor("2 calls to approve", e2eStep)
	toBoard(t, term)
	term.WaitForFunc("both writes waiting for approval, #1 focused", func(s string) bool {
		return strings.Contains(s, "2 need(s) approval") && strings.Contains(s, "── #1 write_file") && strings.Contains(s, "g grant")
	}, e2eStep)
	term.Key("g")
	s := term.WaitFor("2  allow write_file within docs/", e2eStep)
	if !strings.Contains(s, "1  allow write_file for this session") {
		t.Fatalf("the chooser does not offer the tool for the session:\n%s", s)
	}
	term.Key("2")
	s = term.WaitFor("✓ Succeeded", e2eStep)
	for _, p := range []string{"docs/a.md", "docs/sub/b.md"} {
		if _, err := os.Stat(filepath.Join(ws, p)); err != nil {
			t.Errorf("%s was not written: %v", p, err)
		}
	}
	for _, call := range []string{"#1 write_file", "#2 write_file"} {
		if len(rowsWith(s, call, "succeeded", "cleared by grant: write_file within docs/")) == 0 {
			t.Errorf("no row says the grant cleared %s:\n%s", call, s)
		}
	}
	if !strings.Contains(s, "Both docs written.") {
		t.Errorf("the run did not carry on after the grant:\n%s", s)
	}
}

// TestConsoleJournalsItsSession checks that a console session (not the
// demo) is journaled like a headless one, under the id its header shows.
func TestConsoleJournalsItsSession(t *testing.T) {
	ws := workspaceWithNotes(t)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", scenario(t, "succeeds.json"), "read the notes")
	s := term.WaitFor("✓ Succeeded", e2eStep)
	m := regexp.MustCompile(`· session (\S+)`).FindStringSubmatch(screenRows(s)[0])
	if m == nil {
		t.Fatalf("the header names no session:\n%s", s)
	}
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	path := filepath.Join(os.Getenv("XDG_STATE_HOME"), "agenttui", "sessions", m[1]+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no journal for the console's session: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var head map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil || head["type"] != "header" ||
		head["goal"] != "read the notes" || head["workspace"] != ws || head["model"] != "scenario:succeeds" {
		t.Fatalf("journal header %s (%v)", lines[0], err)
	}
	types := map[string]int{}
	var last map[string]any
	for _, l := range lines[1:] {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		types[ev["type"].(string)]++
		last = ev
	}
	for _, want := range []string{"run_started", "turn_started", "reply", "call_started", "call_finished", "turn_ended", "run_finished"} {
		if types[want] == 0 {
			t.Errorf("the journal has no %s event: %v", want, types)
		}
	}
	if out, _ := last["outcome"].(map[string]any); last["type"] != "run_finished" || out["status"] != "succeeded" {
		t.Errorf("the journal's last event is %v", last)
	}
}

// headlessSession runs a scenario headless in ws and returns the id of the
// session it journaled.
func headlessSession(t *testing.T, ws, sc string, wantCode int, args ...string) string {
	t.Helper()
	r := runBinary(t, ws, "", append([]string{"run", "--json", "--workspace", ws, "--scenario", sc}, args...)...)
	if r.code != wantCode {
		t.Fatalf("headless run: exit %d, want %d; stderr:\n%s", r.code, wantCode, r.stderr)
	}
	return events(t, r.stdout)[0]["session"].(string)
}

// interruptedSession starts a headless run of sc in ws, kills it with
// SIGKILL while the reply's first call (a shell command that sleeps) runs,
// and returns the session's id.
func interruptedSession(t *testing.T, ws, sc string) string {
	t.Helper()
	cmd := exec.Command(binary, "run", "--json", "--mode", "auto", "--workspace", ws, "--scenario", sc, "run the job")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := ""
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		var ev map[string]any
		if json.Unmarshal(lines.Bytes(), &ev) != nil {
			continue
		}
		if ev["type"] == "run_started" {
			id, _ = ev["session"].(string)
		}
		// The journal holds the intent before the stream shows it.
		if ev["type"] == "call_started" && ev["name"] == "run_shell" {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the headless run was not killed mid-call: %v", err)
	}
	if id == "" {
		t.Fatal("the headless run never said its session")
	}
	return id
}

// TestConsoleResumesSessions opens stored sessions in the console: the
// earlier transcript is on screen, and the session carries on — a question
// is answered, an interrupted reply reports its in-doubt call and goes on.
func TestConsoleResumesSessions(t *testing.T) {
	t.Run("at rest after a question", func(t *testing.T) {
		ws := workspaceWithNotes(t)
		sc := scenario(t, "refuses.json")
		id := headlessSession(t, ws, sc, 3, "read the notes")
		term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--resume", id, "--scenario", sc)
		s := term.WaitFor("Answer ›", e2eStep)
		for _, want := range []string{"session " + id, "goal › read the notes", "#1 ask_user", "The agent asks a question",
			"Which of the two notes files did you mean?", "as its journal recorded it"} {
			if !strings.Contains(s, want) {
				t.Fatalf("the resumed screen lacks %q:\n%s", want, s)
			}
		}
		term.Type("the first one")
		term.Key("enter")
		s = term.WaitFor("✓ Succeeded", e2eStep)
		for _, want := range []string{"answer › the first one", "Thanks, done.", "goal › read the notes"} {
			if !strings.Contains(s, want) {
				t.Fatalf("after the answer the screen lacks %q:\n%s", want, s)
			}
		}
	})
	t.Run("interrupted mid-call", func(t *testing.T) {
		ws := workspaceWithNotes(t)
		sc := writeScenario(t, `{"name": "interrupt", "steps": [
		  {"text": "Running the long job first.", "calls": [{"name": "run_shell", "args": {"command": "sleep 5"}}]},
		  {"expect": ["It may have partly run"], "text": "The job may have partly run; I will check it before running it again."}]}`)
		id := interruptedSession(t, ws, sc)
		term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--mode", "auto", "--resume", id, "--scenario", sc)
		s := term.WaitFor("✓ Succeeded", e2eStep)
		for _, want := range []string{"session " + id, "goal › run the job", "◆ Running the long job first.",
			"resumed: the session carries on where it stopped",
			"#1 run_shell", "may have partly run: the session restarted while it ran",
			"The job may have partly run; I will check it before running it again."} {
			if !strings.Contains(s, want) {
				t.Fatalf("the resumed screen lacks %q:\n%s", want, s)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		ws := workspaceWithNotes(t)
		term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--resume", "no-such-session", "--scenario", scenario(t, "refuses.json"))
		term.WaitFor("error: no such session no-such-session", e2eStep)
		if code := quitConsole(t, term); code != 2 {
			t.Errorf("exit code %d after a session that could not be opened, want 2", code)
		}
		if !strings.Contains(term.Screen(), "agenttui: no such session no-such-session") {
			t.Errorf("the error is not left on the normal screen:\n%s", term.Screen())
		}
		term = startConsole(t, e2eCols, e2eRows, nil, "--workspace", t.TempDir(), "--continue", "--scenario", scenario(t, "refuses.json"))
		term.WaitFor("there is nothing to", e2eStep)
	})
}

// TestConsoleWithMCPServers opens the console on a workspace whose
// .mcp.json names a working server and a broken one: the header shows each
// server's state and tool count, the first run waits for the servers and
// calls the working one's tools, and the server is gone once the console
// has exited.
func TestConsoleWithMCPServers(t *testing.T) {
	server := mcpTestServer(t)
	ws := workspaceWithNotes(t)
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {
		"good": {"command": `+strconv.Quote(server)+`},
		"broken": {"command": "/nonexistent/agenttui-no-such-mcp-server"}
	}}`)
	trustWorkspace(t, ws)
	sc := writeScenario(t, `{"name": "mcp", "steps": [
		{"calls": [{"name": "good__echo", "args": {"text": "hello from mcp"}}, {"name": "good__pid"}]},
		{"expect": ["hello from mcp"], "calls": [{"name": "finish", "args": {"summary": "used the MCP tool"}}]}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--mode", "auto", "--scenario", sc, "use the MCP tool")
	s := term.WaitForFunc("both servers settled", func(s string) bool {
		return strings.Contains(s, "✓ good ready, 11 tools") && strings.Contains(s, "✗ broken failed")
	}, e2eStep)
	if rows := rowsWith(s, "mcp:"); len(rows) != 1 || !strings.HasPrefix(rows[0], "mcp:") {
		t.Fatalf("the servers are not on one header line:\n%s", s)
	}
	s = term.WaitFor("✓ Succeeded", e2eStep)
	for _, want := range []string{"used the MCP tool", `MCP server "broken" did not start`, "#1 good__echo", "hello from mcp"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, s)
		}
	}
	pidRow := rowsWith(s, "#2 good__pid", "succeeded")
	if len(pidRow) == 0 {
		t.Fatalf("good__pid did not succeed:\n%s", s)
	}
	pm := regexp.MustCompile(`→ (\d+)`).FindStringSubmatch(pidRow[0])
	if pm == nil {
		t.Fatalf("no pid in %q", pidRow[0])
	}
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	pid, _ := strconv.Atoi(pm[1])
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the MCP server (pid %d) outlived the console: %v", pid, err)
	}
}

// TestConsoleSaysHowToResumeWhenTheJournalFills runs the console under a
// file size limit that the journal reaches mid-session, as a full disk
// would: the run fails saying why, and a warning gives the command that
// resumes the session once the cause is mended.
func TestConsoleSaysHowToResumeWhenTheJournalFills(t *testing.T) {
	ws := workspaceWithNotes(t)
	sc := writeScenario(t, `{"name": "fill", "steps": [
		{"calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
		{"calls": [{"name": "run_shell", "args": {"command": "echo one >> count.txt"}}]},
		{"calls": [{"name": "run_shell", "args": {"command": "echo two >> count.txt"}}]},
		{"calls": [{"name": "finish", "args": {"summary": "done"}}]}
	]}`)
	env := append([]string{"XDG_CONFIG_HOME=" + os.Getenv("XDG_CONFIG_HOME"), "XDG_STATE_HOME=" + t.TempDir(),
		"TMPDIR=" + os.Getenv("TMPDIR")}, consoleGoEnv()...)
	term := termtest.Start(t, termtest.Options{Cols: e2eCols, Rows: e2eRows, Env: env, Dir: t.TempDir()},
		"bash", "-c", `ulimit -f 2 && exec "$0" "$@"`, binary,
		"--workspace", ws, "--mode", "auto", "--scenario", sc, "count the lines")
	s := term.WaitFor("✗ Failed", e2eStep)
	flat := strings.Join(strings.Fields(s), " ")
	// Where the journal fills up depends on the exact length of its lines
	// (timestamps, durations), so the test does not say which call it stops.
	for _, want := range []string{"the session record cannot be written", "file too large; nothing more runs in this session",
		"then resume with agenttui --resume "} {
		if !strings.Contains(flat, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, s)
		}
	}
}
