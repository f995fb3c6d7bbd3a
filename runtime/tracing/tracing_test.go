package tracing_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tracing"
)

// personWait is how long the scripted person takes over each approval.
const personWait = 3 * time.Second

// secret is shaped like an API key, so the redactor knows it.
const secret = "sk-proj-abcdefghijklmnopqrstuvwx"

// runScenario runs one reply of five calls and a finish through the real
// runtime and approval policy, in reads mode:
//
//	#0 read a            runs at once
//	#1 read b            runs at once, beside #0
//	#2 write a           waits for #0, asks; the person approves
//	#3 write secret/key  a deny rule skips it
//	#4 write d           asks; the person skips it, saying why
//
// and returns the spans it made.
func runScenario(t *testing.T, capture bool) (spans, trace.TraceID) {
	t.Helper()
	clock := newStepClock()
	call := func(name, path string) model.ScriptedCall {
		return model.ScriptedCall{Name: name, Args: json.RawMessage(`{"path":"` + path + `"}`)}
	}
	sc := &model.Scenario{Steps: []model.Step{
		{Text: "Reading first. " + secret, Calls: []model.ScriptedCall{
			call("read", "a"), call("read", "b"), call("write", "a"), call("write", "secret/key"), call("write", "d"),
		}},
		{Calls: []model.ScriptedCall{{Name: "finish", Args: json.RawMessage(`{"summary":"done"}`)}}},
	}}
	person := approval.ApproverFunc(func(_ context.Context, req approval.Request) approval.Answer {
		clock.advance(personWait)
		if strings.Contains(string(req.Args), `"d"`) {
			return approval.SkipWith("not now, " + secret)
		}
		return approval.Approve()
	})
	policy := approval.NewPolicy(approval.ModeReads, person)
	policy.SetWorkspace("/w")
	if err := policy.SetRules([]approval.NamedRule{{Label: "no-secrets", Rule: approval.Rule{
		Tool: "write", Args: map[string]string{"path": "secret/**"}, Decision: approval.Deny}}}); err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(pathTool{name: "read"}, pathTool{name: "write", writes: true})
	if err != nil {
		t.Fatal(err)
	}
	tp, sr := recorder(t)
	id := tracing.NewTraceID()
	tr := tracing.New(tp, tracing.Options{TraceID: id, CaptureContent: capture, Redact: redact.New()})
	a := &runtime.Agent{Model: model.NewScripted("openai:gpt-test", sc), Catalog: cat, Hooks: []runtime.Hook{policy},
		Clock: clock, Sink: tr.Event, Mode: func() string { return string(policy.Mode()) }}
	out := a.Run(context.Background(), runtime.NewSession("s1"), "change a and d "+secret)
	tr.Close()
	if out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	return spans(sr.Ended()), id
}

