// Package checkpoint keeps recorded states of a workspace folder, so that
// what an agent changed can be undone, redone or rewound without git and
// without touching the workspace's own repository.
//
// A store is a folder of content-addressed objects, git-like: a file's
// content is one object, each directory is a tree object listing its
// entries, and a recorded state (a Tree) is a small object naming its
// roots. An unchanged directory has an unchanged tree, so a new snapshot
// costs only what changed. A stat cache remembers each file's hash by its
// size, times and inode, so a snapshot of an unchanged workspace reads no
// file at all.
//
// A restore is planned first (Plan looks at the disk and never writes to
// it), shown to the person, and applied only if the disk still matches what
// they saw (the plan's digest). Apply journals its steps before performing
// them and performs each one atomically, so a process killed halfway leaves
// no half-written file, and the next Open finishes the restore.
//
// On disk, under the store's folder: objects/ab/cdef… are loose objects
// (deflated, named by the sha256 of their content); packs/ holds the
// objects of operations that wrote many at once, one pack and index each;
// trees/<id> is what a snapshot observed besides the state (counts, skipped
// files); statcache is the stat cache; pending.json is the intent of a
// restore under way.
//
// Folders named .git are never read or written: the store works the same in
// a folder that is a repository and in one that is not, and never runs git.
package checkpoint

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// DefaultMaxFileBytes is the size bound used when Options.MaxFileBytes is 0:
// larger files are not captured (they are reported in Tree.Skipped), because
// copying build outputs and data sets on every turn would cost more than an
// undo of them is worth.
const DefaultMaxFileBytes = 8 << 20

// Options say where a store keeps its objects and which folder it records.
type Options struct {
	// Dir is the store's folder; it is created (0700) if missing. It may lie
	// inside the workspace: snapshots then leave it out.
	Dir string
	// Workspace is the absolute, clean workspace root; every path the store
	// handles is inside it.
	Workspace string
	// MaxFileBytes bounds the files captured; 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// MaxSnapshotBytes bounds the files one snapshot records, together; 0
	// means DefaultMaxSnapshotBytes. A snapshot past it is abandoned with
	// ErrTooLarge, having stored nothing.
	MaxSnapshotBytes int64
}

// DefaultMaxSnapshotBytes is the bound of one snapshot when
// Options.MaxSnapshotBytes is 0: recording a larger workspace before a shell
// command would hold the command up for long and copy the workspace into
// the store.
const DefaultMaxSnapshotBytes = 1 << 30

// ErrTooLarge is returned by Snapshot when the files to record pass
// Options.MaxSnapshotBytes.
var ErrTooLarge = errors.New("checkpoint: the files to record are larger than the bound of one snapshot")

// EntryType is the kind of a recorded path.
type EntryType uint8

// The kinds of entries a tree records. Other kinds (pipes, sockets,
// devices) are never captured: nothing could restore them faithfully.
const (
	File EntryType = iota + 1
	Dir
	Symlink
)

// String returns the type's stable name: "file", "dir" or "symlink".
func (t EntryType) String() string {
	switch t {
	case File:
		return "file"
	case Dir:
		return "dir"
	case Symlink:
		return "symlink"
	}
	return fmt.Sprintf("EntryType(%d)", uint8(t))
}

// Entry is one path's recorded state.
type Entry struct {
	// Path is workspace-relative and slash-separated.
	Path string
	Type EntryType
	// Mode holds the permission bits (0755 etc.): exec bits matter, so a
	// restore sets them exactly.
	Mode fs.FileMode
	Size int64
	// Hash is the content's hex sha256 for files, the link target's for
	// symlinks, and "" for directories. Read returns the content by it.
	Hash string
	// Target is a symlink's target.
	Target string
}

// Tree is a recorded state of some roots of the workspace.
type Tree struct {
	// ID is the content address of the whole state, roots included: equal
	// IDs mean equal states. The sizes of skipped files and the Ignored
	// count are not part of the state, so a large log file that keeps
	// growing does not change the ID.
	ID string
	// Roots are workspace-relative, slash-separated and sorted; "." is the
	// whole workspace.
	Roots []string
	// Files and Bytes count the files captured.
	Files int
	Bytes int64
	// Skipped lists the files not captured, sorted by path: larger than
	// the size bound, or unreadable. Their state is unknown, so diffs leave
	// them out and a restore never touches them.
	Skipped []Skipped
	// Ignored counts the entries left out because an ignore file
	// (.gitignore, .ignore, .git/info/exclude) names them; an ignored
	// directory counts once.
	Ignored int
}

// Skipped is a file a snapshot did not capture, and why.
type Skipped struct {
	Path string
	Size int64
	// Why is for people, e.g. "larger than 8 MiB".
	Why string
}

