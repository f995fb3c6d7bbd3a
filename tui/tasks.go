package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/board"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/taskview"
	"github.com/agenttui/agenttui/tui/transcript"
)

// What the console does with tasks: the runs of sub-agents that calls named
// task start. A task's events arrive wrapped in runtime.TaskEvent and change
// only the task's own view (m.tasks) and transcript (m.taskLogs), never the
// session's board, transcript, usage or outcome. Its approval requests wait
// on the task's calls, which the board shows under the row of the call that
// runs the task; Enter opens a task's own board and transcript (nested), and
// Esc comes back.

// nestedView is a task's board and transcript, shown in place of the
// session's.
type nestedView struct {
	// path is the task's path.
	path []string
	// board shows the task's reply; its approval keys answer the task's
	// calls through Model.respond, like the session's board.
	board board.Model
}

// applyTask takes one event of a task into the task's view and transcript.
func (m *Model) applyTask(te runtime.TaskEvent) {
	if len(te.Task) == 0 || te.Event == nil {
		return
	}
	t := m.tasks.Apply(te.Task, te.Event)
	tr := m.taskLog(t.Key)
	switch ev := te.Event.(type) {
	case runtime.RunStarted:
		tr.Add(transcript.User{Label: "task", Text: text.Clean(ev.Input)})
	case runtime.TurnStarted:
		tr.SetLive(&transcript.Live{Turn: ev.Turn})
	case runtime.TextDelta:
		if tr.Live() == nil {
			tr.SetLive(&transcript.Live{Turn: ev.Turn})
		}
		tr.Live().Text.WriteString(ev.Text)
	case runtime.ThinkingDelta:
		l := tr.Live()
		if l == nil {
			l = &transcript.Live{Turn: ev.Turn}
			tr.SetLive(l)
		}
		if l.Thinking.Len() == 0 {
			l.ThinkingSince = m.now()
		}
		l.Thinking.WriteString(ev.Text)
	case runtime.ReplyReceived:
		l := tr.Live()
		var streamed string
		if l != nil {
			streamed = l.Thinking.String()
		}
		tokens := 0
		if t.UsageTurn == ev.Turn {
			tokens = t.TurnUsage.ReasoningTokens
		}
		if th, ok := transcript.NewThinking(ev.Reasoning, streamed, tokens, m.thoughtFor(l)); ok {
			tr.Add(th)
		}
		tr.SetLive(nil)
		if strings.TrimSpace(ev.Text) != "" {
			tr.Add(transcript.ModelText{Doc: m.markdown().Doc(ev.Text)})
		}
	case runtime.TurnEnded:
		var used model.Usage
		if t.UsageTurn == ev.Turn {
			used = t.TurnUsage
		}
		if r := t.View.Reply; r != nil && r.Turn == ev.Turn {
			tr.Add(transcript.NewGroup(r, m.opts.Workspace, used))
		}
	case runtime.Notice:
		tr.Add(transcript.Note{Text: text.Clean(ev.Level + ": " + ev.Text), Warn: ev.Level != "info"})
	case runtime.ModelRetry:
		tr.SetLive(&transcript.Live{Turn: ev.Turn})
		tr.Add(transcript.Note{Text: retryLine(ev, nil), Warn: true})
	case runtime.CompactionStarted:
		tr.SetLive(&transcript.Live{Doing: fmt.Sprintf("compacting the task's conversation (%s)", transcript.CompactWhy(ev))})
	case runtime.Compacted:
		tr.SetLive(nil)
		tr.Add(transcript.NewCompaction(ev))
	case runtime.CompactionFailed:
		tr.SetLive(nil)
		tr.Add(transcript.Note{Text: "the task's conversation could not be compacted: " + text.Clean(ev.Error), Warn: true})
	case runtime.RunFinished:
		if l := tr.Live(); l != nil && strings.TrimSpace(l.Text.String()) != "" {
			tr.Add(transcript.ModelText{Plain: text.Clean(l.Text.String())})
		}
		tr.SetLive(nil)
		tr.Add(transcript.Outcome{O: ev.Outcome, Task: true})
	}
}

