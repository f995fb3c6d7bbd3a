package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// sixCalls is the reply of the issue: three reads of different paths, a
// write to one of them, a read of the written path, and an independent call.
func sixCalls() model.Step {
	return model.Step{Calls: []model.ScriptedCall{
		call("read", `{"path":"a"}`),
		call("read", `{"path":"b"}`),
		call("read", `{"path":"c"}`),
		call("write", `{"path":"a"}`),
		call("read", `{"path":"a"}`),
		call("delegate", `{}`),
	}}
}

func delegateTool(body func(context.Context, map[string]any) tool.Return) *fakeTool {
	return &fakeTool{
		decl: tool.Declaration{Name: "delegate", Parameters: json.RawMessage(`{"type":"object"}`),
			Annotations: tool.Annotations{ReadOnly: true}, Untrusted: true},
		body: body,
	}
}

func TestSixCallReplyDependenciesAndBatches(t *testing.T) {
	rec := newRecorder()
	a := newAgent(t, script(t, sixCalls(), finishStep("done")), rec,
		pathTool("read", false, okBody("r")), pathTool("write", true, okBody("w")), delegateTool(okBody("d")))
	out := a.Run(context.Background(), NewSession("s"), "go")
	if out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	var reply ReplyReceived
	for _, e := range rec.snapshot() {
		if r, ok := e.(ReplyReceived); ok && r.Turn == 1 {
			reply = r
		}
	}
	wantDeps := [][]int{{}, {}, {}, {0}, {3}, {3}}
	wantBatch := []int{1, 1, 1, 2, 3, 3}
	for i, c := range reply.Calls {
		if !slices.Equal(c.WaitsFor, wantDeps[i]) || c.Batch != wantBatch[i] {
			t.Errorf("call %d (%s %s): waits for %v in batch %d; want %v in batch %d",
				i, c.Name, c.Args, c.WaitsFor, c.Batch, wantDeps[i], wantBatch[i])
		}
	}
	if got := reply.Calls[5].Touches; got == nil || got.Access != tool.AccessIndependent {
		t.Errorf("the untrusted read-only tool should be independent, got %v", got)
	}
}

func TestReadsOverlapAndWriteWaitsOnlyForItsConflict(t *testing.T) {
	g := newGate("r:a", "r:b", "r:c", "w:a")
	rec := newRecorder()
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{
		call("read", `{"path":"a"}`),
		call("read", `{"path":"b"}`),
		call("read", `{"path":"c"}`),
		call("write", `{"path":"a"}`),
	}}, finishStep("done")), rec, pathTool("read", false, g.body("r:")), pathTool("write", true, g.body("w:")))
	done := runAsync(context.Background(), a, NewSession("s"), "go")

	// All three reads are inside their bodies at the same moment: they overlap.
	if got := g.awaitEntered(t, 3); !got["r:a"] || !got["r:b"] || !got["r:c"] {
		t.Fatalf("the three reads did not run together: %v", got)
	}
	if startedOf(rec.snapshot(), 3) {
		t.Fatal("the write started while the read of the same path was running")
	}
	// Ending the read of a releases the write, while b and c still run.
	g.open("r:a")
	if got := g.awaitEntered(t, 1); !got["w:a"] {
		t.Fatalf("expected the write to start, got %v", got)
	}
	events := rec.snapshot()
	if _, ok := finishedOf(events, 1); ok {
		t.Error("read b should still be running when the write starts")
	}
	aEnded, writeStarted := -1, -1
	for i, e := range events {
		if f, ok := e.(CallFinished); ok && f.Index == 0 {
			aEnded = i
		}
		if s, ok := e.(CallStarted); ok && s.Index == 3 {
			writeStarted = i
		}
	}
	if aEnded < 0 || writeStarted < aEnded {
		t.Errorf("the write started (event %d) before the read it conflicts with ended (event %d)", writeStarted, aEnded)
	}
	g.open("r:b")
	g.open("r:c")
	g.open("w:a")
	if out := awaitOutcome(t, done); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
}

func TestMaxParallelBoundsRunningCalls(t *testing.T) {
	g := newGate("r:a", "r:b", "r:c")
	rec := newRecorder()
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{
		call("read", `{"path":"a"}`), call("read", `{"path":"b"}`), call("read", `{"path":"c"}`),
	}}, finishStep("done")), rec, pathTool("read", false, g.body("r:")))
	a.MaxParallel = 2
	done := runAsync(context.Background(), a, NewSession("s"), "go")
	if got := g.awaitEntered(t, 2); !got["r:a"] || !got["r:b"] {
		t.Fatalf("the first two calls in call order should start first: %v", got)
	}
	if startedOf(rec.snapshot(), 2) {
		t.Fatal("a third call started with MaxParallel 2")
	}
	g.open("r:b")
	if got := g.awaitEntered(t, 1); !got["r:c"] {
		t.Fatalf("the third call should start when a slot frees: %v", got)
	}
	g.open("r:a")
	g.open("r:c")
	awaitOutcome(t, done)
}

