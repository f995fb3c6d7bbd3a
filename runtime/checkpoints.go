package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/provenance"
	"github.com/agenttui/agenttui/runtime/tool"
)

// DefaultCheckpointBytes is how much disk a session's checkpoints may use
// before the oldest are dropped, when CheckpointStore.MaxBytes is zero.
const DefaultCheckpointBytes = 1 << 30

// CheckpointStore is where a session records what its replies may change,
// so that the person can undo them. Only the workspace is recorded.
type CheckpointStore struct {
	// Store keeps the recorded states.
	Store *checkpoint.Store
	// Workspace is the workspace root, absolute.
	Workspace string
	// MaxBytes caps the store's size on disk: past it, the oldest
	// checkpoints are dropped, with a notice. Zero means
	// DefaultCheckpointBytes; negative, no cap.
	MaxBytes int64

	// resolved is Workspace with its symlinks resolved, since footprints
	// name resolved paths.
	resolved string
}

// Change is one change of the workspace the session recorded: a reply's
// calls, or an undo, redo or rewind.
type Change struct {
	Seq int `json:"seq"`
	// Kind is "reply", "undo", "redo" or "rewind".
	Kind string `json:"kind"`
	// Turn is the reply's turn, for a reply's change.
	Turn int `json:"turn,omitempty"`
	// Before and After are the recorded states of the change's paths
	// before and after it; After is empty until the reply settled.
	Before string `json:"before"`
	After  string `json:"after,omitempty"`
	// Roots are what a reply's checkpoint recorded, workspace-relative.
	Roots []string `json:"roots,omitempty"`
	// Calls are a reply's calls that may change the workspace.
	Calls []CheckpointCall `json:"calls,omitempty"`
	// Files are the files the change changed.
	Files []FileChange `json:"files,omitempty"`
	// NotCovered says what the checkpoint cannot bring back.
	NotCovered []string `json:"not_covered,omitempty"`
	// Unrecorded are the paths the reply left in a state its checkpoint
	// could not record (too large, unreadable, changing while read): no
	// restore touches them, and NotCovered says each with its reason.
	Unrecorded []string `json:"unrecorded,omitempty"`
	// Reverts lists the changes a restore took back.
	Reverts []int `json:"reverts,omitempty"`
	// Live says the change is in effect: no later restore took it back.
	Live bool `json:"live"`
}

// Point is a place in the session a rewind can go back to: the goal, an
// answer to a question, a follow-up, or a reply.
type Point struct {
	// Kind is "goal", "answer", "followup" or "reply".
	Kind string `json:"kind"`
	// Turn is the reply's turn, or the turn the input led to.
	Turn int `json:"turn"`
	// Text is the input, or the start of the reply's text.
	Text string `json:"text"`
	// Messages is how long the conversation was when the point began: a
	// rewind of the conversation to the point keeps that many messages.
	// It is -1 once a compaction folded the point into its summary.
	Messages int `json:"messages"`
	// Changes is how many workspace changes the session had recorded when
	// the point began.
	Changes int `json:"changes"`
}

// rel returns the workspace-relative form of the absolute path p, and
// whether p is inside the workspace.
func (c *CheckpointStore) rel(p string) (string, bool) {
	if c.resolved == "" {
		c.resolved = c.Workspace
		if r, err := filepath.EvalSymlinks(c.Workspace); err == nil {
			c.resolved = r
		}
	}
	for _, root := range []string{c.resolved, c.Workspace} {
		if r, err := filepath.Rel(root, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			return filepath.ToSlash(r), true
		}
	}
	return "", false
}

// reach returns what a call may change in the workspace, workspace-relative,
// and what it may change that a checkpoint cannot bring back. A call that
// changes nothing in the workspace (it only reads, or writes the session's
// memory) has neither.
func (c *CheckpointStore) reach(p *Prepared) (roots, notCovered []string) {
	t := p.Touches
	if t.Access != tool.AccessWrites {
		return nil, nil
	}
	if t.Scope.IsAnything() {
		what := "its effects outside the workspace"
		switch {
		case strings.Contains(p.Call.Name, "__"):
			what = "the MCP tool's effects outside the workspace"
		case p.Sandbox != nil && !p.Sandbox.Sandboxed:
			what = "its effects outside the workspace, and its network calls (it ran unsandboxed)"
		}
		return []string{"."}, []string{p.Call.Name + ": " + what}
	}
	for _, path := range t.Scope.PathList() {
		if r, ok := c.rel(path); ok {
			roots = append(roots, r)
			continue
		}
		if strings.HasPrefix(path, "/mem/") || (p.Sandbox != nil && (path == p.Sandbox.Temp || slices.Contains(p.Sandbox.Caches, path))) {
			// The session's memory, a command's own temporary folder
			// and the toolchains' caches are not the person's files.
			continue
		}
		notCovered = append(notCovered, fmt.Sprintf("%s: %s, outside the workspace", p.Call.Name, path))
	}
	return roots, notCovered
}

