package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/termtest"
)

// trustTitle is the first line of the question a workspace's hooks ask.
const trustTitle = "This workspace defines hooks"

// hookedWorkspace returns a workspace whose agenttui.json defines a
// SessionStart hook that writes marker (outside the workspace) and a
// PreToolUse hook, both scripts inside the workspace.
func hookedWorkspace(t *testing.T, marker string) string {
	t.Helper()
	ws := workspaceWithNotes(t)
	if err := os.MkdirAll(filepath.Join(ws, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	hookScript(t, filepath.Join(ws, "hooks"), "start.sh", "cat >/dev/null\necho started >> "+marker+"\n")
	hookScript(t, filepath.Join(ws, "hooks"), "check.sh", "cat >/dev/null\nexit 0\n")
	writeFile(t, filepath.Join(ws, "agenttui.json"), `{"hooks": {
	  "SessionStart": [{"hooks": [{"type": "command", "command": "./hooks/start.sh"}]}],
	  "PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "./hooks/check.sh", "timeout": 30}]}]}}`)
	return ws
}

// readNotes is a scenario whose person asks to read the notes.
const readNotes = `{"steps": [
  {"input": "read the notes", "calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
  {"expect": ["milk"], "text": "The notes say to remember the milk."}]}`

// answerTrust waits for the trust question to take keys, then answers it.
func answerTrust(t *testing.T, term *termtest.Term, k string) {
	t.Helper()
	term.WaitFor("t trust and run them", e2eStep)
	term.Key(k)
	term.WaitFor("Goal › read the notes", e2eStep)
}

// runGoal sends the prefilled goal and waits for the run to succeed.
func runGoal(t *testing.T, term *termtest.Term) string {
	t.Helper()
	term.Key("enter")
	return term.WaitFor("✓ Succeeded", e2eStep)
}

func TestConsoleAsksToTrustAWorkspacesHooksBeforeAnythingRuns(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	ws := hookedWorkspace(t, marker)
	sc := writeScenario(t, readNotes)
	args := []string{"--workspace", ws, "--scenario", sc, "--mode", "auto"}

	// The first start asks before anything runs, listing the hooks.
	term := startConsole(t, e2eCols, e2eRows, nil, args...)
	s := term.WaitFor(trustTitle, e2eStep)
	for _, want := range []string{"SessionStart: ./hooks/start.sh", "PreToolUse Read: ./hooks/check.sh (30 s)", "agenttui.json asks agenttui to run"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the question lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Goal ›") {
		t.Fatalf("the console opened before the question was answered:\n%s", s)
	}
	// Declining runs none of them, in a session that works without them.
	answerTrust(t, term, "n")
	s = runGoal(t, term)
	if !strings.Contains(s, "do not run in this console") {
		t.Errorf("the console does not say the hooks do not run:\n%s", s)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook ran after the person declined")
	}
	quitConsole(t, term)

	// The next start asks again; trusting runs them.
	term = startConsole(t, e2eCols, e2eRows, nil, args...)
	term.WaitFor(trustTitle, e2eStep)
	answerTrust(t, term, "t")
	runGoal(t, term)
	if data, err := os.ReadFile(marker); err != nil || string(data) != "started\n" {
		t.Fatalf("the trusted SessionStart hook did not run once: %q, %v", data, err)
	}
	quitConsole(t, term)

	// Trusted once, the workspace opens without asking.
	term = startConsole(t, e2eCols, e2eRows, nil, args...)
	s = term.WaitFor("Goal › read the notes", e2eStep)
	if strings.Contains(s, trustTitle) {
		t.Fatalf("a trusted workspace asked again:\n%s", s)
	}
	quitConsole(t, term)

	// A changed hook script asks again, and says it changed.
	hookScript(t, filepath.Join(ws, "hooks"), "check.sh", "cat >/dev/null\necho changed >&2\nexit 0\n")
	term = startConsole(t, e2eCols, e2eRows, nil, args...)
	s = term.WaitFor(trustTitle, e2eStep)
	if !strings.Contains(s, "They changed since you trusted them.") {
		t.Errorf("the question does not say the hooks changed:\n%s", s)
	}
	answerTrust(t, term, "n")
	quitConsole(t, term)
}

func TestConsoleRunsACommandFileWithItsArguments(t *testing.T) {
	ws := workspaceWithNotes(t)
	if err := os.MkdirAll(filepath.Join(ws, ".claude", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, ".claude", "commands", "explain.md"), "---\ndescription: explain what a file says\n"+
		"argument-hint: <file>\n---\nRead $ARGUMENTS and explain what it says.\n")
	sc := writeScenario(t, `{"steps": [
	  {"expect": ["Read notes.txt and explain what it says."], "calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
	  {"expect": ["milk"], "text": "It says to remember the milk."}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", sc, "--mode", "auto")
	term.WaitFor("Goal ›", e2eStep)
	term.Type("/expl")
	s := term.WaitFor("/explain <file>", e2eStep)
	for _, want := range []string{"(project)", "explain what a file says"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the menu lacks %q:\n%s", want, s)
		}
	}
	term.Key("tab")
	term.WaitFor("▸ Goal › /explain", e2eStep)
	term.Type("notes.txt")
	term.Key("enter")
	s = term.WaitFor("✓ Succeeded", e2eStep)
	if !strings.Contains(s, "/explain notes.txt") {
		t.Errorf("the transcript does not show the command as typed:\n%s", s)
	}
	if !strings.Contains(s, "It says to remember the milk.") {
		t.Errorf("the run did not end as scripted:\n%s", s)
	}
	quitConsole(t, term)
}
