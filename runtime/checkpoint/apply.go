package checkpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// ErrStale is returned by Apply when the workspace changed since the plan
// was made: its digest no longer matches, so the person did not see what
// the restore would now do.
var ErrStale = errors.New("checkpoint: the workspace changed since the restore was planned")

// ApplyOptions say how to perform a plan.
type ApplyOptions struct {
	// Label names the restore, e.g. "undo of turn 4"; it is kept in the
	// pending record, so that Recovered can say what was finished.
	Label string
	// Overwrite lists the conflicting paths the person chose to overwrite;
	// other conflicts are kept.
	Overwrite []string
}

// Applied is what a restore did.
type Applied struct {
	// Before is the state of the planned paths before the restore
	// (the plan's Current); restoring it undoes the restore.
	Before Tree
	// After is a snapshot of the same paths after the restore.
	After Tree
	// Written lists the paths changed, sorted.
	Written []string
	// Kept lists the conflicting paths left as they were, sorted, and the
	// paths that could not be restored because something kept is in the
	// way (a folder that is not empty, a file where a folder should be).
	Kept []string
}

// afterStep is a test hook: when set, it is called after step i of a
// restore has been performed. The crash test kills the process from it.
var afterStep func(i int)

// pendingRecord is the intent of a restore, written and synced before its
// first step and removed after its last: a restore found pending by Open
// is finished from it.
type pendingRecord struct {
	ID    string        `json:"id"`
	Label string        `json:"label"`
	Steps []pendingStep `json:"steps"`
}

type pendingStep struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	Target *Entry `json:"target,omitempty"`
}

func (s *Store) pendingPath() string { return filepath.Join(s.dir, "pending.json") }

// Apply performs a plan made by Plan on this store. It first plans again against the disk and refuses
// with ErrStale, writing nothing, when the digest differs from p.Digest.
// Otherwise it writes a pending record (synced) naming every step and its
// target, then performs the steps, each atomically: a file is written to a
// temporary file in the same folder, synced, given its mode, then renamed
// over the path, so that no file is ever half-written. Then the record is
// removed. Steps that are None or kept conflicts are not performed.
//
// Apply never writes through a symlink, in the workspace or out of it: a
// link in the way is replaced itself, and nothing is created below one.
// If a step fails, Apply returns the error and leaves the record, so that
// the next Open finishes the restore; until then Apply refuses to start
// another.
func (s *Store) Apply(ctx context.Context, p *Plan, o ApplyOptions) (Applied, error) {
	if p == nil {
		return Applied{}, errors.New("checkpoint: no plan")
	}
	if err := s.lock(); err != nil {
		return Applied{}, err
	}
	defer s.mu.Unlock()
	if _, err := os.Lstat(s.pendingPath()); err == nil {
		// A restore failed halfway in this process; a new record would
		// replace its own, and the next Open could no longer finish it.
		return Applied{}, errors.New("checkpoint: an earlier restore is unfinished; reopen the store to finish it")
	}
	b := &batch{}
	defer b.abort()
	np, err := s.plan(ctx, p.wants, b)
	if err != nil {
		return Applied{}, err
	}
	// The state before is how the restore will be undone: it must be on
	// disk before the restore changes anything.
	if err := s.commit(b); err != nil {
		return Applied{}, err
	}
	if np.Digest != p.Digest {
		return Applied{}, ErrStale
	}
	overwrite := map[string]bool{}
	for _, q := range o.Overwrite {
		if c, err := s.cleanRel(q); err == nil {
			overwrite[c] = true
		}
	}
	rec := pendingRecord{ID: randomID(), Label: o.Label}
	var kept, written []string
	for _, st := range np.Steps {
		switch {
		case st.Action == None:
		case st.Conflict && !overwrite[st.Path]:
			kept = append(kept, st.Path)
		default:
			rec.Steps = append(rec.Steps, pendingStep{Path: st.Path, Action: st.Action.String(), Target: st.Target})
		}
	}
	if len(rec.Steps) > 0 {
		if err := s.writePending(rec); err != nil {
			return Applied{}, err
		}
		w, k, err := s.perform(rec)
		if err != nil {
			return Applied{}, err
		}
		if err := s.removePending(); err != nil {
			return Applied{}, err
		}
		written, kept = w, append(kept, k...)
	}
	// The workspace has changed: the caller needs After even if it gave up
	// waiting meanwhile.
	b = &batch{}
	defer b.abort()
	after, err := s.snapshot(context.WithoutCancel(ctx), np.Current.Roots, b)
	if err == nil {
		err = s.commit(b)
	}
	if err != nil {
		return Applied{}, err
	}
	slices.Sort(written)
	slices.Sort(kept)
	return Applied{Before: np.Current, After: after, Written: written, Kept: kept}, s.saveStatCache()
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails
	return hex.EncodeToString(b[:])
}

