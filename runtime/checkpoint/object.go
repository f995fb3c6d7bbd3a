package checkpoint

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
)

// sum is an object's address: the sha256 of its uncompressed bytes. Kept as
// an array inside the store so that the hot paths neither allocate nor
// format hex.
type sum [32]byte

func (h sum) String() string { return hex.EncodeToString(h[:]) }

// parseSum reads a hex address, refusing anything else: an address becomes
// a file name, so it must never carry a separator.
func parseSum(s string) (sum, error) {
	var h sum
	if len(s) != 64 {
		return h, fmt.Errorf("checkpoint: %q is not an object hash", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("checkpoint: %q is not an object hash", s)
	}
	return h, nil
}

// objPath returns where loose object h lives: objects/ab/cdef…, git's
// layout, which keeps every folder small.
func (s *Store) objPath(h sum) string {
	x := h.String()
	return filepath.Join(s.dir, "objects", x[:2], x[2:])
}

// tmpSeq numbers the temporary files of this process, so that writers on
// several goroutines never pick the same name.
var tmpSeq atomic.Uint64

// tmpName returns a fresh temporary name in folder dir. The prefix lets
// Keep recognise the leftovers of a crash.
func tmpName(dir string) string {
	return filepath.Join(dir, tmpPrefix+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(tmpSeq.Add(1), 10))
}

const tmpPrefix = ".tmp-"

// fewObjects is the most new objects a batch writes as loose files, each
// fsynced. Beyond it they go into one pack file: creating a file costs far
// more than appending to one (0.1–0.4 ms each on the ext4 these sessions
// run on), and one syncfs replaces the fsyncs.
const fewObjects = 16

// batch is what one operation adds to the store. Nothing in it is visible
// to other operations, nor relied on by the store, until commit has made it
// durable: a tree ID the caller journals must never name an object a crash
// could lose, and the stat cache must never vouch for one.
type batch struct {
	mu sync.Mutex // guards everything below
	// seen holds the objects this batch stores or found on disk.
	seen  map[sum]bool
	found []sum
	// loose holds the first new objects, compressed; pack takes over when
	// there are more than fewObjects.
	loose []looseObj
	pack  *packWriter
	// renames are files written to a temporary name, renamed at commit.
	renames []rename
	// statDirs and statFiles are changes to the stat cache.
	statDirs  map[string]*statDir
	statFiles map[string]*statEntry
	metas     map[string][]byte
	done      bool
}

type looseObj struct {
	h sum
	z []byte
}

type rename struct{ tmp, final string }

// put stores data as object h unless the store or the batch has it.
func (s *Store) put(h sum, data []byte, b *batch) error {
	if s.haveObject(h) {
		return nil
	}
	b.mu.Lock()
	if b.seen[h] {
		b.mu.Unlock()
		return nil
	}
	if b.seen == nil {
		b.seen = map[sum]bool{}
	}
	b.seen[h] = true
	b.mu.Unlock()
	// A loose object can only exist if its folder does, which the store
	// knows; this spares a fresh store a failing lstat per object. An empty
	// file is what a crash can leave of an object never synced: it is
	// written again.
	if s.objDirs[h[0]] {
		if info, err := os.Lstat(s.objPath(h)); err == nil && info.Size() > 0 {
			b.mu.Lock()
			b.found = append(b.found, h)
			b.mu.Unlock()
			return nil
		}
	}
	z := compress(data)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pack == nil && len(b.loose) < fewObjects {
		b.loose = append(b.loose, looseObj{h, z})
		return nil
	}
	if b.pack == nil {
		pw, err := newPackWriter(filepath.Join(s.dir, "packs"))
		if err != nil {
			return err
		}
		b.pack = pw
		for _, o := range b.loose {
			if err := pw.add(o.h, o.z); err != nil {
				return err
			}
		}
		b.loose = nil
	}
	return b.pack.add(h, z)
}

var writerPool = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// compress encodes an object: its size, then its bytes deflated.
func compress(data []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(data)/2 + 64)
	var n [binary.MaxVarintLen64]byte
	buf.Write(n[:binary.PutUvarint(n[:], uint64(len(data)))])
	zw := writerPool.Get().(*flate.Writer)
	zw.Reset(&buf)
	_, _ = zw.Write(data) // a bytes.Buffer never fails
	_ = zw.Close()
	writerPool.Put(zw)
	return buf.Bytes()
}

