package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/redact"
)

func open(t *testing.T, path string, limit int) *Store {
	t.Helper()
	s, err := Open(path, limit, redact.New("hunter2-secret-value"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func add(t *testing.T, s *Store, text string) string {
	t.Helper()
	kept, err := s.Add(text)
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

func TestKeptAcrossOpens(t *testing.T) {
	path := File(t.TempDir(), "/work/project")
	s := open(t, path, 0)
	add(t, s, "first goal")
	add(t, s, "a prompt\nover two lines")
	add(t, s, "a prompt\nover two lines") // the same again is not kept twice
	add(t, s, "   ")                      // blank: nothing
	again := open(t, path, 0)
	got := again.Entries()
	want := []string{"first goal", "a prompt\nover two lines"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("entries after reopening = %q, want %q", got, want)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the history file is %v (%v), want mode 0600", info.Mode(), err)
	}
}

func TestSecretsAreRedacted(t *testing.T) {
	path := File(t.TempDir(), "/w")
	s := open(t, path, 0)
	kept := add(t, s, "use key sk-abcdefghijklmnopqrstuvwx and hunter2-secret-value please")
	if strings.Contains(kept, "sk-abc") || strings.Contains(kept, "hunter2") || !strings.Contains(kept, redact.Marker) {
		t.Fatalf("kept %q", kept)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "sk-abc") || strings.Contains(string(data), "hunter2") {
		t.Fatalf("the file holds a secret: %s", data)
	}
	if e := s.Entries(); e[0] != kept {
		t.Fatalf("recalled %q, want the redacted %q", e[0], kept)
	}
}

func TestBounded(t *testing.T) {
	path := File(t.TempDir(), "/w")
	s := open(t, path, 3)
	for _, e := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"} {
		add(t, s, e)
		data, _ := os.ReadFile(path)
		if n := strings.Count(string(data), "\n"); n >= 6 {
			t.Fatalf("after %s the file holds %d lines, want fewer than twice the bound", e, n)
		}
	}
	if got := strings.Join(s.Entries(), ","); got != "8,9,10" {
		t.Fatalf("entries = %s", got)
	}
	if got := strings.Join(open(t, path, 3).Entries(), ","); got != "8,9,10" {
		t.Fatalf("entries after reopening = %s", got)
	}
}

func TestTornLineAndWorkspaces(t *testing.T) {
	dir := t.TempDir()
	a, b := File(dir, "/w/a"), File(dir, "/w/b")
	if a == b || filepath.Dir(a) != dir {
		t.Fatalf("workspaces share a file: %s %s", a, b)
	}
	if err := os.WriteFile(a, []byte(`{"at":"2026-01-01T00:00:00Z","text":"whole"}`+"\n"+`{"at":"2026-01-01T00:0`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, a, 0)
	add(t, s, "next")
	if got := strings.Join(open(t, a, 0).Entries(), ","); got != "whole,next" {
		t.Fatalf("entries = %s", got)
	}
	if len(open(t, b, 0).Entries()) != 0 {
		t.Fatal("another workspace sees this one's history")
	}
}

func TestWriteErrorSaidOnce(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(blocker, "h.jsonl"), 0, nil)
	if err == nil {
		t.Fatal("a history below a file opened without an error")
	}
	if _, err := s.Add("one"); err == nil || !strings.Contains(err.Error(), "will not be recalled later") {
		t.Fatalf("first add: %v", err)
	}
	if _, err := s.Add("two"); err != nil {
		t.Fatalf("the write error was said again: %v", err)
	}
	if got := strings.Join(s.Entries(), ","); got != "one,two" {
		t.Fatalf("entries = %s", got)
	}
}

func TestDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if d, err := Dir(); err != nil || d != "/state/agenttui/history" {
		t.Fatalf("Dir() = %s, %v", d, err)
	}
}

// TestOpenWorkspace opens a workspace's history under the state folder, and
// one kept in memory, with an error saying so, when there is no such folder.
func TestOpenWorkspace(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	s, err := OpenWorkspace("/w", redact.New())
	if err != nil || s == nil {
		t.Fatalf("OpenWorkspace: %v, %v", s, err)
	}
	if _, err := s.Add("hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(File(filepath.Join(state, "agenttui", "history"), "/w")); err != nil {
		t.Errorf("the history is not in the state folder: %v", err)
	}

	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	s, err = OpenWorkspace("/w", redact.New())
	if s == nil || err == nil || !strings.HasPrefix(err.Error(), "the input history is kept for this console only: cannot find a folder for the input history") {
		t.Fatalf("with no state folder: %v, %v", s, err)
	}
}