func TestSpanTreeOfARun(t *testing.T) {
	all, id := runScenario(t, false)

	// Every span is in the session's trace.
	for _, sp := range all {
		if sp.SpanContext().TraceID() != id {
			t.Errorf("%s is in trace %s, not the session's %s", sp.Name(), sp.SpanContext().TraceID(), id)
		}
	}
	roots := all.named(tracing.SpanInvokeAgent)
	if len(roots) != 1 || roots[0].Parent().IsValid() {
		t.Fatalf("want one invoke_agent span without a parent, got %d", len(roots))
	}
	root := roots[0]
	if got := attr(root, semconv.GenAIConversationIDKey).AsString(); got != "s1" {
		t.Errorf("conversation id %q", got)
	}
	if got := attr(root, tracing.AttrRunOutcome).AsString(); got != "succeeded" {
		t.Errorf("run outcome %q", got)
	}

	// Two model requests and six calls hang from the run; each approval
	// hangs from its call.
	chats := all.named("chat gpt-test")
	if len(chats) != 2 {
		t.Fatalf("want 2 chat spans, got %d: %v", len(chats), names(all))
	}
	calls := all.prefixed(tracing.SpanExecutePrefix)
	if len(calls) != 6 {
		t.Fatalf("want 6 execute_tool spans, got %d: %v", len(calls), names(all))
	}
	for _, sp := range append(slices.Clone(chats), calls...) {
		if sp.Parent().SpanID() != root.SpanContext().SpanID() {
			t.Errorf("%s is not a child of the run's span", sp.Name())
		}
	}
	if got := len(all); got != 1+2+6+2 {
		t.Errorf("want 11 spans in all, got %d: %v", got, names(all))
	}

	chat := chats[0]
	for key, want := range map[attribute.Key]string{
		semconv.GenAIOperationNameKey:  "chat",
		semconv.GenAIProviderNameKey:   "openai",
		semconv.GenAIRequestModelKey:   "gpt-test",
		semconv.GenAIConversationIDKey: "s1",
	} {
		if got := attr(chat, key).AsString(); got != want {
			t.Errorf("chat %s = %q, want %q", key, got, want)
		}
	}
	if got := attr(chat, semconv.GenAIResponseFinishReasonsKey).AsStringSlice(); !slices.Equal(got, []string{"tool_call"}) {
		t.Errorf("finish reasons %v", got)
	}
	if attr(chat, semconv.GenAIUsageInputTokensKey).AsInt64() <= 0 || attr(chat, tracing.AttrModelAttempt).AsInt64() != 1 {
		t.Errorf("chat usage or attempt missing: %v", chat.Attributes())
	}

	// The two reads ran side by side: their spans overlap. The write of a
	// began only once the read of a had ended, and links to it.
	readA, readB, writeA := all.call(t, 1, 0), all.call(t, 1, 1), all.call(t, 1, 2)
	if !overlap(readA, readB) {
		t.Errorf("the reads ran side by side but their spans do not overlap: a %v–%v, b %v–%v",
			readA.StartTime(), readA.EndTime(), readB.StartTime(), readB.EndTime())
	}
	for _, sp := range []sdktrace.ReadOnlySpan{readA, readB} {
		if got := attr(sp, tracing.AttrCallDecisionBy).AsString(); got != "mode:reads" {
			t.Errorf("%s decided by %q", sp.Name(), got)
		}
		if len(all.childrenOf(sp)) != 0 {
			t.Errorf("a call that did not ask has an approval span")
		}
	}
	for key, want := range map[attribute.Key]string{
		semconv.GenAIToolNameKey:      "read",
		semconv.GenAIToolCallIDKey:    "call_1_0",
		tracing.AttrFootprintKind:     "reads",
		tracing.AttrCallOutcome:       "success",
		tracing.AttrCallDecision:      "run",
		semconv.GenAIOperationNameKey: "execute_tool",
	} {
		if got := attr(readA, key).AsString(); got != want {
			t.Errorf("read a %s = %q, want %q", key, got, want)
		}
	}
	if got := attr(readA, tracing.AttrFootprintScope).AsStringSlice(); !slices.Equal(got, []string{"/w/a"}) {
		t.Errorf("read a scope %v", got)
	}
	if attr(readA, tracing.AttrCallBatch).AsInt64() != 1 || attr(writeA, tracing.AttrCallBatch).AsInt64() != 2 {
		t.Errorf("batches: read a %v, write a %v", attr(readA, tracing.AttrCallBatch), attr(writeA, tracing.AttrCallBatch))
	}
	if got := attr(writeA, tracing.AttrCallWaitsFor).AsInt64Slice(); !slices.Equal(got, []int64{0}) {
		t.Errorf("write a waits for %v", got)
	}
	if attr(readA, tracing.AttrCallAttempts).AsInt64() != 1 || !has(readA, tracing.AttrCallKey) {
		t.Errorf("read a attempts/key: %v", readA.Attributes())
	}
	body := startedAt(t, writeA)
	if body.Before(readA.EndTime()) {
		t.Errorf("write a began at %v, before the read it waited for ended at %v", body, readA.EndTime())
	}
	if links := writeA.Links(); len(links) != 1 || links[0].SpanContext.SpanID() != readA.SpanContext().SpanID() {
		t.Errorf("write a should link to the read it waited for: %v", links)
	}

	// The approval of write a: asked by the mode, answered by the person,
	// who took the time they took.
	appr := all.childrenOf(writeA)
	if len(appr) != 1 || appr[0].Name() != tracing.SpanAwaitApproval {
		t.Fatalf("write a: want one await_approval child, got %v", names(appr))
	}
	checkApproval(t, appr[0], "run")
	if appr[0].StartTime() != writeA.StartTime() || appr[0].EndTime().After(body) {
		t.Errorf("the approval should open the call's span and end before its body began")
	}

	// The rule's skip: no approval, the rule named, the call never started.
	denied := all.call(t, 1, 3)
	if len(all.childrenOf(denied)) != 0 {
		t.Errorf("a call a rule skipped has an approval span")
	}
	if got := attr(denied, tracing.AttrCallOutcome).AsString(); got != "skipped" {
		t.Errorf("denied call outcome %q", got)
	}
	if attr(denied, tracing.AttrCallDecision).AsString() != "skip" || attr(denied, tracing.AttrCallDecisionBy).AsString() != "rule:no-secrets" ||
		attr(denied, tracing.AttrCallStarted).AsBool() {
		t.Errorf("denied call: %v", denied.Attributes())
	}

	// The person's skip: an approval that ended in a skip.
	skipped := all.call(t, 1, 4)
	appr = all.childrenOf(skipped)
	if len(appr) != 1 {
		t.Fatalf("skipped call: want one approval span, got %v", names(appr))
	}
	checkApproval(t, appr[0], "skip")
	if attr(skipped, tracing.AttrCallOutcome).AsString() != "skipped" || attr(skipped, tracing.AttrCallDecisionBy).AsString() != "user" {
		t.Errorf("skipped call: %v", skipped.Attributes())
	}
	for _, sp := range []sdktrace.ReadOnlySpan{denied, skipped} {
		if sp.Status().Code == codes.Error {
			t.Errorf("a skip is not an error: %s", sp.Name())
		}
	}

	// Nothing anyone wrote is recorded without capture.
	for _, sp := range all {
		for _, kv := range sp.Attributes() {
			if strings.Contains(kv.Value.Emit(), "sk-proj") || strings.Contains(kv.Value.Emit(), "not now") ||
				strings.Contains(kv.Value.Emit(), "Reading first") {
				t.Errorf("%s records content without capture: %s", sp.Name(), kv.Key)
			}
		}
		for _, k := range []attribute.Key{semconv.GenAIToolCallArgumentsKey, semconv.GenAIToolCallResultKey,
			semconv.GenAIInputMessagesKey, semconv.GenAIOutputMessagesKey, tracing.AttrApprovalReason} {
			if has(sp, k) {
				t.Errorf("%s has %s without capture", sp.Name(), k)
			}
		}
	}
}

