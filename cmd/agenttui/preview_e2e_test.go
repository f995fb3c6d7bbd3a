package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// previewWorkspace returns a workspace folder holding a.txt.
func previewWorkspace(t *testing.T, content string) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// readWorkspaceFile returns the content of a file of the workspace.
func readWorkspaceFile(t *testing.T, ws, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestConsoleApprovalBoundToThePreview approves, in reads mode, an edit
// whose preview is provisional because a write of the same file comes
// first, and then the write. The edit must not run on the approval of a
// change it no longer makes: it asks again with the new diff, and runs once
// that is approved. The file ends with both changes.
func TestConsoleApprovalBoundToThePreview(t *testing.T) {
	ws := previewWorkspace(t, "one\n")
	sc := writeScenario(t, `{"name": "bound", "steps": [
	  {"text": "Writing, then editing what I wrote.", "calls": [
	    {"name": "write_file", "args": {"path": "a.txt", "content": "one\ntwo\n"}},
	    {"name": "edit_file", "args": {"path": "a.txt", "old": "two", "new": "TWO"}}]},
	  {"expect": ["Replaced a.txt", "Edited a.txt"], "text": "Both changes are in."}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", sc, "change a.txt")
	term.WaitForFunc("both calls asking", func(s string) bool {
		return strings.Contains(s, "2 need(s) approval") && strings.Contains(s, "2 calls to approve")
	}, e2eStep)
	toBoard(t, term)

	// The edit first: its change is provisional.
	term.Key("down")
	s := term.WaitFor("── #2 edit_file", e2eStep)
	for _, want := range []string{"a.txt (as of now) · would fail", "as of now: #1 changes a.txt first"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the provisional edit lacks %q:\n%s", want, s)
		}
	}
	approveWhenReady(t, term, "#2 edit_file")
	term.Key("up")
	approveWhenReady(t, term, "#1 write_file")

	// The write runs; the edit comes back with the change it now makes.
	term.Key("down")
	s = term.WaitForFunc("the edit asking again with its new diff", func(s string) bool {
		return strings.Contains(s, "needs approval again: #1 write_file") &&
			strings.Contains(s, "── #2 edit_file") && strings.Contains(s, "+ TWO")
	}, e2eStep)
	if !strings.Contains(s, "✓ succeeded → Replaced a.txt") || !strings.Contains(s, "- two") {
		t.Fatalf("the screen lacks the write's outcome or the edit's new diff:\n%s", s)
	}
	if got := readWorkspaceFile(t, ws, "a.txt"); got != "one\ntwo\n" {
		t.Fatalf("the edit ran on the old approval: a.txt = %q", got)
	}
	approveWhenReady(t, term, "#2 edit_file")
	term.WaitFor("Both changes are in.", e2eStep)
	if got := readWorkspaceFile(t, ws, "a.txt"); got != "one\nTWO\n" {
		t.Fatalf("a.txt = %q, want both changes", got)
	}
}

// TestConsoleEditBeforeApproving opens a pending edit in the editor (a
// script standing in for one, which rewrites the proposed line): saving
// approves the call with the person's version, the file holds it, and the
// model's next request carries the note about the change.
func TestConsoleEditBeforeApproving(t *testing.T) {
	ws := previewWorkspace(t, "one\ntwo\n")
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/^TWO$/Two, as the person wants it/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := writeScenario(t, `{"name": "edited", "steps": [
	  {"text": "Shouting the second line.", "calls": [{"name": "edit_file", "args": {"path": "a.txt", "old": "two", "new": "TWO"}}]},
	  {"expect": ["The person edited your change to a.txt before approving it", "+Two, as the person wants it", "-TWO"],
	   "text": "I see you changed it; keeping your version."}]}`)
	term := startConsole(t, e2eCols, e2eRows, []string{"EDITOR=" + editor, "VISUAL="}, "--workspace", ws, "--scenario", sc, "edit a.txt")
	toBoard(t, term)
	pressWhenReady(t, term, "#1 edit_file", "e")
	s := term.WaitFor("keeping your version", e2eStep)
	if !strings.Contains(s, "approved with your own version") && !strings.Contains(s, "✓ #1 edit_file") {
		t.Logf("screen:\n%s", s)
	}
	if got := readWorkspaceFile(t, ws, "a.txt"); got != "one\nTwo, as the person wants it\n" {
		t.Fatalf("a.txt = %q, want the person's version", got)
	}
}
