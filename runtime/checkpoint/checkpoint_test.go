package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// mkdir makes a folder of the workspace with exactly mode, umask or not.
func mkdir(t testing.TB, ws, rel string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// seed fills a workspace with what the person had before the agent ran.
// With git it is a repository, made by hand: the store must never run git.
func seed(t testing.TB, ws string, git bool) {
	t.Helper()
	put(t, ws, "a.txt", "one\ntwo\nthree\n", 0o644)
	put(t, ws, "del.txt", "bye\n", 0o644)
	put(t, ws, "script.sh", "#!/bin/sh\necho hi\n", 0o644)
	mkdir(t, ws, "old", 0o755)
	put(t, ws, "old/name.txt", "moving\n", 0o644)
	mkdir(t, ws, "docs", 0o755)
	put(t, ws, "docs/readme.md", "# hi\n", 0o644)
	put(t, ws, "bin.dat", "\x00\x01\x02", 0o600)
	put(t, ws, ".gitignore", "node_modules/\n*.log\n", 0o644)
	put(t, ws, "node_modules/x", "dep\n", 0o644)
	if err := os.Symlink("a.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if git {
		put(t, ws, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
		put(t, ws, ".git/info/exclude", "secret.txt\n", 0o644)
		// A nested repository's folder is skipped as well.
		put(t, ws, "vendor/lib/.git/config", "[core]\n", 0o644)
		put(t, ws, "vendor/lib/lib.go", "package lib\n", 0o644)
	}
}

// agent changes the workspace the way an agent's turn might.
func agent(t testing.TB, ws string, git bool) {
	t.Helper()
	put(t, ws, "new.txt", "fresh\nlines\n", 0o644)
	put(t, ws, "a.txt", "one\n2\nthree\nfour\n", 0o644)
	if err := os.Remove(filepath.Join(ws, "del.txt")); err != nil {
		t.Fatal(err)
	}
	mkdir(t, ws, "newdir", 0o755)
	put(t, ws, "newdir/f.txt", "in new dir\n", 0o644)
	if err := os.Rename(filepath.Join(ws, "old/name.txt"), filepath.Join(ws, "old/renamed.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(ws, "script.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	put(t, ws, "bin.dat", "\x00\x01\x03", 0o600)
	os.Remove(filepath.Join(ws, "link"))
	if err := os.Symlink("new.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	put(t, ws, "node_modules/x", "changed dep\n", 0o644)
	put(t, ws, "debug.log", "noise\n", 0o644)
	if git {
		put(t, ws, ".git/HEAD", "ref: refs/heads/other\n", 0o644)
		put(t, ws, "secret.txt", "excluded\n", 0o644)
		put(t, ws, "vendor/lib/.git/config", "[core]\n\tbare = false\n", 0o644)
	}
}

// agentDiff is the diff seed → agent must give, git or not.
const agentDiff = `a.txt file:644->file:644 +2 -1
bin.dat file:600->file:600 +0 -0 binary
del.txt file:644->none +0 -1
link symlink:a.txt->symlink:new.txt +0 -0
new.txt none->file:644 +2 -0
newdir none->dir:755 +0 -0
newdir/f.txt none->file:644 +1 -0
old/name.txt file:644->none +0 -1
old/renamed.txt none->file:644 +1 -0
script.sh file:644->file:755 +0 -0`

// agentUndoSteps are the steps undoing it: removals deepest first, then
// creations shallowest first.
const agentUndoSteps = `newdir/f.txt remove
old/renamed.txt remove
new.txt remove
newdir rmdir
a.txt write
bin.dat write
del.txt write
link symlink
script.sh chmod
old/name.txt write`

// untouchable are the paths a restore must leave alone: ignored, or git's.
var untouchable = []string{".git", "vendor/lib/.git", "node_modules", "debug.log", "secret.txt"}

func TestUndoRedoRoundTrip(t *testing.T) {
	for _, git := range []bool{false, true} {
		name := map[bool]string{false: "plain folder", true: "git repository"}[git]
		t.Run(name, func(t *testing.T) {
			s, ws := newStore(t)
			seed(t, ws, git)
			before := folderState(t, ws, skipUnder(untouchable...))
			t1 := snap(t, s, ".")

			agent(t, ws, git)
			after := folderState(t, ws, skipUnder(untouchable...))
			t2 := snap(t, s, ".")
			// node_modules (once), debug.log and, by .git/info/exclude,
			// secret.txt; .git itself is not "ignored", it is never seen.
			if want := map[bool]int{false: 2, true: 3}[git]; t2.Ignored != want {
				t.Errorf("Ignored = %d, want %d", t2.Ignored, want)
			}
			cs := diff(t, s, t1, t2)
			if got := describe(cs); got != agentDiff {
				t.Fatalf("diff:\n%s\nwant:\n%s", got, agentDiff)
			}

			p := plan(t, s, undoWants(cs))
			if got := describeSteps(p); got != agentUndoSteps {
				t.Fatalf("undo steps:\n%s\nwant:\n%s", got, agentUndoSteps)
			}
			a := apply(t, s, p, ApplyOptions{Label: "undo of turn 1"})
			if got := folderState(t, ws, skipUnder(untouchable...)); got != before {
				t.Fatalf("after undo:\n%s\nwant:\n%s", got, before)
			}
			if len(a.Kept) != 0 || len(a.Written) != len(cs) {
				t.Errorf("Written %v, Kept %v: want every changed path written", a.Written, a.Kept)
			}
			if got := read(t, ws, "node_modules/x"); got != "changed dep\n" {
				t.Errorf("node_modules/x = %q: an ignored file was touched", got)
			}
			if got := read(t, ws, "debug.log"); got != "noise\n" {
				t.Errorf("debug.log = %q: an ignored file was touched", got)
			}
			if git {
				if got := read(t, ws, ".git/HEAD"); got != "ref: refs/heads/other\n" {
					t.Errorf(".git/HEAD = %q: the repository was touched", got)
				}
				if got := read(t, ws, "vendor/lib/.git/config"); got != "[core]\n\tbare = false\n" {
					t.Errorf("vendor/lib/.git/config = %q: a nested repository was touched", got)
				}
			}
			if tf := tempFiles(t, ws); len(tf) != 0 {
				t.Errorf("temporary files left: %v", tf)
			}
			if a.Before.ID != p.Current.ID {
				t.Errorf("Applied.Before is not the plan's Current")
			}

			// Redo: the restore is itself undone from what it recorded.
			rp := plan(t, s, redoWants(diff(t, s, a.After, a.Before)))
			apply(t, s, rp, ApplyOptions{Label: "redo of turn 1"})
			if got := folderState(t, ws, skipUnder(untouchable...)); got != after {
				t.Fatalf("after redo:\n%s\nwant:\n%s", got, after)
			}
			if t3 := snap(t, s, "."); t3.ID != t2.ID {
				t.Errorf("after redo the workspace records as %s, not as the agent left it (%s)", t3.ID, t2.ID)
			}
		})
	}
}

func TestConflictKeptUnlessOverwritten(t *testing.T) {
	s, ws := newStore(t)
	put(t, ws, "f.txt", "original\n", 0o644)
	t1 := snap(t, s, ".")
	put(t, ws, "f.txt", "agent\n", 0o644)
	t2 := snap(t, s, ".")
	put(t, ws, "f.txt", "person\n", 0o644)

	wants := undoWants(diff(t, s, t1, t2))
	p := plan(t, s, wants)
	if got := describeSteps(p); got != "f.txt write conflict" {
		t.Fatalf("steps: %s", got)
	}
	if data, err := s.Read(p.Steps[0].Current.Hash); err != nil || string(data) != "person\n" {
		t.Errorf("the current content is not readable for a preview: %q, %v", data, err)
	}
	a := apply(t, s, p, ApplyOptions{})
	if !slices.Equal(a.Kept, []string{"f.txt"}) || len(a.Written) != 0 {
		t.Errorf("Kept %v, Written %v", a.Kept, a.Written)
	}
	if got := read(t, ws, "f.txt"); got != "person\n" {
		t.Fatalf("a kept conflict was overwritten: %q", got)
	}

	p = plan(t, s, wants)
	a = apply(t, s, p, ApplyOptions{Overwrite: []string{"f.txt"}})
	if got := read(t, ws, "f.txt"); got != "original\n" {
		t.Fatalf("overwrite did not restore: %q", got)
	}
	if !slices.Equal(a.Written, []string{"f.txt"}) {
		t.Errorf("Written %v", a.Written)
	}
}

func TestFolderWithForeignFileKept(t *testing.T) {
	s, ws := newStore(t)
	put(t, ws, "keep.txt", "k\n", 0o644)
	t1 := snap(t, s, ".")
	mkdir(t, ws, "d", 0o755)
	put(t, ws, "d/a.txt", "agent\n", 0o644)
	t2 := snap(t, s, ".")
	put(t, ws, "d/mine.txt", "person\n", 0o644)

	p := plan(t, s, undoWants(diff(t, s, t1, t2)))
	if got, want := describeSteps(p), "d/a.txt remove\nd rmdir conflict"; got != want {
		t.Fatalf("steps:\n%s\nwant:\n%s", got, want)
	}
	a := apply(t, s, p, ApplyOptions{})
	if !slices.Equal(a.Kept, []string{"d"}) || !slices.Equal(a.Written, []string{"d/a.txt"}) {
		t.Errorf("Kept %v, Written %v", a.Kept, a.Written)
	}
	if got := read(t, ws, "d/mine.txt"); got != "person\n" {
		t.Errorf("the person's file: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(ws, "d/a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the agent's file is still there: %v", err)
	}

	// Even told to overwrite, a folder that is not empty is not removed.
	put(t, ws, "d/a.txt", "agent\n", 0o644)
	p = plan(t, s, undoWants(diff(t, s, t1, t2)))
	a = apply(t, s, p, ApplyOptions{Overwrite: []string{"d"}})
	if got := read(t, ws, "d/mine.txt"); got != "person\n" || !slices.Equal(a.Kept, []string{"d"}) {
		t.Errorf("overwriting a folder removed what the plan did not: %q, kept %v", got, a.Kept)
	}
}

func TestApplyStale(t *testing.T) {
	s, ws := newStore(t)
	put(t, ws, "a.txt", "1\n", 0o644)
	put(t, ws, "b.txt", "1\n", 0o644)
	t1 := snap(t, s, ".")
	put(t, ws, "a.txt", "2\n", 0o644)
	put(t, ws, "b.txt", "2\n", 0o644)
	t2 := snap(t, s, ".")
	state := folderState(t, ws, nil)
	p := plan(t, s, undoWants(diff(t, s, t1, t2)))
	if got := folderState(t, ws, nil); got != state {
		t.Fatalf("Plan wrote to the workspace:\n%s\nwant:\n%s", got, state)
	}

	put(t, ws, "b.txt", "3\n", 0o644)
	state = folderState(t, ws, nil)
	if _, err := s.Apply(context.Background(), p, ApplyOptions{}); !errors.Is(err, ErrStale) {
		t.Fatalf("Apply after a change: %v, want ErrStale", err)
	}
	if got := folderState(t, ws, nil); got != state {
		t.Fatalf("a stale Apply wrote:\n%s\nwant:\n%s", got, state)
	}
	if _, err := os.Stat(s.pendingPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stale Apply left a pending record: %v", err)
	}
}

func TestNeverWritesThroughASymlink(t *testing.T) {
	s, ws := newStore(t)
	outside := t.TempDir()
	put(t, ws, "d/f.txt", "mine\n", 0o644)
	t1 := snap(t, s, ".")
	if err := os.RemoveAll(filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	t2 := snap(t, s, ".")
	wants := undoWants(diff(t, s, t1, t2))

	// The person points the link elsewhere: the link is a conflict, and
	// the file below it cannot be placed even when overwriting it.
	other := t.TempDir()
	os.Remove(filepath.Join(ws, "d"))
	if err := os.Symlink(other, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	p := plan(t, s, wants)
	if got, want := describeSteps(p), "d mkdir conflict\nd/f.txt write conflict"; got != want {
		t.Fatalf("steps:\n%s\nwant:\n%s", got, want)
	}
	a := apply(t, s, p, ApplyOptions{Overwrite: []string{"d/f.txt"}})
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Fatalf("a restore wrote through a symlink: %v", ents)
	}
	if !slices.Equal(a.Kept, []string{"d", "d/f.txt"}) {
		t.Errorf("Kept %v", a.Kept)
	}

	// Undone as planned, the link itself is replaced by the folder.
	os.Remove(filepath.Join(ws, "d"))
	if err := os.Symlink(outside, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	apply(t, s, plan(t, s, wants), ApplyOptions{})
	if got := read(t, ws, "d/f.txt"); got != "mine\n" {
		t.Fatalf("d/f.txt = %q", got)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("a restore wrote through a symlink: %v", ents)
	}
}