// brief returns a call in a few words for a checkpoint: its path or its
// command, cut short.
func brief(p *Prepared) string {
	var args map[string]json.RawMessage
	if json.Unmarshal(p.Args, &args) != nil {
		return ""
	}
	for _, key := range []string{"path", "command"} {
		var s string
		if json.Unmarshal(args[key], &s) == nil && s != "" {
			s = strings.Join(strings.Fields(s), " ")
			if r := []rune(s); len(r) > 60 {
				s = string(r[:59]) + "…"
			}
			return s
		}
	}
	return ""
}

// takeCheckpoint records, before the reply's first call that may change the
// workspace starts, the state of everything the reply's calls may change.
// It runs once per reply. A checkpoint that cannot be taken is said, and
// the calls run without one.
func (r *replyRun) takeCheckpoint(ctx context.Context) {
	r.checkpointed = true
	store := r.store
	var roots, notCovered []string
	var calls []CheckpointCall
	for _, c := range r.calls {
		if c.settled && !c.started {
			continue
		}
		rs, nc := store.reach(c.p)
		if len(rs) == 0 && len(nc) == 0 {
			continue
		}
		roots = append(roots, rs...)
		notCovered = append(notCovered, nc...)
		calls = append(calls, CheckpointCall{Index: c.index, Name: c.p.Call.Name, Brief: brief(c.p), Roots: rs})
	}
	if len(roots) == 0 {
		roots = []string{}
	}
	tree, err := store.Store.Snapshot(ctx, roots)
	if err != nil {
		r.emit(Notice{Level: "warning", Text: fmt.Sprintf("no checkpoint could be taken before turn %d's changes (%v): "+
			"/undo cannot take them back", r.turn, err)})
		return
	}
	for _, sk := range tree.Skipped {
		notCovered = append(notCovered, fmt.Sprintf("%s: %s", sk.Path, sk.Why))
	}
	ev := CheckpointTaken{Turn: r.turn, Seq: r.sess.nextSeq(), Tree: tree.ID, Roots: tree.Roots, Calls: calls,
		NotCovered: notCovered, Ignored: tree.Ignored, At: Time{r.agent.clock().Now()}}
	r.emit(ev)
	r.sess.record(ev)
	r.checkpoint = &ev
}

// settleCheckpoint records what the reply changed, once its calls settled:
// the state of the checkpoint's roots after, and the files that differ.
func (r *replyRun) settleCheckpoint(ctx context.Context) {
	if r.checkpoint == nil {
		return
	}
	// A stopped turn's changes are recorded all the same.
	ctx = context.WithoutCancel(ctx)
	ev, err := r.store.settle(ctx, *r.checkpoint, r.agent.clock().Now())
	if err != nil {
		r.emit(Notice{Level: "warning", Text: fmt.Sprintf("what turn %d changed could not be recorded (%v): "+
			"/undo will compare with the workspace as it is then", r.turn, err)})
		return
	}
	r.emit(ev)
	r.sess.record(ev)
	r.agent.capCheckpoints(r.sess, r.store)
}

// settle takes the state after the checkpoint cp and compares it with cp's.
func (c *CheckpointStore) settle(ctx context.Context, cp CheckpointTaken, now time.Time) (CheckpointChanges, error) {
	after, err := c.Store.Snapshot(ctx, cp.Roots)
	if err != nil {
		return CheckpointChanges{}, err
	}
	changes, err := c.Store.Diff(cp.Tree, after.ID)
	if err != nil {
		return CheckpointChanges{}, err
	}
	// A file the reply made too large or unreadable is in neither diff
	// nor restore; it is named, so nothing claims to take it back.
	skipped, err := c.Store.NewlySkipped(cp.Tree, after)
	if err != nil {
		return CheckpointChanges{}, err
	}
	var unrecorded []UnrecordedPath
	for _, sk := range skipped {
		unrecorded = append(unrecorded, UnrecordedPath{Path: sk.Path, Why: sk.Why})
	}
	return CheckpointChanges{Turn: cp.Turn, Seq: cp.Seq, After: after.ID, Files: fileChanges(changes), Unrecorded: unrecorded, At: Time{now}}, nil
}

