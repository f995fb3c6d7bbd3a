package taskview

import (
	"testing"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/eventtest"
)

var (
	pc     = eventtest.Call
	reads  = eventtest.Reads
	writes = eventtest.Writes
	decide = eventtest.Decide
)

func independent() *tool.Touches {
	t := tool.Independent()
	return &t
}

// ask is a request of a call of the task at path.
func ask(id uint64, path []string, turn, index int, name string) callview.Request {
	return callview.Request{ID: id, Req: approval.Request{Turn: turn, Index: index, Call: tool.Call{Name: name},
		Touches: tool.Writes(tool.Paths(eventtest.WS + "/a.txt")), Task: path}}
}

// TestBindAndApply: the session's reply binds its task calls to tasks with
// their words; a task's events change only that task.
func TestBindAndApply(t *testing.T) {
	ts := New()
	parent := callview.NewReply(runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{
		pc(0, "read_file", `{"path":"a"}`, reads("a"), 1),
		pc(1, "task", `{"description":"Look\naround","prompt":"p","writes":["docs"]}`, writes("docs"), 1),
		pc(2, "task", `{"description":"x"`, nil, 0),
	}})
	ts.Bind(nil, parent)
	task := parent.Calls[1].Task
	if parent.Calls[0].Task != nil || parent.Calls[2].Task != nil || task == nil || parent.Calls[0].In != nil {
		t.Fatalf("binding: %+v", parent.Calls)
	}
	if task.Label != "task #2" || task.Agent != "explore" || task.Description != "Look⏎ around" || task.Words() != "explore · Look⏎ around · writes docs" {
		t.Fatalf("task %+v, words %q", task, task.Words())
	}
	path := []string{"2.1"}
	ts.Apply(path, runtime.RunStarted{Input: "p"})
	before := parent.Calls[1].Version
	ts.Apply(path, runtime.TurnStarted{Turn: 1})
	if parent.Calls[1].Version == before {
		// The detail pane caches its lines by version: a task's progress
		// would stay stale on it.
		t.Fatal("a task's event left the version of the call that runs it unchanged")
	}
	if task.Progress() != "turn 1 · model replying" {
		t.Fatalf("progress %q", task.Progress())
	}
	ts.Apply(path, runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "read_file", `{"path":"a"}`, reads("a"), 1), pc(1, "task", `{"description":"deeper","prompt":"q"}`, independent(), 1),
	}})
	ts.Apply(path, eventtest.Started(1, 0, "read_file", eventtest.T0))
	if task.Reply == nil || task.Reply.Calls[0].In != task || task.Reply.Calls[1].Task == nil || task.Progress() != "turn 1 · 1 running · 1 queued" {
		t.Fatalf("task reply %+v, progress %q", task.Reply, task.Progress())
	}
	if inner := ts.Get([]string{"2.1", "1.1"}); inner == nil || inner.View != task.Reply.Calls[1].Task {
		t.Fatal("the task inside the task is not bound")
	}
	if parent.Calls[0].Started {
		t.Fatal("a task's call start reached the session's call of the same index")
	}
	ts.Apply(path, runtime.RunFinished{Outcome: runtime.Succeeded("done", nil)})
	if s, _ := task.OutcomeText(); s != "✓ succeeded: done" || task.Progress() != s {
		t.Fatalf("outcome %q", s)
	}
}

// TestAttachShowsEveryRequest: a request of a task no event named is made
// into a task with a reply of that call; a request the task's reply does
// not hold waits alone; a new reply takes over the requests it holds, and
// Detach removes what the runtime stopped waiting for.
func TestAttachShowsEveryRequest(t *testing.T) {
	ts := New()
	path := []string{"1.0"}
	ts.Attach(ask(1, path, 1, 3, "write_file"))
	v := ts.Get(path).View
	if v.Reply == nil || v.Reply.Get(3) == nil || v.Reply.Get(3).Req == nil || v.Reply.Get(3).In != v || len(v.Asks()) != 1 {
		t.Fatalf("unknown task: %+v", v)
	}
	if v.Name() != "task #1" || ts.Asking() != 1 {
		t.Fatalf("name %q, asking %d", v.Name(), ts.Asking())
	}
	// The reply arrives late: the request moves onto its call.
	ts.Apply(path, runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "read_file", `{"path":"a"}`, reads("a"), 1), pc(1, "read_file", `{"path":"b"}`, reads("b"), 1),
		pc(2, "read_file", `{"path":"c"}`, reads("c"), 1), pc(3, "write_file", `{"path":"a.txt"}`, writes("a.txt"), 1),
	}})
	if c := v.Reply.Get(3); c.Req == nil || c.Req.ID != 1 || len(v.Lone) != 0 {
		t.Fatalf("late reply: %+v lone %d", c, len(v.Lone))
	}
	// A request for a call the reply does not hold waits alone.
	ts.Attach(ask(2, path, 7, 0, "edit_file"))
	if len(v.Lone) != 1 || len(v.Asks()) != 2 || len(ts.Pending()) != 2 {
		t.Fatalf("lone %d asks %d", len(v.Lone), len(v.Asks()))
	}
	if loose := ts.Loose(nil); len(loose) != 1 || loose[0] != v {
		t.Fatalf("loose %v", loose)
	}
	ts.Detach(2)
	ts.Detach(1)
	if len(v.Lone) != 0 || len(v.Asks()) != 0 {
		t.Fatalf("after detach: lone %d asks %d", len(v.Lone), len(v.Asks()))
	}
	// A decision that the call runs ends a lone request too.
	ts.Attach(ask(3, path, 7, 0, "edit_file"))
	ts.Apply(path, decide(7, 0, "run", "grant:edit_file", "granted"))
	if len(v.Lone) != 0 {
		t.Fatal("a lone request outlived its call's decision")
	}
}

// TestLooseSkipsBoundTasks: a task whose call is in the reply on the board
// is not loose; its requests are drawn under its row.
func TestLooseSkipsBoundTasks(t *testing.T) {
	ts := New()
	parent := callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "task", `{"description":"d","prompt":"p"}`, independent(), 1),
	}})
	ts.Bind(nil, parent)
	ts.Attach(ask(1, []string{"1.0"}, 1, 0, "write_file"))
	ts.Attach(ask(2, []string{"1.0", "1.4"}, 1, 0, "write_file"))
	if loose := ts.Loose(parent); len(loose) != 1 || loose[0].Label != "task #5" {
		t.Fatalf("loose %+v", loose)
	}
	if loose := ts.Loose(nil); len(loose) != 2 {
		t.Fatalf("without the reply, loose %+v", loose)
	}
}
