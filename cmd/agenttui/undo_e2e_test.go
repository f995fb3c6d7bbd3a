package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/termtest"
)

// undoScenario is a reply that changes the workspace with both file tools
// and a sandboxed shell command (an in-place edit, a removal, a new folder
// with a file, a move and a mode change), a summary, and then the follow-up
// after the undo, whose request must carry the note about it.
const undoScenario = `{"name": "undo", "steps": [
  {"text": "Changing files.", "calls": [
    {"name": "write_file", "args": {"path": "new.txt", "content": "brand new\n"}},
    {"name": "edit_file", "args": {"path": "edit.txt", "old": "one", "new": "ONE"}},
    {"name": "run_shell", "args": {"command": "sed -i 's/alpha/ALPHA/' tracked.txt && rm gone.txt && mkdir -p made/sub && echo inside > made/sub/f.txt && mv moved.txt moved-away.txt && chmod +x script.sh"}}]},
  {"text": "All done."},
  {"expect": ["[agenttui] The person undid", "new.txt (removed)", "gone.txt (brought back)", "moved-away.txt (removed)", "check again"],
   "text": "Understood: nothing of that is in place."}]}`

// undoWorkspace returns a git repository with the files undoScenario
// changes, an ignored node_modules and a commit, so that .git has a HEAD,
// an index and refs.
func undoWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for name, content := range map[string]string{
		"tracked.txt": "alpha\nbeta\n", "gone.txt": "to be removed\n", "moved.txt": "to be moved\n",
		"script.sh": "#!/bin/sh\necho hi\n", "edit.txt": "one\ntwo\n", ".gitignore": "node_modules/\n",
		"node_modules/pkg/index.js": "module.exports = 1\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(ws, name), content)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "start")
	return ws
}

// folderState describes a folder exactly, .git included: every path, its
// mode, its content and a link's target.
func folderState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", rel, info.Mode())
		switch {
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			line += " " + hex.EncodeToString(sum[:8])
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// confirmRestore waits for a restore's preview to accept keys and confirms
// it, then waits for the console to say it is done.
func confirmRestore(t *testing.T, term *termtest.Term, title string) string {
	t.Helper()
	term.WaitForFunc("the preview of "+title+" ready", func(s string) bool {
		return strings.Contains(s, "o overwrite a conflicting file · y confirm") && strings.Contains(strings.ToLower(s), title)
	}, e2eStep)
	term.Key("y")
	// The note line, above the input, says how it ended; the transcript
	// may hold the same words from an earlier restore.
	return term.WaitForFunc(title+" done", func(s string) bool {
		rows := screenRows(s)
		for i, row := range rows {
			if strings.Contains(row, "Follow-up ›") && i > 0 {
				return strings.HasPrefix(strings.TrimSpace(rows[i-1]), title+": ")
			}
		}
		return false
	}, e2eStep)
}

// TestConsoleUndoAndRedo undoes, in the console, a reply whose changes were
// made by file tools and a sandboxed shell command: the preview shows every
// file, the workspace comes back byte for byte — contents, modes, removed
// and moved files, created folders gone, the ignored node_modules and .git
// untouched — and /redo brings the reply's changes back exactly. The
// model's next request carries the note.
func TestConsoleUndoAndRedo(t *testing.T) {
	needLandlock(t)
	ws := undoWorkspace(t)
	before := folderState(t, ws)
	term := startConsole(t, 160, 50, nil, "--workspace", ws, "--scenario", writeScenario(t, undoScenario), "--mode", "auto", "change files")
	term.WaitFor("✓ Succeeded", e2eStep)
	after := folderState(t, ws)
	if after == before {
		t.Fatal("the reply changed nothing")
	}

	command(t, term, "/undo")
	s := term.WaitForFunc("the undo's preview", func(s string) bool { return strings.Contains(s, "Undo turn 1: 10 files") }, e2eStep)
	for _, want := range []string{"new.txt", "gone.txt", "brought back", "moved-away.txt", "moved.txt", "made/sub/f.txt", "script.sh", "tracked.txt"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the undo's preview lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "node_modules") || strings.Contains(s, ".git/") {
		t.Fatalf("the preview names ignored files or .git:\n%s", s)
	}
	confirmRestore(t, term, "undo turn 1")
	if got := folderState(t, ws); got != before {
		t.Fatalf("after /undo the workspace differs from before the reply:\n%s\n--- want ---\n%s", got, before)
	}

	command(t, term, "/redo")
	confirmRestore(t, term, "redo turn 1")
	if got := folderState(t, ws); got != after {
		t.Fatalf("after /redo the workspace differs from after the reply:\n%s\n--- want ---\n%s", got, after)
	}

	// Undone again, and the model is told with the next message.
	command(t, term, "/undo")
	confirmRestore(t, term, "undo turn 1")
	if got := folderState(t, ws); got != before {
		t.Fatalf("the second /undo left:\n%s", got)
	}
	command(t, term, "check again")
	term.WaitFor("Understood: nothing of that is in place.", e2eStep)
}

// TestConsoleUndoKeepsThePersonsEdit edits, as the person, a file the reply
// changed: the undo's preview shows it as a conflict, and confirming keeps
// it while the rest is restored.
func TestConsoleUndoKeepsThePersonsEdit(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "one\n")
	writeFile(t, filepath.Join(ws, "b.txt"), "bee\n")
	sc := writeScenario(t, `{"name": "conflict", "steps": [
	  {"text": "Editing both.", "calls": [
	    {"name": "edit_file", "args": {"path": "a.txt", "old": "one", "new": "ONE"}},
	    {"name": "write_file", "args": {"path": "b.txt", "content": "BEE\n"}}]},
	  {"text": "Both edited."}]}`)
	term := startConsole(t, 160, 50, nil, "--workspace", ws, "--scenario", sc, "--mode", "auto", "edit")
	term.WaitFor("✓ Succeeded", e2eStep)
	writeFile(t, filepath.Join(ws, "a.txt"), "the person's own line\n")

	command(t, term, "/undo")
	s := term.WaitFor("changed since — kept", e2eStep)
	if !strings.Contains(s, "a.txt") {
		t.Fatalf("the conflict does not name a.txt:\n%s", s)
	}
	s = confirmRestore(t, term, "undo turn 1")
	if !strings.Contains(s, "1 kept as they are (changed since): a.txt") {
		t.Fatalf("the console does not say a.txt was kept:\n%s", s)
	}
	if got := readWorkspaceFile(t, ws, "a.txt"); got != "the person's own line\n" {
		t.Fatalf("the person's edit was overwritten: %q", got)
	}
	if got := readWorkspaceFile(t, ws, "b.txt"); got != "bee\n" {
		t.Fatalf("b.txt was not restored: %q", got)
	}
}

