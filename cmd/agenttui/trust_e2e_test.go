package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/internal/workspacetrust"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// trustWorkspace trusts the workspace ws's own hooks and MCP servers as
// they are now, as answering t in the console there would: this test
// process shares the binary's state folder (see TestMain).
func trustWorkspace(t *testing.T, ws string) {
	t.Helper()
	path, err := config.Find("", ws)
	if err != nil {
		t.Fatal(err)
	}
	var c *config.Config
	if path != "" {
		if c, err = config.Load(path); err != nil {
			t.Fatal(err)
		}
	}
	w, err := workspacetrust.Load(ws, c, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Ask().Grant(); err != nil {
		t.Fatal(err)
	}
}

// markerServer writes a .mcp.json into ws whose one server, x, would leave
// a file at the path it returns if it ever started.
func markerServer(t *testing.T, ws string) string {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "server-started")
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch `+marker+`"]}}}`)
	return marker
}

func started(marker string) bool {
	_, err := os.Stat(marker)
	return err == nil
}

// TestHeadlessSkipsAnUntrustedWorkspacesMCPServers runs agenttui run in a
// workspace whose .mcp.json would run a command: untrusted, the server
// does not start and a notice says how to trust it; named by the person
// with --mcp-config it starts as it always did, and trusted it starts.
func TestHeadlessSkipsAnUntrustedWorkspacesMCPServers(t *testing.T) {
	ws := workspaceWithNotes(t)
	marker := markerServer(t, ws)
	sc := writeScenario(t, `{"steps": [{"text": "hi"}]}`)
	res := runBinary(t, ws, "", "run", "--json", "--scenario", sc, "hello")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	if started(marker) {
		t.Fatal("an untrusted workspace's MCP server started")
	}
	if !noticeWith(events(t, res.stdout), ".mcp.json defines 1 MCP server that this workspace has not been trusted to run, so it does not run; "+
		"open the console here (agenttui) once to review and trust it") {
		t.Errorf("no notice says the server does not start, and how to trust it: %s", res.stdout)
	}

	if res := runBinary(t, ws, "", "run", "--json", "--mcp-config", filepath.Join(ws, ".mcp.json"), "--scenario", sc, "hello"); res.code != 0 || !started(marker) {
		t.Fatalf("the server of the file --mcp-config names did not start: exit %d\n%s", res.code, res.stderr)
	}
	os.Remove(marker)
	trustWorkspace(t, ws)
	if res := runBinary(t, ws, "", "run", "--json", "--scenario", sc, "hello"); res.code != 0 || !started(marker) {
		t.Fatalf("the trusted workspace's server did not start: exit %d\n%s", res.code, res.stderr)
	}
}

// TestEvalSkipsAnUntrustedWorkspacesMCPServers checks agenttui eval, which
// brings its sessions up as agenttui run does: the .mcp.json of a case's
// workspace does not start.
func TestEvalSkipsAnUntrustedWorkspacesMCPServers(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "server-started")
	writeFile(t, filepath.Join(dir, "cases", "ws.txtar"), "-- notes.txt --\nremember the milk\n-- .mcp.json --\n"+
		`{"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch `+marker+`"]}}}`+"\n")
	writeFile(t, filepath.Join(dir, "cases", "hi.json"), `{"steps": [{"text": "hi"}]}`)
	writeFile(t, filepath.Join(dir, "suite.json"), `{"cases": [{"name": "hi", "goal": "hello", "workspace": "cases/ws.txtar",
	  "model": "cases/hi.json", "expect": {"status": "succeeded"}}]}`)
	res := runBinary(t, dir, "", "eval", filepath.Join(dir, "suite.json"))
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if started(marker) {
		t.Fatal("eval started an untrusted workspace's MCP server")
	}
}

