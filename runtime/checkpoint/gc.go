package checkpoint

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Size returns the bytes the store's files hold (their apparent size, not
// the blocks the file system rounds them up to).
func (s *Store) Size() (int64, error) {
	if err := s.lock(); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	var n int64
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}

// Keep removes every object not reachable from the given trees — garbage
// collection once older checkpoints are dropped — and returns the bytes
// freed. If one of the trees cannot be read, nothing is removed: a store
// that lost an object must not lose more.
func (s *Store) Keep(trees []string) (int64, error) {
	if err := s.lock(); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	live, walked := map[sum]bool{}, map[sum]bool{}
	ids := map[string]bool{}
	for _, id := range trees {
		st, err := s.readState(id)
		if err != nil {
			return 0, err
		}
		h, _ := parseSum(id)
		live[h] = true
		ids[id] = true
		for _, r := range st.roots {
			if err := s.mark(r, live, walked); err != nil {
				return 0, fmt.Errorf("checkpoint: tree %s: %w", id, err)
			}
		}
	}
	// An unfinished restore (one that failed in this process) still needs
	// its targets: the next Open finishes it.
	if data, err := os.ReadFile(s.pendingPath()); err == nil {
		var rec pendingRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			return 0, fmt.Errorf("checkpoint: the pending restore record is damaged: %w", err)
		}
		for _, st := range rec.Steps {
			if st.Target != nil && st.Target.Hash != "" {
				if h, err := parseSum(st.Target.Hash); err == nil {
					live[h] = true
				}
			}
		}
	}

	var freed int64
	remove := func(p string, d fs.DirEntry) error {
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		freed += info.Size()
		return nil
	}
	objects := filepath.Join(s.dir, "objects")
	err := filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			// A leftover of a crash: operations run one at a time, so no
			// writer is using it.
			return remove(p, d)
		}
		var h sum
		x := filepath.Base(filepath.Dir(p)) + name
		if len(x) != 64 {
			return nil
		}
		if _, err := hex.Decode(h[:], []byte(x)); err != nil || live[h] {
			return nil
		}
		delete(s.known, h)
		return remove(p, d)
	})
	if err != nil {
		return freed, fmt.Errorf("checkpoint: %w", err)
	}
	n, err := s.keepPacks(live)
	freed += n
	if err != nil {
		return freed, err
	}
	metas, err := os.ReadDir(filepath.Join(s.dir, "trees"))
	if err != nil {
		return freed, fmt.Errorf("checkpoint: %w", err)
	}
	for _, d := range metas {
		if !ids[d.Name()] {
			delete(s.metas, d.Name())
			if err := remove(filepath.Join(s.dir, "trees", d.Name()), d); err != nil {
				return freed, fmt.Errorf("checkpoint: %w", err)
			}
		}
	}
	s.dropStat(live)
	clear(s.trees)
	return freed, s.saveStatCache()
}

// mark adds the objects e needs to live. trees holds the tree objects
// already walked: an unchanged folder shared by many snapshots is walked
// once.
func (s *Store) mark(e treeEntry, live, trees map[sum]bool) error {
	switch e.kind {
	case kindFile, kindLink:
		live[e.hash] = true
	case kindDir:
		if trees[e.hash] {
			return nil
		}
		live[e.hash], trees[e.hash] = true, true
		kids, err := s.readTree(e.hash)
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := s.mark(k, live, trees); err != nil {
				return err
			}
		}
	}
	return nil
}
