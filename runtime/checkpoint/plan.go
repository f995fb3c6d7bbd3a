package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// Want is one path a restore should put in a state.
type Want struct {
	Path string
	// Expect is the state the path is expected in now (what the agent
	// left); nil means absent. A path found in neither Expect's nor
	// Target's state was changed by someone else: a conflict.
	Expect *Entry
	// Target is the state to restore; nil means absent. It must be an entry
	// recorded in this store, so that its content can be read back.
	Target *Entry
}

// Action is what a restore does to one path.
type Action uint8

// The actions of a restore's steps.
const (
	// None: the path is already as wanted.
	None Action = iota
	// Write creates or overwrites a file.
	Write
	Remove
	Mkdir
	Rmdir
	// Link creates or replaces a symbolic link. Its String is "symlink";
	// it is not called Symlink because that names the entry type.
	Link
	// Chmod changes permission bits only: the content is already right.
	Chmod
)

var actionNames = [...]string{None: "none", Write: "write", Remove: "remove", Mkdir: "mkdir", Rmdir: "rmdir", Link: "symlink", Chmod: "chmod"}

// String returns the action's stable name, e.g. "write" or "none".
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Step is what a restore does to one path, as it would do it now.
type Step struct {
	Path string
	// Current is the path on disk now; nil means absent. Its content is
	// stored by Plan, so a preview can Read it. A file too large to store
	// has an empty Hash.
	Current *Entry
	// Target is the state to restore; nil means absent.
	Target *Entry
	Action Action
	// Conflict is set when Current equals neither the want's Expect nor its
	// Target — someone else changed the path since — or when a folder to
	// remove would still hold something the plan does not remove, or a
	// path to create lies below something that is not a folder. Apply keeps
	// a conflicting path unless told to overwrite it.
	Conflict bool
}

// Plan is what restoring some wants would do to the workspace as it is
// now.
type Plan struct {
	// Steps are sorted so they can be performed in order: removals first,
	// children before their folders, then creations, folders before their
	// children.
	Steps []Step
	// Current is a snapshot of every planned path as it is now, so that the
	// restore can itself be undone.
	Current Tree
	// Digest hashes every step's path, current state and target: what the
	// person saw. Apply refuses to act when the disk no longer gives it.
	Digest string

	wants []Want
}

// Plan looks at the disk now and works out the steps of a restore. It
// never writes to the workspace (it stores the current content of the
// planned paths, so that a preview can show it and the restore can be
// undone).
//
// A folder is removed only if it is absent in the target and will be empty
// once the plan's own removals are done; a folder that would still hold
// anything (a file the agent did not create) is kept, and its step is a
// Conflict with Action Rmdir.
func (s *Store) Plan(ctx context.Context, wants []Want) (*Plan, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	b := &batch{}
	defer b.abort()
	p, err := s.plan(ctx, wants, b)
	if err != nil {
		return nil, err
	}
	if err := s.commit(b); err != nil {
		return nil, err
	}
	return p, s.saveStatCache()
}

func (s *Store) plan(ctx context.Context, wants []Want, b *batch) (*Plan, error) {
	wants, err := s.checkWants(wants)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	steps := make([]Step, len(wants))
	stats := make([]fileStat, len(wants))
	index := make(map[string]int, len(wants))
	paths := make([]string, len(wants))
	for i, w := range wants {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cur, st, err := s.current(w.Path, now, b)
		if err != nil {
			return nil, err
		}
		steps[i] = Step{Path: w.Path, Current: cur, Target: w.Target, Action: action(cur, w.Target)}
		steps[i].Conflict = steps[i].Action != None && !sameEntry(cur, w.Expect) && !sameEntry(cur, w.Target)
		stats[i], index[w.Path], paths[i] = st, i, w.Path
	}
	order := make([]int, len(steps))
	for i := range order {
		order[i] = i
	}
	// Deepest first, so that a folder sees its children's final verdicts.
	slices.SortFunc(order, func(x, y int) int { return depth(paths[y]) - depth(paths[x]) })
	for _, i := range order {
		st := &steps[i]
		if st.Action != None && st.Current != nil && st.Current.Type == Dir && (st.Target == nil || st.Target.Type != Dir) {
			if !s.emptiedBy(st.Path, steps, index) {
				st.Conflict = true
			}
		}
	}
	// Shallowest first, so that a path sees its folders' final verdicts.
	slices.Reverse(order)
	for _, i := range order {
		st := &steps[i]
		if st.Action != None && st.Target != nil && !s.placeable(st.Path, steps, index) {
			st.Conflict = true
		}
	}

	cur, err := s.snapshot(ctx, paths, b)
	if err != nil {
		return nil, err
	}
	perm := make([]int, len(steps))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(x, y int) int { return stepOrder(&steps[x], &steps[y]) })
	p := &Plan{Current: cur, wants: wants}
	d := sha256.New()
	for _, i := range perm {
		p.Steps = append(p.Steps, steps[i])
		digestStep(d, &steps[i], stats[i])
	}
	p.Digest = hex.EncodeToString(d.Sum(nil))
	return p, nil
}

