package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agenttui/agenttui/internal/ignore"
)

// Snapshot records the current state of roots (workspace-relative). A root
// that is a file or symlink, or is absent, is recorded exactly — absent is
// a state: undo deletes a file the agent created — and ignore rules do not
// apply to it, since an agent may write a file inside node_modules on
// purpose. A root that is a directory is walked: its directories (with
// their modes), files and symlinks, minus ignored ones and .git folders.
// Roots are cleaned, duplicates and roots below other roots removed; roots
// inside a .git folder or inside the store are left out. A root escaping
// the workspace ("..") is an error. A root below a symlink is recorded as
// absent: the store never goes through a link, nor writes through one.
//
// Every object the tree needs is on disk when Snapshot returns, so the
// caller may journal the ID at once.
func (s *Store) Snapshot(ctx context.Context, roots []string) (Tree, error) {
	if err := s.lock(); err != nil {
		return Tree{}, err
	}
	defer s.mu.Unlock()
	b := &batch{}
	defer b.abort()
	t, err := s.snapshot(ctx, roots, b)
	if err != nil {
		return Tree{}, err
	}
	if err := s.commit(b); err != nil {
		return Tree{}, err
	}
	return t, s.saveStatCache()
}

// walk is one snapshot's state.
type walk struct {
	s   *Store
	ctx context.Context
	// now is when the snapshot began: the recording time of the hashes it
	// computes.
	now int64
	b   *batch
	// sem bounds the goroutines walking folders besides the caller's.
	sem chan struct{}

	mu      sync.Mutex // guards the fields below
	files   int
	bytes   int64
	skipped []Skipped
	ignored int
	// listed are the folders listed whole, whose stat cache is current.
	listed map[string]bool
}

