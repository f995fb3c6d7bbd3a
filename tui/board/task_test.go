package board

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// independent is the footprint of a task whose agent only reads.
func independent() *tool.Touches {
	t := tool.Independent()
	return &t
}

// taskOf ties the task call c to a task whose agent replied with calls,
// as the console's task registry does.
func taskOf(c *callview.Call, calls ...runtime.PlannedCall) *callview.Task {
	t := callview.NewTask([]string{runtime.TaskID(c.Turn, c.Index)})
	t.SetArgs(c.Args)
	t.Started, t.Turn = true, 1
	if len(calls) > 0 {
		t.Reply = callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: calls})
		for _, x := range t.Reply.Calls {
			x.In = t
		}
	}
	c.Task = t
	return t
}

// taskAsk is an approval request of a task's call, with the preview of an
// edit of docs/api.md.
func taskAsk(id uint64, path []string, turn, index int, name string) callview.Request {
	r := request(id, turn, index, name, t0)
	r.Req.Task = path
	r.Req.Touches = tool.Writes(tool.Paths(ws + "/docs/api.md"))
	r.Req.Preview = &tool.Preview{Kind: tool.PreviewFile, Path: "docs/api.md", Old: "TODO\n", New: "Every call.\n", Added: 1, Removed: 1,
		Digest: "sha256:api"}
	return r
}