// TestConsoleAsksBeforeStartingAWorkspacesMCPServers opens the console in
// a workspace whose .mcp.json would run a command: the question lists the
// server with its command before anything starts, declining runs a
// session without it, and trusting starts it.
func TestConsoleAsksBeforeStartingAWorkspacesMCPServers(t *testing.T) {
	ws := workspaceWithNotes(t)
	marker := markerServer(t, ws)
	args := []string{"--workspace", ws, "--scenario", writeScenario(t, readNotes), "--mode", "auto"}

	term := startConsole(t, e2eCols, e2eRows, nil, args...)
	s := term.WaitFor("This workspace defines MCP servers", e2eStep)
	for _, want := range []string{`MCP server x: sh -c "touch /`, ".mcp.json asks agenttui to start these MCP servers"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the question lacks %q:\n%s", want, s)
		}
	}
	if started(marker) {
		t.Fatal("the server started before the question was answered")
	}
	answerTrust(t, term, "n")
	// The first run waits for the servers that start, so had the server
	// started, it would have by the end of the run.
	s = runGoal(t, term)
	if !strings.Contains(s, "the MCP servers of .mcp.json do not run in this console") {
		t.Errorf("the console does not say the servers do not run:\n%s", s)
	}
	if started(marker) {
		t.Fatal("the server started after the person declined")
	}
	quitConsole(t, term)

	term = startConsole(t, e2eCols, e2eRows, nil, args...)
	term.WaitFor("This workspace defines MCP servers", e2eStep)
	answerTrust(t, term, "t")
	term.WaitFor(`MCP server "x" did not start`, e2eStep)
	if !started(marker) {
		t.Error("the trusted server did not start")
	}
	quitConsole(t, term)
}

// rewrittenHook is a workspace whose trusted PreToolUse hook on run_shell
// runs ./hooks/pre.sh, a guard (on_error: deny), and a scenario that tries
// to rewrite the script so that it leaves marker: first from a sandboxed
// command, then with write_file, then runs another command, which the
// rewritten hook would run before.
func rewrittenHook(t *testing.T, marker string) (ws, sc string) {
	t.Helper()
	ws = workspaceWithNotes(t)
	if err := os.MkdirAll(filepath.Join(ws, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	hookScript(t, filepath.Join(ws, "hooks"), "pre.sh", "cat >/dev/null\nexit 0\n")
	writeFile(t, filepath.Join(ws, "agenttui.json"), `{"hooks": {"PreToolUse": [{"matcher": "run_shell",
	  "hooks": [{"type": "command", "command": "./hooks/pre.sh", "on_error": "deny"}]}]}}`)
	sc = writeScenario(t, `{"steps": [
	  {"input": "read the notes", "calls": [{"name": "run_shell", "args": {"command": "echo 'touch `+marker+`' >> hooks/pre.sh"}}]},
	  {"calls": [{"name": "write_file", "args": {"path": "hooks/pre.sh", "content": "#!/bin/sh\ntouch `+marker+`\n"}}]},
	  {"calls": [{"name": "run_shell", "args": {"command": "echo after"}}]},
	  {"expect": ["hooks/pre.sh, which changed since this workspace's hooks were trusted"], "text": "The hook changed."}]}`)
	return ws, sc
}

// TestHeadlessRefusesARewrittenHook trusts a workspace's hook and runs a
// session that rewrites its script: a sandboxed command cannot, and after
// write_file does, the next call's hook is not run, the call it guards is
// skipped saying why, and a notice says the workspace's hooks are off.
func TestHeadlessRefusesARewrittenHook(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	ws, sc := rewrittenHook(t, marker)
	trustWorkspace(t, ws)
	res := runBinary(t, ws, "", "run", "--json", "--mode", "auto", "--scenario", sc, "read the notes")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, lastLines(res.stdout, 5))
	}
	evs := events(t, res.stdout)
	if started(marker) {
		t.Fatal("the rewritten hook ran")
	}
	if sandbox.Detect().ABI >= 1 {
		if r := callEvent(t, evs, "call_finished", 1, 0)["result"].(string); !strings.Contains(r, "Permission denied") {
			t.Errorf("the sandboxed command could write the trusted hook's script: %q", r)
		}
	}
	if ev := callEvent(t, evs, "call_finished", 2, 0); ev["outcome"] != "success" {
		t.Fatalf("write_file: %v", ev)
	}
	ev := callEvent(t, evs, "call_finished", 3, 0)
	if r, _ := ev["result"].(string); ev["outcome"] != "skipped" || !strings.Contains(r, "was not run") || !strings.Contains(r, "on_error: deny") {
		t.Errorf("the call the rewritten hook guards: %v", ev)
	}
	if !noticeWith(evs, "none of this workspace's hooks runs until they are trusted again") {
		t.Errorf("no notice says the workspace's hooks are off: %s", res.stdout)
	}
}

