package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/agents"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/tracing"
)

// taskPlan is a planned task call of a reply.
func taskPlan(index int, description, agent string) runtime.PlannedCall {
	args := map[string]any{"description": description, "prompt": "please " + description}
	if agent != "" {
		args["agent"] = agent
	}
	b, _ := json.Marshal(args)
	touches := tool.Independent()
	return runtime.PlannedCall{Index: index, ID: fmt.Sprintf("task_%d", index), Name: runtime.Task, Args: b,
		Touches: &touches, WaitsFor: []int{}, Batch: 1}
}

// readPlan is a planned read_file call of a reply.
func readPlan(index int, path string) runtime.PlannedCall {
	reads := tool.Reads(tool.Paths("/w/" + path))
	return runtime.PlannedCall{Index: index, ID: fmt.Sprintf("read_%d", index), Name: "read_file",
		Args: json.RawMessage(`{"path":"` + path + `"}`), Touches: &reads, WaitsFor: []int{}, Batch: 1}
}

// tag tags e as an event of the task at path, as the runtime does when a
// task's events pass up through its parents.
func tag(path string, e runtime.Event) runtime.Event {
	ids := strings.Split(path, "/")
	for i := len(ids) - 1; i >= 0; i-- {
		e = runtime.Tag(ids[i], e)
	}
	return e
}

// taskRun returns the events of a task's run of one turn, which reads path
// (call 0 of its turn 1) and ends with out, from ms on.
func taskRun(path, session, readPath string, ms int, out runtime.GoalOutcome) []runtime.Event {
	return []runtime.Event{
		tag(path, runtime.RunStarted{Session: session, Goal: "g", Input: "please " + readPath + " " + secret, Model: "openai:mini", Mode: "reads", At: ts(ms)}),
		tag(path, runtime.TurnStarted{Turn: 1, At: ts(ms + 1)}),
		tag(path, runtime.UsageReported{Turn: 1, Usage: model.Usage{InputTokens: 10, OutputTokens: 2}, At: ts(ms + 5)}),
		tag(path, runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{readPlan(0, readPath)}}),
		tag(path, runtime.CallDecision{Turn: 1, Index: 0, Decision: "run", By: "mode:reads", At: ts(ms + 6)}),
		tag(path, runtime.CallStarted{Turn: 1, Index: 0, Name: "read_file", Attempt: 1, At: ts(ms + 7)}),
		tag(path, runtime.CallFinished{Turn: 1, Index: 0, Name: "read_file", Outcome: "success", Started: true, Attempts: 1, At: ts(ms + 9)}),
		tag(path, runtime.TurnEnded{Turn: 1}),
		tag(path, runtime.RunFinished{Outcome: out, At: ts(ms + 20)}),
	}
}

