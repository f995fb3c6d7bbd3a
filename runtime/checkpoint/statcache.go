package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path"
	"slices"
	"strings"
	"time"
)

// fileStat is what lstat says about a path, as far as the store cares.
type fileStat struct {
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
	ino          uint64
	// mode is the type and permission bits.
	mode os.FileMode
}

// statEntry remembers a file's hash by its stat: while size, times, inode
// and mode are unchanged, the content is taken to be unchanged too, which
// is what lets a snapshot of an unchanged workspace read no file. Entries
// are never changed once made, so walks share them without locking.
type statEntry struct {
	st fileStat
	// recorded is when the file was hashed (nanoseconds since the epoch).
	recorded int64
	hash     sum
}

// statDir is the stat cache of one folder: its files' entries, sorted by
// name. A walk lists folders in name order, so it finds each file's entry
// by a short binary search in a small, contiguous list: with 10,000 files
// a hash map keyed by whole paths cost a tenth of an unchanged snapshot.
type statDir struct {
	names []string
	ents  []*statEntry
}

func (d *statDir) find(name string) *statEntry {
	if d == nil {
		return nil
	}
	if i, ok := slices.BinarySearch(d.names, name); ok {
		return d.ents[i]
	}
	return nil
}

// with returns a copy of d with name's entry set (nil removes it).
func (d *statDir) with(name string, e *statEntry) *statDir {
	out := &statDir{}
	if d != nil {
		out.names, out.ents = slices.Clone(d.names), slices.Clone(d.ents)
	}
	i, ok := slices.BinarySearch(out.names, name)
	switch {
	case ok && e != nil:
		out.ents[i] = e
	case ok:
		out.names = slices.Delete(out.names, i, i+1)
		out.ents = slices.Delete(out.ents, i, i+1)
	case e != nil:
		out.names = slices.Insert(out.names, i, name)
		out.ents = slices.Insert(out.ents, i, e)
	}
	return out
}

// racyMargin is how much older than its recording a file's times must be
// for a cache entry to be trusted. A file changed in the same timestamp
// tick as it was hashed keeps its times (git's "racy clean" problem), and
// the kernel stamps files from a clock that lags the one Go reads by up
// to a tick, 10 ms at worst on common kernels.
const racyMargin = 20 * time.Millisecond

// coarseMargin replaces racyMargin on file systems that keep whole seconds
// only (FAT keeps two).
const coarseMargin = 2 * time.Second

// trusted reports whether the entry still gives the hash of a file that
// lstat now describes as st.
func (e *statEntry) trusted(st fileStat) bool {
	// Field by field, mtime first: it differs first when anything does.
	if e == nil || e.st.mtime != st.mtime || e.st.ctime != st.ctime || e.st.size != st.size ||
		e.st.ino != st.ino || e.st.mode != st.mode {
		return false
	}
	margin := racyMargin.Nanoseconds()
	if st.mtime%1e9 == 0 && st.ctime%1e9 == 0 {
		margin = coarseMargin.Nanoseconds()
	}
	return max(st.mtime, st.ctime) < e.recorded-margin
}

// splitPath splits a workspace-relative path into its folder and name.
func splitPath(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// statOfPath returns the cache entry of the path rel, the batch's first: a
// plan captures its paths twice.
func (s *Store) statOfPath(rel string, b *batch) *statEntry {
	b.mu.Lock()
	e, ok := b.statFiles[rel]
	b.mu.Unlock()
	if ok {
		return e
	}
	dir, name := splitPath(rel)
	return s.stat[dir].find(name)
}

// setStatDir stages the stat cache of a folder a walk listed whole: it
// replaces the folder's cache at commit, which drops the files gone since.
func (b *batch) setStatDir(dir string, d *statDir) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.statDirs == nil {
		b.statDirs = map[string]*statDir{}
	}
	b.statDirs[dir] = d
}

// setStatFile stages the cache entry of one path.
func (b *batch) setStatFile(rel string, e *statEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.statFiles == nil {
		b.statFiles = map[string]*statEntry{}
	}
	b.statFiles[rel] = e
}

// dropStatDirs stages dropping the cache of the folders below the walked
// roots that the walk did not list (deleted, or now ignored).
func (s *Store) dropStatDirs(walked []string, listed map[string]bool, b *batch) {
	for dir := range s.stat {
		if listed[dir] {
			continue
		}
		for _, w := range walked {
			if covers(w, dir) {
				b.setStatDir(dir, nil)
				break
			}
		}
	}
}