// TestBoardTaskGolden pins the board's drawing of task calls: each task's
// agent, what it is for, what it may write and how far it has got; its
// calls that wait, each on a row of its own under it; its outcome; and a
// task's request that has no task row to go under.
func TestBoardTaskGolden(t *testing.T) {
	survey := pc(0, "task", `{"description":"Survey the docs","prompt":"List the pages.","agent":"explore"}`, independent(), 1)
	fix := pc(1, "task", `{"description":"Fix the API page","prompt":"Document every call.","agent":"general","writes":["docs/api"]}`,
		writes("docs/api"), 1)
	cases := []struct {
		name  string
		calls []runtime.PlannedCall
		setup func(b *Model, r *callview.Reply, now time.Time)
	}{
		{name: "task_rows", calls: []runtime.PlannedCall{survey, fix}, setup: func(b *Model, r *callview.Reply, now time.Time) {
			for i := range r.Calls {
				r.Apply(decide(1, i, "run", "mode:auto", "auto mode runs every call"))
				r.Apply(started(1, i, "task", now))
			}
			a := taskOf(r.Calls[0],
				pc(0, "edit_file", `{"path":"docs/api.md"}`, writes("docs/api.md"), 1),
				pc(1, "read_file", `{"path":"docs/index.md"}`, reads("docs/index.md"), 1),
				pc(2, "read_file", `{"path":"docs/guide.md"}`, reads("docs/guide.md"), 1))
			a.Turn = 3
			a.Reply.Apply(decide(1, 0, "ask", "mode:reads", "reads mode asks before a call that may change things"))
			a.Reply.Apply(started(1, 1, "read_file", now))
			a.Reply.Apply(started(1, 2, "read_file", now))
			a.Reply.Attach(taskAsk(7, a.Path, 1, 0, "edit_file"))
			b2 := taskOf(r.Calls[1])
			b2.Replying = true
			b.SetFocusCall(a.Reply.Calls[0])
		}},
		{name: "task_outcomes", calls: []runtime.PlannedCall{survey, fix}, setup: func(b *Model, r *callview.Reply, now time.Time) {
			a, f := taskOf(r.Calls[0]), taskOf(r.Calls[1])
			ok := runtime.Succeeded("Found 3 pages: index, api and guide", nil)
			a.Outcome = &ok
			failed := runtime.Failed("Fix the API page", "edit_file docs/api.md", []string{"old text not found"})
			f.Outcome = &failed
			r.Apply(started(1, 0, "task", now))
			r.Apply(finished(1, 0, "task", "success", "", "The explore agent finished.", 4200))
			r.Apply(started(1, 1, "task", now))
			r.Apply(finished(1, 1, "task", "error", "other", "The general agent failed.", 9100))
		}},
		{name: "task_loose", setup: func(b *Model, _ *callview.Reply, _ time.Time) {
			t := callview.NewTask([]string{"3.4"})
			t.Reply = callview.LoneReply(taskAsk(9, t.Path, 2, 5, "write_file"))
			t.Reply.Calls[0].In = t
			b.SetLoose([]*callview.Task{t})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: t0}
			b := New(ws, clock.now, DefaultGrace, DefaultKeyMap(), text.DefaultStyles())
			var r *callview.Reply
			if tc.calls != nil {
				r = callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: tc.calls})
				b.SetReply(r)
			}
			tc.setup(&b, r, clock.now())
			clock.advance(2 * time.Second)
			out := b.View(100, b.Need(), "⠋", true)
			for _, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(l); w > 100 {
					t.Fatalf("line is %d columns wide, more than 100: %q", w, l)
				}
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestTaskRowsTakeFocusAndApprovals: the rows of a task's calls that wait
// are focusable; y answers the focused one, a refuses to mix them into a
// batch of the reply, A takes them with the reply's own, and a new one
// arms the grace period.
func TestTaskRowsTakeFocusAndApprovals(t *testing.T) {
	clock := &fakeClock{t: t0}
	b := New(ws, clock.now, DefaultGrace, DefaultKeyMap(), text.DefaultStyles())
	r := callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "task", `{"description":"Survey","prompt":"p"}`, independent(), 1),
		pc(1, "run_shell", `{"command":"make"}`, writesAnything(), 1),
	}})
	b.SetReply(r)
	r.Apply(decide(1, 1, "ask", "mode:reads", "asks"))
	r.Attach(request(1, 1, 1, "run_shell", t0))
	task := taskOf(r.Calls[0], pc(0, "edit_file", `{"path":"docs/api.md"}`, writes("docs/api.md"), 1))
	task.Reply.Apply(decide(1, 0, "ask", "mode:reads", "asks"))
	task.Reply.Attach(taskAsk(2, task.Path, 1, 0, "edit_file"))
	if cmd := b.ExternalChange(); cmd == nil {
		t.Fatal("a task's new request did not arm the grace period")
	}
	clock.advance(time.Second)
	b.move(1)
	if c := b.Focused(); c != task.Reply.Calls[0] || !b.FocusOnTask() || b.Focus() != 0 || b.FocusedReply() != task.Reply {
		t.Fatalf("focus %v on %+v", b.focus, c)
	}
	act := b.Update(keyMsg('a'))
	if len(act.Approve) != 0 || !strings.Contains(act.Note, "a approves a batch of this reply's own calls") {
		t.Fatalf("a on a task's call: %+v", act)
	}
	act = b.Update(keyMsg('y'))
	if len(act.Approve) != 1 || act.Approve[0] != task.Reply.Calls[0] || act.Note != "approved task #1 explore · #1 edit_file" {
		t.Fatalf("y: %+v", act)
	}
	act = b.Update(keyMsg('A'))
	if len(act.Approve) != 2 || act.Approve[0] != r.Calls[1] || act.Approve[1] != task.Reply.Calls[0] {
		t.Fatalf("A: %+v", act)
	}
	// Answered, the task's call has no row: focus falls back to its task.
	task.Reply.Calls[0].MarkAnswered(true)
	if b.Focused() != r.Calls[0] || b.FocusOnTask() {
		t.Fatal("focus did not fall back to the task's row")
	}
	if act := b.Update(tea.KeyMsg{Type: tea.KeyEnter}); act.OpenTask != task {
		t.Fatalf("enter on the task's row: %+v", act)
	}
}

// keyMsg is the message of one typed rune.
func keyMsg(r rune) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}} }