// Store is an open checkpoint store. Its methods may be called from
// different goroutines; they run one at a time.
type Store struct {
	dir string
	ws  string
	max int64
	// maxTotal bounds the files one snapshot records together.
	maxTotal int64
	// skipRel is the store's own folder relative to the workspace when it
	// lies inside it ("" otherwise): snapshots must not record themselves.
	skipRel string
	// recovered is set once by Open.
	recovered *Recovery

	// mu serialises the operations: a snapshot, plan, restore or garbage
	// collection runs alone, and mu guards every field below. While an
	// operation runs, its walk's goroutines read the maps below without
	// locking: nothing writes them until the operation commits its batch.
	mu     sync.Mutex
	closed bool
	// trees caches decoded tree objects by hash; they never change.
	trees map[sum][]treeEntry
	// metas remembers the meta record last written for each tree ID, so an
	// unchanged snapshot writes nothing.
	metas map[string][]byte
	// stat is the stat cache: a file's hash by its stat, by folder.
	stat      map[string]*statDir
	statDirty bool
	// known holds loose objects known to be on disk; objDirs the loose
	// objects' folders that exist (by first byte of address).
	known   map[sum]struct{}
	objDirs [256]bool
	// packs are the store's packs, and index says where in them each
	// packed object lies.
	packs []*packFile
	index map[sum]packLoc
}

// Open opens (or creates) the store. If an Apply was interrupted (the
// process died halfway), Open finishes it first — rolling forward: every
// step of the pending plan is performed again, idempotently — and reports it
// through Recovered. If the pending restore cannot be finished (a step keeps
// failing, say for want of permission), Open returns the error and keeps the
// record, so that nothing is forgotten and a later Open tries again.
func Open(o Options) (*Store, error) {
	if o.Dir == "" || o.Workspace == "" {
		return nil, errors.New("checkpoint: Dir and Workspace are required")
	}
	if !filepath.IsAbs(o.Workspace) {
		return nil, fmt.Errorf("checkpoint: workspace %q is not absolute", o.Workspace)
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	s := &Store{
		dir:   dir,
		ws:    filepath.Clean(o.Workspace),
		max:   o.MaxFileBytes,
		trees: map[sum][]treeEntry{},
		metas: map[string][]byte{},
		stat:  map[string]*statDir{},
		known: map[sum]struct{}{},
		index: map[sum]packLoc{},
	}
	s.maxTotal = o.MaxSnapshotBytes
	if s.maxTotal <= 0 {
		s.maxTotal = DefaultMaxSnapshotBytes
	}
	if s.max <= 0 {
		s.max = DefaultMaxFileBytes
	}
	if rel, err := filepath.Rel(s.ws, dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		s.skipRel = filepath.ToSlash(rel)
	} else if err == nil && rel == "." {
		return nil, errors.New("checkpoint: the store cannot be the workspace itself")
	}
	if info, err := os.Stat(s.ws); err != nil {
		return nil, fmt.Errorf("checkpoint: workspace: %w", err)
	} else if !info.IsDir() {
		return nil, fmt.Errorf("checkpoint: workspace %s is not a folder", s.ws)
	}
	for _, d := range []string{dir, filepath.Join(dir, "objects"), filepath.Join(dir, "packs"), filepath.Join(dir, "trees")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "objects")); err == nil {
		for _, e := range ents {
			if b, err := hex.DecodeString(e.Name()); err == nil && len(b) == 1 && e.IsDir() {
				s.objDirs[b[0]] = true
			}
		}
	}
	s.loadPacks()
	s.loadStatCache()
	if err := s.recover(); err != nil {
		for _, p := range s.packs {
			p.f.Close()
		}
		return nil, err
	}
	return s, nil
}

// Recovered reports the restore Open finished because a process died in the
// middle of it, or nil when nothing was pending.
func (s *Store) Recovered() *Recovery { return s.recovered }

// Recovery describes an interrupted restore that Open dealt with.
type Recovery struct {
	// Label is the label the Apply was given.
	Label string
	// Paths are the workspace-relative paths the interrupted restore
	// changes.
	Paths []string
	// Finished is always true today: the restore was finished. The field
	// exists so that a future rollback can say otherwise.
	Finished bool
}

// Close saves the stat cache. The store must not be used afterwards.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for _, p := range s.packs {
		p.f.Close()
	}
	return s.saveStatCache()
}

// errClosed is returned by every operation on a closed store.
var errClosed = errors.New("checkpoint: store is closed")

// lock takes the store's mutex, failing when the store is closed; the
// caller unlocks it when err is nil.
func (s *Store) lock() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	return nil
}
