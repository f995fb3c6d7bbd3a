package tui

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/internal/parttest"
)

// independent is the footprint of a task whose agent only reads.
func independent() *tool.Touches {
	t := tool.Independent()
	return &t
}

// tagged wraps events as the events of the task with id.
func tagged(id string, events ...runtime.Event) []any {
	out := make([]any, len(events))
	for i, e := range events {
		out[i] = runtime.Tag(id, e)
	}
	return out
}

// taskRequest builds an approval request of a call of the task with path,
// with its answer channel.
func taskRequest(id uint64, path []string, turn, index int, name string, pv *tool.Preview) approvalRequest {
	r := request(id, turn, index, name, t0)
	r.Req.Task = path
	r.Req.Preview = pv
	r.Req.Touches = tool.Writes(tool.Paths(ws + "/docs/api.md"))
	return r
}

// apiPreview is the preview of an edit of docs/api.md.
func apiPreview(digest string) *tool.Preview {
	old, new := "# API\n\nTODO\n", "# API\n\nEvery call, documented.\n"
	return &tool.Preview{Kind: tool.PreviewFile, Path: "docs/api.md", Old: old, New: new, Added: 1, Removed: 1, Digest: digest,
		OldLines: 3, NewLines: 3}
}

// twoTasks starts a run whose first reply runs two tasks side by side: an
// explore agent surveying the docs, which reads two files, and a general
// agent that may write docs/api, whose model is replying. With asking, the
// explore agent's first call is instead an edit of docs/api.md that asks
// the person (turn 1, call 0 of the task's run, as the session's first
// call is of its own).
func twoTasks(t *testing.T, asking bool) *harness {
	t.Helper()
	h := newHarness(t, Options{})
	h.startRun("document the API")
	h.feed(runtime.ReplyReceived{Turn: 1, Text: "Two tasks at once.", Calls: []runtime.PlannedCall{
		pc(0, "task", `{"description":"Survey the docs","prompt":"List every page under docs/ and what it covers.","agent":"explore"}`, independent(), 1),
		pc(1, "task", `{"description":"Fix the API page","prompt":"Document every call in docs/api.md.","agent":"general","writes":["docs/api"]}`,
			writes("docs/api"), 1),
	}},
		decide(1, 0, "run", "mode:reads", "reads mode runs a task whose agent only reads"),
		decide(1, 1, "run", "mode:auto", "auto mode runs every call"),
		started(1, 0, "task", t0), started(1, 1, "task", t0))
	h.feed(tagged("1.0",
		runtime.RunStarted{Goal: "List every page under docs/ and what it covers.", Input: "List every page under docs/ and what it covers."},
		runtime.TurnStarted{Turn: 1})...)
	if asking {
		h.feed(tagged("1.0",
			runtime.ReplyReceived{Turn: 1, Text: "Mending the API page.", Calls: []runtime.PlannedCall{
				pc(0, "edit_file", `{"path":"docs/api.md","old":"TODO","new":"Every call, documented."}`, writes("docs/api.md"), 1),
				pc(1, "read_file", `{"path":"docs/index.md"}`, reads("docs/index.md"), 1),
			}},
			decide(1, 0, "ask", "mode:reads", "reads mode asks before a call that may change things"),
			decide(1, 1, "run", "mode:reads", "reads mode runs calls that only read"),
			started(1, 1, "read_file", t0))...)
	} else {
		h.feed(tagged("1.0",
			runtime.ReplyReceived{Turn: 1, Text: "Reading the index first.", Calls: []runtime.PlannedCall{
				pc(0, "read_file", `{"path":"docs/index.md"}`, reads("docs/index.md"), 1),
				pc(1, "read_file", `{"path":"docs/api.md"}`, reads("docs/api.md"), 1),
			}},
			decide(1, 0, "run", "mode:reads", "reads mode runs calls that only read"),
			decide(1, 1, "run", "mode:reads", "reads mode runs calls that only read"),
			started(1, 0, "read_file", t0), started(1, 1, "read_file", t0))...)
	}
	h.feed(tagged("1.1",
		runtime.RunStarted{Goal: "Document every call in docs/api.md.", Input: "Document every call in docs/api.md."},
		runtime.TurnStarted{Turn: 1})...)
	return h
}

// TestTaskRows: a reply with two task calls shows each task's agent, what it
// is for, what it may write and how far it has got, from its own events.
func TestTaskRows(t *testing.T) {
	h := twoTasks(t, false)
	screen := h.view()
	mustContain(t, screen, "#1 task", "explore · Survey the docs", "▶ turn 1 · 2 running",
		"#2 task", "general · Fix the API page · writes docs/api", "▶ turn 1 · model replying",
		"W docs/api")
	// The tasks' replies and calls stay out of the session's transcript
	// and board.
	mustNotContain(t, screen, "Reading the index first.", "docs/index.md")
	if r := h.m.board.Reply(); r.Turn != 1 || len(r.Calls) != 2 || h.m.thinking {
		t.Fatalf("the session's board changed: turn %d, %d calls, thinking %v", r.Turn, len(r.Calls), h.m.thinking)
	}
	// The task ends: its row says how.
	h.feed(tagged("1.0",
		finished(1, 0, "read_file", "success", "", "# Docs", 3), finished(1, 1, "read_file", "success", "", "# API", 3),
		runtime.TurnEnded{Turn: 1},
		runtime.RunFinished{Outcome: runtime.Succeeded("Found 3 pages: index, api, guide", nil)})...)
	mustContain(t, h.view(), "✓ succeeded: Found 3 pages: index, api, guide")
}

