package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The kinds of a tree entry as encoded. A skipped entry stands for a file
// too large to capture: its state is unknown, so diffs and restores leave
// it alone. An absent entry only appears as a root of a state.
const (
	kindFile    = 'f'
	kindDir     = 'd'
	kindLink    = 'l'
	kindSkipped = 's'
	kindAbsent  = 'a'
)

// treeEntry is one entry of a tree object, or one root of a state object
// (name is then the root's path).
type treeEntry struct {
	name string
	kind byte
	mode fs.FileMode
	size int64
	// hash is the content's object for a file, the target's for a link and
	// the tree object for a directory.
	hash   sum
	target string
}

const (
	treeHeader  = "ckpt-tree 1\n"
	stateHeader = "ckpt-state 1\n"
)

// encodeEntries serialises entries after header. The format is binary and
// compact: a new snapshot after a small edit writes a fresh tree object for
// every folder above the edit, so their size is what the store grows by.
func encodeEntries(header string, es []treeEntry) []byte {
	out := make([]byte, 0, len(header)+len(es)*64)
	out = append(out, header...)
	for _, e := range es {
		out = append(out, e.kind)
		out = binary.AppendUvarint(out, uint64(e.mode.Perm()))
		out = binary.AppendUvarint(out, uint64(e.size))
		if e.kind != kindSkipped && e.kind != kindAbsent {
			out = append(out, e.hash[:]...)
		}
		out = binary.AppendUvarint(out, uint64(len(e.name)))
		out = append(out, e.name...)
		if e.kind == kindLink {
			out = binary.AppendUvarint(out, uint64(len(e.target)))
			out = append(out, e.target...)
		}
	}
	return out
}

var errBadObject = errors.New("checkpoint: damaged tree object")

// decodeEntries is the inverse of encodeEntries.
func decodeEntries(header string, data []byte) ([]treeEntry, error) {
	rest, ok := bytes.CutPrefix(data, []byte(header))
	if !ok {
		return nil, errBadObject
	}
	uvarint := func() uint64 {
		v, k := binary.Uvarint(rest)
		if k <= 0 {
			ok = false
			return 0
		}
		rest = rest[k:]
		return v
	}
	str := func() string {
		n := uvarint()
		if !ok || n > uint64(len(rest)) {
			ok = false
			return ""
		}
		s := string(rest[:n])
		rest = rest[n:]
		return s
	}
	var es []treeEntry
	for ok && len(rest) > 0 {
		e := treeEntry{kind: rest[0]}
		rest = rest[1:]
		e.mode = fs.FileMode(uvarint()).Perm()
		e.size = int64(uvarint())
		if e.kind != kindSkipped && e.kind != kindAbsent {
			if len(rest) < len(e.hash) {
				return nil, errBadObject
			}
			copy(e.hash[:], rest)
			rest = rest[len(e.hash):]
		}
		e.name = str()
		if e.kind == kindLink {
			e.target = str()
		}
		es = append(es, e)
	}
	if !ok {
		return nil, errBadObject
	}
	return es, nil
}

// putEntries stores a tree or state object and returns its address.
func (s *Store) putEntries(header string, es []treeEntry, b *batch) (sum, error) {
	data := encodeEntries(header, es)
	h := sum(sha256.Sum256(data))
	return h, s.put(h, data, b)
}

// readTree returns the entries of tree object h, sorted by name.
func (s *Store) readTree(h sum) ([]treeEntry, error) {
	if es, ok := s.trees[h]; ok {
		return es, nil
	}
	data, err := s.get(h)
	if err != nil {
		return nil, err
	}
	es, err := decodeEntries(treeHeader, data)
	if err != nil {
		return nil, err
	}
	// Trees never change, so the cache is only bounded, never invalidated.
	if len(s.trees) > 1<<14 {
		clear(s.trees)
	}
	s.trees[h] = es
	return es, nil
}

// state is a decoded state object: its roots, each with its entry.
type state struct {
	id    string
	roots []treeEntry
}

func (s *Store) readState(id string) (state, error) {
	h, err := parseSum(id)
	if err != nil {
		return state{}, err
	}
	data, err := s.get(h)
	if err != nil {
		return state{}, err
	}
	roots, err := decodeEntries(stateHeader, data)
	if err != nil {
		return state{}, fmt.Errorf("checkpoint: %s is not a tree", id)
	}
	return state{id: id, roots: roots}, nil
}

// rootPaths returns the state's roots.
func (st state) rootPaths() []string {
	out := make([]string, len(st.roots))
	for i, r := range st.roots {
		out[i] = r.name
	}
	return out
}

// meta is what a snapshot observed besides the state itself; it is kept
// beside the state object, under trees/, keyed by the tree ID.
type meta struct {
	Files   int       `json:"files"`
	Bytes   int64     `json:"bytes"`
	Skipped []Skipped `json:"skipped,omitempty"`
	Ignored int       `json:"ignored"`
}

func (s *Store) metaPath(id string) string { return filepath.Join(s.dir, "trees", id) }

// Load returns a tree recorded earlier by its ID, from this process or an
// earlier one.
func (s *Store) Load(id string) (Tree, error) {
	if err := s.lock(); err != nil {
		return Tree{}, err
	}
	defer s.mu.Unlock()
	return s.load(id)
}