func (s *Store) writePending(rec pendingRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	b := &batch{}
	defer b.abort()
	if err := b.writeLater(s.pendingPath(), data); err != nil {
		return err
	}
	return s.commit(b)
}

func (s *Store) removePending() error {
	if err := os.Remove(s.pendingPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return fsyncPath(s.dir)
}

// recover finishes a restore a dead process left pending.
func (s *Store) recover() error {
	data, err := os.ReadFile(s.pendingPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	var rec pendingRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		// The record is renamed into place whole, so this is damage from
		// outside: say so rather than guess.
		return fmt.Errorf("checkpoint: the pending restore record is damaged: %w", err)
	}
	if _, _, err := s.perform(rec); err != nil {
		return fmt.Errorf("checkpoint: finishing the interrupted restore %q: %w", rec.Label, err)
	}
	if err := s.removePending(); err != nil {
		return err
	}
	r := &Recovery{Label: rec.Label, Finished: true, Paths: []string{}}
	for _, st := range rec.Steps {
		r.Paths = append(r.Paths, st.Path)
	}
	slices.Sort(r.Paths)
	s.recovered = r
	return nil
}

// applier performs the steps of one restore.
type applier struct {
	s    *Store
	root *os.Root
	id   string
	// syncs are the paths to fsync once every step is done: the folders
	// whose entries changed, and what was chmodded.
	syncs map[string]bool
	// modes are the folders whose mode is set last: a folder is kept
	// writable by its owner while its children are restored.
	modes map[string]fs.FileMode
}

// perform performs the steps of rec, each idempotently, so that a restore
// can be performed again from its start after a crash.
func (s *Store) perform(rec pendingRecord) (written, kept []string, err error) {
	root, err := os.OpenRoot(s.ws)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close()
	a := &applier{s: s, root: root, id: rec.ID, syncs: map[string]bool{}, modes: map[string]fs.FileMode{}}
	for i, st := range rec.Steps {
		act := slices.Index(actionNames[:], st.Action)
		if act < 0 || s.private(st.Path) || st.Path == "." {
			return nil, nil, fmt.Errorf("checkpoint: bad step %q on %s", st.Action, st.Path)
		}
		done, err := a.step(i, st.Path, Action(act), st.Target)
		if err != nil {
			return nil, nil, fmt.Errorf("checkpoint: restoring %s: %w", st.Path, err)
		}
		if done {
			written = append(written, st.Path)
		} else {
			kept = append(kept, st.Path)
		}
		if afterStep != nil {
			afterStep(i)
		}
	}
	return written, kept, a.finish()
}

// step performs one step and reports whether the path is now as wanted
// (false: it was kept, something being in the way).
func (a *applier) step(i int, p string, act Action, target *Entry) (bool, error) {
	ok, missing, err := a.parents(p, act != Remove && act != Rmdir)
	if err != nil || !ok {
		// A removal below a folder that is gone is done already.
		return missing, err
	}
	cur, err := a.root.Lstat(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	exists := err == nil
	isDir := exists && cur.IsDir()
	a.syncs[parentOf(p)] = true
	switch act {
	case Remove:
		if !exists {
			return true, nil
		}
		if isDir {
			return false, nil
		}
		return true, a.root.Remove(p)
	case Rmdir:
		if !exists {
			return true, nil
		}
		if !isDir {
			return false, nil
		}
		return a.removeDir(p)
	case Mkdir:
		if exists && !isDir {
			if err := a.root.Remove(p); err != nil {
				return false, err
			}
		}
		if !isDir {
			if err := a.root.Mkdir(p, target.Mode.Perm()|0o700); err != nil {
				return false, err
			}
		}
		a.modes[p] = target.Mode.Perm()
		return true, nil
	case Chmod:
		switch {
		case !exists || cur.Mode()&fs.ModeSymlink != 0 || isDir != (target.Type == Dir):
			return false, nil
		case isDir:
			a.modes[p] = target.Mode.Perm()
			return true, a.root.Chmod(p, target.Mode.Perm()|0o700)
		}
		a.syncs[p] = true
		return true, a.root.Chmod(p, target.Mode.Perm())
	case Write, Link:
		tmp := path.Join(parentOf(p), ".ckpt-"+a.id+"-"+strconv.Itoa(i)+".tmp")
		if err := a.root.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		if act == Write {
			err = a.writeTemp(tmp, target)
		} else {
			err = a.root.Symlink(target.Target, tmp)
		}
		if err != nil {
			a.root.Remove(tmp)
			return false, err
		}
		if isDir {
			// A folder stands where the file goes: only an empty one makes
			// way (the plan's removals emptied it).
			if done, err := a.removeDir(p); !done || err != nil {
				a.root.Remove(tmp)
				return false, err
			}
		}
		return true, a.root.Rename(tmp, p)
	}
	return false, fmt.Errorf("unknown action %v", act)
}

// writeTemp writes target's content to the new file tmp, with target's
// mode, and syncs it.
func (a *applier) writeTemp(tmp string, target *Entry) error {
	h, err := parseSum(target.Hash)
	if err != nil {
		return err
	}
	data, err := a.s.get(h)
	if err != nil {
		return err
	}
	f, err := a.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		// Chmod on the open file sets the bits exactly, umask or not.
		err = f.Chmod(target.Mode.Perm())
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeDir removes the folder p if it is empty; a folder that still holds
// something is kept.
func (a *applier) removeDir(p string) (bool, error) {
	err := a.root.Remove(p)
	switch {
	case err == nil || errors.Is(err, fs.ErrNotExist):
		return true, nil
	case errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST):
		return false, nil
	}
	return false, err
}

// parents checks that every folder above p is a real folder. Missing ones
// are created when create is set, and otherwise reported as missing. A
// link or a file in the way makes ok false: nothing is written through a
// link, even one that stays in the workspace.
func (a *applier) parents(p string, create bool) (ok, missing bool, err error) {
	for i := range len(p) {
		if p[i] != '/' {
			continue
		}
		dir := p[:i]
		info, err := a.root.Lstat(dir)
		switch {
		case err == nil && info.IsDir():
			continue
		case err == nil:
			return false, false, nil
		case !errors.Is(err, fs.ErrNotExist):
			return false, false, err
		case !create:
			return false, true, nil
		}
		if err := a.root.Mkdir(dir, 0o777); err != nil {
			return false, false, err
		}
		a.syncs[parentOf(dir)] = true
	}
	return true, false, nil
}

// finish sets the folders' final modes, deepest first, and syncs what the
// restore changed, before the pending record may be removed.
func (a *applier) finish() error {
	dirs := make([]string, 0, len(a.modes))
	for p := range a.modes {
		dirs = append(dirs, p)
	}
	slices.SortFunc(dirs, func(x, y string) int { return depth(y) - depth(x) })
	for _, p := range dirs {
		if err := a.root.Chmod(p, a.modes[p]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		a.syncs[p] = true
	}
	for p := range a.syncs {
		f, err := a.root.Open(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			// Gone since, or a folder restored without read permission:
			// nothing to sync, or no way to.
			continue
		}
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// parentOf returns the folder holding the workspace-relative path p.
func parentOf(p string) string { return path.Dir(p) }