// TestTaskApprovalOnTheSessionBoard: a task's call that asks appears on the
// session's board under its task's row, with the task's name; focused, the
// detail pane shows its diff; y approves it (after the grace period, which
// guards it as any other) bound to the preview's digest, and the session's
// call with the same turn and index is left alone.
func TestTaskApprovalOnTheSessionBoard(t *testing.T) {
	h := twoTasks(t, true)
	req := taskRequest(7, []string{"1.0"}, 1, 0, "edit_file", apiPreview("sha256:api1"))
	h.feed(req)
	screen := h.view()
	mustContain(t, screen, "↳ task #1 explore · edit_file docs/api.md · +1 −1", "? needs approval")
	h.key("down")
	screen = h.view()
	mustContain(t, screen, "── task #1 explore · #1 edit_file ──", "change: docs/api.md · +1 −1",
		"3   - TODO", "  3 + Every call, documented.")
	// The request has just appeared: y is ignored for the grace period.
	h.key("y")
	if _, ok := answered(req); ok {
		t.Fatal("y approved a task's call that had just appeared")
	}
	h.clock.advance(time.Second)
	h.key("y")
	a, ok := answered(req)
	if !ok || !a.Approve || a.Digest != "sha256:api1" {
		t.Fatalf("answer %+v %v", a, ok)
	}
	if _, ok := h.m.answers[req.ID]; ok {
		t.Fatal("the answered request is still open")
	}
	parent := h.m.board.Reply().Get(0)
	if parent.Req != nil || parent.Answered != "" || !parent.Started || parent.Change != nil {
		t.Fatalf("the session's call #1 changed: %+v", parent)
	}
	mustContain(t, h.view(), "approved task #1 explore · #1 edit_file")
	mustNotContain(t, h.view(), "↳ task #1 explore")
}

// TestTaskViewOpensAndCloses: Enter on a task's row opens its board and
// transcript with a breadcrumb; its calls that wait can be answered there;
// Esc goes back and does not stop the run.
func TestTaskViewOpensAndCloses(t *testing.T) {
	h := twoTasks(t, false)
	h.key("enter")
	screen := h.view()
	mustContain(t, screen, "session › task #1 explore: Survey the docs · Calls · turn 1 · 2 call(s)",
		"task › List every page under docs/ and what it covers.", "Reading the index first.",
		"#1 read_file", "path=docs/index.md", "esc back")
	mustNotContain(t, screen, "Two tasks at once.")
	// A request of the task is answered in its view.
	req := taskRequest(8, []string{"1.0"}, 1, 1, "read_file", nil)
	h.feed(tagged("1.0", runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{
		pc(0, "edit_file", `{"path":"docs/api.md"}`, writes("docs/api.md"), 1),
		pc(1, "write_file", `{"path":"docs/new.md"}`, writes("docs/new.md"), 1),
	}}, decide(2, 1, "ask", "mode:reads", "asks"))...)
	req.Req.Turn, req.Req.Call.Name = 2, "write_file"
	h.feed(req)
	h.clock.advance(time.Second)
	mustContain(t, h.view(), "Calls · turn 2 · 2 call(s) · 1 need(s) approval")
	h.key("down")
	h.key("y")
	if a, ok := answered(req); !ok || !a.Approve {
		t.Fatalf("answer %+v %v", a, ok)
	}
	h.key("esc")
	screen = h.view()
	mustNotContain(t, screen, "session › task #1")
	mustContain(t, screen, "Two tasks at once.", "Calls · turn 1 · 2 call(s)")
	if h.m.run == nil || h.m.run.stopping || h.m.run.ctx.Err() != nil {
		t.Fatal("esc in the task's view stopped the run")
	}
	if h.m.board.Focused() != h.m.board.Reply().Get(0) {
		t.Fatal("focus did not come back to the task's row")
	}
	// At the top, Esc stops the run as before.
	h.key("esc")
	if !h.m.run.stopping {
		t.Fatal("esc at the top did not stop the run")
	}
}

