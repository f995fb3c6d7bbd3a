package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/board"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/restore"
	"github.com/agenttui/agenttui/tui/rewind"
)

// Restorer undoes, redoes and rewinds what the session's replies changed
// (/undo, /redo, /rewind). The console plans a restore, shows it, and does
// it only once the person confirmed what was shown.
type Restorer interface {
	// PlanUndo plans taking back the last reply that changed the
	// workspace.
	PlanUndo(ctx context.Context) (*runtime.Restore, error)
	// PlanRedo plans taking back the last undo.
	PlanRedo(ctx context.Context) (*runtime.Restore, error)
	// PlanRewind plans going back to before the session's point (an
	// index into RewindPoints).
	PlanRewind(ctx context.Context, point int, code, conversation bool) (*runtime.Restore, error)
	// Restore does a planned restore that the person confirmed on the
	// preview with digest, overwriting the conflicting paths in overwrite.
	Restore(ctx context.Context, r *runtime.Restore, digest string, overwrite []string) (runtime.RestoreFinished, error)
	// RewindPoints returns the points of the session, oldest first.
	RewindPoints() []runtime.RewindPoint
}

// restorePlanned carries a planned restore and its preview, or why it
// could not be planned.
type restorePlanned struct {
	r       *runtime.Restore
	preview restore.Preview
	err     error
	// again plans the same restore anew, when the workspace changes under
	// the preview; replanned says this plan is such a second look.
	again     func(ctx context.Context) (*runtime.Restore, error)
	replanned bool
}

// restoreDone carries the end of a restore.
type restoreDone struct {
	r   *runtime.Restore
	fin runtime.RestoreFinished
	err error
}

func (m *Model) cmdUndo(string) tea.Cmd {
	return m.planRestore("/undo", func(ctx context.Context) (*runtime.Restore, error) { return m.opts.Restores.PlanUndo(ctx) })
}

func (m *Model) cmdRedo(string) tea.Cmd {
	return m.planRestore("/redo", func(ctx context.Context) (*runtime.Restore, error) { return m.opts.Restores.PlanRedo(ctx) })
}

func (m *Model) cmdRewind(string) tea.Cmd {
	if m.opts.Restores == nil {
		m.say("/rewind is not available in this console", true)
		return nil
	}
	if why := m.idle("/rewind"); why != "" {
		m.say(why, true)
		return nil
	}
	all := m.opts.Restores.RewindPoints()
	if len(all) == 0 {
		m.say("there is nothing to rewind to yet: the session has no input", false)
		return nil
	}
	points := make([]rewind.Point, len(all))
	for i, p := range all {
		points[i] = rewind.Point{Kind: p.Kind, Turn: p.Turn, Text: p.Text, Conversation: p.Messages >= 0, Code: p.Code}
		for _, f := range p.Files {
			points[i].Files = append(points[i].Files, rewind.File{Path: f.Path, Kind: f.Kind, Added: f.Added, Removed: f.Removed})
		}
	}
	m.rewind.Show(points, m.now())
	return m.redrawAfter(m.rewind.Grace)
}

// redrawAfter redraws the console once a grace period of d has passed, so
// the hints say the keys work again; a single timer, nothing repeats.
func (m *Model) redrawAfter(d time.Duration) tea.Cmd {
	if d <= 0 {
		return nil
	}
	return m.tick(d, func(time.Time) tea.Msg { return board.GraceEndMsg{} })
}

// rewindKey hands a key to the open rewind picker and plans the rewind the
// person chose.
func (m *Model) rewindKey(msg tea.KeyMsg) tea.Cmd {
	act, ok := m.rewind.Update(msg, m.now())
	if !ok {
		return nil
	}
	switch {
	case act.Cancel:
		m.rewind.Hide()
		m.note = "rewind cancelled; nothing changed"
	case act.Code || act.Conversation:
		m.rewind.Hide()
		point, code, conversation := act.Point, act.Code, act.Conversation
		return m.planRestore("/rewind", func(ctx context.Context) (*runtime.Restore, error) {
			return m.opts.Restores.PlanRewind(ctx, point, code, conversation)
		})
	}
	return nil
}

