package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/tool"
)

// ErrNothingToRestore is returned when there is no change to undo or redo,
// or a rewind would change nothing.
var ErrNothingToRestore = errors.New("nothing to restore")

// ErrRestoreStale is returned by Restore when the workspace changed since
// the restore was planned: the person must look at it again.
var ErrRestoreStale = errors.New("the workspace changed since the preview: look at the restore again")

// Restore is an undo, a redo or a rewind, planned but not done: what it
// would write, for the person to see and confirm.
type Restore struct {
	// Kind is "undo", "redo" or "rewind".
	Kind string
	// Title says what is restored, such as "undo turn 4".
	Title string
	// Reverts are the changes the restore takes back, oldest first.
	Reverts []Change
	// Plan is what the restore writes to the workspace; nil when it
	// writes nothing (a rewind of the conversation alone).
	Plan *checkpoint.Plan
	// Store holds the contents the plan shows and writes.
	Store *checkpoint.Store
	// Messages is how many messages of the conversation the restore
	// keeps; -1 when it leaves the conversation alone. Points is the same
	// for the session's points.
	Messages, Points int
	// Input is the person's input at the point a conversation is rewound
	// to, for the console to offer again; empty for other points.
	Input string
	// Turn is the turn a rewind goes back to before.
	Turn int
	// NotCovered says what the reverted changes' checkpoints could not
	// bring back.
	NotCovered []string
}

// Conflicts returns the paths the restore would keep as they are, because
// someone changed them after the changes it takes back.
func (r *Restore) Conflicts() []string {
	if r.Plan == nil {
		return nil
	}
	var out []string
	for _, st := range r.Plan.Steps {
		if st.Conflict {
			out = append(out, st.Path)
		}
	}
	return out
}

// PlanUndo plans taking back the last reply that changed the workspace and
// is still in effect.
func (s *Session) PlanUndo(ctx context.Context) (*Restore, error) {
	for i := len(s.Changes) - 1; i >= 0; i-- {
		ch := s.Changes[i]
		if ch.Kind == "reply" && ch.Live && ch.changed() {
			r := &Restore{Kind: "undo", Title: fmt.Sprintf("undo turn %d", ch.Turn), Reverts: []Change{ch}, Messages: -1}
			return r, s.planCode(ctx, r)
		}
	}
	return nil, fmt.Errorf("%w: no reply of this session changed the workspace, or every change is already undone", ErrNothingToRestore)
}

// PlanRedo plans taking back the last undo or rewind of the workspace,
// when no reply changed it since.
func (s *Session) PlanRedo(ctx context.Context) (*Restore, error) {
	for i := len(s.Changes) - 1; i >= 0; i-- {
		ch := s.Changes[i]
		if !ch.Live {
			continue
		}
		if ch.Kind == "reply" && ch.changed() {
			break
		}
		if (ch.Kind == "undo" || ch.Kind == "rewind") && ch.After != "" {
			r := &Restore{Kind: "redo", Title: "redo " + s.describeRestore(ch), Reverts: []Change{ch}, Messages: -1}
			return r, s.planCode(ctx, r)
		}
	}
	return nil, fmt.Errorf("%w: there is no undo to redo since the last change", ErrNothingToRestore)
}

// describeRestore says which turns a restore took back, such as "turn 4".
func (s *Session) describeRestore(ch Change) string {
	var turns []string
	for _, seq := range ch.Reverts {
		if rc := s.change(seq); rc != nil && rc.Turn > 0 {
			turns = append(turns, strconv.Itoa(rc.Turn))
		}
	}
	switch len(turns) {
	case 0:
		return "the " + ch.Kind
	case 1:
		return "turn " + turns[0]
	}
	return "turns " + turns[0] + "–" + turns[len(turns)-1]
}

