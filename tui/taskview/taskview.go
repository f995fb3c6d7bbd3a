// Package taskview keeps what the console knows of the session's tasks: the
// runs of sub-agents that calls named task start. Each task's events reach
// the console wrapped in runtime.TaskEvent; Apply takes them into the task's
// own view (its reply, turn, counts and outcome) and never into the
// session's, and Attach puts a task's approval requests on the task's calls,
// so the board shows them under the row of the call that runs the task.
//
// It is a view-model like callview, with no screen of its own: the board
// draws the callview.Task values it keeps, and the console keeps each
// task's transcript. Its values change only on the console's event loop.
package taskview

import (
	"slices"
	"strings"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/callview"
)

// Tasks are the session's tasks, by path.
type Tasks struct {
	byKey map[string]*Task
	// list holds the tasks in the order they became known.
	list []*Task
}

// Task is one task: what the board shows of it, and the usage its model
// reported.
type Task struct {
	// View is what the board and the detail pane show of the task.
	View *callview.Task
	// Key is the task's path as one string (Key).
	Key string
	// Usage is the tokens and cost of the task's own session so far;
	// TurnUsage are those of its turn UsageTurn, the last reported.
	Usage, TurnUsage model.Usage
	UsageTurn        int
	// host is the call that runs the task, once a reply that holds it is
	// bound; every event of the task changes it, so that the detail pane,
	// which draws the task's state, draws it again.
	host *callview.Call
}

// New returns an empty set of tasks.
func New() *Tasks { return &Tasks{byKey: map[string]*Task{}} }

// Key returns a task path as one string, which names the task among the
// session's.
func Key(path []string) string { return strings.Join(path, "/") }

// Get returns the task with path, or nil.
func (ts *Tasks) Get(path []string) *Task { return ts.byKey[Key(path)] }

// List returns the tasks in the order they became known.
func (ts *Tasks) List() []*Task { return ts.list }

// Ensure returns the task with path, making it when it is not known yet:
// events or a request may name a task before the reply whose call runs it
// is on the board.
func (ts *Tasks) Ensure(path []string) *Task {
	k := Key(path)
	if t := ts.byKey[k]; t != nil {
		return t
	}
	t := &Task{View: callview.NewTask(path), Key: k}
	ts.byKey[k] = t
	ts.list = append(ts.list, t)
	return t
}

// Bind ties the reply r of the run at path parent (nil for the session's
// own run) to the tasks: each valid call named task gets the task it runs,
// with its agent, description and writes from its arguments, and each call
// of a task's reply knows the task whose agent made it.
func (ts *Tasks) Bind(parent []string, r *callview.Reply) {
	if r == nil {
		return
	}
	var in *callview.Task
	if len(parent) > 0 {
		in = ts.Ensure(parent).View
	}
	for _, c := range r.Calls {
		c.In = in
		if c.Name != runtime.Task || c.Touches == nil {
			continue
		}
		path := append(slices.Clone(parent), runtime.TaskID(c.Turn, c.Index))
		task := ts.Ensure(path)
		task.View.SetArgs(c.Args)
		task.host = c
		c.Task = task.View
		c.Version++
	}
}

// Apply takes one event of the task at path into its view, and returns the
// task. Nothing of the session's own run changes.
func (ts *Tasks) Apply(path []string, e runtime.Event) *Task {
	t := ts.Ensure(path)
	v := t.View
	switch ev := e.(type) {
	case runtime.RunStarted:
		v.Started, v.Outcome = true, nil
	case runtime.TurnStarted:
		v.Turn, v.Replying = ev.Turn, true
	case runtime.CompactionStarted:
		v.Replying = true
	case runtime.Compacted, runtime.CompactionFailed:
		v.Replying = false
	case runtime.ReplyReceived:
		v.Turn, v.Replying = ev.Turn, false
		if len(ev.Calls) > 0 || ev.Cut != nil {
			ts.setReply(path, v, callview.NewReply(ev))
		}
	case runtime.InvalidReply:
		if r := v.Reply; r != nil && r.Turn == ev.Turn {
			r.InvalidResults(ev)
		}
	case runtime.CallDecision, runtime.CallStarted, runtime.CallRetried, runtime.CallFinished,
		runtime.CallPreviewed, runtime.PreviewStale, runtime.TurnEnded:
		v.Reply.Apply(e)
		for _, r := range v.Lone {
			r.Apply(e)
		}
		v.Lone = pruned(v.Lone)
	case runtime.UsageReported:
		t.Usage, t.TurnUsage, t.UsageTurn = ev.Total, ev.Usage, ev.Turn
	case runtime.RunFinished:
		o := ev.Outcome
		v.Outcome, v.Replying = &o, false
		if ev.Usage != nil {
			t.Usage = *ev.Usage
		}
	}
	if t.host != nil {
		t.host.Version++
	}
	return t
}

