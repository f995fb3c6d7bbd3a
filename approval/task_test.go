package approval

import (
	"context"
	"slices"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// taskInfo is a task call: an agent that only reads (Independent) or one
// that may write its paths.
func taskInfo(args string, t tool.Touches) runtime.CallInfo {
	c := info(runtime.Task, args, t)
	c.Decl = tool.Declaration{Name: runtime.Task, Annotations: tool.Annotations{Delegates: true}}
	return c
}

// A task whose agent only reads runs where reads run, since each of its
// agent's calls is reviewed on its own; one that may write is treated as a
// write: plan mode allows only read-only agents.
func TestModesAndTasks(t *testing.T) {
	reading := taskInfo(`{"description":"survey","prompt":"p"}`, tool.Independent())
	writing := taskInfo(`{"description":"fix","prompt":"p","agent":"general","writes":["docs"]}`, tool.Writes(tool.Paths(ws+"/docs")))
	// An MCP tool that claims to only read is Independent too, but it is
	// not a task: its own body is what runs, unreviewed.
	hinted := info("server__lookup", `{}`, tool.Independent())
	cases := []struct {
		mode Mode
		c    runtime.CallInfo
		want string
	}{
		{ModeReads, reading, "run by mode:reads"},
		{ModePlan, reading, "run by mode:plan"},
		{ModeAsk, reading, "ask by mode:ask"},
		{ModeReads, writing, "ask by mode:reads"},
		{ModePlan, writing, "skip by mode:plan"},
		{ModeAuto, writing, "run by mode:auto"},
		{ModeReads, hinted, "ask by mode:reads"},
		{ModePlan, hinted, "skip by mode:plan"},
	}
	for _, c := range cases {
		if got := decide(policy(t, c.mode), c.c); got != c.want {
			t.Errorf("%s mode, %s %s: %s, want %s", c.mode, c.c.Call.Name, c.c.Touches, got, c.want)
		}
	}
	// Rules match a task by its arguments like any tool's.
	p := policy(t, ModeAuto, rule("task", Deny, "no-general", "agent", "general"))
	if got := decide(p, writing); got != "skip by rule:no-general" {
		t.Errorf("a deny rule on the agent: %s", got)
	}
}

// A task's call reaches the approver with its task path, so the console can
// say which task asks.
func TestRequestsNameTheirTask(t *testing.T) {
	got := make(chan Request, 1)
	p := NewPolicy(ModeReads, ApproverFunc(func(_ context.Context, r Request) Answer { got <- r; return Approve() }))
	p.SetWorkspace(ws)
	c := writeCall
	c.Task = []string{"2.1"}
	f := p.Review(context.Background(), c)
	if !f.IsAsk() {
		t.Fatalf("the write did not ask: %+v", f)
	}
	f.Await(context.Background(), runtime.AskRequest{CallInfo: c, By: f.By, Reason: f.Reason})
	if r := <-got; !slices.Equal(r.Task, []string{"2.1"}) {
		t.Errorf("the request names task %v, want [2.1]", r.Task)
	}
}