func TestPendingApprovalDoesNotDelayUnrelatedCalls(t *testing.T) {
	rec := newRecorder()
	answer := make(chan Flow)
	asker := HookFunc(func(_ context.Context, c CallInfo) Flow {
		if c.Call.Name != "write" {
			return Continue("test", "reads run")
		}
		return Ask("test", "writes ask", func(ctx context.Context, req AskRequest) Flow {
			select {
			case f := <-answer:
				return f
			case <-ctx.Done():
				return Skip("test", "gone")
			}
		})
	})
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{
		call("write", `{"path":"x"}`),
		call("read", `{"path":"y"}`),
		call("read", `{"path":"x"}`),
	}}, finishStep("done")), rec, pathTool("read", false, okBody("r")), pathTool("write", true, okBody("w")))
	a.Hooks = []Hook{asker}
	done := runAsync(context.Background(), a, NewSession("s"), "go")

	// The unrelated read finishes while the write still waits for its answer.
	rec.await(t, "the unrelated read to finish", func(e Event) bool {
		f, ok := e.(CallFinished)
		return ok && f.Index == 1
	})
	events := rec.snapshot()
	if startedOf(events, 0) || startedOf(events, 2) {
		t.Fatal("the pending write, or the read that depends on it, started before the answer")
	}
	answer <- Continue("user", "approved")
	out := awaitOutcome(t, done)
	if out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	decisions := []string{}
	for _, e := range rec.snapshot() {
		if d, ok := e.(CallDecision); ok && d.Turn == 1 && d.Index == 0 {
			decisions = append(decisions, d.Decision+" by "+d.By)
		}
	}
	if !slices.Equal(decisions, []string{"ask by test", "run by user"}) {
		t.Errorf("decisions for the write: %v", decisions)
	}
}

func TestSkipReleasesDependentsAndModelReadsReason(t *testing.T) {
	rec := newRecorder()
	write := pathTool("write", true, okBody("written"))
	skipper := HookFunc(func(_ context.Context, c CallInfo) Flow {
		if c.Call.Name == "write" {
			return Skip("rule:test", "Skipped by policy: writes to x are not allowed here.")
		}
		return Continue("test", "")
	})
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{
		call("write", `{"path":"x"}`),
		call("read", `{"path":"x"}`),
	}}, model.Step{Expect: []string{"writes to x are not allowed"}, Calls: finishStep("ok").Calls}),
		rec, pathTool("read", false, okBody("content of x")), write)
	a.Hooks = []Hook{skipper}
	s := NewSession("s")
	if out := a.Run(context.Background(), s, "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if write.count() != 0 {
		t.Fatal("the skipped call's body ran")
	}
	res := resultsOf(t, s, 1)
	if res[0].Content != "Skipped by policy: writes to x are not allowed here." || !res[0].IsError {
		t.Errorf("the model read %+v for the skipped call", res[0])
	}
	if res[1].Content != "content of x" {
		t.Errorf("the dependent read did not run: %+v", res[1])
	}
	f, _ := finishedOf(rec.snapshot(), 0)
	if f.Outcome != "skipped" || f.Started {
		t.Errorf("skipped call event %+v", f)
	}
}

func TestToolRefusalIsDeniedNotSkipped(t *testing.T) {
	rec := newRecorder()
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{call("read", `{"path":"../etc"}`)}}, finishStep("ok")), rec,
		pathTool("read", false, func(context.Context, map[string]any) tool.Return {
			return tool.Deny("../etc is outside the workspace")
		}))
	s := NewSession("s")
	a.Run(context.Background(), s, "go")
	f, _ := finishedOf(rec.snapshot(), 0)
	if f.Outcome != "denied" || !f.Full.IsDenied() || f.Full.IsSkipped() {
		t.Errorf("a tool's refusal must be denied: %+v", f)
	}
	if res := resultsOf(t, s, 1)[0]; res.Content != "../etc is outside the workspace" || !res.IsError {
		t.Errorf("model read %+v", res)
	}
}