// commitStat applies the batch's stat cache changes; it runs once the
// objects they name are durable.
func (s *Store) commitStat(b *batch) {
	for dir, d := range b.statDirs {
		if d == nil || len(d.names) == 0 {
			delete(s.stat, dir)
		} else {
			s.stat[dir] = d
		}
		s.statDirty = true
	}
	for rel, e := range b.statFiles {
		dir, name := splitPath(rel)
		s.stat[dir] = s.stat[dir].with(name, e)
		s.statDirty = true
	}
}

// dropStat removes the cache entries whose hash is not in live: the cache
// must not vouch for content that is gone.
func (s *Store) dropStat(live map[sum]bool) {
	for dir, d := range s.stat {
		for i := len(d.names) - 1; i >= 0; i-- {
			if !live[d.ents[i].hash] {
				d = d.with(d.names[i], nil)
				s.statDirty = true
			}
		}
		s.stat[dir] = d
	}
}

const statHeader = "ckpt-stat 2\n"

func (s *Store) statPath() string { return s.dir + string(os.PathSeparator) + "statcache" }

// saveStatCache writes the cache when it changed. It is not synced: a
// cache lost in a crash only costs a rehash, and the checksum makes a torn
// file read as empty rather than as wrong hashes.
func (s *Store) saveStatCache() error {
	if !s.statDirty {
		return nil
	}
	dirs := make([]string, 0, len(s.stat))
	for d := range s.stat {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	out := make([]byte, 0, 1<<16)
	out = append(out, statHeader...)
	for _, dir := range dirs {
		d := s.stat[dir]
		out = binary.AppendUvarint(out, uint64(len(dir)))
		out = append(out, dir...)
		out = binary.AppendUvarint(out, uint64(len(d.names)))
		for i, name := range d.names {
			e := d.ents[i]
			out = binary.AppendUvarint(out, uint64(len(name)))
			out = append(out, name...)
			out = binary.AppendVarint(out, e.st.size)
			out = binary.AppendVarint(out, e.st.mtime)
			out = binary.AppendVarint(out, e.st.ctime)
			out = binary.AppendUvarint(out, e.st.ino)
			out = binary.AppendUvarint(out, uint64(e.st.mode))
			out = binary.AppendVarint(out, e.recorded)
			out = append(out, e.hash[:]...)
		}
	}
	check := sha256.Sum256(out)
	out = append(out, check[:]...)
	tmp := tmpName(s.dir)
	if err := writeFile(tmp, out); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.statPath()); err != nil {
		return err
	}
	s.statDirty = false
	return nil
}

// loadStatCache reads the cache saved by an earlier process; anything
// unreadable leaves it empty.
func (s *Store) loadStatCache() {
	data, err := os.ReadFile(s.statPath())
	if err != nil || len(data) < len(statHeader)+sha256.Size {
		return
	}
	body, check := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if sha256.Sum256(body) != [32]byte(check) {
		return
	}
	rest, ok := bytes.CutPrefix(body, []byte(statHeader))
	if !ok {
		return
	}
	bad := false
	uv := func() uint64 {
		v, k := binary.Uvarint(rest)
		if k <= 0 {
			bad = true
			return 0
		}
		rest = rest[k:]
		return v
	}
	sv := func() int64 {
		v, k := binary.Varint(rest)
		if k <= 0 {
			bad = true
			return 0
		}
		rest = rest[k:]
		return v
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(rest)) {
			bad = true
			return ""
		}
		v := string(rest[:n])
		rest = rest[n:]
		return v
	}
	m := map[string]*statDir{}
	for len(rest) > 0 && !bad {
		dir := path.Clean(str())
		n := uv()
		if bad || n > uint64(len(rest)) {
			return
		}
		d := &statDir{names: make([]string, 0, n), ents: make([]*statEntry, 0, n)}
		for range n {
			name := str()
			e := &statEntry{}
			e.st.size, e.st.mtime, e.st.ctime = sv(), sv(), sv()
			e.st.ino, e.st.mode = uv(), os.FileMode(uv())
			e.recorded = sv()
			if bad || len(rest) < len(e.hash) {
				return
			}
			copy(e.hash[:], rest)
			rest = rest[len(e.hash):]
			d.names, d.ents = append(d.names, name), append(d.ents, e)
		}
		if !slices.IsSorted(d.names) {
			return
		}
		m[dir] = d
	}
	if !bad {
		s.stat = m
	}
}
