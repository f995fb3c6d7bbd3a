package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// In reads mode a task's edit asks for approval on the session's own
// board: the row names the task, the detail pane shows the diff, and y
// there approves it; the file changes and the task finishes.
func TestConsoleTaskApprovalOnTheSessionBoard(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "docs", "api.md"), "# API\nthe old line\n")
	sc := writeScenario(t, `{"name": "task-approval", "steps": [
	  {"calls": [{"name": "task", "args": {"description": "mend api docs", "prompt": "Mend docs/api.md.",
	                                      "agent": "general", "writes": ["docs"]}}]},
	  {"expect": ["Its summary: api docs mended"], "calls": [{"name": "finish", "args": {"summary": "The task mended the docs."}}]}],
	 "tasks": {"mend api docs": {"steps": [
	  {"calls": [{"name": "edit_file", "args": {"path": "docs/api.md", "old": "the old line", "new": "the mended line"}}]},
	  {"expect": ["docs/api.md"], "calls": [{"name": "finish", "args": {"summary": "api docs mended"}}]}]}}}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--mode", "reads", "--scenario", sc, "mend the docs")
	// The task may write, so reads mode asks before it starts.
	toBoard(t, term)
	pressWhenReady(t, term, "#1 task", "y")
	// Its agent's edit asks in turn, on the session's board, under the
	// task's row and named by it.
	term.WaitFor("↳ task #1 general · edit_file docs/api.md", e2eStep)
	term.Key("down")
	s := term.WaitForFunc("the task's edit focused, with its diff and the approval keys", func(s string) bool {
		return strings.Contains(s, "── task #1 general · #1 edit_file") && strings.Contains(s, "the mended line") &&
			strings.Contains(s, "y approve · n skip")
	}, e2eStep)
	if !strings.Contains(s, "the old line") {
		t.Fatalf("the detail pane lacks the diff's old line:\n%s", s)
	}
	term.Key("y")
	s = term.WaitFor("✓ Succeeded", e2eStep)
	if !strings.Contains(s, "The task mended the docs.") {
		t.Fatalf("the outcome is not the session's:\n%s", s)
	}
	if got := readWorkspaceFile(t, ws, "docs/api.md"); got != "# API\nthe mended line\n" {
		t.Fatalf("docs/api.md is %q", got)
	}
}

// --autopilot answers a task's own calls as the task's script records: the
// writing task is approved, then its edit, and the run ends by itself.
func TestAutopilotAnswersATasksCalls(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "docs", "api.md"), "# API\nthe old line\n")
	sc := writeScenario(t, `{"name": "task-pilot", "steps": [
	  {"input": "mend the docs",
	   "calls": [{"name": "task", "decision": "approve", "args": {"description": "mend api docs", "prompt": "Mend docs/api.md.",
	                                                          "agent": "general", "writes": ["docs"]}}]},
	  {"expect": ["Its summary: api docs mended"], "calls": [{"name": "finish", "args": {"summary": "The task mended the docs."}}]}],
	 "tasks": {"mend api docs": {"steps": [
	  {"calls": [{"name": "edit_file", "decision": "approve",
	              "args": {"path": "docs/api.md", "old": "the old line", "new": "the mended line"}}]},
	  {"calls": [{"name": "finish", "args": {"summary": "api docs mended"}}]}]}}}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--mode", "reads", "--scenario", sc,
		"--autopilot", "--speed", pilotSpeed)
	term.WaitForFunc("the run played out", func(s string) bool {
		return strings.Contains(s, "✓ Succeeded") && strings.Contains(s, "The task mended the docs.")
	}, 3*e2eStep)
	if got := readWorkspaceFile(t, ws, "docs/api.md"); got != "# API\nthe mended line\n" {
		t.Fatalf("docs/api.md is %q", got)
	}
}
