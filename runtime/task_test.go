package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/agents"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// barrier lets n callers through together, so that a test can prove that
// calls overlap: none returns until all have arrived.
type barrier struct {
	mu      sync.Mutex
	waiting int
	n       int
	open    chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, open: make(chan struct{})} }

func (b *barrier) arrive(ctx context.Context) error {
	b.mu.Lock()
	b.waiting++
	if b.waiting == b.n {
		close(b.open)
	}
	b.mu.Unlock()
	select {
	case <-b.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// taskFixture is a parent agent with the task tool over scripted agents:
// each task plays the steps scripts gives its description.
type taskFixture struct {
	rec     *recorder
	agent   *Agent
	written sync.Map // path → true, for each write_file that ran
	reads   *fakeTool
	writes  *fakeTool
}

func newTaskFixture(t *testing.T, parent model.Model, scripts map[string][]model.Step, meet func(ctx context.Context, path string) error) *taskFixture {
	t.Helper()
	f := &taskFixture{rec: newRecorder()}
	body := func(ctx context.Context, args map[string]any) tool.Return {
		p, _ := args["path"].(string)
		if meet != nil {
			if err := meet(ctx, p); err != nil {
				return tool.Fail(tool.Cancelled(err.Error()), "stopped")
			}
		}
		return tool.Ok("contents of " + p)
	}
	f.reads = pathTool("read_file", false, body)
	f.writes = pathTool("write_file", true, func(ctx context.Context, args map[string]any) tool.Return {
		ret := body(ctx, args)
		if ret.Outcome().IsSuccess() {
			f.written.Store(args["path"], true)
			return tool.Ok("wrote " + args["path"].(string))
		}
		return ret
	})
	task := NewTaskTool(Tasks{
		Agents:    agents.Builtins(),
		Workspace: "/w",
		Tools: func([]string) ([]tool.Tool, []string) {
			return []tool.Tool{f.reads, f.writes}, nil
		},
		Model: func(def agents.Definition, description string, _ model.Model) (model.Model, error) {
			steps, ok := scripts[description]
			if !ok {
				return nil, fmt.Errorf("no script for %q", description)
			}
			return script(t, steps...), nil
		},
	})
	f.agent = newAgent(t, parent, f.rec, task)
	return f
}

func taskCall(description, agent string, writes ...string) model.ScriptedCall {
	args := map[string]any{"description": description, "prompt": "please " + description}
	if agent != "" {
		args["agent"] = agent
	}
	if len(writes) > 0 {
		args["writes"] = writes
	}
	b, _ := json.Marshal(args)
	return call(Task, string(b))
}

// span is when a call of the parent's first reply started and finished.
type span struct{ start, end time.Time }

func parentSpans(events []Event) map[int]*span {
	out := map[int]*span{}
	for _, e := range events {
		switch ev := e.(type) {
		case CallStarted:
			if ev.Turn == 1 {
				out[ev.Index] = &span{start: ev.At.Time}
			}
		case CallFinished:
			if s := out[ev.Index]; s != nil && ev.Turn == 1 {
				s.end = ev.At.Time
			}
		}
	}
	return out
}

func TestTasksRunSideBySideByWhatTheyMayWrite(t *testing.T) {
	parent := script(t,
		model.Step{Calls: []model.ScriptedCall{
			taskCall("survey a", ""),
			taskCall("survey b", "explore"),
			taskCall("write docs", "general", "docs"),
			taskCall("write api docs", "general", "docs/api"),
			taskCall("write src", "general", "src"),
		}},
		model.Step{Expect: []string{"found a", "found b", "docs written", "api written", "src written"},
			Calls: []model.ScriptedCall{call("finish", `{"summary":"all done"}`)}},
	)
	scripts := map[string][]model.Step{
		"survey a":       {{Calls: []model.ScriptedCall{call("read_file", `{"path":"explore/a"}`)}}, finishStep("found a")},
		"survey b":       {{Calls: []model.ScriptedCall{call("read_file", `{"path":"explore/b"}`)}}, finishStep("found b")},
		"write docs":     {{Calls: []model.ScriptedCall{call("write_file", `{"path":"docs/guide.md"}`)}}, finishStep("docs written")},
		"write api docs": {{Calls: []model.ScriptedCall{call("write_file", `{"path":"docs/api/ref.md"}`)}}, finishStep("api written")},
		"write src":      {{Calls: []model.ScriptedCall{call("write_file", `{"path":"src/main.go"}`)}}, finishStep("src written")},
	}
	// The explorers meet inside their tasks, and so do the docs and src
	// writers: a task that could not run beside the other would hang.
	explorers, writers := newBarrier(2), newBarrier(2)
	f := newTaskFixture(t, parent, scripts, func(ctx context.Context, p string) error {
		switch {
		case strings.HasPrefix(p, "explore/"):
			return explorers.arrive(ctx)
		case p == "docs/guide.md" || p == "src/main.go":
			return writers.arrive(ctx)
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := f.agent.Run(ctx, NewSession("s"), "go")
	if out.Status != StatusSucceeded || out.Summary != "all done" {
		t.Fatalf("outcome %+v; events: %s", out, describe(f.rec.snapshot()))
	}
	events := f.rec.snapshot()
	var reply ReplyReceived
	for _, e := range events {
		if r, ok := e.(ReplyReceived); ok && r.Turn == 1 {
			reply = r
			break
		}
	}
	wantTouches := []string{"independent", "independent", "writes /w/docs", "writes /w/docs/api", "writes /w/src"}
	wantDeps := [][]int{{}, {}, {0, 1}, {0, 1, 2}, {0, 1}}
	for i, c := range reply.Calls {
		if got := c.Touches.String(); got != wantTouches[i] {
			t.Errorf("task %d: footprint %s, want %s", i, got, wantTouches[i])
		}
		if !slices.Equal(c.WaitsFor, wantDeps[i]) {
			t.Errorf("task %d: waits for %v, want %v", i, c.WaitsFor, wantDeps[i])
		}
	}
	s := parentSpans(events)
	overlap := func(a, b int) bool { return s[a].start.Before(s[b].end) && s[b].start.Before(s[a].end) }
	after := func(a, b int) bool { return !s[a].start.Before(s[b].end) }
	if !overlap(0, 1) {
		t.Error("the two explorers did not overlap")
	}
	for _, w := range []int{2, 3, 4} {
		if !after(w, 0) || !after(w, 1) {
			t.Errorf("writer %d started before the explorers finished", w)
		}
	}
	if overlap(2, 3) {
		t.Error("the docs and docs/api writers overlapped")
	}
	if !overlap(2, 4) {
		t.Error("the src writer did not run beside the docs writer")
	}
	// Every event of a task's run carries the task's id.
	for _, e := range events {
		te, ok := e.(TaskEvent)
		if !ok {
			continue
		}
		if len(te.Task) != 1 {
			t.Fatalf("task path %v", te.Task)
		}
		turn, index, ok := ParseTaskID(te.Task[0])
		if !ok || turn != 1 || index < 0 || index > 4 {
			t.Errorf("task event with id %q", te.Task[0])
		}
		if cs, ok := te.Event.(CallStarted); ok && cs.Name == "write_file" && index < 2 {
			t.Errorf("an explorer wrote: %+v", cs)
		}
	}
	for _, p := range []string{"docs/guide.md", "docs/api/ref.md", "src/main.go"} {
		if _, ok := f.written.Load(p); !ok {
			t.Errorf("%s was not written", p)
		}
	}
}

func TestTaskWriteOutsideItsPathsIsRefused(t *testing.T) {
	parent := script(t,
		model.Step{Calls: []model.ScriptedCall{taskCall("fix docs", "general", "docs")}},
		model.Step{Expect: []string{"docs fixed"}, Calls: []model.ScriptedCall{call("finish", `{"summary":"ok"}`)}},
	)
	scripts := map[string][]model.Step{
		"fix docs": {
			{Calls: []model.ScriptedCall{call("write_file", `{"path":"src/main.go"}`)}},
			{Expect: []string{"Denied: this task may change only docs, and this call to write_file would change /w/src/main.go"},
				Calls: []model.ScriptedCall{call("finish", `{"summary":"docs fixed"}`)}},
		},
	}
	f := newTaskFixture(t, parent, scripts, nil)
	out := f.agent.Run(context.Background(), NewSession("s"), "go")
	if out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v; events: %s", out, describe(f.rec.snapshot()))
	}
	if f.writes.count() != 0 {
		t.Fatalf("write_file ran %d times", f.writes.count())
	}
	var denied bool
	for _, e := range f.rec.snapshot() {
		if te, ok := e.(TaskEvent); ok {
			if cf, ok := te.Event.(CallFinished); ok && cf.Name == "write_file" && cf.Outcome == "denied" {
				denied = true
			}
		}
	}
	if !denied {
		t.Error("the write outside the task's paths was not denied")
	}
}

func TestTaskQuestionIsWhatTheParentReads(t *testing.T) {
	parent := script(t,
		model.Step{Calls: []model.ScriptedCall{taskCall("pick a file", "")}},
		model.Step{Expect: []string{`The explore agent stopped the task "pick a file" to ask a question: Which config file do you mean?`},
			Calls: []model.ScriptedCall{call("finish", `{"summary":"asked"}`)}},
	)
	scripts := map[string][]model.Step{
		"pick a file": {{Calls: []model.ScriptedCall{call("ask_user", `{"question":"Which config file do you mean?"}`)}}},
	}
	f := newTaskFixture(t, parent, scripts, nil)
	if out := f.agent.Run(context.Background(), NewSession("s"), "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v; events: %s", out, describe(f.rec.snapshot()))
	}
	// The task's own refused outcome is the task's, not the session's.
	var finishes int
	for _, e := range f.rec.snapshot() {
		if _, ok := e.(RunFinished); ok {
			finishes++
		}
	}
	if finishes != 1 {
		t.Errorf("%d untagged run_finished events, want 1", finishes)
	}
}

func TestTaskSuccessGivesSummaryAndData(t *testing.T) {
	parent := script(t,
		model.Step{Calls: []model.ScriptedCall{taskCall("count files", "")}},
		model.Step{Expect: []string{`Its summary: 3 files`, `The data it extracted (JSON): {"count":3}`},
			Calls: []model.ScriptedCall{call("finish", `{"summary":"ok"}`)}},
	)
	scripts := map[string][]model.Step{
		"count files": {{Calls: []model.ScriptedCall{call("finish", `{"summary":"3 files","data":{"count":3}}`)}}},
	}
	f := newTaskFixture(t, parent, scripts, nil)
	if out := f.agent.Run(context.Background(), NewSession("s"), "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v; events: %s", out, describe(f.rec.snapshot()))
	}
}

// lookingTask is a parent that hands out one explore task, "look", which
// reads a file and finishes.
func lookingTask(t *testing.T) *taskFixture {
	t.Helper()
	parent := script(t,
		model.Step{Calls: []model.ScriptedCall{taskCall("look", "")}},
		finishStep("ok"),
	)
	scripts := map[string][]model.Step{
		"look": {{Calls: []model.ScriptedCall{call("read_file", `{"path":"a"}`)}}, finishStep("seen")},
	}
	return newTaskFixture(t, parent, scripts, nil)
}

func TestTaskCallsReachHooksWithTheirTaskPath(t *testing.T) {
	f := lookingTask(t)
	var mu sync.Mutex
	seen := map[string][]string{}
	f.agent.Hooks = []Hook{HookFunc(func(_ context.Context, c CallInfo) Flow {
		mu.Lock()
		seen[c.Call.Name] = c.Task
		mu.Unlock()
		return Continue("test", "")
	})}
	if out := f.agent.Run(context.Background(), NewSession("s"), "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if got := seen["read_file"]; !slices.Equal(got, []string{"1.0"}) {
		t.Errorf("read_file reached the hook with task %v, want [1.0]", got)
	}
	if got := seen[Task]; got != nil {
		t.Errorf("the task call itself reached the hook with task %v, want none", got)
	}
}

func TestStoppingATaskSaysWhatItHadFinished(t *testing.T) {
	parent := script(t,
		model.Step{Calls: []model.ScriptedCall{taskCall("slow", "general", "docs")}},
		finishStep("never"),
	)
	scripts := map[string][]model.Step{
		"slow": {
			{Calls: []model.ScriptedCall{call("read_file", `{"path":"docs/a"}`)}},
			{Calls: []model.ScriptedCall{call("write_file", `{"path":"docs/hang"}`)}},
			finishStep("no"),
		},
	}
	entered := make(chan struct{})
	f := newTaskFixture(t, parent, scripts, func(ctx context.Context, p string) error {
		if p == "docs/hang" {
			close(entered)
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	ctx, cancel := context.WithCancelCause(context.Background())
	sess := NewSession("s")
	done := runAsync(ctx, f.agent, sess, "go")
	<-entered
	cancel(Stop("the person stopped the turn"))
	out := awaitOutcome(t, done)
	if out.Status != StatusFailed {
		t.Fatalf("outcome %+v", out)
	}
	res := resultsOf(t, sess, 1)
	want := []string{
		"The call to task started but did not finish: the person stopped the turn. It may have partly run",
		"Before it stopped, the task had finished 1 call:\n- read_file {\"path\":\"docs/a\"}: success",
	}
	for _, w := range want {
		if !strings.Contains(res[0].Content, w) {
			t.Errorf("the parent read:\n%s\nwant it to hold %q", res[0].Content, w)
		}
	}
	// The write the task had running is not finished either.
	var notFinished bool
	for _, e := range f.rec.snapshot() {
		if te, ok := e.(TaskEvent); ok {
			if cf, ok := te.Event.(CallFinished); ok && cf.Name == "write_file" && cf.NotFinished {
				notFinished = true
			}
		}
	}
	if !notFinished {
		t.Error("the task's running write was not settled as not finished")
	}
}

func TestTaskEventEncodesWithItsPath(t *testing.T) {
	e := Tag("1.2", Tag("3.0", CallStarted{Turn: 4, Index: 1, Name: "read_file", Attempt: 1, At: Time{time.Unix(0, 0)}}))
	line, err := EncodeEvent(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(line), `{"type":"call_started","task":["1.2","3.0"],"turn":4,"index":1,`) {
		t.Fatalf("encoded %s", line)
	}
	back, err := DecodeEvent(line)
	if err != nil {
		t.Fatal(err)
	}
	te, ok := back.(TaskEvent)
	if !ok || !slices.Equal(te.Task, []string{"1.2", "3.0"}) {
		t.Fatalf("decoded %#v", back)
	}
	if cs, ok := te.Event.(CallStarted); !ok || cs.Index != 1 || cs.Name != "read_file" {
		t.Fatalf("decoded inner %#v", te.Event)
	}
	if _, err := DecodeEvent([]byte(`{"type":"call_started","task":[],"turn":1}`)); err == nil {
		t.Error("an empty task path decoded")
	}
}

// What a task spends on its model counts in the session's total.
func TestTaskUsageCountsInTheSessionTotal(t *testing.T) {
	f := lookingTask(t)
	sess := NewSession("s")
	if out := f.agent.Run(context.Background(), sess, "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	var own, tasks model.Usage
	for _, e := range f.rec.snapshot() {
		switch ev := e.(type) {
		case UsageReported:
			own = own.Add(ev.Usage)
		case TaskEvent:
			if u, ok := ev.Event.(UsageReported); ok {
				tasks = tasks.Add(u.Usage)
			}
		}
	}
	if tasks.InputTokens == 0 {
		t.Fatal("the task reported no usage")
	}
	if want := own.Add(tasks); sess.Usage.InputTokens != want.InputTokens || sess.Usage.OutputTokens != want.OutputTokens {
		t.Errorf("the session's total is %+v, want its own %+v and its task's %+v", sess.Usage, own, tasks)
	}
}

// explore reaches MCP tools whose server marks them read-only, and no
// other: a call to one that may write is a tool it does not have.
func TestExploreReachesReadOnlyMCPTools(t *testing.T) {
	lookup := &fakeTool{decl: tool.Declaration{Name: "srv__lookup", Parameters: json.RawMessage(`{"type":"object"}`),
		Annotations: tool.Annotations{ReadOnly: true}, Untrusted: true}, body: okBody("looked up")}
	remove := &fakeTool{decl: tool.Declaration{Name: "srv__remove", Parameters: json.RawMessage(`{"type":"object"}`),
		Untrusted: true}, body: okBody("removed")}
	parent := script(t,
		model.Step{Calls: []model.ScriptedCall{taskCall("look up", "")}},
		model.Step{Expect: []string{"Its summary: only lookup"}, Calls: []model.ScriptedCall{call("finish", `{"summary":"ok"}`)}},
	)
	sub := script(t,
		model.Step{Calls: []model.ScriptedCall{call("srv__lookup", `{}`)}},
		model.Step{Expect: []string{"looked up"}, Calls: []model.ScriptedCall{call("srv__remove", `{}`)}},
		model.Step{Expect: []string{"srv__remove"}, Calls: []model.ScriptedCall{call("finish", `{"summary":"only lookup"}`)}},
	)
	rec := newRecorder()
	task := NewTaskTool(Tasks{
		Agents: agents.Builtins(), Workspace: "/w",
		Tools: func([]string) ([]tool.Tool, []string) { return []tool.Tool{lookup, remove}, nil },
		Model: func(agents.Definition, string, model.Model) (model.Model, error) { return sub, nil },
	})
	a := newAgent(t, parent, rec, task)
	if out := a.Run(context.Background(), NewSession("s"), "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v; events: %s", out, describe(rec.snapshot()))
	}
	if lookup.count() != 1 || remove.count() != 0 {
		t.Fatalf("lookup ran %d times, remove %d", lookup.count(), remove.count())
	}
}