// PlanRewind plans going back to before point (an index into Points): the
// workspace's changes since, when code is set, and the conversation since,
// when conversation is set.
func (s *Session) PlanRewind(ctx context.Context, point int, code, conversation bool) (*Restore, error) {
	if point < 0 || point >= len(s.Points) {
		return nil, fmt.Errorf("there is no point %d in this session (it has %d)", point+1, len(s.Points))
	}
	if !code && !conversation {
		return nil, errors.New("a rewind restores the code, the conversation, or both")
	}
	p := s.Points[point]
	r := &Restore{Kind: "rewind", Title: fmt.Sprintf("rewind to before %s", describePoint(p)), Messages: -1, Turn: p.Turn}
	if conversation {
		if p.Messages < 0 {
			return nil, fmt.Errorf("the conversation before %s was compacted into a summary, so only the code can be rewound to it", describePoint(p))
		}
		r.Messages, r.Points = p.Messages, point
		if p.Kind != "reply" {
			r.Input = p.Text
		}
	}
	if code {
		for _, ch := range s.Changes[min(p.Changes, len(s.Changes)):] {
			if ch.Kind == "reply" && ch.Live && ch.changed() {
				r.Reverts = append(r.Reverts, ch)
			}
		}
		if len(r.Reverts) > 0 {
			if err := s.planCode(ctx, r); err != nil {
				return nil, err
			}
		} else if !conversation {
			return nil, fmt.Errorf("%w: nothing in the workspace changed after %s, or its changes are already undone", ErrNothingToRestore, describePoint(p))
		}
	}
	return r, nil
}

// describePoint names a point in a few words.
func describePoint(p Point) string {
	switch p.Kind {
	case "reply":
		return fmt.Sprintf("turn %d", p.Turn)
	case "goal":
		return "the goal"
	case "answer":
		return fmt.Sprintf("the answer before turn %d", p.Turn)
	}
	return fmt.Sprintf("the follow-up before turn %d", p.Turn)
}

// planCode works out what taking back r.Reverts writes: each path goes back
// to its state before the earliest change that touched it, and is expected
// to be as the latest left it. A path a change could not record is left as
// it is, and so is a folder holding one: the preview lists them as not
// restorable, and a restore never removes what it knows nothing of.
func (s *Session) planCode(ctx context.Context, r *Restore) error {
	store := s.Checkpoints
	if store == nil {
		return errors.New("this session keeps no checkpoints")
	}
	wants := map[string]*checkpoint.Want{}
	var order, unrecorded []string
	for _, ch := range r.Reverts {
		r.NotCovered = append(r.NotCovered, ch.NotCovered...)
		unrecorded = append(unrecorded, ch.Unrecorded...)
		if ch.After == "" {
			return fmt.Errorf("the changes of turn %d were not recorded once it ended, so they cannot be taken back", ch.Turn)
		}
		changes, err := store.Store.Diff(ch.Before, ch.After)
		if err != nil {
			return fmt.Errorf("the checkpoint of %s cannot be read, so its changes cannot be taken back "+
				"(past their cap the oldest checkpoints are dropped): %w", s.describeChange(ch), err)
		}
		for _, c := range changes {
			w, ok := wants[c.Path]
			if !ok {
				w = &checkpoint.Want{Path: c.Path, Target: c.Before}
				wants[c.Path] = w
				order = append(order, c.Path)
			}
			w.Expect = c.After
		}
	}
	list := make([]checkpoint.Want, 0, len(order))
	for _, p := range order {
		if w := wants[p]; !holdsUnrecorded(*w, unrecorded) {
			list = append(list, *w)
		}
	}
	plan, err := store.Store.Plan(ctx, list)
	if err != nil {
		return err
	}
	r.Plan, r.Store = plan, store.Store
	return nil
}

// holdsUnrecorded reports whether restoring w would write over a path in
// unrecorded: w's path is one, lies below one, or is a folder above one
// that the restore would remove or replace. A folder restored as a folder
// (its mode) does not.
func holdsUnrecorded(w checkpoint.Want, unrecorded []string) bool {
	for _, u := range unrecorded {
		switch {
		case w.Path == u, strings.HasPrefix(w.Path, u+"/"):
			return true
		case strings.HasPrefix(u, w.Path+"/") && (w.Target == nil || w.Target.Type != checkpoint.Dir):
			return true
		}
	}
	return false
}

// describeChange names a change in a few words, such as "turn 4".
func (s *Session) describeChange(ch Change) string {
	if ch.Kind == "reply" {
		return fmt.Sprintf("turn %d", ch.Turn)
	}
	return s.describeRestore(ch)
}