// notRestorable says, for a restore's preview, that the path u which turn
// left behind cannot be taken back, and why.
func notRestorable(turn int, u UnrecordedPath) string {
	return fmt.Sprintf("%s: not restorable, %s after turn %d", u.Path, u.Why, turn)
}

// changed reports whether the change changed the workspace: files it
// recorded, or paths it could not record.
func (ch Change) changed() bool { return len(ch.Files) > 0 || len(ch.Unrecorded) > 0 }

// fileChanges turns the store's changes into the files a person reads of.
func fileChanges(changes []checkpoint.Change) []FileChange {
	out := make([]FileChange, 0, len(changes))
	for _, ch := range changes {
		if ch.Before != nil && ch.Before.Type == checkpoint.Dir || ch.After != nil && ch.After.Type == checkpoint.Dir {
			// Folders come and go with their files; the files say it.
			continue
		}
		fc := FileChange{Path: ch.Path, Added: ch.Added, Removed: ch.Removed}
		switch {
		case ch.Before == nil:
			fc.Kind = "added"
		case ch.After == nil:
			fc.Kind = "removed"
		case ch.Before.Hash == ch.After.Hash && ch.Before.Type == ch.After.Type:
			fc.Kind = "mode"
		default:
			fc.Kind = "modified"
		}
		out = append(out, fc)
	}
	return out
}

// nextSeq is the number of the session's next workspace change.
func (s *Session) nextSeq() int { return len(s.Changes) + 1 }

// record applies a checkpoint or restore event to the session's changes:
// the live run and the journal's replay keep them by the same events.
func (s *Session) record(e Event) {
	switch ev := e.(type) {
	case CheckpointTaken:
		s.Changes = append(s.Changes, Change{Seq: ev.Seq, Kind: "reply", Turn: ev.Turn, Before: ev.Tree, Roots: ev.Roots, Calls: ev.Calls,
			NotCovered: ev.NotCovered, Live: true})
	case CheckpointChanges:
		if ch := s.change(ev.Seq); ch != nil {
			ch.After, ch.Files, ch.Unrecorded = ev.After, ev.Files, nil
			for _, u := range ev.Unrecorded {
				ch.Unrecorded = append(ch.Unrecorded, u.Path)
				if nc := notRestorable(ch.Turn, u); !slices.Contains(ch.NotCovered, nc) {
					ch.NotCovered = append(ch.NotCovered, nc)
				}
			}
		}
	case RestoreStarted:
		s.Changes = append(s.Changes, Change{Seq: ev.Seq, Kind: ev.Kind, Before: ev.Before, Reverts: ev.Reverts})
		s.restoring, s.restoreStart = ev.Seq, ev
	case RestoreFinished:
		s.finishRestore(ev)
	}
}

// change returns the change numbered seq, or nil.
func (s *Session) change(seq int) *Change {
	// Changes are numbered in the order they are recorded, from 1.
	if seq < 1 || seq > len(s.Changes) || s.Changes[seq-1].Seq != seq {
		return nil
	}
	return &s.Changes[seq-1]
}

// finishRestore applies a finished restore to the session: the changes it
// took back, the conversation it rewound, and the note for the model.
func (s *Session) finishRestore(ev RestoreFinished) {
	ch := s.change(ev.Seq)
	s.restoring = 0
	if ch == nil {
		return
	}
	if ev.RolledBack {
		ch.Live = false
		ch.Reverts = nil
		return
	}
	ch.After, ch.Live = ev.After, true
	for _, seq := range ch.Reverts {
		if rc := s.change(seq); rc != nil {
			rc.Live = false
			if ch.Kind == "redo" {
				// A redo takes back a restore: what that restore took back
				// is in effect again.
				for _, again := range rc.Reverts {
					if ac := s.change(again); ac != nil {
						ac.Live = true
					}
				}
			}
		}
	}
	if ev.Messages >= 0 && ev.Messages <= len(s.Messages) {
		s.Messages = s.Messages[:ev.Messages]
		if ev.Points >= 0 && ev.Points <= len(s.Points) {
			s.Points = s.Points[:ev.Points]
		}
		s.meter.reset()
	}
	if ev.Note != "" {
		if s.Note != "" {
			s.Note += "\n\n"
		}
		s.Note += ev.Note
	}
}

// ReplayCheckpoint applies a checkpoint or restore event read from the
// journal, as the live run applied it.
func (s *Session) ReplayCheckpoint(e Event) { s.record(e) }

