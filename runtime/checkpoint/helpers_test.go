package checkpoint

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// folderState describes every path under root (.git and ignored folders
// included): type, permission bits, content hash or link target. Two equal
// descriptions mean byte-identical folders. skip leaves out the paths it
// returns true for.
func folderState(t testing.TB, root string, skip func(rel string) bool) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%s link -> %s", rel, target))
		case info.IsDir():
			lines = append(lines, fmt.Sprintf("%s dir %o", rel, info.Mode().Perm()))
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("%s file %o %x", rel, info.Mode().Perm(), sha256.Sum256(data)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// skipUnder returns a skip function for folderState that leaves out the
// given paths and everything below them.
func skipUnder(paths ...string) func(string) bool {
	return func(rel string) bool {
		for _, p := range paths {
			if covers(p, rel) {
				return true
			}
		}
		return false
	}
}

// put writes a file of the workspace, creating its folders.
func put(t testing.TB, ws, rel, content string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, ws, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// newStore opens a store for a fresh workspace; both are removed after the
// test.
func newStore(t testing.TB) (*Store, string) {
	t.Helper()
	ws := t.TempDir()
	s, err := Open(Options{Dir: filepath.Join(t.TempDir(), "store"), Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ws
}

func snap(t testing.TB, s *Store, roots ...string) Tree {
	t.Helper()
	tr, err := s.Snapshot(context.Background(), roots)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func diff(t testing.TB, s *Store, a, b Tree) []Change {
	t.Helper()
	cs, err := s.Diff(a.ID, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// undoWants builds the wants that take the workspace from the second tree
// of a diff back to the first: what an undo asks for.
func undoWants(cs []Change) []Want {
	ws := make([]Want, len(cs))
	for i, c := range cs {
		ws[i] = Want{Path: c.Path, Expect: c.After, Target: c.Before}
	}
	return ws
}

// redoWants builds the wants that take the workspace from the first tree
// of a diff to the second.
func redoWants(cs []Change) []Want {
	ws := make([]Want, len(cs))
	for i, c := range cs {
		ws[i] = Want{Path: c.Path, Expect: c.Before, Target: c.After}
	}
	return ws
}

func plan(t testing.TB, s *Store, wants []Want) *Plan {
	t.Helper()
	p, err := s.Plan(context.Background(), wants)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func apply(t testing.TB, s *Store, p *Plan, o ApplyOptions) Applied {
	t.Helper()
	a, err := s.Apply(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// describe renders changes one a line, for comparison with an expectation.
func describe(cs []Change) string {
	var lines []string
	for _, c := range cs {
		lines = append(lines, fmt.Sprintf("%s %s->%s +%d -%d%s", c.Path, side(c.Before), side(c.After), c.Added, c.Removed, map[bool]string{true: " binary"}[c.Binary]))
	}
	return strings.Join(lines, "\n")
}

func side(e *Entry) string {
	if e == nil {
		return "none"
	}
	if e.Type == Symlink {
		return "symlink:" + e.Target
	}
	return fmt.Sprintf("%s:%o", e.Type, e.Mode)
}

// describeSteps renders a plan's steps one a line.
func describeSteps(p *Plan) string {
	var lines []string
	for _, st := range p.Steps {
		c := ""
		if st.Conflict {
			c = " conflict"
		}
		lines = append(lines, st.Path+" "+st.Action.String()+c)
	}
	return strings.Join(lines, "\n")
}

// tempFiles lists the restore's and the store's temporary files under
// root.
func tempFiles(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (strings.HasPrefix(d.Name(), ".ckpt-") || strings.HasPrefix(d.Name(), tmpPrefix)) {
			out = append(out, p)
		}
		return nil
	})
	return out
}