// Restore does what r planned, once the person confirmed the preview whose
// digest is digest: it writes the workspace back, keeping every conflicting
// path but those in overwrite, rewinds the conversation, and leaves a note
// for the model's next request. Its start is recorded before anything is
// written, and its end after. When the workspace changed since the plan
// was made, nothing is written and the error is ErrRestoreStale.
func (a *Agent) Restore(ctx context.Context, s *Session, r *Restore, digest string, overwrite []string) (RestoreFinished, error) {
	if r.Plan != nil && digest != r.Plan.Digest {
		return RestoreFinished{}, ErrRestoreStale
	}
	if err := a.durable(); err != nil {
		return RestoreFinished{}, errors.New(unrecorded(err))
	}
	start := RestoreStarted{Seq: s.nextSeq(), Kind: r.Kind, Messages: r.Messages, Points: r.Points, Turn: r.Turn, At: Time{a.clock().Now()}}
	for _, ch := range r.Reverts {
		start.Reverts = append(start.Reverts, ch.Seq)
	}
	if r.Plan != nil {
		start.Before, start.Digest = r.Plan.Current.ID, r.Plan.Digest
		for _, st := range r.Plan.Steps {
			start.Paths = append(start.Paths, st.Path)
		}
	}
	a.emit(start)
	s.record(start)
	fin := RestoreFinished{Seq: start.Seq, Kind: r.Kind, Messages: r.Messages, Points: r.Points}
	if err := a.durable(); err != nil {
		// The intent may not be on disk: nothing is written.
		fin.RolledBack = true
		s.record(fin)
		return RestoreFinished{}, errors.New(unrecorded(err))
	}
	if r.Plan != nil {
		applied, err := r.Store.Apply(ctx, r.Plan, checkpoint.ApplyOptions{Label: strconv.Itoa(start.Seq), Overwrite: overwrite})
		if err != nil {
			fin.RolledBack, fin.Messages = true, -1
			fin.At = Time{a.clock().Now()}
			a.emit(fin)
			s.record(fin)
			if errors.Is(err, checkpoint.ErrStale) {
				return RestoreFinished{}, ErrRestoreStale
			}
			return RestoreFinished{}, err
		}
		fin.After, fin.Written, fin.Kept = applied.After.ID, applied.Written, applied.Kept
	}
	fin.Note = s.restoreNote(r, fin)
	fin.At = Time{a.clock().Now()}
	a.emit(fin)
	s.record(fin)
	return fin, nil
}

// restoreNote is what the model reads about a finished restore.
func (s *Session) restoreNote(r *Restore, fin RestoreFinished) string {
	var calls []feedback.UndoneCall
	reverted := r.Reverts
	if r.Kind == "redo" {
		// A redo brings back what the restore it takes back had undone.
		reverted = nil
		for _, ch := range r.Reverts {
			for _, seq := range ch.Reverts {
				if rc := s.change(seq); rc != nil {
					reverted = append(reverted, *rc)
				}
			}
		}
	}
	var files []feedback.RestoredFile
	if r.Plan != nil {
		for _, st := range r.Plan.Steps {
			if !slices.Contains(fin.Written, st.Path) || st.Target != nil && st.Target.Type == checkpoint.Dir ||
				st.Current != nil && st.Current.Type == checkpoint.Dir && st.Target == nil {
				continue
			}
			how := "restored"
			switch {
			case st.Target == nil:
				how = "removed"
			case st.Current == nil:
				how = "brought back"
			}
			files = append(files, feedback.RestoredFile{Path: st.Path, How: how})
		}
	}
	for _, ch := range reverted {
		for _, c := range ch.Calls {
			if tookBack(c, fin.Written) {
				calls = append(calls, feedback.UndoneCall{Turn: ch.Turn, Name: c.Name, Brief: c.Brief})
			}
		}
	}
	unrecorded := 0
	if r.Kind != "redo" {
		for _, ch := range r.Reverts {
			unrecorded += len(ch.Unrecorded)
		}
	}
	switch {
	case r.Kind == "redo":
		return feedback.Redone(calls, files, fin.Kept)
	case r.Messages < 0:
		return feedback.Restored(calls, files, fin.Kept, unrecorded)
	case r.Plan != nil:
		return feedback.Rewound(r.Turn, true, fin.Kept, unrecorded)
	}
	return feedback.Rewound(r.Turn, false, s.changedSince(r.Points), s.unrecordedSince(r.Points))
}

// tookBack reports whether a restore that wrote the paths written took
// back something the call c may have changed, so that the note may name
// it. A call recorded without its roots (an older journal) is named, as it
// was then.
func tookBack(c CheckpointCall, written []string) bool {
	if len(c.Roots) == 0 {
		return true
	}
	for _, root := range c.Roots {
		for _, w := range written {
			if root == "." || w == root || strings.HasPrefix(w, root+"/") {
				return true
			}
		}
	}
	return false
}