func TestInvalidReplyRunsNothing(t *testing.T) {
	rec := newRecorder()
	read := pathTool("read", false, okBody("r"))
	a := newAgent(t, script(t,
		model.Step{Calls: []model.ScriptedCall{call("read", `{"path":"a"}`), rawCall("read", `{"path": `), call("raed", `{}`)}},
		finishStep("ok")), rec, read)
	s := NewSession("s")
	out := a.Run(context.Background(), s, "go")
	if out.Status != StatusSucceeded {
		t.Fatalf("the run should recover after an invalid reply: %+v", out)
	}
	if read.count() != 0 {
		t.Fatal("a call of an invalid reply ran")
	}
	res := resultsOf(t, s, 1)
	if res[0].Content != feedback.PeerNotExecuted {
		t.Errorf("valid peer read %q", res[0].Content)
	}
	if !strings.Contains(res[1].Content, "must be a JSON object") {
		t.Errorf("invalid call read %q", res[1].Content)
	}
	want := feedback.Unreachable("raed", []string{"ask_user", "finish", "read", "remember"})
	if res[2].Content != want {
		t.Errorf("unknown tool read %q, want %q", res[2].Content, want)
	}
	var inv *InvalidReply
	for _, e := range rec.snapshot() {
		if ev, ok := e.(InvalidReply); ok {
			inv = &ev
		}
		if c, ok := e.(CallStarted); ok && c.Turn == 1 {
			t.Error("a call started in an invalid reply")
		}
	}
	if inv == nil || len(inv.Results) != 3 {
		t.Errorf("invalid_reply event %+v", inv)
	}
}

func TestThreeInvalidRepliesFail(t *testing.T) {
	bad := model.Step{Calls: []model.ScriptedCall{rawCall("read", `[1]`)}}
	a := newAgent(t, script(t, bad, bad, bad, finishStep("never")), nil, pathTool("read", false, okBody("r")))
	out := a.Run(context.Background(), NewSession("s"), "read the file")
	if out.Status != StatusFailed || len(out.Attempts) != 3 {
		t.Fatalf("outcome %+v", out)
	}
	for _, at := range out.Attempts {
		if !strings.Contains(at, "must be a JSON object") {
			t.Errorf("attempt %q does not say what was wrong", at)
		}
	}
	if out.FailingSubGoal != "read the file" || !strings.Contains(out.FailingStep, "turn 3") {
		t.Errorf("report: %+v", out)
	}
}

func TestCutReplyGetsOutputLimitFeedback(t *testing.T) {
	read := pathTool("read", false, okBody("r"))
	cut := rawCall("read", `{"path":"aaaa`)
	a := newAgent(t, script(t,
		model.Step{Calls: []model.ScriptedCall{call("read", `{"path":"a"}`)}, Cut: &cut},
		finishStep("ok")), nil, read)
	s := NewSession("s")
	a.Run(context.Background(), s, "go")
	res := resultsOf(t, s, 1)
	if len(res) != 2 || res[0].Content != feedback.PeerNotExecuted || res[1].Content != feedback.OutputLimit("read", `{"path":"aaaa`) {
		t.Errorf("results %+v", res)
	}
	if read.count() != 0 {
		t.Error("a call of a cut reply ran")
	}
}

func TestStopGivesThreeNotFinishedTexts(t *testing.T) {
	g := newGate("r:a", "w:b")
	rec := newRecorder()
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{
		call("read", `{"path":"a"}`),
		call("write", `{"path":"b"}`),
		call("write", `{"path":"a"}`),
	}}, finishStep("never")), rec, pathTool("read", false, g.body("r:")), pathTool("write", true, g.body("w:")))
	ctx, cancel := context.WithCancelCause(context.Background())
	s := NewSession("s")
	done := runAsync(ctx, a, s, "go")
	g.awaitEntered(t, 2)
	cancel(Stop("the person stopped the turn"))
	out := awaitOutcome(t, done)
	if out.Status != StatusFailed || !strings.Contains(strings.Join(out.Attempts, " "), "the person stopped the turn") {
		t.Fatalf("outcome %+v", out)
	}
	res := resultsOf(t, s, 1)
	want := []string{
		feedback.NotFinished("read", true, tool.Reads(tool.Paths("/w/a")), "the person stopped the turn"),
		feedback.NotFinished("write", true, tool.Writes(tool.Paths("/w/b")), "the person stopped the turn"),
		feedback.NotFinished("write", false, tool.Writes(tool.Paths("/w/a")), "the person stopped the turn"),
	}
	for i := range want {
		if res[i].Content != want[i] {
			t.Errorf("call %d read %q\nwant %q", i, res[i].Content, want[i])
		}
	}
	if !strings.Contains(want[0], "safe to run again") || !strings.Contains(want[1], "may have partly run") || !strings.Contains(want[2], "was not run") {
		t.Error("the three texts should differ as the feedback rules say")
	}
	events := rec.snapshot()
	if f, _ := finishedOf(events, 2); f.Started || !f.NotFinished || f.Outcome != "skipped" {
		t.Errorf("never-started call event %+v", f)
	}
	if f, _ := finishedOf(events, 1); !f.Started || !f.NotFinished || f.Kind == nil || *f.Kind != "cancelled" {
		t.Errorf("started write event %+v", f)
	}
	if _, last := events[len(events)-1].(RunFinished); !last {
		t.Errorf("run_finished is not the last event: %s", describe(events[len(events)-3:]))
	}
}