// setReply puts r on the task's board. Requests still open on the reply it
// replaces (or alone) move onto r when r holds their call, and otherwise
// stay alone, so that none is lost.
func (ts *Tasks) setReply(path []string, v *callview.Task, r *callview.Reply) {
	ts.Bind(path, r)
	var open []callview.Ask
	for _, a := range v.Asks() {
		if a.Task == v {
			open = append(open, a)
		}
	}
	old := v.Lone
	v.Reply, v.Lone = r, nil
	for _, a := range open {
		req := *a.Call.Req
		switch {
		case r.Attach(req):
			if c := r.Get(req.Req.Index); c != nil && c.Change == nil && a.Call.Change != nil {
				c.Change = a.Call.Change
			}
		case slices.Contains(old, a.Reply):
			v.Lone = append(v.Lone, a.Reply)
		default:
			v.Lone = append(v.Lone, ts.lone(v, req))
		}
	}
}

// lone returns a reply of the one call req is about, made by v's agent.
func (ts *Tasks) lone(v *callview.Task, req callview.Request) *callview.Reply {
	r := callview.LoneReply(req)
	for _, c := range r.Calls {
		c.In = v
	}
	return r
}

// pruned drops the lone replies whose request is no longer open.
func pruned(rs []*callview.Reply) []*callview.Reply {
	return slices.DeleteFunc(rs, func(r *callview.Reply) bool { return len(r.Pending(0)) == 0 })
}

// Attach puts a task's approval request (req.Req.Task set) on its call, and
// returns the task. A request is always shown: when the task, its reply or
// the call is not known yet, the task is made and the call is made from the
// request alone.
func (ts *Tasks) Attach(req callview.Request) *Task {
	t := ts.Ensure(req.Req.Task)
	v := t.View
	if v.Reply != nil && v.Reply.Attach(req) {
		return t
	}
	r := ts.lone(v, req)
	if v.Reply == nil {
		v.Reply = r
		if v.Turn == 0 {
			v.Turn = req.Req.Turn
		}
		return t
	}
	v.Lone = append(v.Lone, r)
	return t
}

// Detach takes the request with id off whichever task's call holds it.
func (ts *Tasks) Detach(id uint64) {
	for _, t := range ts.list {
		v := t.View
		v.Reply.Detach(id)
		for _, r := range v.Lone {
			r.Detach(id)
		}
		v.Lone = pruned(v.Lone)
	}
}

// Asking returns how many calls of all the tasks need the person.
func (ts *Tasks) Asking() int {
	n := 0
	for _, t := range ts.list {
		n += t.View.Asking()
	}
	return n
}

// Pending returns every task's call with an open request, task by task.
func (ts *Tasks) Pending() []*callview.Call {
	var out []*callview.Call
	for _, t := range ts.list {
		for _, a := range t.View.Asks() {
			if a.Task == t.View {
				out = append(out, a.Call)
			}
		}
	}
	return out
}

// Loose returns the tasks with calls that wait for the person but no row on
// a board showing r: their call is not in r, nor in the reply of a task
// that is. Each is the outermost such task, whose Asks include those of the
// tasks inside it.
func (ts *Tasks) Loose(r *callview.Reply) []*callview.Task {
	seen := map[*callview.Task]bool{}
	var mark func(r *callview.Reply, depth int)
	mark = func(r *callview.Reply, depth int) {
		if r == nil || depth > 16 {
			return
		}
		for _, c := range r.Calls {
			if t := c.Task; t != nil && !seen[t] {
				seen[t] = true
				mark(t.Reply, depth+1)
				for _, l := range t.Lone {
					mark(l, depth+1)
				}
			}
		}
	}
	mark(r, 0)
	byDepth := slices.Clone(ts.list)
	slices.SortStableFunc(byDepth, func(a, b *Task) int { return len(a.View.Path) - len(b.View.Path) })
	var out []*callview.Task
	for _, t := range byDepth {
		v := t.View
		if seen[v] {
			continue
		}
		seen[v] = true
		mark(v.Reply, 1)
		for _, l := range v.Lone {
			mark(l, 1)
		}
		if len(v.Asks()) > 0 {
			out = append(out, v)
		}
	}
	return out
}