// planRestore plans a restore off the event loop; no run starts until the
// person has confirmed or cancelled it.
func (m *Model) planRestore(what string, plan func(ctx context.Context) (*runtime.Restore, error)) tea.Cmd {
	if m.opts.Restores == nil {
		m.say(what+" is not available in this console", true)
		return nil
	}
	if why := m.idle(what); why != "" {
		m.say(why, true)
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.opening, m.busy, m.cancelBusy = true, "looking at what "+what+" would change…", cancel
	m.note = m.busy
	return func() tea.Msg {
		r, err := plan(ctx)
		if err != nil {
			return restorePlanned{err: err}
		}
		return restorePlanned{r: r, preview: previewOf(r), again: plan}
	}
}

// planned shows a planned restore for the person to confirm.
func (m *Model) planned(msg restorePlanned) tea.Cmd {
	if msg.err != nil {
		m.endBusy()
		m.say(text.CleanLine(msg.err.Error()), !errors.Is(msg.err, runtime.ErrNothingToRestore))
		return m.startQueued()
	}
	m.pendingRestore, m.replanRestore = msg.r, msg.again
	m.restoreScreen.Show(msg.preview, m.now())
	if !msg.replanned {
		m.note = ""
	}
	return m.redrawAfter(m.restoreScreen.Grace)
}

// restoreKey hands a key to the restore preview, and does the restore the
// person confirmed.
func (m *Model) restoreKey(msg tea.KeyMsg) tea.Cmd {
	act, ok := m.restoreScreen.Update(msg, m.now())
	if !ok {
		return nil
	}
	r := m.pendingRestore
	switch {
	case act.Cancel:
		m.restoreScreen.Hide()
		m.pendingRestore = nil
		m.endBusy()
		m.say(r.Title+" cancelled; nothing was written", false)
		return m.startQueued()
	case act.Confirm:
		m.restoreScreen.Hide()
		m.busy = r.Title + "…"
		m.note = m.busy
		restores, digest, overwrite := m.opts.Restores, act.Digest, act.Overwrite
		return func() tea.Msg {
			fin, err := restores.Restore(context.Background(), r, digest, overwrite)
			return restoreDone{r: r, fin: fin, err: err}
		}
	}
	return nil
}

// restored says how a restore ended. A preview the workspace moved under
// is planned and shown again: the person confirms what will really happen.
func (m *Model) restored(msg restoreDone) tea.Cmd {
	if errors.Is(msg.err, runtime.ErrRestoreStale) && m.replanRestore != nil {
		m.say("the workspace changed since the preview, so nothing was written; here is what it would do now", true)
		plan := m.replanRestore
		m.busy = "looking again…"
		return func() tea.Msg {
			r, err := plan(context.Background())
			if err != nil {
				return restorePlanned{err: err}
			}
			return restorePlanned{r: r, preview: previewOf(r), again: plan, replanned: true}
		}
	}
	m.endBusy()
	m.pendingRestore = nil
	if msg.err != nil {
		m.say("could not "+msg.r.Title+": "+text.CleanLine(msg.err.Error()), true)
		return m.startQueued()
	}
	var b strings.Builder
	b.WriteString(msg.r.Title + ": ")
	if msg.r.Plan != nil {
		fmt.Fprintf(&b, "%d path(s) written", len(msg.fin.Written))
		if n := len(msg.fin.Kept); n > 0 {
			fmt.Fprintf(&b, ", %d kept as they are (changed since): %s", n, strings.Join(msg.fin.Kept, ", "))
		}
		b.WriteString("; ")
	}
	if msg.r.Messages >= 0 {
		fmt.Fprintf(&b, "the model no longer reads turn %d and what came after it, shown above", msg.r.Turn)
	} else {
		b.WriteString("the conversation is as it was")
	}
	if msg.fin.Note != "" {
		b.WriteString("; the model is told with your next message")
	}
	m.say(text.CleanLine(b.String()), false)
	if msg.r.Input != "" && m.input.Value() == "" {
		m.input.SetValue(msg.r.Input)
		m.setFocus(focusInput)
	}
	return m.startQueued()
}

// endBusy ends the wait a restore put the console in.
func (m *Model) endBusy() {
	m.opening, m.busy = false, ""
	if m.cancelBusy != nil {
		m.cancelBusy()
		m.cancelBusy = nil
	}
}

// previewOf turns a planned restore into what the preview shows: each path
// as it is and as the restore would leave it, read from the store.
func previewOf(r *runtime.Restore) restore.Preview {
	p := restore.Preview{Title: r.Title, NotCovered: r.NotCovered}
	if r.Messages >= 0 {
		p.Conversation = fmt.Sprintf("the conversation goes back to before turn %d: the model will no longer read what came after", r.Turn)
	}
	if r.Plan == nil {
		return p
	}
	p.Digest = r.Plan.Digest
	for _, st := range r.Plan.Steps {
		if st.Action == checkpoint.None {
			continue
		}
		f := restore.File{Path: st.Path, How: how(st), Conflict: st.Conflict}
		f.Before, f.Binary = content(r.Store, st.Current)
		after, bin := content(r.Store, st.Target)
		f.After, f.Binary = after, f.Binary || bin
		p.Files = append(p.Files, f)
	}
	return p
}

// how says what a restore does to one path.
func how(st checkpoint.Step) string {
	isDir := func(e *checkpoint.Entry) bool { return e != nil && e.Type == checkpoint.Dir }
	switch {
	case isDir(st.Target) && st.Current == nil:
		return "folder made"
	case isDir(st.Current) && st.Target == nil:
		return "folder removed"
	case st.Target == nil:
		return "removed"
	case st.Current == nil:
		return "brought back"
	case st.Action == checkpoint.Chmod:
		return "mode"
	}
	return "restored"
}

// content reads a file's content for a preview; a folder, a link or an
// absent path has none, and a file with a NUL byte is binary.
func content(store *checkpoint.Store, e *checkpoint.Entry) (string, bool) {
	if e == nil || e.Type != checkpoint.File || store == nil {
		return "", false
	}
	b, err := store.Read(e.Hash)
	if err != nil {
		return "", false
	}
	return string(b), tool.IsBinary(string(b))
}
