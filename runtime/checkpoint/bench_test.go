package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// makeWorkspace fills ws with files small files spread over folders
// folders, each with its own content.
func makeWorkspace(tb testing.TB, ws string, files, folders int) {
	tb.Helper()
	for d := range folders {
		if err := os.MkdirAll(filepath.Join(ws, fmt.Sprintf("pkg%03d", d)), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range files {
		p := filepath.Join(ws, fmt.Sprintf("pkg%03d", i%folders), fmt.Sprintf("file%05d.go", i))
		content := fmt.Sprintf("package pkg%03d\n\n// File %d.\nfunc F%d() int { return %d }\n", i%folders, i, i, i*7)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkSnapshotFirst10k records 10,000 small files in 100 folders
// into a fresh store: every file is read, hashed, compressed and written,
// and the store synced.
func BenchmarkSnapshotFirst10k(b *testing.B) {
	ws := b.TempDir()
	makeWorkspace(b, ws, 10000, 100)
	base := b.TempDir()
	b.ResetTimer()
	for i := range b.N {
		s, err := Open(Options{Dir: filepath.Join(base, fmt.Sprint(i)), Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		t, err := s.Snapshot(context.Background(), []string{"."})
		if err != nil || t.Files != 10000 {
			b.Fatal(t.Files, err)
		}
		s.Close()
	}
}

// BenchmarkSnapshotUnchanged10k records the same workspace again, nothing
// changed: the stat cache vouches for every file, so none is read.
func BenchmarkSnapshotUnchanged10k(b *testing.B) {
	ws := b.TempDir()
	makeWorkspace(b, ws, 10000, 100)
	s, err := Open(Options{Dir: b.TempDir(), Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	first, err := s.Snapshot(context.Background(), []string{"."})
	if err != nil {
		b.Fatal(err)
	}
	// Files written within racyMargin of the first snapshot are hashed
	// again by the next one, as git does with racily clean entries; this
	// one settles them, so the loop measures the steady state.
	if _, err := s.Snapshot(context.Background(), []string{"."}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		t, err := s.Snapshot(context.Background(), []string{"."})
		if err != nil || t.ID != first.ID {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiskAfter50SmallEdits reports what 50 snapshots cost on disk,
// each after a one-line edit of one file of a 1,000-file workspace,
// against the bytes the edits changed.
func BenchmarkDiskAfter50SmallEdits(b *testing.B) {
	for range b.N {
		grown, changed, _, manifest := diskAfterSmallEdits(b, 50)
		b.ReportMetric(float64(grown), "store-growth-B")
		b.ReportMetric(float64(changed), "edited-files-B")
		b.ReportMetric(float64(manifest), "manifest-B")
	}
}

// diskAfterSmallEdits snapshots a 1,000-file workspace, then makes edits
// one-line edits, each followed by a snapshot. It returns how much the
// store grew over the edits, the sum of the edited files' sizes, and the
// store's size after the first snapshot, and the size of the first
// snapshot's tree objects (what each snapshot would cost if it wrote its
// whole listing).
func diskAfterSmallEdits(tb testing.TB, edits int) (grown, changed, first int64, manifest int) {
	ws := tb.TempDir()
	makeWorkspace(tb, ws, 1000, 10)
	s, err := Open(Options{Dir: tb.TempDir(), Workspace: ws})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	t0 := snap(tb, s, ".")
	first, _ = s.Size()
	manifest = manifestBytes(tb, s, t0.ID)
	for i := range edits {
		j := i * 37 % 1000
		p := filepath.Join(ws, fmt.Sprintf("pkg%03d", j%10), fmt.Sprintf("file%05d.go", j))
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		data = append(data, fmt.Sprintf("// edit %d\n", i)...)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			tb.Fatal(err)
		}
		changed += int64(len(data))
		snap(tb, s, ".")
	}
	size, _ := s.Size()
	return size - first, changed, first, manifest
}

func TestDiskAfter50SmallEdits(t *testing.T) {
	grown, changed, first, manifest := diskAfterSmallEdits(t, 50)
	t.Logf("first snapshot: store %d B, its tree objects %d B uncompressed; 50 one-line edits: store grew %d B (%d B/snapshot), edited files %d B",
		first, manifest, grown, grown/50, changed)
	// A snapshot writes the trees of the edited file's folder and of the
	// root, never the whole listing: far less than 50 manifests.
	if grown > 50*int64(manifest)/5 {
		t.Errorf("50 small edits grew the store by %d B, more than a fifth of 50 manifests (%d B each)", grown, manifest)
	}
}

// manifestBytes returns the uncompressed size of the tree objects of tree
// id: what a snapshot would cost if it wrote its whole listing.
func manifestBytes(tb testing.TB, s *Store, id string) int {
	st, err := s.readState(id)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	var walk func(e treeEntry)
	walk = func(e treeEntry) {
		if e.kind != kindDir {
			return
		}
		kids, err := s.readTree(e.hash)
		if err != nil {
			tb.Fatal(err)
		}
		n += len(encodeEntries(treeHeader, kids))
		for _, k := range kids {
			walk(k)
		}
	}
	for _, r := range st.roots {
		walk(r)
	}
	return n
}
