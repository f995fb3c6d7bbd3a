package tracing_test

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/tracing"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// ts returns the event time ms milliseconds after t0.
func ts(ms int) runtime.Time { return runtime.Time{Time: t0.Add(time.Duration(ms) * time.Millisecond)} }

// play gives events to a new Tracer and returns the spans made.
func play(t *testing.T, opts tracing.Options, events ...runtime.Event) spans {
	t.Helper()
	tp, sr := recorder(t)
	if opts.Redact == nil {
		opts.Redact = redact.New()
	}
	tr := tracing.New(tp, opts)
	for _, e := range events {
		tr.Event(e)
	}
	tr.Close()
	return spans(sr.Ended())
}

func TestModelRetriesCompactionAndFailure(t *testing.T) {
	reads := tool.Reads(tool.Paths("/w/a"))
	all := play(t, tracing.Options{},
		runtime.RunStarted{Session: "s", Goal: "g", Input: "g", Model: "anthropic:claude-x", Mode: "reads", At: ts(0)},
		// Turn 1: two failed attempts, then a reply.
		runtime.TurnStarted{Turn: 1, At: ts(10)},
		runtime.ModelRetry{Turn: 1, Attempt: 2, Max: 4, Why: "the connection dropped", Error: "EOF", WaitMS: 500, At: ts(100)},
		runtime.ModelRetry{Turn: 1, Attempt: 3, Max: 4, Why: "rate limited", Error: "429", WaitMS: 1000, At: ts(700)},
		runtime.UsageReported{Turn: 1, Usage: model.Usage{InputTokens: 120, OutputTokens: 30}, At: ts(2000)},
		runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{
			{Index: 0, ID: "toolu_1", Name: "read_file", Touches: &reads, WaitsFor: []int{}, Batch: 1}}},
		runtime.CallDecision{Turn: 1, Index: 0, Decision: "run", By: "mode:reads", At: ts(2010)},
		runtime.CallStarted{Turn: 1, Index: 0, Name: "read_file", Attempt: 1, Key: "k0", At: ts(2020)},
		runtime.CallRetried{Turn: 1, Index: 0, Attempt: 2, MaxAttempts: 3, Failure: "timeout: slow", BackoffMS: 50, At: ts(2100)},
		runtime.CallStarted{Turn: 1, Index: 0, Name: "read_file", Attempt: 2, Key: "k0", At: ts(2150)},
		runtime.CallFinished{Turn: 1, Index: 0, Name: "read_file", Outcome: "error", Kind: ptr("timeout"), Result: "slow again",
			Started: true, Attempts: 2, At: ts(2300)},
		runtime.TurnEnded{Turn: 1},
		// Turn 2: the provider refuses the request as too long; the
		// conversation is compacted and the turn asked again, and fails.
		runtime.TurnStarted{Turn: 2, At: ts(3000)},
		runtime.CompactionStarted{Turn: 2, Reason: "overflow", Tokens: 210000, Window: 200000, Messages: 12, At: ts(3100)},
		runtime.Compacted{Turn: 2, Reason: "overflow", Usage: model.Usage{InputTokens: 50000, OutputTokens: 900},
			TokensBefore: 210000, TokensAfter: 9000, Replies: 6, At: ts(9000)},
		runtime.TurnStarted{Turn: 2, At: ts(9010)},
		runtime.RunFinished{Outcome: runtime.Failed("g", "turn 2: model reply", []string{"the model failed: 500 " + secret}), At: ts(9500)},
	)
	chats := all.named("chat claude-x")
	if len(chats) != 4 {
		t.Fatalf("want 4 chat spans (turn 1, turn 2 refused, the compaction, turn 2 again), got %v", names(all))
	}
	first := chats[0]
	if attr(first, tracing.AttrModelAttempt).AsInt64() != 3 || attr(first, semconv.GenAIProviderNameKey).AsString() != "anthropic" ||
		attr(first, semconv.GenAIUsageInputTokensKey).AsInt64() != 120 || attr(first, semconv.GenAIUsageOutputTokensKey).AsInt64() != 30 {
		t.Errorf("turn 1 chat: %v", first.Attributes())
	}
	if first.StartTime() != ts(10).Time || first.EndTime() != ts(2000).Time {
		t.Errorf("turn 1 chat ran %v–%v, want from the request to the reply", first.StartTime(), first.EndTime())
	}
	if ev := first.Events(); len(ev) != 2 || ev[0].Name != tracing.EventModelRetry || ev[0].Time != ts(100).Time {
		t.Errorf("turn 1 retries: %v", ev)
	}

	call := all.call(t, 1, 0)
	if attr(call, semconv.ErrorTypeKey).AsString() != "timeout" || call.Status().Code != codes.Error ||
		attr(call, tracing.AttrCallAttempts).AsInt64() != 2 || attr(call, semconv.GenAIToolCallIDKey).AsString() != "toolu_1" {
		t.Errorf("failed call: %v %v", call.Status(), call.Attributes())
	}
	if call.Status().Description != "timeout" {
		t.Errorf("without capture the status says the kind only, not %q", call.Status().Description)
	}
	var retry, restarted bool
	for _, e := range call.Events() {
		retry = retry || e.Name == tracing.EventCallRetry && e.Time == ts(2100).Time
		restarted = restarted || e.Name == tracing.EventCallStarted && e.Time == ts(2150).Time
	}
	if !retry || !restarted || call.StartTime() != ts(2020).Time || call.EndTime() != ts(2300).Time {
		t.Errorf("call retry events %v, span %v–%v", call.Events(), call.StartTime(), call.EndTime())
	}

	refused, compaction, again := chats[1], chats[2], chats[3]
	if attr(refused, semconv.ErrorTypeKey).AsString() != "context_overflow" || refused.EndTime() != ts(3100).Time {
		t.Errorf("refused request: %v ended %v", refused.Attributes(), refused.EndTime())
	}
	if attr(compaction, tracing.AttrCompaction).AsString() != "overflow" || attr(compaction, tracing.AttrCompactAfter).AsInt64() != 9000 ||
		attr(compaction, semconv.GenAIUsageInputTokensKey).AsInt64() != 50000 || compaction.EndTime() != ts(9000).Time {
		t.Errorf("compaction: %v", compaction.Attributes())
	}
	if again.Status().Code != codes.Error || again.EndTime() != ts(9500).Time {
		t.Errorf("the failed request should end with the run, as an error: %v", again.Status())
	}
	if d := again.Status().Description; d != "the model failed: 500 "+redact.Marker {
		t.Errorf("the model's error should be said, redacted: %q", d)
	}
	root := all.named(tracing.SpanInvokeAgent)[0]
	if root.Status().Code != codes.Error || attr(root, tracing.AttrRunFailingStep).AsString() != "turn 2: model reply" ||
		attr(root, semconv.GenAIUsageInputTokensKey).AsInt64() != 50120 {
		t.Errorf("failed run: %v %v", root.Status(), root.Attributes())
	}
	if has(root, tracing.AttrRunAttempts) {
		t.Errorf("the run's error messages are content")
	}
}

