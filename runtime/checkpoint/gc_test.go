package checkpoint

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestKeepFreesUnreachable(t *testing.T) {
	s, ws := newStore(t)
	put(t, ws, "same.txt", "shared by every tree\n", 0o644)
	var trees []Tree
	for i := range 5 {
		put(t, ws, "f.txt", strings.Repeat("version ", 1000)+string(rune('a'+i)), 0o644)
		trees = append(trees, snap(t, s, "."))
	}
	before, err := s.Size()
	if err != nil {
		t.Fatal(err)
	}
	freed, err := s.Keep([]string{trees[4].ID})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := s.Size()
	if freed <= 0 || after != before-freed {
		t.Errorf("Size %d -> %d, freed %d", before, after, freed)
	}
	if _, err := s.Load(trees[0].ID); err == nil {
		t.Error("a dropped tree still loads")
	}
	es, err := s.Entries(trees[4].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if _, err := s.Read(e.Hash); err != nil {
			t.Errorf("a kept tree lost %s: %v", e.Path, err)
		}
	}
	// The cache must not vouch for a dropped object: restoring the first
	// version makes the store capture it again.
	put(t, ws, "f.txt", strings.Repeat("version ", 1000)+"a", 0o644)
	t5 := snap(t, s, ".")
	if t5.ID != trees[0].ID {
		t.Fatal("the same state recorded under another ID")
	}
	if _, err := s.Entries(t5.ID); err != nil {
		t.Fatalf("a state recorded after Keep is incomplete: %v", err)
	}
	if _, err := s.Keep([]string{"0000000000000000000000000000000000000000000000000000000000000000"}); err == nil {
		t.Error("Keep of an unknown tree removed everything")
	}
	if _, err := s.Entries(t5.ID); err != nil {
		t.Errorf("a failed Keep removed objects: %v", err)
	}
}

func TestKeepRewritesPacks(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	s, err := Open(Options{Dir: dir, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	// Enough files that each snapshot writes a pack, not loose objects.
	for i := range 40 {
		put(t, ws, "f"+strconv.Itoa(i), strings.Repeat("line "+strconv.Itoa(i)+"\n", 200), 0o644)
	}
	t1 := snap(t, s, ".")
	for i := range 20 {
		put(t, ws, "f"+strconv.Itoa(i), "changed "+strconv.Itoa(i)+"\n", 0o644)
	}
	t2 := snap(t, s, ".")
	if packs, _ := filepath.Glob(filepath.Join(dir, "packs", "*.pack")); len(packs) != 2 {
		t.Fatalf("packs: %v", packs)
	}
	before, _ := s.Size()
	freed, err := s.Keep([]string{t2.ID})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := s.Size()
	if freed <= 0 || after != before-freed {
		t.Errorf("Size %d -> %d, freed %d", before, after, freed)
	}
	if _, err := s.Load(t1.ID); err == nil {
		t.Error("a dropped tree still loads")
	}
	want, err := s.Entries(t2.ID)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	// After a restart, the rewritten packs still hold everything kept.
	s, err = Open(Options{Dir: dir, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Entries(t2.ID)
	if err != nil || len(got) != len(want) {
		t.Fatalf("entries after Keep and a restart: %d, %v", len(got), err)
	}
	for _, e := range got {
		data, err := s.Read(e.Hash)
		if err != nil || string(data) != read(t, ws, e.Path) {
			t.Errorf("%s: %v", e.Path, err)
		}
	}
	if tf := tempFiles(t, dir); len(tf) != 0 {
		t.Errorf("temporary files left in the store: %v", tf)
	}
}