// TestConsoleAsksAgainWhenATrustedHookIsRewritten runs the same session in
// the console: the rewritten hook does not run, and the trust question is
// asked again over the running session, saying the hooks changed.
func TestConsoleAsksAgainWhenATrustedHookIsRewritten(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	ws, sc := rewrittenHook(t, marker)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", sc, "--mode", "auto")
	term.WaitFor(trustTitle, e2eStep)
	answerTrust(t, term, "t")
	term.Key("enter")
	s := term.WaitFor("They changed since you trusted them.", e2eStep)
	if !strings.Contains(s, "PreToolUse run_shell: ./hooks/pre.sh (deny on error)") {
		t.Errorf("the question asked again does not list the hook:\n%s", s)
	}
	if started(marker) {
		t.Fatal("the rewritten hook ran")
	}
	term.WaitFor("t trust and run them", e2eStep)
	term.Key("n")
	s = term.WaitFor("✓ Succeeded", e2eStep)
	if !strings.Contains(strings.Join(strings.Fields(s), " "), "the hooks of agenttui.json no longer run in this console") {
		t.Errorf("the console does not say the hooks no longer run:\n%s", s)
	}
	if started(marker) {
		t.Fatal("the rewritten hook ran after the question")
	}
	quitConsole(t, term)
}

// TestAnEditedSlashlessScriptAsksAgain trusts hooks that run sh hook.sh
// and make -s -f hooks.mk check, then edits each script between sessions:
// the next session does not run the hooks, since what they run is not
// what was trusted.
func TestAnEditedSlashlessScriptAsksAgain(t *testing.T) {
	for _, c := range []struct{ command, file string }{{"sh hook.sh", "hook.sh"}, {"make -s -f hooks.mk check", "hooks.mk"}} {
		t.Run(c.file, func(t *testing.T) {
			ws := workspaceWithNotes(t)
			marker := filepath.Join(t.TempDir(), "pwned")
			writeFile(t, filepath.Join(ws, "hook.sh"), "exit 0\n")
			writeFile(t, filepath.Join(ws, "hooks.mk"), "check:\n\t@true\n")
			writeFile(t, filepath.Join(ws, "agenttui.json"), `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": `+jsonString(c.command)+`}]}]}}`)
			trustWorkspace(t, ws)
			sc := writeScenario(t, `{"steps": [{"text": "hi"}]}`)
			if res := runBinary(t, ws, "", "run", "--json", "--scenario", sc, "hello"); noticeWith(events(t, res.stdout), "has not been trusted") {
				t.Fatalf("the trusted hooks do not run: %s", res.stdout)
			}
			edit := "touch " + marker + "\n"
			if c.file == "hooks.mk" {
				edit = "check:\n\t@touch " + marker + "\n"
			}
			writeFile(t, filepath.Join(ws, c.file), edit)
			res := runBinary(t, ws, "", "run", "--json", "--scenario", sc, "hello")
			if started(marker) {
				t.Fatalf("the edited %s ran", c.file)
			}
			if !noticeWith(events(t, res.stdout), "has not been trusted to run") {
				t.Errorf("no notice says the hooks do not run: %s", res.stdout)
			}
		})
	}
}