func TestResumedReplyWithoutItsReplyEvent(t *testing.T) {
	// A restart carries on a reply whose plan was in the previous process:
	// the calls are known only from their own events.
	all := play(t, tracing.Options{},
		runtime.RunStarted{Session: "s", Goal: "g", Model: "openai:m", Mode: "reads", Resumed: true, At: ts(0)},
		runtime.CallFinished{Turn: 3, Index: 1, Name: "write_file", Outcome: "skipped", Result: "may have partly run",
			Started: true, NotFinished: true, Why: runtime.RestartReason, At: ts(5)},
		runtime.CallDecision{Turn: 3, Index: 0, Decision: "run", By: "resume", At: ts(6)},
		runtime.CallStarted{Turn: 3, Index: 0, Name: "read_file", Attempt: 1, At: ts(7)},
		runtime.CallFinished{Turn: 3, Index: 0, Name: "read_file", Outcome: "success", Started: true, Attempts: 1, At: ts(9)},
		runtime.TurnEnded{Turn: 3},
		runtime.RunFinished{Outcome: runtime.Succeeded("ok", nil), At: ts(20)},
	)
	if got := names(all); len(got) != 3 {
		t.Fatalf("spans %v", got)
	}
	root := all.named(tracing.SpanInvokeAgent)[0]
	if !attr(root, tracing.AttrRunResumed).AsBool() {
		t.Errorf("the run should say it was resumed")
	}
	w := all.call(t, 3, 1)
	if w.Name() != "execute_tool write_file" || !attr(w, tracing.AttrCallNotFinished).AsBool() ||
		attr(w, tracing.AttrCallWhy).AsString() != runtime.RestartReason {
		t.Errorf("not-finished call: %s %v", w.Name(), w.Attributes())
	}
	r := all.call(t, 3, 0)
	if r.Name() != "execute_tool read_file" || attr(r, tracing.AttrCallDecisionBy).AsString() != "resume" || r.StartTime() != ts(7).Time {
		t.Errorf("re-run call: %s %v from %v", r.Name(), r.Attributes(), r.StartTime())
	}
}

