package checkpoint

import (
	"bytes"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Change is how one path differs between two trees.
type Change struct {
	Path string
	// Before and After are the path's entries in the two trees; nil means
	// absent.
	Before, After *Entry
	// Added and Removed count lines, for text files; they are 0 for binary
	// files and for anything that is not a file.
	Added, Removed int
	// Binary is set when either side is a file with a NUL byte in its first
	// 8 KiB.
	Binary bool
}

// Diff returns the changes from tree a to tree b, sorted by path. When
// their roots differ, only the paths inside the roots of both trees are
// compared: a path covered by only one tree is left out, since the other
// says nothing about it. Files either tree skipped (too large) are left out
// too.
func (s *Store) Diff(a, b string) ([]Change, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	sa, err := s.readState(a)
	if err != nil {
		return nil, err
	}
	sb, err := s.readState(b)
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, r := range overlap(sa.rootPaths(), sb.rootPaths()) {
		ea, err := s.lookup(sa, r)
		if err != nil {
			return nil, err
		}
		eb, err := s.lookup(sb, r)
		if err != nil {
			return nil, err
		}
		if err := s.diffNode(r, ea, eb, &out); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.Path, y.Path) })
	for i := range out {
		if err := s.countLines(&out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// overlap returns the region both sets of roots cover, as roots.
func overlap(ra, rb []string) []string {
	var out []string
	for _, x := range ra {
		for _, y := range rb {
			switch {
			case covers(x, y):
				out = append(out, y)
			case covers(y, x):
				out = append(out, x)
			}
		}
	}
	return normalizeRoots(out)
}

// diffNode appends the changes at and below p, recorded as ea in one tree
// and eb in the other. Folders with equal tree objects are equal all the
// way down, which is what makes a diff of two large trees cheap.
func (s *Store) diffNode(p string, ea, eb treeEntry, out *[]Change) error {
	if ea.kind == kindSkipped || eb.kind == kindSkipped {
		return nil
	}
	if p != "." && !sameRecorded(ea, eb) {
		*out = append(*out, Change{Path: p, Before: publicEntry(p, ea), After: publicEntry(p, eb)})
	}
	if ea.kind == kindDir && eb.kind == kindDir && ea.hash == eb.hash {
		return nil
	}
	var ka, kb []treeEntry
	var err error
	if ea.kind == kindDir {
		if ka, err = s.readTree(ea.hash); err != nil {
			return err
		}
	}
	if eb.kind == kindDir {
		if kb, err = s.readTree(eb.hash); err != nil {
			return err
		}
	}
	// Both lists are sorted by name: merge them.
	for len(ka) > 0 || len(kb) > 0 {
		var x, y treeEntry
		switch {
		case len(kb) == 0 || len(ka) > 0 && ka[0].name < kb[0].name:
			x, ka = ka[0], ka[1:]
		case len(ka) == 0 || kb[0].name < ka[0].name:
			y, kb = kb[0], kb[1:]
		default:
			x, y, ka, kb = ka[0], kb[0], ka[1:], kb[1:]
		}
		name := x.name
		if name == "" {
			name = y.name
		}
		if err := s.diffNode(join(p, name), x, y, out); err != nil {
			return err
		}
	}
	return nil
}

// sameRecorded reports whether two recorded entries are the same state.
func sameRecorded(a, b treeEntry) bool {
	return sameEntry(publicEntry("", a), publicEntry("", b))
}

// sameEntry reports whether two entries are the same state: same type,
// same content or target, same permission bits (a link has none that
// matter).
func sameEntry(a, b *Entry) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case File:
		return a.Hash != "" && a.Hash == b.Hash && a.Mode.Perm() == b.Mode.Perm()
	case Dir:
		return a.Mode.Perm() == b.Mode.Perm()
	case Symlink:
		return a.Target == b.Target
	}
	return false
}

// binarySniff is how much of a file is searched for a NUL byte.
const binarySniff = 8 << 10

// countLines fills in a change's line counts.
func (s *Store) countLines(c *Change) error {
	var before, after []byte
	isFile := false
	for _, side := range []struct {
		e    *Entry
		data *[]byte
	}{{c.Before, &before}, {c.After, &after}} {
		if side.e == nil || side.e.Type != File {
			continue
		}
		isFile = true
		h, err := parseSum(side.e.Hash)
		if err != nil {
			return err
		}
		if *side.data, err = s.get(h); err != nil {
			return err
		}
	}
	if !isFile {
		return nil
	}
	if isBinary(before) || isBinary(after) {
		c.Binary = true
		return nil
	}
	if bytes.Equal(before, after) {
		return nil
	}
	b := string(before)
	for _, e := range udiff.Lines(b, string(after)) {
		c.Removed += countLines(b[e.Start:e.End])
		c.Added += countLines(e.New)
	}
	return nil
}

func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

// countLines counts the lines of s, a last line without a newline
// included.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// NewlySkipped returns what the tree after skipped (a file too large,
// unreadable, or changing while it was read; a folder that could not be
// listed) that the recorded state before did not: there it was recorded,
// or absent. Diff leaves such paths out, so a restore of before cannot
// take back what happened to them, and a caller must say so. A path that
// before skipped too, or that its roots do not cover, is left out: before
// already says nothing of it.
func (s *Store) NewlySkipped(before string, after Tree) ([]Skipped, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	st, err := s.readState(before)
	if err != nil {
		return nil, err
	}
	var out []Skipped
	for _, sk := range after.Skipped {
		known, err := s.knows(st, sk.Path)
		if err != nil {
			return nil, err
		}
		if known {
			out = append(out, sk)
		}
	}
	return out, nil
}

// knows reports whether the state st records the path p, as something or
// as absent: a root covers it, and neither p nor a folder above it was
// skipped.
func (s *Store) knows(st state, p string) (bool, error) {
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
			if e.kind == kindSkipped {
				return false, nil
			}
			if c == "" || c == "." {
				continue
			}
			if e.kind != kindDir {
				// Absent, or not a folder, below here.
				return true, nil
			}
			kids, err := s.readTree(e.hash)
			if err != nil {
				return false, err
			}
			i, found := slices.BinarySearchFunc(kids, c, func(k treeEntry, n string) int { return strings.Compare(k.name, n) })
			if !found {
				return true, nil
			}
			e = kids[i]
		}
		return e.kind != kindSkipped, nil
	}
	return false, nil
}