// interleave merges event lists one event from each in turn, as the events
// of tasks that run side by side arrive.
func interleave(lists ...[]runtime.Event) []runtime.Event {
	var out []runtime.Event
	for i := 0; ; i++ {
		more := false
		for _, l := range lists {
			if i < len(l) {
				out = append(out, l[i])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// sideBySide is a session's run whose first reply runs two tasks side by
// side: #0 surveys a (agent named by default) and succeeds, #1 writes docs
// (the general agent) and fails. The events up to the tasks' ends are the
// first list, the rest the second.
func sideBySide() (tasks, rest []runtime.Event) {
	tasks = []runtime.Event{
		runtime.RunStarted{Session: "s", Goal: "g", Input: "g", Model: "openai:big", Mode: "reads", At: ts(0)},
		runtime.TurnStarted{Turn: 1, At: ts(1)},
		runtime.UsageReported{Turn: 1, Usage: model.Usage{InputTokens: 100, OutputTokens: 20}, At: ts(5)},
		runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{
			taskPlan(0, "survey a "+secret, ""), taskPlan(1, "write docs", "general")}},
		runtime.CallDecision{Turn: 1, Index: 0, Decision: "run", By: "mode:reads", At: ts(6)},
		runtime.CallDecision{Turn: 1, Index: 1, Decision: "run", By: "mode:reads", At: ts(7)},
		runtime.CallStarted{Turn: 1, Index: 0, Name: runtime.Task, Attempt: 1, At: ts(10)},
		runtime.CallStarted{Turn: 1, Index: 1, Name: runtime.Task, Attempt: 1, At: ts(11)},
	}
	tasks = append(tasks, interleave(
		taskRun("1.0", "s/1.0", "a", 20, runtime.Succeeded("found a", nil)),
		taskRun("1.1", "s/1.1", "docs", 21, runtime.Failed("g", "turn 1: the reply's calls", []string{"it broke"})),
	)...)
	rest = []runtime.Event{
		runtime.CallFinished{Turn: 1, Index: 1, Name: runtime.Task, Outcome: "error", Kind: ptr("other"), Started: true, Attempts: 1, At: ts(60)},
		runtime.CallFinished{Turn: 1, Index: 0, Name: runtime.Task, Outcome: "success", Started: true, Attempts: 1, At: ts(61)},
		runtime.TurnEnded{Turn: 1},
		runtime.RunFinished{Outcome: runtime.Succeeded("done", nil), At: ts(100)},
	}
	return tasks, rest
}

// taskCallSpan returns the execute_tool task span of call index of the
// session's turn 1.
func taskCallSpan(t *testing.T, all spans, index int) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, sp := range all.named(tracing.SpanExecutePrefix + runtime.Task) {
		if attr(sp, tracing.AttrCallIndex).AsInt64() == int64(index) {
			return sp
		}
	}
	t.Fatalf("no execute_tool task span for call %d: %v", index, names(all))
	return nil
}

// taskSpan returns the invoke_agent span of the task at path.
func taskSpan(t *testing.T, all spans, path ...string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, sp := range all.prefixed(tracing.SpanInvokeAgentPrefix) {
		if slices.Equal(attr(sp, tracing.AttrTaskPath).AsStringSlice(), path) {
			return sp
		}
	}
	t.Fatalf("no invoke_agent span for task %v: %v", path, names(all))
	return nil
}

// stillOpen returns the names of the spans started and not ended.
func stillOpen(sr *tracetest.SpanRecorder) []string {
	var out []string
	for _, sp := range sr.Started() {
		if sp.EndTime().IsZero() {
			out = append(out, sp.Name())
		}
	}
	return out
}

func TestTasksSideBySideNestUnderTheirCalls(t *testing.T) {
	tp, sr := recorder(t)
	id := tracing.NewTraceID()
	tr := tracing.New(tp, tracing.Options{TraceID: id, Redact: redact.New()})
	tasks, rest := sideBySide()
	for _, e := range tasks {
		tr.Event(e)
	}
	tr.Flush()
	// Both tasks have finished, one failed: the session's run goes on.
	if roots := spans(sr.Ended()).named(tracing.SpanInvokeAgent); len(roots) != 0 {
		t.Fatalf("a task's end ended the session's run span")
	}
	if got := spans(sr.Ended()).prefixed(tracing.SpanInvokeAgentPrefix); len(got) != 2 {
		t.Fatalf("want both tasks' spans ended with their runs, got %v", names(got))
	}
	for _, e := range rest {
		tr.Event(e)
	}
	tr.Close()
	if open := stillOpen(sr); len(open) != 0 {
		t.Errorf("spans left open: %v", open)
	}
	all := spans(sr.Ended())

	roots := all.named(tracing.SpanInvokeAgent)
	if len(roots) != 1 || roots[0].Parent().IsValid() {
		t.Fatalf("want one session run span without a parent, got %v", names(all))
	}
	root := roots[0]
	if root.EndTime() != ts(100).Time || root.Status().Code == codes.Error ||
		attr(root, tracing.AttrRunOutcome).AsString() != "succeeded" || attr(root, semconv.GenAIAgentNameKey).AsString() != tracing.AgentName {
		t.Errorf("session run span ended %v, %v, %v", root.EndTime(), root.Status(), root.Attributes())
	}
	if attr(root, semconv.GenAIUsageInputTokensKey).AsInt64() != 100 {
		t.Errorf("the session's run counts its own usage, not its tasks': %v", root.Attributes())
	}

	survey, docs := taskSpan(t, all, "1.0"), taskSpan(t, all, "1.1")
	for i, c := range []struct {
		span          sdktrace.ReadOnlySpan
		name, agent   string
		session       string
		failed        bool
		start, end    time.Time
		readPath      string
		parentCallIdx int
	}{
		{survey, "invoke_agent explore", "explore", "s/1.0", false, ts(20).Time, ts(40).Time, "a", 0},
		{docs, "invoke_agent general", "general", "s/1.1", true, ts(21).Time, ts(41).Time, "docs", 1},
	} {
		sp := c.span
		call := taskCallSpan(t, all, c.parentCallIdx)
		if call.Parent().SpanID() != root.SpanContext().SpanID() {
			t.Errorf("task call %d is not a child of the session's run", c.parentCallIdx)
		}
		if sp.Name() != c.name || attr(sp, semconv.GenAIAgentNameKey).AsString() != c.agent ||
			attr(sp, semconv.GenAIOperationNameKey).AsString() != "invoke_agent" ||
			attr(sp, semconv.GenAIConversationIDKey).AsString() != c.session || attr(sp, semconv.GenAIRequestModelKey).AsString() != "mini" {
			t.Errorf("task %d: %s %v", i, sp.Name(), sp.Attributes())
		}
		if sp.Parent().SpanID() != call.SpanContext().SpanID() || sp.SpanContext().TraceID() != id {
			t.Errorf("task %d's span is not a child of its call's span in the session's trace", i)
		}
		if sp.StartTime() != c.start || sp.EndTime() != c.end || sp.StartTime().Before(call.StartTime()) || sp.EndTime().After(call.EndTime()) {
			t.Errorf("task %d ran %v–%v, its call %v–%v", i, sp.StartTime(), sp.EndTime(), call.StartTime(), call.EndTime())
		}
		if has(sp, semconv.GenAIAgentDescriptionKey) || has(sp, semconv.GenAIInputMessagesKey) {
			t.Errorf("task %d: the description and prompt are content", i)
		}
		if got := sp.Status().Code == codes.Error; got != c.failed {
			t.Errorf("task %d: status %v", i, sp.Status())
		}
		// The task's own chat and execute_tool spans hang from it.
		kids := all.childrenOf(sp)
		if got := names(kids); !slices.Equal(got, []string{"chat mini", "execute_tool read_file"}) {
			t.Errorf("task %d's children: %v", i, got)
		}
		for _, k := range kids {
			if k.SpanContext().TraceID() != id || len(all.childrenOf(k)) != 0 {
				t.Errorf("task %d's %s: trace %s, children %v", i, k.Name(), k.SpanContext().TraceID(), names(all.childrenOf(k)))
			}
		}
		if attr(kids[0], semconv.GenAIConversationIDKey).AsString() != c.session || attr(kids[0], semconv.GenAIUsageInputTokensKey).AsInt64() != 10 {
			t.Errorf("task %d's chat: %v", i, kids[0].Attributes())
		}
		if attr(kids[1], tracing.AttrTurn).AsInt64() != 1 || attr(kids[1], tracing.AttrCallIndex).AsInt64() != 0 ||
			!strings.Contains(attr(kids[1], semconv.GenAIToolCallIDKey).AsString(), "read_0") {
			t.Errorf("task %d's call: %v", i, kids[1].Attributes())
		}
	}
	if !overlap(survey, docs) {
		t.Errorf("the tasks ran side by side")
	}
	if attr(docs, tracing.AttrRunOutcome).AsString() != "failed" || attr(docs, tracing.AttrRunFailingStep).AsString() != "turn 1: the reply's calls" ||
		docs.Status().Description != "failed at turn 1: the reply's calls" {
		t.Errorf("failed task: %v %v", docs.Status(), docs.Attributes())
	}
	if attr(survey, tracing.AttrRunOutcome).AsString() != "succeeded" {
		t.Errorf("task that succeeded: %v", survey.Attributes())
	}
	// The run's chat, the two task calls, two tasks of a chat and a call
	// each, and the run.
	if got := len(all); got != 1+2+2*3+1 {
		t.Errorf("want 10 spans, got %d: %v", got, names(all))
	}
}

func TestTaskContentIsCapturedRedacted(t *testing.T) {
	tasks, rest := sideBySide()
	all := play(t, tracing.Options{CaptureContent: true}, append(tasks, rest...)...)
	survey := taskSpan(t, all, "1.0")
	if got := attr(survey, semconv.GenAIAgentDescriptionKey).AsString(); got != "survey a "+redact.Marker {
		t.Errorf("description %q", got)
	}
	if in := attr(survey, semconv.GenAIInputMessagesKey).AsString(); !strings.Contains(in, "please a "+redact.Marker) || strings.Contains(in, secret) {
		t.Errorf("the task's prompt should be recorded redacted: %s", in)
	}
	if out := attr(survey, semconv.GenAIOutputMessagesKey).AsString(); !strings.Contains(out, "found a") {
		t.Errorf("the task's summary: %s", out)
	}
	if got := attr(taskSpan(t, all, "1.1"), tracing.AttrRunAttempts).AsStringSlice(); !slices.Equal(got, []string{"it broke"}) {
		t.Errorf("the failed task's attempts: %v", got)
	}
}

func TestTaskInsideATaskNestsUnderItsCall(t *testing.T) {
	tp, sr := recorder(t)
	tr := tracing.New(tp, tracing.Options{Redact: redact.New()})
	events := []runtime.Event{
		runtime.RunStarted{Session: "s", Goal: "g", Input: "g", Model: "openai:big", At: ts(0)},
		runtime.TurnStarted{Turn: 1, At: ts(1)},
		runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{taskPlan(0, "outer", "general")}},
		runtime.CallStarted{Turn: 1, Index: 0, Name: runtime.Task, Attempt: 1, At: ts(10)},
		tag("1.0", runtime.RunStarted{Session: "s/1.0", Input: "please outer", Model: "openai:mini", At: ts(11)}),
		tag("1.0", runtime.TurnStarted{Turn: 1, At: ts(12)}),
		tag("1.0", runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{taskPlan(0, "inner", "")}}),
		tag("1.0", runtime.CallStarted{Turn: 1, Index: 0, Name: runtime.Task, Attempt: 1, At: ts(14)}),
	}
	// The inner task's events, as the runtime folds them: one path.
	events = append(events, taskRun("1.0/1.0", "s/1.0/1.0", "x", 15, runtime.Refused("which x?"))...)
	events = append(events,
		// An event wrapped twice reads the same.
		runtime.TaskEvent{Task: []string{"1.0"}, Event: runtime.TaskEvent{Task: []string{"1.0"}, Event: runtime.TurnEnded{Turn: 1}}},
		tag("1.0", runtime.CallFinished{Turn: 1, Index: 0, Name: runtime.Task, Outcome: "success", Started: true, Attempts: 1, At: ts(40)}),
		tag("1.0", runtime.RunFinished{Outcome: runtime.Succeeded("asked", nil), At: ts(41)}),
		runtime.CallFinished{Turn: 1, Index: 0, Name: runtime.Task, Outcome: "success", Started: true, Attempts: 1, At: ts(42)},
		runtime.RunFinished{Outcome: runtime.Succeeded("done", nil), At: ts(50)},
	)
	for _, e := range events {
		tr.Event(e)
	}
	tr.Close()
	if open := stillOpen(sr); len(open) != 0 {
		t.Errorf("spans left open: %v", open)
	}
	all := spans(sr.Ended())
	root := all.named(tracing.SpanInvokeAgent)[0]
	outer := taskSpan(t, all, "1.0")
	inner := taskSpan(t, all, "1.0", "1.0")
	// Each run has one task call, call 0 of its turn 1.
	taskCall := func(run sdktrace.ReadOnlySpan) sdktrace.ReadOnlySpan {
		t.Helper()
		kids := all.childrenOf(run).named(tracing.SpanExecutePrefix + runtime.Task)
		if len(kids) != 1 {
			t.Fatalf("%s has task calls %v", run.Name(), names(kids))
		}
		return kids[0]
	}
	outerCall, innerCall := taskCall(root), taskCall(outer)
	if outer.Parent().SpanID() != outerCall.SpanContext().SpanID() {
		t.Fatalf("the outer task is not under the session's call")
	}
	if inner.Parent().SpanID() != innerCall.SpanContext().SpanID() {
		t.Errorf("the inner task's span is not a child of the outer task's task call")
	}
	if inner.Name() != "invoke_agent explore" || attr(inner, semconv.GenAIConversationIDKey).AsString() != "s/1.0/1.0" ||
		inner.Status().Code == codes.Error || attr(inner, tracing.AttrRunOutcome).AsString() != "refused" || inner.EndTime() != ts(35).Time {
		t.Errorf("inner task: %s %v %v ended %v", inner.Name(), inner.Status(), inner.Attributes(), inner.EndTime())
	}
	if got := names(all.childrenOf(inner)); !slices.Equal(got, []string{"chat mini", "execute_tool read_file"}) {
		t.Errorf("the inner task's children: %v", got)
	}
	if outer.Name() != "invoke_agent general" || outer.EndTime() != ts(41).Time || outer.Status().Code == codes.Error {
		t.Errorf("outer task: %s ended %v %v", outer.Name(), outer.EndTime(), outer.Status())
	}
	if root.EndTime() != ts(50).Time {
		t.Errorf("the session's run ended at %v", root.EndTime())
	}
}