// checkApproval checks an await_approval span that the mode asked for and
// the person answered with decision, after personWait.
func checkApproval(t *testing.T, sp sdktrace.ReadOnlySpan, decision string) {
	t.Helper()
	if got := attr(sp, tracing.AttrAskedBy).AsString(); got != "mode:reads" {
		t.Errorf("approval asked by %q", got)
	}
	if got := attr(sp, tracing.AttrApprovalAnswer).AsString(); got != decision {
		t.Errorf("approval decision %q, want %q", got, decision)
	}
	if got := attr(sp, tracing.AttrApprovalBy).AsString(); got != "user" {
		t.Errorf("approval by %q", got)
	}
	wait := time.Duration(attr(sp, tracing.AttrApprovalWait).AsInt64()) * time.Millisecond
	if wait < personWait || wait != sp.EndTime().Sub(sp.StartTime()).Truncate(time.Millisecond) {
		t.Errorf("approval wait %v (span %v); the person took %v", wait, sp.EndTime().Sub(sp.StartTime()), personWait)
	}
}

// startedAt returns when sp's call body began: the started event of a call
// that asked first.
func startedAt(t *testing.T, sp sdktrace.ReadOnlySpan) time.Time {
	t.Helper()
	for _, e := range sp.Events() {
		if e.Name == tracing.EventCallStarted {
			return e.Time
		}
	}
	t.Fatalf("%s has no %s event", sp.Name(), tracing.EventCallStarted)
	return time.Time{}
}

func TestContentIsCapturedOnlyWhenAskedAndRedacted(t *testing.T) {
	all, _ := runScenario(t, true)
	root := all.named(tracing.SpanInvokeAgent)[0]
	in := attr(root, semconv.GenAIInputMessagesKey).AsString()
	if !strings.Contains(in, "change a and d") {
		t.Errorf("input messages %q", in)
	}
	chat := all.named("chat gpt-test")[0]
	outMsg := attr(chat, semconv.GenAIOutputMessagesKey).AsString()
	var msgs []struct {
		Role  string `json:"role"`
		Parts []struct {
			Type, Content, Name, ID string
			Arguments               json.RawMessage
		} `json:"parts"`
		FinishReason string `json:"finish_reason"`
	}
	if err := json.Unmarshal([]byte(outMsg), &msgs); err != nil || len(msgs) != 1 || len(msgs[0].Parts) != 6 ||
		msgs[0].Parts[0].Content != "Reading first. "+redact.Marker || msgs[0].Parts[1].Name != "read" ||
		string(msgs[0].Parts[1].Arguments) != `{"path":"a"}` || msgs[0].FinishReason != "tool_call" {
		t.Errorf("output messages %s (%v)", outMsg, err)
	}
	readA := all.call(t, 1, 0)
	if got := attr(readA, semconv.GenAIToolCallArgumentsKey).AsString(); got != `{"path":"a"}` {
		t.Errorf("arguments %q", got)
	}
	if got := attr(readA, semconv.GenAIToolCallResultKey).AsString(); got != "done" {
		t.Errorf("result %q", got)
	}
	appr := all.childrenOf(all.call(t, 1, 4))[0]
	if got := attr(appr, tracing.AttrApprovalReason).AsString(); !strings.Contains(got, "not now") || strings.Contains(got, "sk-proj") {
		t.Errorf("the person's reason should be recorded, redacted: %q", got)
	}
	for _, sp := range all {
		for _, kv := range sp.Attributes() {
			if strings.Contains(kv.Value.Emit(), "sk-proj") {
				t.Errorf("%s %s holds the secret", sp.Name(), kv.Key)
			}
		}
	}
}

func names(s spans) []string {
	out := make([]string, len(s))
	for i, sp := range s {
		out[i] = sp.Name()
	}
	return out
}