// UnfinishedRestore returns the restore the session's record started and
// did not finish (the process died during it), or nil.
func (s *Session) UnfinishedRestore() *Change {
	if s.restoring == 0 {
		return nil
	}
	return s.change(s.restoring)
}

// AppendInput adds the person's input to the conversation, with the note
// agenttui has for the model before it, and marks it as a point a rewind
// can go back to.
func (s *Session) AppendInput(input, note string) {
	kind := "followup"
	switch {
	case len(s.Messages) == 0:
		kind = "goal"
	case answersQuestion(s.Messages[len(s.Messages)-1]):
		kind = "answer"
	}
	s.Points = append(s.Points, Point{Kind: kind, Turn: s.Turns() + 1, Text: input, Messages: len(s.Messages), Changes: len(s.Changes)})
	if !s.inputFromModel {
		s.learn(input, provenance.Ref{Source: tool.Source{Kind: tool.SourcePerson}})
	}
	s.learn(note, provenance.Ref{Source: tool.Source{Kind: tool.SourceAgenttui}})
	text := input
	if note != "" {
		text = note + "\n\n" + input
	}
	s.Messages = append(s.Messages, model.Message{Role: model.RoleUser, Text: text})
}

// answersQuestion says the input after m answers the model's question.
func answersQuestion(m model.Message) bool {
	return m.Role == model.RoleTool && slices.ContainsFunc(m.Results, func(r tool.Result) bool { return r.Name == AskUser && !r.IsError })
}

// AppendReply adds the model's reply of turn to the conversation and marks
// it as a point a rewind can go back to.
func (s *Session) AppendReply(turn int, msg model.Message) {
	text := strings.TrimSpace(msg.Text)
	if text == "" {
		var names []string
		for _, c := range msg.Calls {
			names = append(names, c.Name)
		}
		text = strings.Join(names, ", ")
	}
	s.Points = append(s.Points, Point{Kind: "reply", Turn: turn, Text: text, Messages: len(s.Messages), Changes: len(s.Changes)})
	s.Messages = append(s.Messages, msg)
}

// foldPoints keeps the points in step with a compaction that replaced the
// messages from up to to (not included) with one summary.
func (s *Session) foldPoints(from, to int) {
	for i := range s.Points {
		switch m := s.Points[i].Messages; {
		case m < 0 || m <= from:
		case m < to:
			s.Points[i].Messages = -1
		default:
			s.Points[i].Messages = m - (to - from) + 1
		}
	}
}

// RewindPoint is a point as a rewind shows it: with the files its reply
// changed, and whether the workspace changed after it.
type RewindPoint struct {
	Point
	// Files are what the point's reply changed, of the changes still in
	// effect; none for an input.
	Files []FileChange
	// Code says changes still in effect came after the point, so a rewind
	// of the code to it would write something.
	Code bool
}

// RewindPoints returns the session's points, oldest first, as a rewind
// shows them.
func (s *Session) RewindPoints() []RewindPoint {
	out := make([]RewindPoint, len(s.Points))
	for i, p := range s.Points {
		out[i].Point = p
		to := len(s.Changes)
		if i+1 < len(s.Points) {
			to = min(s.Points[i+1].Changes, to)
		}
		for j, ch := range s.Changes[min(p.Changes, len(s.Changes)):] {
			if ch.Kind != "reply" || !ch.Live || len(ch.Files) == 0 {
				continue
			}
			out[i].Code = true
			if p.Changes+j < to {
				out[i].Files = append(out[i].Files, ch.Files...)
			}
		}
	}
	return out
}

// SettleCheckpoints records what the replies whose checkpoints were taken
// changed, when the process ended before they settled: the workspace as it
// is now is their after, so that they can be undone like any other.
func (a *Agent) SettleCheckpoints(ctx context.Context, s *Session) {
	if s.Checkpoints == nil {
		return
	}
	for _, ch := range s.Changes {
		if ch.Kind != "reply" || ch.After != "" || ch.Before == "" {
			continue
		}
		ev, err := s.Checkpoints.settle(ctx, CheckpointTaken{Turn: ch.Turn, Seq: ch.Seq, Tree: ch.Before, Roots: ch.Roots}, a.clock().Now())
		if err != nil {
			a.emit(Notice{Level: "warning", Text: fmt.Sprintf("what turn %d changed before agenttui stopped could not be recorded (%v)", ch.Turn, err)})
			continue
		}
		a.emit(ev)
		s.record(ev)
	}
}