func (s *Store) load(id string) (Tree, error) {
	st, err := s.readState(id)
	if err != nil {
		return Tree{}, err
	}
	t := Tree{ID: id, Roots: st.rootPaths()}
	var m meta
	if data, err := os.ReadFile(s.metaPath(id)); err == nil && json.Unmarshal(data, &m) == nil {
		t.Files, t.Bytes, t.Skipped, t.Ignored = m.Files, m.Bytes, m.Skipped, m.Ignored
		return t, nil
	}
	// The record is lost (it is only a summary): count from the objects.
	err = s.expand(st, func(p string, e treeEntry) error {
		switch e.kind {
		case kindFile:
			t.Files++
			t.Bytes += e.size
		case kindSkipped:
			t.Skipped = append(t.Skipped, Skipped{Path: p, Why: "too large"})
		}
		return nil
	})
	return t, err
}

// Entries returns every entry of tree id, sorted by path.
func (s *Store) Entries(id string) ([]Entry, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	st, err := s.readState(id)
	if err != nil {
		return nil, err
	}
	var out []Entry
	err = s.expand(st, func(p string, e treeEntry) error {
		if x := publicEntry(p, e); x != nil {
			out = append(out, *x)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return out, err
}

// expand calls fn for every entry of the state, skipped ones included, and
// for the roots themselves but the whole workspace (".").
func (s *Store) expand(st state, fn func(p string, e treeEntry) error) error {
	for _, r := range st.roots {
		if err := s.expandNode(r.name, r, fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) expandNode(p string, e treeEntry, fn func(string, treeEntry) error) error {
	if p != "." {
		if err := fn(p, e); err != nil {
			return err
		}
	}
	if e.kind != kindDir {
		return nil
	}
	kids, err := s.readTree(e.hash)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := s.expandNode(join(p, k.name), k, fn); err != nil {
			return err
		}
	}
	return nil
}

// lookup returns the entry the state records at p, which one of its roots
// covers. An entry of kind 0 means absent.
func (s *Store) lookup(st state, p string) (treeEntry, error) {
	for _, r := range st.roots {
		if !covers(r.name, p) {
			continue
		}
		e := r
		rest := strings.TrimPrefix(strings.TrimPrefix(p, r.name), "/")
		if r.name == "." {
			rest = p
		}
		for c := range strings.SplitSeq(rest, "/") {
			if c == "" || c == "." {
				continue
			}
			if e.kind != kindDir {
				return treeEntry{}, nil
			}
			kids, err := s.readTree(e.hash)
			if err != nil {
				return treeEntry{}, err
			}
			i, found := slices.BinarySearchFunc(kids, c, func(k treeEntry, n string) int { return strings.Compare(k.name, n) })
			if !found {
				return treeEntry{}, nil
			}
			e = kids[i]
		}
		return e, nil
	}
	return treeEntry{}, fmt.Errorf("checkpoint: %s is outside the tree's roots", p)
}

// publicEntry turns a recorded entry into an Entry, or nil for an absent
// or skipped one (a skipped file has no recorded state).
func publicEntry(p string, e treeEntry) *Entry {
	x := &Entry{Path: p, Mode: e.mode, Size: e.size}
	switch e.kind {
	case kindFile:
		x.Type, x.Hash = File, e.hash.String()
	case kindDir:
		x.Type, x.Size = Dir, 0
	case kindLink:
		x.Type, x.Hash, x.Target = Symlink, e.hash.String(), e.target
	default:
		return nil
	}
	return x
}

// covers reports whether root r covers path p, component by component.
func covers(r, p string) bool {
	return r == "." || p == r || strings.HasPrefix(p, r+"/")
}

// join appends name to the workspace-relative folder dir.
func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// normalizeRoots sorts roots and drops duplicates and roots covered by
// another root.
func normalizeRoots(roots []string) []string {
	out := slices.Clone(roots)
	slices.SortFunc(out, func(a, b string) int {
		// "." first, then by path, so that a covering root precedes the
		// roots below it.
		if a == "." || b == "." {
			return boolCmp(b == ".", a == ".")
		}
		return strings.Compare(a, b)
	})
	var kept []string
	for _, r := range out {
		covered := false
		for _, k := range kept {
			if covers(k, r) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, r)
		}
	}
	return kept
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// cleanRel turns a root or want path into the store's form: workspace-
// relative, slash-separated and clean. An absolute path inside the
// workspace is accepted; one that escapes it is an error.
func (s *Store) cleanRel(p string) (string, error) {
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(s.ws, filepath.Clean(p))
		if err != nil {
			return "", fmt.Errorf("checkpoint: %s is outside the workspace", p)
		}
		p = rel
	}
	c := path.Clean(filepath.ToSlash(p))
	if c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) {
		return "", fmt.Errorf("checkpoint: %s is outside the workspace", p)
	}
	return c, nil
}

// private reports whether the workspace-relative path p is one the store
// never records nor writes: inside a .git folder, or inside the store.
func (s *Store) private(p string) bool {
	if s.skipRel != "" && covers(s.skipRel, p) {
		return true
	}
	for c := range strings.SplitSeq(p, "/") {
		if c == ".git" {
			return true
		}
	}
	return false
}
