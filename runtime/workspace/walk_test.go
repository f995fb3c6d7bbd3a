package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// collect walks start and returns every entry visited, sorted.
func collect(t *testing.T, w *Workspace, ctx context.Context, start string, wk *walker) ([]string, error) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	visit := wk.visit
	wk.visit = func(e *entry) bool {
		mu.Lock()
		seen = append(seen, e.rel)
		mu.Unlock()
		if visit != nil {
			return visit(e)
		}
		return false
	}
	err := w.walk(ctx, start, nil, wk)
	slices.Sort(seen)
	return seen, err
}

// TestWalkStaysInside checks that the walker never follows a symbolic link:
// a link is an entry, never a folder to enter, and a start path that goes
// through a link is refused rather than followed out of the workspace.
func TestWalkStaysInside(t *testing.T) {
	e := treeEnv(t)
	seen, err := collect(t, e.ws, t.Context(), ".", &walker{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".env", "README.md", "bin", "bin/tool.bin", "main.go", "out-link", "src", "src-link",
		"src/a.go", "src/deep", "src/deep/b.go", "src/deep/b_test.go", "src/notes.txt"}
	if !slices.Equal(seen, want) {
		t.Errorf("walk visited %q, want %q", seen, want)
	}
	for _, start := range []string{"out-link", "src-link", "src-link/deep"} {
		seen, err := collect(t, e.ws, t.Context(), start, &walker{})
		if err == nil || len(seen) > 0 {
			t.Errorf("walk of %s followed the link: visited %q, error %v", start, seen, err)
		}
	}
	// A file the walk queues is opened without following links either.
	var worked []string
	var mu sync.Mutex
	_, err = collect(t, e.ws, t.Context(), ".", &walker{
		visit: func(e *entry) bool { return true },
		work: func(en *entry) {
			var buf []byte
			data, _, err := en.dir.readFileAt(en.name, 1<<20, &buf)
			mu.Lock()
			defer mu.Unlock()
			worked = append(worked, fmt.Sprintf("%s=%q,%v", en.rel, data, err))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(worked)
	if got := strings.Join(worked, " "); !strings.Contains(got, `src/a.go="package src`) || strings.Contains(got, "outside") {
		t.Errorf("files worked on: %s", got)
	}
}

// openFiles counts the process's open descriptors, or skips the test where
// /proc does not tell.
func openFiles(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	return len(ents)
}

// TestWalkEnds checks the walk's early ends: the context, the entry limit.
// Either way every folder it opened is closed when it returns.
func TestWalkEnds(t *testing.T) {
	e := newEnv(t)
	for d := range 20 {
		for f := range 10 {
			e.write(fmt.Sprintf("d%02d/e/f%02d.txt", d, f), "x\n")
		}
	}
	if _, err := collect(t, e.ws, t.Context(), ".", &walker{}); err != nil {
		t.Fatal(err)
	}
	before := openFiles(t)

	ctx, cancel := context.WithCancel(t.Context())
	var once sync.Once
	_, err := collect(t, e.ws, ctx, ".", &walker{
		visit: func(*entry) bool {
			once.Do(cancel)
			return true
		},
		work: func(*entry) { t.Error("a file was worked on after the walk was cancelled") },
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: error %v", err)
	}
	// More open than before would be a leak; fewer is someone else's close.
	if after := openFiles(t); after > before {
		t.Errorf("%d descriptors open after a cancelled walk, %d before", after, before)
	}

	seen, err := collect(t, e.ws, t.Context(), ".", &walker{limit: 25})
	if !errors.Is(err, errWalkLimit) || len(seen) > 25 {
		t.Errorf("limited walk: %d entries visited, error %v", len(seen), err)
	}
	if after := openFiles(t); after > before {
		t.Errorf("%d descriptors open after a limited walk, %d before", after, before)
	}
}

func TestComparePaths(t *testing.T) {
	// The order a walk in name order visits these in.
	want := []string{"a", "a/", "a/b", "a/b/c", "a/c", "a-b", "a.txt", "ab", "b/", "b/a"}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortFunc(got, comparePaths)
	if !slices.Equal(got, want) {
		t.Errorf("sorted %q, want %q", got, want)
	}
}
