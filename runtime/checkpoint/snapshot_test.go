package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRootsExactAndWalked(t *testing.T) {
	s, ws := newStore(t)
	put(t, ws, ".gitignore", "build/\n*.tmp\n", 0o644)
	put(t, ws, "src/.ignore", "gen/\n", 0o644)
	put(t, ws, "src/main.go", "package main\n", 0o644)
	put(t, ws, "src/x.tmp", "t\n", 0o644)
	put(t, ws, "src/gen/g.go", "g\n", 0o644)
	put(t, ws, "build/out", "o\n", 0o644)

	if _, err := s.Snapshot(context.Background(), []string{"../x"}); err == nil {
		t.Error("a root escaping the workspace was accepted")
	}
	// A walked sub-root obeys the ignore files above it; a file root named
	// outright is recorded though ignored; an absent root is recorded too.
	t1 := snap(t, s, "src", "build/out", "missing.txt", "src", "src/main.go", ".git/config")
	if want := []string{"build/out", "missing.txt", "src"}; !slices.Equal(t1.Roots, want) {
		t.Errorf("Roots = %v, want %v", t1.Roots, want)
	}
	es, err := s.Entries(t1.ID)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range es {
		paths = append(paths, e.Path)
	}
	if want := []string{"build/out", "src", "src/.ignore", "src/main.go"}; !slices.Equal(paths, want) {
		t.Errorf("entries %v, want %v", paths, want)
	}
	if t1.Ignored != 2 || t1.Files != 3 {
		t.Errorf("Ignored %d, Files %d; want 2 and 3", t1.Ignored, t1.Files)
	}

	// The agent creates the missing file: undo deletes it.
	put(t, ws, "missing.txt", "now here\n", 0o644)
	t2 := snap(t, s, "missing.txt", "src")
	cs := diff(t, s, t1, t2)
	if got := describe(cs); got != "missing.txt none->file:644 +1 -0" {
		t.Fatalf("diff over the common roots: %s", got)
	}
	apply(t, s, plan(t, s, undoWants(cs)), ApplyOptions{})
	if _, err := os.Lstat(filepath.Join(ws, "missing.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("undo left the created file: %v", err)
	}
}

func TestLargeFilesSkipped(t *testing.T) {
	ws := t.TempDir()
	s, err := Open(Options{Dir: filepath.Join(t.TempDir(), "s"), Workspace: ws, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := strings.Repeat("x", 1<<20+1)
	put(t, ws, "big.bin", big, 0o644)
	put(t, ws, "small.txt", "s\n", 0o644)
	t1 := snap(t, s, ".")
	if len(t1.Skipped) != 1 || t1.Skipped[0] != (Skipped{Path: "big.bin", Size: 1<<20 + 1, Why: "larger than 1 MiB"}) {
		t.Fatalf("Skipped = %v", t1.Skipped)
	}
	// The large file is no part of the state: deleting it changes nothing
	// a restore would act on, and it is never read.
	os.Remove(filepath.Join(ws, "big.bin"))
	put(t, ws, "small.txt", "t\n", 0o644)
	t2 := snap(t, s, ".")
	if got := describe(diff(t, s, t1, t2)); got != "small.txt file:644->file:644 +1 -1" {
		t.Fatalf("diff: %s", got)
	}
	put(t, ws, "big.bin", big+"y", 0o644)
	put(t, ws, "small.txt", "s\n", 0o644)
	if t3 := snap(t, s, "."); t3.ID != t1.ID {
		t.Errorf("a skipped file that grew changed the tree's ID")
	}
}

// NewlySkipped names what a later snapshot could not record that an
// earlier one knew: a file created past the bound, in a new folder or not,
// and one grown past it. A file skipped both times is left out: the
// earlier snapshot says so already.
func TestNewlySkipped(t *testing.T) {
	ws := t.TempDir()
	s, err := Open(Options{Dir: filepath.Join(t.TempDir(), "s"), Workspace: ws, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := strings.Repeat("x", 1<<20+1)
	put(t, ws, "old.bin", big, 0o644)
	put(t, ws, "grows.txt", "s\n", 0o644)
	for _, roots := range [][]string{{"."}, {"old.bin", "grows.txt", "new.bin", "out/new.bin"}} {
		before := snap(t, s, roots...)
		put(t, ws, "old.bin", big+"y", 0o644)
		put(t, ws, "grows.txt", big, 0o644)
		put(t, ws, "new.bin", big, 0o644)
		put(t, ws, "out/new.bin", big, 0o644)
		after := snap(t, s, roots...)
		got, err := s.NewlySkipped(before.ID, after)
		if err != nil {
			t.Fatal(err)
		}
		want := []Skipped{{Path: "grows.txt", Size: 1<<20 + 1, Why: "larger than 1 MiB"}, {Path: "new.bin", Size: 1<<20 + 1, Why: "larger than 1 MiB"},
			{Path: "out/new.bin", Size: 1<<20 + 1, Why: "larger than 1 MiB"}}
		if !slices.Equal(got, want) {
			t.Fatalf("roots %v: newly skipped %v, want %v", roots, got, want)
		}
		if d := describe(diff(t, s, before, after)); strings.Contains(d, ".bin") || strings.Contains(d, "grows.txt") {
			t.Fatalf("the diff names what it could not record: %s", d)
		}
		for _, p := range []string{"new.bin", "out"} {
			os.RemoveAll(filepath.Join(ws, p))
		}
		put(t, ws, "grows.txt", "s\n", 0o644)
	}
}

func TestPersistsAcrossRestart(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	s, err := Open(Options{Dir: dir, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	put(t, ws, "a.txt", "1\n", 0o644)
	t1 := snap(t, s, ".")
	put(t, ws, "a.txt", "2\n", 0o644)
	t2 := snap(t, s, ".")
	want := describe(diff(t, s, t1, t2))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(t1.ID); err == nil {
		t.Error("a closed store answered")
	}

	s, err = Open(Options{Dir: dir, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d := s.stat["."]; d == nil || len(d.names) != 1 {
		t.Errorf("the stat cache was not kept: %v", d)
	}
	got, err := s.Load(t1.ID)
	if err != nil || got.ID != t1.ID || got.Files != 1 || !slices.Equal(got.Roots, []string{"."}) {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	if d := describe(diff(t, s, t1, t2)); d != want {
		t.Errorf("diff after restart %q, want %q", d, want)
	}
	if t3 := snap(t, s, "."); t3.ID != t2.ID {
		t.Error("an unchanged workspace recorded a different state after a restart")
	}
	if _, err := s.Load("../../etc/passwd"); err == nil {
		t.Error("Load took a path for an ID")
	}
}

func TestSameSizeRewriteNoticed(t *testing.T) {
	s, ws := newStore(t)
	put(t, ws, "a.txt", "aaaa", 0o644)
	t1 := snap(t, s, ".")
	// Same size, written within the same clock tick as the snapshot: the
	// stat cache must not vouch for the old hash.
	put(t, ws, "a.txt", "bbbb", 0o644)
	if t2 := snap(t, s, "."); t2.ID == t1.ID {
		t.Fatal("a same-size rewrite right after a snapshot went unnoticed")
	}
}

func TestStatCacheRacyRule(t *testing.T) {
	st := fileStat{size: 4, mtime: 1_000_000_123, ctime: 1_000_000_123, ino: 7, mode: 0o644}
	e := &statEntry{st: st, recorded: st.mtime + racyMargin.Nanoseconds()/2}
	if e.trusted(st) {
		t.Error("an entry recorded in the same tick as the file's change was trusted")
	}
	e.recorded = st.mtime + 2*racyMargin.Nanoseconds()
	if !e.trusted(st) {
		t.Error("an entry recorded well after the file's change was not trusted")
	}
	changed := st
	changed.ctime++
	if e.trusted(changed) {
		t.Error("an entry was trusted for a file whose ctime changed")
	}
	coarse := fileStat{size: 4, mtime: 5e9, ctime: 5e9, mode: 0o644}
	e = &statEntry{st: coarse, recorded: coarse.mtime + int64(1e9)}
	if e.trusted(coarse) {
		t.Error("a whole-second time was trusted a second after it")
	}
}

func TestStoreInsideWorkspaceLeftOut(t *testing.T) {
	ws := t.TempDir()
	s, err := Open(Options{Dir: filepath.Join(ws, ".agenttui", "checkpoints"), Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, ws, "a.txt", "a\n", 0o644)
	t1 := snap(t, s, ".")
	put(t, ws, "b.txt", "b\n", 0o644)
	t2 := snap(t, s, ".")
	if got := describe(diff(t, s, t1, t2)); got != "b.txt none->file:644 +1 -0" {
		t.Fatalf("the store recorded itself: %s", got)
	}
}

// A snapshot whose files pass the bound of one snapshot is abandoned with
// ErrTooLarge and stores nothing; a smaller root still records.
func TestSnapshotPastItsBound(t *testing.T) {
	ws := t.TempDir()
	for i := range 8 {
		put(t, ws, fmt.Sprintf("big/f%d.bin", i), strings.Repeat(fmt.Sprint(i), 1<<10), 0o644)
	}
	put(t, ws, "small.txt", "small\n", 0o644)
	s, err := Open(Options{Dir: t.TempDir(), Workspace: ws, MaxSnapshotBytes: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before, _ := s.Size()
	if _, err := s.Snapshot(context.Background(), []string{"."}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	if after, _ := s.Size(); after != before {
		t.Fatalf("the abandoned snapshot stored %d bytes", after-before)
	}
	if tr, err := s.Snapshot(context.Background(), []string{"small.txt"}); err != nil || tr.Files != 1 {
		t.Fatalf("a small root: %+v, %v", tr, err)
	}
}