// taskLog returns the transcript of the task with key, made on first use.
func (m *Model) taskLog(key string) *transcript.Model {
	tr := m.taskLogs[key]
	if tr == nil {
		t := transcript.New(m.keys.Transcript, m.styles)
		tr = &t
		m.taskLogs[key] = tr
	}
	return tr
}

// syncBoards brings the boards up to date after the runtime changed what
// they show: the tasks without a row on the session's board, and the
// reply of the task the nested view shows. It arms each board's grace
// period when what its approval keys act on changed.
func (m *Model) syncBoards() tea.Cmd {
	m.board.SetLoose(m.tasks.Loose(m.board.Reply()))
	cmd := m.board.ExternalChange()
	n := m.nested
	if n == nil {
		return cmd
	}
	if t := m.tasks.Get(n.path); t != nil && n.board.Reply() != t.View.Reply {
		n.board.SetReply(t.View.Reply)
		m.detail.FocusChanged()
	}
	n.board.Crumb = m.crumb(n.path)
	return tea.Batch(cmd, n.board.ExternalChange())
}

// personChange tells every board the person changed what it shows
// (answered, moved focus), which never arms a grace period.
func (m *Model) personChange() {
	m.board.PersonChange()
	if m.nested != nil {
		m.nested.board.PersonChange()
	}
}

// activeBoard returns the board on screen: the open task's, else the
// session's.
func (m *Model) activeBoard() *board.Model {
	if m.nested != nil {
		return &m.nested.board
	}
	return &m.board
}

// activeTranscript returns the transcript on screen: the open task's, else
// the session's.
func (m *Model) activeTranscript() *transcript.Model {
	if m.nested != nil {
		return m.taskLog(taskview.Key(m.nested.path))
	}
	return &m.transcript
}

// crumb names where the nested view is: "session › task #2 explore: Survey
// the docs", a step for each task on the path.
func (m *Model) crumb(path []string) string {
	parts := []string{"session"}
	for i := range path {
		t := m.tasks.Get(path[:i+1])
		if t == nil {
			continue
		}
		s := t.View.Name()
		if t.View.Description != "" {
			s += ": " + t.View.Description
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " › ")
}

// openTask shows task t's board and transcript in place of the session's.
func (m *Model) openTask(t *callview.Task) {
	if t == nil {
		return
	}
	nb := m.newBoard()
	nb.SetReply(t.Reply)
	nb.SetOwn(t)
	nb.Crumb = m.crumb(t.Path)
	// The person asked for this view: what it shows is not new to them.
	nb.PersonChange()
	m.nested = &nestedView{path: t.Path, board: nb}
	m.taskLog(taskview.Key(t.Path)).ToBottom()
	m.detail.FocusChanged()
	m.note = fmt.Sprintf("%s: its calls and transcript · esc goes back to the session", t.Name())
}

// closeTask goes back from a task's view to the view it was opened from:
// the session's, or the task that runs it.
func (m *Model) closeTask() {
	n := m.nested
	if n == nil {
		return
	}
	m.nested = nil
	m.detail.FocusChanged()
	if len(n.path) > 1 {
		if t := m.tasks.Get(n.path[:len(n.path)-1]); t != nil {
			m.openTask(t.View)
			m.nested.board.SetFocusCall(m.taskCall(n.path))
			m.note = "back to " + t.View.Name()
			return
		}
	}
	if c := m.taskCall(n.path); c != nil {
		m.board.SetFocusCall(c)
	}
	m.note = "back to the session's calls"
}

// taskCall returns the call that runs the task with path, when it is on a
// board: in the session's reply, or in the reply of the task around it.
func (m *Model) taskCall(path []string) *callview.Call {
	if len(path) == 0 {
		return nil
	}
	turn, index, ok := runtime.ParseTaskID(path[len(path)-1])
	if !ok {
		return nil
	}
	r := m.board.Reply()
	if len(path) > 1 {
		r = nil
		if t := m.tasks.Get(path[:len(path)-1]); t != nil {
			r = t.View.Reply
		}
	}
	if r == nil || r.Turn != turn {
		return nil
	}
	return r.Get(index)
}