func TestResultsInCallOrderDespiteCompletionOrder(t *testing.T) {
	g := newGate("r:slow")
	rec := newRecorder()
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{
		call("read", `{"path":"slow"}`), call("read", `{"path":"fast"}`),
	}}, finishStep("ok")), rec, pathTool("read", false, g.body("r:")))
	s := NewSession("s")
	done := runAsync(context.Background(), a, s, "go")
	rec.await(t, "the fast call to finish", func(e Event) bool {
		f, ok := e.(CallFinished)
		return ok && f.Index == 1
	})
	if _, ok := finishedOf(rec.snapshot(), 0); ok {
		t.Fatal("the slow call finished first; the test proves nothing")
	}
	g.open("r:slow")
	awaitOutcome(t, done)
	res := resultsOf(t, s, 1)
	if res[0].Content != "done r:slow" || res[1].Content != "done r:fast" || res[0].CallID != "call_1_0" {
		t.Errorf("results not in call order: %+v", res)
	}
}

func TestFailureDoesNotCancelSiblings(t *testing.T) {
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{
		call("read", `{"path":"missing"}`), call("read", `{"path":"ok"}`), call("write", `{"path":"missing"}`),
	}}, finishStep("ok")), nil,
		pathTool("read", false, func(_ context.Context, args map[string]any) tool.Return {
			if args["path"] == "missing" {
				return tool.Fail(tool.NotFound("no such file"), "missing does not exist")
			}
			return tool.Ok("fine")
		}), pathTool("write", true, okBody("written")))
	s := NewSession("s")
	a.Run(context.Background(), s, "go")
	res := resultsOf(t, s, 1)
	if res[0].Content != "missing does not exist" || !res[0].IsError || res[1].Content != "fine" || res[2].Content != "written" {
		t.Errorf("results %+v", res)
	}
}

// A call can return while the turn is being stopped, so that its result and
// the stop reach the coordinator together. The stop must win: the result must
// not release a dependent to start after the person stopped the turn. The
// sink holds the coordinator while both become ready; Go picks between ready
// cases at random, so the race is run many times.
func TestNothingStartsAfterAStopThatRacesAResult(t *testing.T) {
	for i := range 100 {
		g := newGate("w:b")
		held, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		m := script(t, model.Step{Calls: []model.ScriptedCall{
			call("read", `{"path":"a"}`),
			call("write", `{"path":"b"}`),
			call("write", `{"path":"a"}`),
		}}, finishStep("never"))
		write := pathTool("write", true, g.body("w:"))
		entered, finish := make(chan struct{}), make(chan struct{})
		// The read does not heed the stop: it returns its real result when
		// the test says so.
		read := pathTool("read", false, func(context.Context, map[string]any) tool.Return {
			close(entered)
			<-finish
			return tool.Ok("done r:a")
		})
		a := newAgent(t, m, nil, read, write)
		a.Sink = func(e Event) {
			if s, ok := e.(CallStarted); ok && s.Index == 1 {
				once.Do(func() {
					close(held)
					<-release
				})
			}
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		s := NewSession("s")
		done := runAsync(ctx, a, s, "go")
		<-held
		<-entered
		cancel(Stop("the person stopped the turn"))
		close(finish)
		close(release)
		awaitOutcome(t, done)
		res := resultsOf(t, s, 1)
		if !strings.Contains(res[2].Content, "was not run") {
			t.Fatalf("round %d: the write of a, which waited on the read, reads %q after the stop", i, res[2].Content)
		}
		if res[0].Content != "done r:a" {
			t.Fatalf("round %d: the read that finished reads %q; a real result is kept", i, res[0].Content)
		}
	}
}
