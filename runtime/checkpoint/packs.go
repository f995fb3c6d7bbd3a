package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A pack holds the new objects of one operation that wrote many (a first
// snapshot, a large build): pack-<id>.pack is the objects back to back,
// each encoded as a loose object is, and pack-<id>.idx lists them sorted
// by address, with a checksum. The index is renamed into place last, so a
// pack is only ever seen whole.

const (
	packHeader = "ckpt-pack 1\n"
	idxHeader  = "ckpt-idx 1\n"
)

// packFile is a committed pack, open for reading.
type packFile struct {
	// name is the path without its extension.
	name string
	f    *os.File
	ents []packEntry
}

type packEntry struct {
	h      sum
	off, n int64
}

// packLoc is where in the store's packs an object lies.
type packLoc struct {
	pack   int
	off, n int64
}

// packWriter writes a pack under temporary names.
type packWriter struct {
	name    string
	tmp     string
	idxTmp  string
	f       *os.File
	w       *bufio.Writer
	off     int64
	ents    []packEntry
	written bool
}

func newPackWriter(dir string) (*packWriter, error) {
	pw := &packWriter{name: filepath.Join(dir, "pack-"+randomID()), tmp: tmpName(dir)}
	f, err := os.OpenFile(pw.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	pw.f, pw.w = f, bufio.NewWriterSize(f, 256<<10)
	pw.w.WriteString(packHeader)
	pw.off = int64(len(packHeader))
	return pw, nil
}

func (pw *packWriter) add(h sum, z []byte) error {
	if _, err := pw.w.Write(z); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	pw.ents = append(pw.ents, packEntry{h, pw.off, int64(len(z))})
	pw.off += int64(len(z))
	return nil
}

// finish completes the pack and its index under temporary names and
// returns the renames that publish them, the index last.
func (pw *packWriter) finish() ([]rename, error) {
	err := pw.w.Flush()
	if cerr := pw.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	slices.SortFunc(pw.ents, func(a, b packEntry) int { return bytes.Compare(a.h[:], b.h[:]) })
	out := make([]byte, 0, len(idxHeader)+len(pw.ents)*40+sha256.Size)
	out = append(out, idxHeader...)
	for _, e := range pw.ents {
		out = append(out, e.h[:]...)
		out = binary.AppendUvarint(out, uint64(e.off))
		out = binary.AppendUvarint(out, uint64(e.n))
	}
	check := sha256.Sum256(out)
	out = append(out, check[:]...)
	pw.idxTmp = tmpName(filepath.Dir(pw.name))
	if err := writeFile(pw.idxTmp, out); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	pw.written = true
	return []rename{{pw.tmp, pw.name + ".pack"}, {pw.idxTmp, pw.name + ".idx"}}, nil
}

func (pw *packWriter) abort() {
	if !pw.written {
		pw.f.Close()
	}
	os.Remove(pw.tmp)
	if pw.idxTmp != "" {
		os.Remove(pw.idxTmp)
	}
}

var errBadIndex = errors.New("checkpoint: damaged pack index")

// readIndex reads the index of the pack name.
func readIndex(name string) ([]packEntry, error) {
	data, err := os.ReadFile(name + ".idx")
	if err != nil {
		return nil, err
	}
	if len(data) < len(idxHeader)+sha256.Size {
		return nil, errBadIndex
	}
	body, check := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	rest, ok := bytes.CutPrefix(body, []byte(idxHeader))
	if !ok || sha256.Sum256(body) != [32]byte(check) {
		return nil, errBadIndex
	}
	var ents []packEntry
	for len(rest) > 0 {
		if len(rest) < 32 {
			return nil, errBadIndex
		}
		var e packEntry
		copy(e.h[:], rest)
		rest = rest[32:]
		off, k := binary.Uvarint(rest)
		if k <= 0 {
			return nil, errBadIndex
		}
		rest = rest[k:]
		n, k := binary.Uvarint(rest)
		if k <= 0 {
			return nil, errBadIndex
		}
		rest = rest[k:]
		e.off, e.n = int64(off), int64(n)
		ents = append(ents, e)
	}
	return ents, nil
}

// openPack makes the committed pack name readable.
func (s *Store) openPack(name string) error {
	ents, err := readIndex(name)
	if err != nil {
		return fmt.Errorf("checkpoint: %s: %w", filepath.Base(name), err)
	}
	f, err := os.Open(name + ".pack")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	i := len(s.packs)
	s.packs = append(s.packs, &packFile{name: name, f: f, ents: ents})
	for _, e := range ents {
		if _, ok := s.index[e.h]; !ok {
			s.index[e.h] = packLoc{i, e.off, e.n}
		}
	}
	return nil
}

// loadPacks opens every pack of the store. A pack whose index is damaged
// is left out: its objects count as missing and are written again when
// needed.
func (s *Store) loadPacks() {
	for _, p := range s.packs {
		p.f.Close()
	}
	s.packs, s.index = nil, map[sum]packLoc{}
	names, _ := filepath.Glob(filepath.Join(s.dir, "packs", "pack-*.idx"))
	slices.Sort(names)
	for _, n := range names {
		_ = s.openPack(strings.TrimSuffix(n, ".idx"))
	}
}

// keepPacks rewrites every pack holding objects not in live with only the
// live ones (or removes it), and returns the bytes freed.
func (s *Store) keepPacks(live map[sum]bool) (int64, error) {
	var freed int64
	for _, p := range s.packs {
		var keep []packEntry
		for _, e := range p.ents {
			if live[e.h] {
				keep = append(keep, e)
			}
		}
		if len(keep) == len(p.ents) {
			continue
		}
		if len(keep) > 0 {
			n, err := s.rewritePack(p, keep)
			if err != nil {
				return freed, err
			}
			freed -= n
		}
		// The index goes first: a pack without one is never read.
		for _, ext := range []string{".idx", ".pack"} {
			if info, err := os.Stat(p.name + ext); err == nil {
				freed += info.Size()
			}
			if err := os.Remove(p.name + ext); err != nil && !errors.Is(err, os.ErrNotExist) {
				return freed, fmt.Errorf("checkpoint: %w", err)
			}
		}
	}
	// Leftovers: packs whose index never made it, temporary files.
	ents, _ := os.ReadDir(filepath.Join(s.dir, "packs"))
	for _, d := range ents {
		n := d.Name()
		base := filepath.Join(s.dir, "packs", strings.TrimSuffix(n, ".pack"))
		_, idxErr := os.Stat(base + ".idx")
		if strings.HasPrefix(n, tmpPrefix) || strings.HasSuffix(n, ".pack") && errors.Is(idxErr, os.ErrNotExist) {
			if info, err := d.Info(); err == nil {
				freed += info.Size()
			}
			os.Remove(filepath.Join(s.dir, "packs", n))
		}
	}
	s.loadPacks()
	return freed, nil
}

// rewritePack writes a new pack holding the entries keep of p, durably,
// and returns its size.
func (s *Store) rewritePack(p *packFile, keep []packEntry) (int64, error) {
	pw, err := newPackWriter(filepath.Dir(p.name))
	if err != nil {
		return 0, err
	}
	for _, e := range keep {
		raw := make([]byte, e.n)
		if _, err := p.f.ReadAt(raw, e.off); err == nil {
			err = pw.add(e.h, raw)
		}
		if err != nil {
			pw.abort()
			return 0, fmt.Errorf("checkpoint: %w", err)
		}
	}
	b := &batch{pack: pw}
	defer b.abort()
	rs, err := pw.finish()
	if err != nil {
		return 0, err
	}
	b.renames = rs
	b.pack = nil
	if err := s.commit(b); err != nil {
		return 0, err
	}
	var n int64
	for _, r := range rs {
		if info, err := os.Stat(r.final); err == nil {
			n += info.Size()
		}
	}
	return n, nil
}