// checkWants cleans the wants' paths and refuses what cannot be restored.
func (s *Store) checkWants(wants []Want) ([]Want, error) {
	out := make([]Want, len(wants))
	seen := make(map[string]bool, len(wants))
	for i, w := range wants {
		p, err := s.cleanRel(w.Path)
		if err != nil {
			return nil, err
		}
		switch {
		case p == ".":
			return nil, errors.New("checkpoint: the workspace itself cannot be restored, only paths in it")
		case s.private(p):
			return nil, fmt.Errorf("checkpoint: %s is inside a .git folder or the store", p)
		case seen[p]:
			return nil, fmt.Errorf("checkpoint: %s is wanted twice", p)
		}
		seen[p] = true
		if t := w.Target; t != nil {
			switch t.Type {
			case File:
				h, err := parseSum(t.Hash)
				if err != nil || !s.has(h) {
					return nil, fmt.Errorf("checkpoint: the content of %s is not recorded in this store", p)
				}
			case Dir:
			case Symlink:
				if t.Target == "" {
					return nil, fmt.Errorf("checkpoint: the symlink %s has no target", p)
				}
			default:
				return nil, fmt.Errorf("checkpoint: %s: unknown entry type %v", p, t.Type)
			}
		}
		out[i] = Want{Path: p, Expect: w.Expect, Target: w.Target}
	}
	return out, nil
}

// current returns the entry of the path p on disk now (nil when absent),
// storing a file's content, and what lstat says of it.
func (s *Store) current(p string, now int64, b *batch) (*Entry, fileStat, error) {
	if !s.parentsAreDirs(p) {
		return nil, fileStat{}, nil
	}
	st, err := lstat(s.abs(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileStat{}, nil
	}
	if err != nil {
		return nil, fileStat{}, fmt.Errorf("checkpoint: %w", err)
	}
	switch {
	case st.mode.IsDir():
		return &Entry{Path: p, Type: Dir, Mode: st.mode.Perm()}, st, nil
	case st.mode&fs.ModeSymlink != 0:
		e, err := s.captureLink(p, st, b)
		return publicEntry(p, e), st, err
	case st.mode.IsRegular():
		prev := s.statOfPath(p, b)
		e, cur, why, err := s.captureFile(p, st, prev, now, b)
		if err != nil {
			return nil, st, err
		}
		if cur != prev {
			b.setStatFile(p, cur)
		}
		if why == "" {
			return publicEntry(p, e), st, nil
		}
	}
	// Too large, unreadable or not a regular file: something is there, and
	// it matches no recorded state (its empty Hash equals no hash).
	return &Entry{Path: p, Type: File, Mode: st.mode.Perm(), Size: st.size}, st, nil
}

// action returns what turns cur into target.
func action(cur, target *Entry) Action {
	switch {
	case target == nil && cur == nil:
		return None
	case target == nil && cur.Type == Dir:
		return Rmdir
	case target == nil:
		return Remove
	case sameEntry(cur, target):
		return None
	case target.Type == File:
		if cur != nil && cur.Type == File && cur.Hash == target.Hash {
			return Chmod
		}
		return Write
	case target.Type == Dir:
		if cur != nil && cur.Type == Dir {
			return Chmod
		}
		return Mkdir
	}
	return Link
}

// emptiedBy reports whether the folder p will be empty once the plan's own
// removals that do not conflict are done.
func (s *Store) emptiedBy(p string, steps []Step, index map[string]int) bool {
	ents, err := os.ReadDir(s.abs(p))
	if err != nil {
		return false
	}
	for _, e := range ents {
		i, ok := index[join(p, e.Name())]
		if !ok || steps[i].Target != nil || steps[i].Conflict {
			return false
		}
	}
	return true
}

// placeable reports whether the folders above p are, or will be made by
// the plan, real folders: nothing is ever created below a link or a file.
// A folder that is missing and not planned is created by Apply.
func (s *Store) placeable(p string, steps []Step, index map[string]int) bool {
	for i := range len(p) {
		if p[i] != '/' {
			continue
		}
		a := p[:i]
		if j, ok := index[a]; ok {
			t := steps[j].Target
			if t == nil || t.Type != Dir {
				return false
			}
			if !steps[j].Conflict {
				continue
			}
		}
		st, err := lstat(s.abs(a))
		if err == nil && !st.mode.IsDir() || err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}

func depth(p string) int { return strings.Count(p, "/") }

// stepOrder sorts removals first, deepest first, then the rest,
// shallowest first.
func stepOrder(x, y *Step) int {
	rx, ry := x.Action == Remove || x.Action == Rmdir, y.Action == Remove || y.Action == Rmdir
	if rx != ry {
		return boolCmp(ry, rx)
	}
	dx, dy := depth(x.Path), depth(y.Path)
	if dx != dy {
		if rx {
			return dy - dx
		}
		return dx - dy
	}
	return strings.Compare(x.Path, y.Path)
}

// digestStep adds a step's path, current state and target to the digest.
// A file with no hash (too large to store) is known by its size and times.
func digestStep(d io.Writer, st *Step, fst fileStat) {
	var buf []byte
	buf = append(buf, st.Path...)
	buf = append(buf, 0)
	buf = appendEntry(buf, st.Current)
	if st.Current != nil && st.Current.Type == File && st.Current.Hash == "" {
		buf = binary.AppendVarint(buf, fst.size)
		buf = binary.AppendVarint(buf, fst.mtime)
		buf = binary.AppendVarint(buf, fst.ctime)
	}
	buf = appendEntry(buf, st.Target)
	d.Write(buf)
}

func appendEntry(buf []byte, e *Entry) []byte {
	if e == nil {
		return append(buf, '-', 0)
	}
	buf = fmt.Appendf(buf, "%d %o %s", e.Type, e.Mode.Perm(), e.Hash)
	buf = append(buf, 0)
	buf = append(buf, e.Target...)
	return append(buf, 0)
}