func TestATaskWhoseCallEndsFirstEndsWithIt(t *testing.T) {
	tp, sr := recorder(t)
	tr := tracing.New(tp, tracing.Options{Redact: redact.New()})
	writes := tool.Writes(tool.Paths("/w/a"))
	events := []runtime.Event{
		runtime.RunStarted{Session: "s", Goal: "g", Input: "g", Model: "openai:big", At: ts(0)},
		runtime.TurnStarted{Turn: 1, At: ts(1)},
		runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{taskPlan(0, "a", "general"), taskPlan(1, "b", "")}},
		runtime.CallStarted{Turn: 1, Index: 0, Name: runtime.Task, Attempt: 1, At: ts(10)},
		runtime.CallStarted{Turn: 1, Index: 1, Name: runtime.Task, Attempt: 1, At: ts(10)},
		tag("1.0", runtime.RunStarted{Session: "s/1.0", Input: "please a", Model: "openai:mini", At: ts(11)}),
		tag("1.0", runtime.TurnStarted{Turn: 1, At: ts(12)}),
		tag("1.0", runtime.UsageReported{Turn: 1, At: ts(13)}),
		tag("1.0", runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{
			{Index: 0, ID: "w", Name: "write_file", Touches: &writes, WaitsFor: []int{}, Batch: 1}}}),
		tag("1.0", runtime.CallDecision{Turn: 1, Index: 0, Decision: "ask", By: "mode:reads", At: ts(14)}),
		tag("1.0", runtime.TurnStarted{Turn: 2, At: ts(15)}), // a chat left open
		tag("1.1", runtime.RunStarted{Session: "s/1.1", Input: "please b", Model: "openai:mini", At: ts(16)}),
		tag("1.1", runtime.TurnStarted{Turn: 1, At: ts(17)}),
		// Events of calls the tracer never saw: dropped.
		tag("1.7", runtime.RunStarted{Session: "s/1.7", Model: "openai:mini", At: ts(18)}),
		tag("1.7", runtime.RunFinished{Outcome: runtime.Succeeded("x", nil), At: ts(19)}),
		tag("2.0", runtime.RunStarted{Session: "s/2.0", Model: "openai:mini", At: ts(18)}),
		tag("1.1/1.0", runtime.RunStarted{Session: "s/1.1/1.0", Model: "openai:mini", At: ts(18)}),
		tag("bad", runtime.RunStarted{Session: "s/bad", Model: "openai:mini", At: ts(18)}),
		runtime.TaskEvent{Event: runtime.RunFinished{At: ts(18)}},
		// Task 1.0's call ends (stopped) before its run says it ended.
		runtime.CallFinished{Turn: 1, Index: 0, Name: runtime.Task, Outcome: "error", Kind: ptr("cancelled"),
			Started: true, NotFinished: true, Why: "stopped", Attempts: 1, At: ts(30)},
		// Late events of the ended task change nothing.
		tag("1.0", runtime.CallFinished{Turn: 1, Index: 0, Name: "write_file", Outcome: "skipped", At: ts(31)}),
		tag("1.0", runtime.RunFinished{Outcome: runtime.Succeeded("late", nil), At: ts(32)}),
	}
	for _, e := range events {
		tr.Event(e)
	}
	tr.Flush()
	ended := spans(sr.Ended())
	a := taskSpan(t, ended, "1.0")
	if a.EndTime() != ts(30).Time || a.Status().Code != codes.Error || has(a, tracing.AttrRunOutcome) {
		t.Errorf("the task should end with its call, as an error: %v %v %v", a.EndTime(), a.Status(), a.Attributes())
	}
	// Its first chat ended with its reply; the call that asks and the
	// second chat were open.
	kids := ended.childrenOf(a)
	if got := names(kids); !slices.Equal(got, []string{"chat mini", "chat mini", "execute_tool write_file"}) {
		t.Fatalf("the task's spans: %v", got)
	}
	for _, k := range kids[1:] {
		if k.EndTime() != ts(30).Time || k.Status().Code != codes.Error {
			t.Errorf("%s should end with the call, as an error: %v %v", k.Name(), k.EndTime(), k.Status())
		}
	}
	if len(ended.named(tracing.SpanAwaitApproval)) != 1 {
		t.Errorf("the task call's approval: %v", names(ended))
	}
	if call := taskCallSpan(t, ended, 0); a.Parent().SpanID() != call.SpanContext().SpanID() || call.EndTime() != ts(30).Time {
		t.Errorf("the task's call")
	}
	if got := len(ended.prefixed(tracing.SpanInvokeAgentPrefix)); got != 1 {
		t.Errorf("only task 1.0's run has ended, got %d", got)
	}
	// The session's run ends, with task 1.1 and its call still going.
	tr.Event(runtime.RunFinished{Outcome: runtime.Failed("g", "turn 1: the reply's calls", []string{"stopped"}), At: ts(90)})
	tr.Close()
	if open := stillOpen(sr); len(open) != 0 {
		t.Errorf("spans left open: %v", open)
	}
	ended = spans(sr.Ended())
	b := taskSpan(t, ended, "1.1")
	if b.EndTime() != ts(90).Time || b.Status().Code != codes.Error {
		t.Errorf("task 1.1 should end with the session's run: %v %v", b.EndTime(), b.Status())
	}
	for _, sp := range ended.prefixed(tracing.SpanInvokeAgentPrefix) {
		if c := attr(sp, semconv.GenAIConversationIDKey).AsString(); c != "s" && c != "s/1.0" && c != "s/1.1" {
			t.Errorf("a span for a task whose call is unknown: %s %s", sp.Name(), c)
		}
	}
	// The run and its chat, two task calls, task 1.0 and its two chats,
	// call and approval, task 1.1 and its chat.
	if got := len(ended); got != 2+2+5+2 {
		t.Errorf("want 11 spans, got %d: %v", got, names(ended))
	}
}