// TestConsoleRewindConversation rewinds, in the console, the conversation
// alone to before the goal: the picker lists the points, the preview says
// what happens to the conversation, the goal comes back in the input, and
// sending it again starts the model from its first turn (the scripted model
// plays its first step again), with the note about the file the dropped
// turn left changed before the goal, as the journal records it.
func TestConsoleRewindConversation(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "one\n")
	sc := writeScenario(t, `{"name": "rewind", "steps": [
	  {"text": "Editing.", "calls": [{"name": "edit_file", "args": {"path": "a.txt", "old": "one", "new": "ONE"}}]},
	  {"text": "Edited once."}]}`)
	term := startConsole(t, 160, 50, nil, "--workspace", ws, "--scenario", sc, "--mode", "auto", "edit a")
	term.WaitFor("✓ Succeeded", e2eStep)
	command(t, term, "/rewind")
	s := term.WaitForFunc("the picker ready", func(s string) bool { return strings.Contains(s, "↑↓ choose a point · 1 code and conversation") }, e2eStep)
	for _, want := range []string{"goal", "turn 1", "a.txt +1 −1"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the picker lacks %q:\n%s", want, s)
		}
	}
	// The newest point is selected, at the top: down to the goal.
	for range 3 {
		term.Key("down")
	}
	term.Key("3")
	term.WaitForFunc("the preview ready", func(s string) bool {
		return strings.Contains(s, "the conversation goes back to before turn 1")
	}, e2eStep)
	confirmRestore(t, term, "rewind to before the goal")
	term.WaitFor("Follow-up › edit a", e2eStep)
	if got := readWorkspaceFile(t, ws, "a.txt"); got != "ONE\n" {
		t.Fatalf("a conversation rewind changed a.txt: %q", got)
	}
	id := sessionID(t, term.Screen())
	term.Key("enter")
	term.WaitForFunc("the run again from turn 1", func(s string) bool {
		return strings.Contains(s, "you › edit a") && strings.Count(s, "✓ Succeeded") == 2
	}, e2eStep)
	var note string
	for _, ev := range journalEvents(t, id) {
		if ev["type"] == "run_started" {
			note, _ = ev["note"].(string)
		}
	}
	want := "[agenttui] The person rewound the conversation to before turn 1; what came after is gone from it. " +
		"The workspace was not rewound: these files are still as the later turns left them: a.txt."
	if note != want {
		t.Fatalf("the model read the note %q, want %q", note, want)
	}
}

// journalEvents returns the events of session id's journal.
func journalEvents(t *testing.T, id string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "agenttui", "sessions", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return events(t, string(data))
}