func (s *Store) snapshot(ctx context.Context, roots []string, b *batch) (Tree, error) {
	var clean []string
	for _, r := range roots {
		c, err := s.cleanRel(r)
		if err != nil {
			return Tree{}, err
		}
		if !s.private(c) {
			clean = append(clean, c)
		}
	}
	clean = normalizeRoots(clean)
	w := &walk{
		s: s, ctx: ctx, b: b,
		now:    time.Now().UnixNano(),
		sem:    make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		listed: map[string]bool{},
	}
	var entries []treeEntry
	var walked []string
	for _, r := range clean {
		e, err := w.root(r)
		if err != nil {
			return Tree{}, err
		}
		if e.kind == kindDir {
			walked = append(walked, r)
		}
		entries = append(entries, e)
	}
	h, err := s.putEntries(stateHeader, entries, b)
	if err != nil {
		return Tree{}, err
	}
	slices.SortFunc(w.skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	t := Tree{ID: h.String(), Roots: clean, Files: w.files, Bytes: w.bytes, Skipped: w.skipped, Ignored: w.ignored}
	if t.Roots == nil {
		t.Roots = []string{}
	}
	m, _ := json.Marshal(meta{Files: t.Files, Bytes: t.Bytes, Skipped: t.Skipped, Ignored: t.Ignored})
	if !bytes.Equal(s.metas[t.ID], m) {
		if err := b.writeLater(s.metaPath(t.ID), m); err != nil {
			return Tree{}, err
		}
		if b.metas == nil {
			b.metas = map[string][]byte{}
		}
		b.metas[t.ID] = m
	}
	s.dropStatDirs(walked, w.listed, b)
	return t, nil
}

// root records the root r.
func (w *walk) root(r string) (treeEntry, error) {
	if r == "." {
		h, why, err := w.dir(".", w.s.rulesAt("."))
		if err == nil && why != "" {
			err = fmt.Errorf("checkpoint: workspace: %s", why)
		}
		return treeEntry{name: ".", kind: kindDir, hash: h}, err
	}
	if !w.s.parentsAreDirs(r) {
		return treeEntry{name: r, kind: kindAbsent}, nil
	}
	st, err := lstat(w.s.abs(r))
	if errors.Is(err, fs.ErrNotExist) {
		return treeEntry{name: r, kind: kindAbsent}, nil
	}
	if err != nil {
		return treeEntry{}, fmt.Errorf("checkpoint: %w", err)
	}
	prev := w.s.statOfPath(r, w.b)
	e, cur, err := w.entry(r, st, nil, prev)
	if err == nil && cur != prev {
		w.b.setStatFile(r, cur)
	}
	e.name = r
	if err == nil && e.kind == 0 {
		// Neither file, folder nor link: its state cannot be restored, so
		// it is not part of the state.
		e.kind = kindSkipped
		w.skip(r, st.size, "not a regular file")
	}
	return e, err
}

// parentsAreDirs reports whether every folder above the workspace-relative
// path rel is a real folder, not a link or a file.
func (s *Store) parentsAreDirs(rel string) bool {
	for i := range len(rel) {
		if rel[i] != '/' {
			continue
		}
		st, err := lstat(s.abs(rel[:i]))
		if err != nil || !st.mode.IsDir() {
			return false
		}
	}
	return true
}

// entry records the path rel, which lstat describes as st; rules are the
// ignore rules in force for its entries if it is a folder, and prev the
// stat cache's entry if it is a file. It returns the stat cache entry of a
// file captured. An entry of kind 0 means the path is not recorded.
func (w *walk) entry(rel string, st fileStat, rules *ignoreRules, prev *statEntry) (treeEntry, *statEntry, error) {
	e := treeEntry{mode: st.mode.Perm()}
	switch {
	case st.mode.IsDir():
		if rules == nil {
			rules = w.s.rulesAt(rel)
		}
		h, why, err := w.dir(rel, rules)
		if err != nil {
			return e, nil, err
		}
		e.kind, e.hash = kindDir, h
		if why != "" {
			e.kind = kindSkipped
			w.skip(rel, 0, why)
		}
	case st.mode.IsRegular():
		e2, cur, why, err := w.s.captureFile(rel, st, prev, w.now, w.b)
		if err != nil {
			return e, nil, err
		}
		if why != "" {
			w.skip(rel, e2.size, why)
			return treeEntry{kind: kindSkipped, mode: e.mode}, nil, nil
		}
		w.mu.Lock()
		w.files++
		w.bytes += e2.size
		over := w.bytes > w.s.maxTotal
		w.mu.Unlock()
		if over {
			return e, nil, fmt.Errorf("%w (%d MiB)", ErrTooLarge, w.s.maxTotal>>20)
		}
		return e2, cur, nil
	case st.mode&fs.ModeSymlink != 0:
		e, err := w.s.captureLink(rel, st, w.b)
		return e, nil, err
	}
	return e, nil, nil
}

func (w *walk) skip(rel string, size int64, why string) {
	w.mu.Lock()
	w.skipped = append(w.skipped, Skipped{Path: rel, Size: size, Why: why})
	w.mu.Unlock()
}

// dir records the folder rel and returns its tree object. why is set when
// the folder cannot be read: its state is then unknown, and it is recorded
// as skipped rather than as empty, which a restore would take for "its
// files were deleted".
func (w *walk) dir(rel string, rules *ignoreRules) (h sum, why string, err error) {
	if err := w.ctx.Err(); err != nil {
		return h, "", err
	}
	d, err := openDir(w.s.abs(rel))
	if err != nil {
		return h, unreadable(err), nil
	}
	defer d.close()
	ents, err := d.entries()
	if err != nil {
		return h, unreadable(err), nil
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var comps []string
	if rel != "." {
		comps = strings.Split(rel, "/")
	}
	for _, e := range ents {
		if n := e.Name(); ignore.IsFile(n) && e.Type().IsRegular() {
			rules = rules.with(w.s.ownRules(rel, comps))
			break
		}
	}

	w.mu.Lock()
	w.listed[rel] = true
	w.mu.Unlock()

	// The folder's stat cache as it was; a new one is made as the files
	// are seen, and replaces it if anything differs.
	old := w.s.stat[rel]
	out := make([]treeEntry, len(ents))
	stats := make([]*statEntry, len(ents))
	errs := make([]error, len(ents))
	visit := func(lo, hi int) {
		scratch := append(make([]string, 0, len(comps)+1), comps...)
		for i := lo; i < hi; i++ {
			name := ents[i].Name()
			child := join(rel, name)
			if name == ".git" || child == w.s.skipRel {
				continue
			}
			if len(rules.patterns) > 0 && rules.ignored(append(scratch, name), ents[i].IsDir()) {
				w.mu.Lock()
				w.ignored++
				w.mu.Unlock()
				continue
			}
			st, err := d.lstat(name)
			if err != nil {
				// Gone since the folder was listed: absent.
				continue
			}
			var prev *statEntry
			if st.mode.IsRegular() {
				prev = old.find(name)
			}
			out[i], stats[i], errs[i] = w.entry(child, st, rules, prev)
			out[i].name = name
		}
	}
	// Entries are looked at in chunks, several at once: a snapshot of an
	// unchanged workspace is mostly lstat calls, which cost microseconds
	// each here, and a wide folder must not be walked on one core.
	const chunk = 32
	var wg sync.WaitGroup
	for lo := 0; lo < len(ents); lo += chunk {
		hi := min(lo+chunk, len(ents))
		if hi == len(ents) {
			visit(lo, hi)
			break
		}
		select {
		case w.sem <- struct{}{}:
			wg.Go(func() {
				defer func() { <-w.sem }()
				visit(lo, hi)
			})
		default:
			visit(lo, hi)
		}
	}
	wg.Wait()
	kept := out[:0]
	nd := &statDir{}
	changed := false
	for i, e := range out {
		if errs[i] != nil {
			return h, "", errs[i]
		}
		if e.kind != 0 {
			kept = append(kept, e)
		}
		if stats[i] != nil {
			nd.names = append(nd.names, ents[i].Name())
			nd.ents = append(nd.ents, stats[i])
			changed = changed || stats[i] != old.find(ents[i].Name())
		}
	}
	if changed || old != nil && len(old.names) != len(nd.names) {
		w.b.setStatDir(rel, nd)
	}
	h, err = w.s.putEntries(treeHeader, kept, w.b)
	return h, "", err
}

// captureFile records the regular file rel, which lstat described as st:
// from prev, its stat cache entry, when that vouches for the file,
// otherwise by reading, hashing and storing it. It returns the stat cache
// entry for the file (prev when it was trusted, nil when the file could
// not be cached). why is set when the file is not captured (too large,
// unreadable, or no longer a regular file).
func (s *Store) captureFile(rel string, st fileStat, prev *statEntry, now int64, b *batch) (e treeEntry, cur *statEntry, why string, err error) {
	e = treeEntry{kind: kindFile, mode: st.mode.Perm(), size: st.size}
	if st.size > s.max {
		return e, nil, s.tooLarge(), nil
	}
	if prev.trusted(st) {
		e.hash = prev.hash
		return e, prev, "", nil
	}
	f, err := openNoFollow(s.abs(rel))
	if err != nil {
		return e, nil, unreadable(err), nil
	}
	defer f.Close()
	// What the open file is now is what is recorded: the path may have
	// been replaced since the lstat.
	fst, err := fstat(f)
	if err != nil || !fst.mode.IsRegular() {
		return e, nil, "changed while it was read", nil
	}
	e.mode, e.size = fst.mode.Perm(), fst.size
	if fst.size > s.max {
		return e, nil, s.tooLarge(), nil
	}
	data, err := readAll(f, fst.size, s.max)
	if err != nil {
		return e, nil, unreadable(err), nil
	}
	if int64(len(data)) > s.max {
		return e, nil, s.tooLarge(), nil
	}
	e.size, e.hash = int64(len(data)), sha256.Sum256(data)
	if err := s.put(e.hash, data, b); err != nil {
		return e, nil, "", err
	}
	if int64(len(data)) != fst.size {
		// Changed while it was read: not a state to vouch for.
		return e, nil, "", nil
	}
	return e, &statEntry{st: fst, recorded: now, hash: e.hash}, "", nil
}

// readAll reads f, expected to hold size bytes, stopping past limit.
func readAll(f *os.File, size, limit int64) ([]byte, error) {
	buf := make([]byte, 0, size+1)
	for int64(len(buf)) <= limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf)+512)
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// captureLink records the symbolic link rel; its target is stored as an
// object too, so a preview can read it by hash like a file's content.
func (s *Store) captureLink(rel string, st fileStat, b *batch) (treeEntry, error) {
	target, err := os.Readlink(s.abs(rel))
	if err != nil {
		return treeEntry{}, nil
	}
	e := treeEntry{kind: kindLink, mode: st.mode.Perm(), size: int64(len(target)), target: target}
	e.hash = sha256.Sum256([]byte(target))
	return e, s.put(e.hash, []byte(target), b)
}

func (s *Store) tooLarge() string {
	if s.max%(1<<20) == 0 {
		return fmt.Sprintf("larger than %d MiB", s.max>>20)
	}
	return fmt.Sprintf("larger than %d bytes", s.max)
}

// unreadable says why a path could not be read, without the path, which
// the Skipped record carries already.
func unreadable(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return "cannot be read: " + err.Error()
}