// TestTaskRunFinishedLeavesTheSessionRunning: a task's RunFinished ends the
// task, not the session's run.
func TestTaskRunFinishedLeavesTheSessionRunning(t *testing.T) {
	h := twoTasks(t, false)
	h.feed(tagged("1.1",
		runtime.UsageReported{Turn: 1, Total: usage(5000, 700).Total, Usage: usage(5000, 700).Total},
		runtime.RunFinished{Outcome: runtime.Failed("Fix the API page", "turn 1", []string{"the model stopped"})})...)
	if h.m.last != nil || h.m.run == nil || h.m.usage.Tokens() != 0 {
		t.Fatalf("a task's end ended the session's run: last %+v, usage %+v", h.m.last, h.m.usage)
	}
	screen := h.view()
	mustContain(t, screen, "✗ failed at turn 1", "running 2")
	mustNotContain(t, screen, "✗ Failed", "took")
}

// TestStatusCountsTaskRequests: the status bar counts the calls that wait
// for the person across the session and its tasks, and a request of a task
// no event named yet is shown and can be answered all the same.
func TestStatusCountsTaskRequests(t *testing.T) {
	h := twoTasks(t, true)
	h.feed(taskRequest(7, []string{"1.0"}, 1, 0, "edit_file", apiPreview("sha256:a")))
	mustContain(t, h.view(), "? 1 call to approve")
	stray := taskRequest(9, []string{"3.4"}, 2, 5, "write_file", apiPreview("sha256:b"))
	h.feed(stray)
	screen := h.view()
	mustContain(t, screen, "? 2 calls to approve", "waiting for you: tasks' calls without a row above",
		"↳ task #5 · write_file docs/api.md")
	if _, ok := answered(stray); ok {
		t.Fatal("the request of an unknown task was skipped")
	}
	// A approves every call that waits, the tasks' included.
	h.clock.advance(time.Second)
	h.key("A")
	if a, ok := answered(stray); !ok || !a.Approve || a.Digest != "sha256:b" {
		t.Fatalf("stray answer %+v %v", a, ok)
	}
	mustContain(t, h.view(), "approved 2 pending call(s)")
}

// TestTaskTextIsCleaned: what a task's events carry is drawn clean.
func TestTaskTextIsCleaned(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("go")
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "task", `{"description":`+jsonString("evil "+parttest.Hostile)+`,"prompt":"p","agent":"explore"}`, independent(), 1),
	}}, started(1, 0, "task", t0))
	h.feed(tagged("1.0", runtime.RunStarted{Input: "prompt " + parttest.Hostile}, runtime.TurnStarted{Turn: 1},
		runtime.TextDelta{Turn: 1, Text: parttest.Hostile},
		runtime.Notice{Level: "warn", Text: parttest.Hostile})...)
	parttest.CheckScreen(t, h.view(), 120, 40)
	h.key("enter")
	screen := h.view()
	mustContain(t, screen, "session › task #1 explore: evil")
	parttest.CheckScreen(t, screen, 120, 40)
	h.feed(tagged("1.0", runtime.RunFinished{Outcome: runtime.Succeeded("done "+parttest.Hostile, nil)})...)
	parttest.CheckScreen(t, h.view(), 120, 40)
}

// jsonString encodes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestTaskInsideTask: a task inside a task is keyed by its whole path; its
// call that waits shows on the session's board under the outer task's row,
// Enter opens the outer task and then the inner one, and Esc goes back a
// level at a time.
func TestTaskInsideTask(t *testing.T) {
	h := twoTasks(t, false)
	outer := []string{"1.0"}
	h.feed(tagged("1.0", runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{
		pc(0, "task", `{"description":"Look deeper","prompt":"Read the guide.","agent":"explore"}`, independent(), 1),
	}}, decide(2, 0, "run", "mode:reads", "reads"), started(2, 0, "task", t0))...)
	inner := runtime.Tag("1.0", runtime.Tag("2.0", runtime.RunStarted{Input: "Read the guide."}))
	if len(inner.Task) != 2 {
		t.Fatalf("inner path %v", inner.Task)
	}
	h.feed(inner)
	req := taskRequest(11, []string{"1.0", "2.0"}, 1, 0, "write_file", apiPreview("sha256:deep"))
	h.feed(req)
	h.clock.advance(time.Second)
	mustContain(t, h.view(), "↳ task #1 explore · write_file docs/api.md", "? 1 call to approve")
	h.key("enter")
	mustContain(t, h.view(), "session › task #1 explore: Survey the docs · Calls · turn 2 · 1 call(s) · 1 need(s) approval",
		"#1 task explore · Look deeper")
	h.key("enter")
	mustContain(t, h.view(), "session › task #1 explore: Survey the docs › task #1 explore: Look deeper · Calls · turn 1",
		"task › Read the guide.")
	h.key("y")
	if a, ok := answered(req); !ok || a.Digest != "sha256:deep" {
		t.Fatalf("answer %+v %v", a, ok)
	}
	h.key("esc")
	mustContain(t, h.view(), "session › task #1 explore: Survey the docs · Calls · turn 2")
	if h.m.nested == nil || len(h.m.nested.path) != len(outer) {
		t.Fatal("esc did not go back one level")
	}
	h.key("esc")
	if h.m.nested != nil || h.m.run.stopping {
		t.Fatal("esc did not go back to the session, or stopped the run")
	}
}