func TestTasksThroughTheRuntime(t *testing.T) {
	clock := newStepClock()
	call := func(name, args string) model.ScriptedCall {
		return model.ScriptedCall{Name: name, Args: json.RawMessage(args)}
	}
	parent := &model.Scenario{Steps: []model.Step{
		{Calls: []model.ScriptedCall{
			call(runtime.Task, `{"description":"survey a","prompt":"read a"}`),
			call(runtime.Task, `{"description":"fix b","prompt":"write b","agent":"general","writes":["b"]}`),
		}},
		{Calls: []model.ScriptedCall{call("finish", `{"summary":"done"}`)}},
	}}
	scripts := map[string][]model.Step{
		"survey a": {{Calls: []model.ScriptedCall{call("read_file", `{"path":"a"}`)}}, {Calls: []model.ScriptedCall{call("finish", `{"summary":"a read"}`)}}},
		"fix b":    {{Calls: []model.ScriptedCall{call("write_file", `{"path":"b"}`)}}, {Calls: []model.ScriptedCall{call("finish", `{"summary":"b fixed"}`)}}},
	}
	tools := []tool.Tool{pathTool{name: "read_file"}, pathTool{name: "write_file", writes: true}}
	task := runtime.NewTaskTool(runtime.Tasks{
		Agents:    agents.Builtins(),
		Workspace: "/w",
		Tools:     func([]string) ([]tool.Tool, []string) { return tools, nil },
		Model: func(_ agents.Definition, description string, _ model.Model) (model.Model, error) {
			return model.NewScripted("openai:gpt-task", &model.Scenario{Steps: scripts[description]}), nil
		},
	})
	cat, err := runtime.NewCatalog(append(slices.Clone(tools), task)...)
	if err != nil {
		t.Fatal(err)
	}
	tp, sr := recorder(t)
	tr := tracing.New(tp, tracing.Options{Redact: redact.New()})
	a := &runtime.Agent{Model: model.NewScripted("openai:gpt-test", parent), Catalog: cat, Clock: clock, Sink: tr.Event}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := a.Run(ctx, runtime.NewSession("s1"), "go")
	tr.Close()
	if out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if open := stillOpen(sr); len(open) != 0 {
		t.Errorf("spans left open: %v", open)
	}
	all := spans(sr.Ended())
	root := all.named(tracing.SpanInvokeAgent)[0]
	for i, want := range []struct{ agent, tool string }{{"explore", "read_file"}, {"general", "write_file"}} {
		call := taskCallSpan(t, all, i)
		sp := taskSpan(t, all, runtime.TaskID(1, i))
		if call.Parent().SpanID() != root.SpanContext().SpanID() || sp.Parent().SpanID() != call.SpanContext().SpanID() {
			t.Errorf("task %d is not under its call under the run", i)
		}
		if sp.Name() != "invoke_agent "+want.agent || attr(sp, tracing.AttrRunOutcome).AsString() != "succeeded" {
			t.Errorf("task %d: %s %v", i, sp.Name(), sp.Attributes())
		}
		if got := names(all.childrenOf(sp)); !slices.Contains(got, "execute_tool "+want.tool) || !slices.Contains(got, "chat gpt-task") {
			t.Errorf("task %d's children: %v", i, got)
		}
	}
	if got := names(all.childrenOf(root)); len(got) != 5 {
		t.Errorf("the run's children: %v", got)
	}
}