func TestRunsOfASessionShareItsTrace(t *testing.T) {
	runs := func(opts tracing.Options) []trace.TraceID {
		all := play(t, opts,
			runtime.RunStarted{Session: "s", Goal: "g", Input: "g", Model: "demo", At: ts(0)},
			runtime.RunFinished{Outcome: runtime.Refused("which one?"), At: ts(10)},
			runtime.RunStarted{Session: "s", Goal: "g", Input: "this one", Model: "demo", At: ts(20)},
			runtime.RunFinished{Outcome: runtime.Succeeded("done", nil), At: ts(30)},
		)
		var ids []trace.TraceID
		for _, sp := range all.named(tracing.SpanInvokeAgent) {
			if sp.Parent().IsValid() {
				t.Errorf("a run's span has a parent")
			}
			ids = append(ids, sp.SpanContext().TraceID())
		}
		if len(ids) != 2 {
			t.Fatalf("want 2 runs, got %v", names(all))
		}
		return ids
	}
	id := tracing.NewTraceID()
	if got := runs(tracing.Options{TraceID: id}); got[0] != id || got[1] != id {
		t.Errorf("runs of a session are in traces %v, want %s", got, id)
	}
	if got := runs(tracing.Options{}); got[0] == got[1] {
		t.Errorf("without a session trace each run should have its own, both are %s", got[0])
	}
}

func TestEventsOutsideARunAreIgnored(t *testing.T) {
	all := play(t, tracing.Options{},
		runtime.Notice{Level: "warning", Text: "an MCP server did not start"},
		runtime.CallFinished{Turn: 1, Index: 0, Name: "x", Outcome: "success", At: ts(1)},
	)
	if len(all) != 0 {
		t.Errorf("spans without a run: %v", names(all))
	}
}

func ptr[T any](v T) *T { return &v }

func TestARunThatEndsWhileACallWaitsForAPerson(t *testing.T) {
	writes := tool.Writes(tool.Paths("/w/a"))
	all := play(t, tracing.Options{},
		runtime.RunStarted{Session: "s", Goal: "g", Input: "g", Model: "openai:m", At: ts(0)},
		runtime.TurnStarted{Turn: 1, At: ts(1)},
		runtime.UsageReported{Turn: 1, At: ts(5)},
		runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{
			{Index: 0, ID: "c0", Name: "write_file", Touches: &writes, WaitsFor: []int{}, Batch: 1}}},
		runtime.CallDecision{Turn: 1, Index: 0, Decision: "ask", By: "mode:reads", At: ts(6)},
		// The process is stopped before anyone answers or the call settles.
		runtime.RunFinished{Outcome: runtime.Failed("g", "turn 1: the reply's calls", []string{"stopped: the run was interrupted"}), At: ts(900)},
	)
	call := all.call(t, 1, 0)
	if call.Status().Code != codes.Error || call.EndTime() != ts(900).Time || call.StartTime() != ts(6).Time {
		t.Errorf("the call's span should end with the run, as an error: %v %v–%v", call.Status(), call.StartTime(), call.EndTime())
	}
	appr := all.childrenOf(call)
	if len(appr) != 1 || attr(appr[0], tracing.AttrApprovalAnswer).AsString() != "unanswered" ||
		attr(appr[0], tracing.AttrApprovalWait).AsInt64() != 894 {
		t.Errorf("the approval nobody answered: %v", names(appr))
	}
}

func TestEventsAfterCloseAreDropped(t *testing.T) {
	tp, sr := recorder(t)
	tr := tracing.New(tp, tracing.Options{Redact: redact.New()})
	tr.Close()
	tr.Event(runtime.RunStarted{Session: "s", At: ts(0)})
	tr.Event(runtime.RunFinished{At: ts(1)})
	tr.Flush()
	tr.Close()
	if n := len(sr.Ended()); n != 0 {
		t.Errorf("%d spans after Close", n)
	}
}