// unrecordedSince counts the paths that changes in effect made after
// point left unrecorded, for a rewind of the conversation alone.
func (s *Session) unrecordedSince(point int) int {
	if point >= len(s.Points) {
		return 0
	}
	n := 0
	for _, ch := range s.Changes[min(s.Points[point].Changes, len(s.Changes)):] {
		if ch.Kind == "reply" && ch.Live {
			n += len(ch.Unrecorded)
		}
	}
	return n
}

// changedSince returns the files that changes in effect made after point
// changed, for a rewind of the conversation that leaves the workspace.
func (s *Session) changedSince(point int) []string {
	if point >= len(s.Points) {
		return nil
	}
	var out []string
	for _, ch := range s.Changes[min(s.Points[point].Changes, len(s.Changes)):] {
		if ch.Kind != "reply" || !ch.Live {
			continue
		}
		for _, f := range ch.Files {
			if !slices.Contains(out, f.Path) {
				out = append(out, f.Path)
			}
		}
	}
	return out
}

// capCheckpoints drops the oldest checkpoints once the store is past its
// cap, and says so: the changes they recorded can no longer be undone.
func (a *Agent) capCheckpoints(s *Session, store *CheckpointStore) {
	limit := store.MaxBytes
	if limit == 0 {
		limit = DefaultCheckpointBytes
	}
	if limit < 0 {
		return
	}
	size, err := store.Store.Size()
	if err != nil || size <= limit {
		return
	}
	dropped := 0
	for size > limit {
		// The oldest change still kept goes first; the newest is never
		// dropped, so the last reply can always be undone.
		i := slices.IndexFunc(s.Changes[:max(len(s.Changes)-1, 0)], func(ch Change) bool { return ch.Before != "" || ch.After != "" })
		if i < 0 {
			break
		}
		s.Changes[i].Before, s.Changes[i].After, s.Changes[i].Live = "", "", false
		dropped++
		var keep []string
		for _, ch := range s.Changes {
			keep = append(keep, ch.Before, ch.After)
		}
		keep = slices.DeleteFunc(keep, func(id string) bool { return id == "" })
		if _, err := store.Store.Keep(keep); err != nil {
			break
		}
		if size, err = store.Store.Size(); err != nil {
			break
		}
	}
	if dropped > 0 {
		a.emit(Notice{Level: "info", Text: fmt.Sprintf("checkpoints passed their cap of %s: the oldest %d were dropped, "+
			"and their changes can no longer be undone", tool.FormatSize(limit), dropped)})
	}
}

// SettleRestore ends the restore the session's record started and did not
// finish, when the process died during it. The checkpoint store finished
// its writes when it was opened, if it had begun them, so the restore is
// recorded as finished when its paths are no longer as they were before
// it, and as rolled back, having written nothing, when they are. It
// returns the notice that says which; false when there was nothing to
// settle.
func (a *Agent) SettleRestore(ctx context.Context, s *Session) (Notice, bool) {
	ch := s.UnfinishedRestore()
	if ch == nil {
		return Notice{}, false
	}
	start := s.restoreStart
	fin := RestoreFinished{Seq: ch.Seq, Kind: ch.Kind, Messages: start.Messages, Points: start.Points, At: Time{a.clock().Now()}}
	r := &Restore{Kind: ch.Kind, Messages: start.Messages, Points: start.Points, Turn: start.Turn}
	for _, seq := range ch.Reverts {
		if rc := s.change(seq); rc != nil {
			r.Reverts = append(r.Reverts, *rc)
		}
	}
	if start.Before != "" {
		if s.Checkpoints == nil {
			return Notice{}, false
		}
		store := s.Checkpoints.Store
		before, err := store.Load(start.Before)
		var now checkpoint.Tree
		if err == nil {
			now, err = store.Snapshot(ctx, before.Roots)
		}
		if err != nil || now.ID == before.ID {
			fin.RolledBack = true
		} else {
			changes, _ := store.Diff(before.ID, now.ID)
			r.Plan = &checkpoint.Plan{Current: before}
			for _, c := range changes {
				fin.Written = append(fin.Written, c.Path)
				r.Plan.Steps = append(r.Plan.Steps, checkpoint.Step{Path: c.Path, Current: c.Before, Target: c.After})
			}
			fin.After = now.ID
		}
	}
	what := "finished"
	if fin.RolledBack {
		what = "rolled back: it had written nothing"
		fin.Messages = -1
	} else {
		fin.Note = s.restoreNote(r, fin)
	}
	a.emit(fin)
	s.record(fin)
	return Notice{Level: "warning", Text: fmt.Sprintf("the %s (change %d) was interrupted when agenttui stopped; it was %s", ch.Kind, ch.Seq, what)}, true
}