var readerPool = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// decompress decodes an object and checks it against its address, so that
// a damaged object is reported rather than restored.
func decompress(h sum, raw []byte) ([]byte, error) {
	size, k := binary.Uvarint(raw)
	if k <= 0 || size > 1<<40 {
		return nil, fmt.Errorf("checkpoint: object %s is damaged", h)
	}
	zr := readerPool.Get().(io.ReadCloser)
	defer readerPool.Put(zr)
	if err := zr.(flate.Resetter).Reset(bytes.NewReader(raw[k:]), nil); err != nil {
		return nil, err
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil || sha256.Sum256(data) != h {
		return nil, fmt.Errorf("checkpoint: object %s is damaged", h)
	}
	return data, nil
}

// haveObject reports whether a committed object h is known to be in the
// store, without touching the disk.
func (s *Store) haveObject(h sum) bool {
	if _, ok := s.known[h]; ok {
		return true
	}
	_, ok := s.index[h]
	return ok
}

// has reports whether object h is in the store.
func (s *Store) has(h sum) bool {
	if s.haveObject(h) {
		return true
	}
	info, err := os.Lstat(s.objPath(h))
	return err == nil && info.Size() > 0
}

// get returns the bytes of object h.
func (s *Store) get(h sum) ([]byte, error) {
	if loc, ok := s.index[h]; ok {
		raw := make([]byte, loc.n)
		if _, err := s.packs[loc.pack].f.ReadAt(raw, loc.off); err != nil {
			return nil, fmt.Errorf("checkpoint: object %s: %w", h, err)
		}
		return decompress(h, raw)
	}
	raw, err := os.ReadFile(s.objPath(h))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("checkpoint: object %s is not in the store", h)
		}
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return decompress(h, raw)
}

// Read returns a file's content by its hash, for previews and restores. For
// a symlink's hash it returns the link target.
func (s *Store) Read(hash string) ([]byte, error) {
	h, err := parseSum(hash)
	if err != nil {
		return nil, err
	}
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	return s.get(h)
}

// writeLater writes data to a temporary file beside p, which commit
// renames to p once it is durable.
func (b *batch) writeLater(p string, data []byte) error {
	tmp := tmpName(filepath.Dir(p))
	if err := writeFile(tmp, data); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	b.mu.Lock()
	b.renames = append(b.renames, rename{tmp, p})
	b.mu.Unlock()
	return nil
}

// writeFile creates the new file p holding data.
func writeFile(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
	}
	return err
}

// commit makes everything the batch wrote durable, then visible: the data
// of every new file is on disk before any of them takes its final name, so
// that a crash never leaves a final name over incomplete content.
func (s *Store) commit(b *batch) error {
	if b.done {
		return nil
	}
	dirs := map[string]bool{}
	for _, o := range b.loose {
		d := filepath.Dir(s.objPath(o.h))
		if !s.objDirs[o.h[0]] {
			if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
				return fmt.Errorf("checkpoint: %w", err)
			}
			s.objDirs[o.h[0]] = true
			dirs[filepath.Dir(d)] = true
		}
		tmp := tmpName(d)
		if err := writeFile(tmp, o.z); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		b.renames = append(b.renames, rename{tmp, s.objPath(o.h)})
	}
	if b.pack != nil {
		rs, err := b.pack.finish()
		if err != nil {
			return err
		}
		b.renames = append(b.renames, rs...)
	}
	if err := syncFiles(b.renames, s.dir); err != nil {
		return fmt.Errorf("checkpoint: sync: %w", err)
	}
	for _, r := range b.renames {
		if err := os.Rename(r.tmp, r.final); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		dirs[filepath.Dir(r.final)] = true
	}
	for d := range dirs {
		if err := fsyncPath(d); err != nil {
			return fmt.Errorf("checkpoint: sync: %w", err)
		}
	}
	b.done = true

	for _, o := range b.loose {
		s.known[o.h] = struct{}{}
	}
	for _, h := range b.found {
		s.known[h] = struct{}{}
	}
	if b.pack != nil {
		if err := s.openPack(b.pack.name); err != nil {
			return err
		}
	}
	s.commitStat(b)
	for id, m := range b.metas {
		s.metas[id] = m
	}
	return nil
}

// abort removes what an operation that failed left written but not
// committed.
func (b *batch) abort() {
	if b.done {
		return
	}
	b.done = true
	for _, r := range b.renames {
		os.Remove(r.tmp)
	}
	if b.pack != nil {
		b.pack.abort()
	}
}

// syncFiles makes the content of the temporary files durable: one by one
// when they are few, otherwise with one syncfs of the store's file system.
func syncFiles(rs []rename, dir string) error {
	if len(rs) > fewObjects {
		if err := syncFS(dir); err == nil {
			return nil
		}
		// No syncfs here: fall back to one fsync per file.
	}
	for _, r := range rs {
		if err := fsyncPath(r.tmp); err != nil {
			return err
		}
	}
	return nil
}

// fsyncPath flushes the file or folder at p.
func fsyncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
