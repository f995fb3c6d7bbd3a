package tracing_test

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tracing"
)

// A call's span carries its hooks' runs and the hook's decision; the run's
// span carries the hooks of the input and the stop.
func TestHookRunsAreSpanEvents(t *testing.T) {
	tp, sr := recorder(t)
	tr := tracing.New(tp, tracing.Options{Redact: redact.New()})
	zero := 0
	for _, e := range []runtime.Event{
		runtime.RunStarted{Session: "s1", Goal: "g", Input: "g", Model: "openai:gpt-test", Mode: "auto", At: ts(0)},
		runtime.TurnStarted{Turn: 1, At: ts(1)},
		runtime.ReplyReceived{Turn: 1, Stop: "tool_calls", Calls: []runtime.PlannedCall{readPlan(0, "a")}},
		runtime.HookRan{Event: "PreToolUse", Turn: 1, Index: &zero, Command: "./guard.sh", Exit: 2, Decision: "deny", At: ts(2)},
		runtime.CallDecision{Turn: 1, Index: 0, Decision: "skip", By: "hook:./guard.sh", Reason: "r", At: ts(2)},
		runtime.CallFinished{Turn: 1, Index: 0, Name: "read_file", Outcome: "skipped", At: ts(3)},
		runtime.TurnEnded{Turn: 1},
		runtime.HookRan{Event: "Stop", Command: "./tests.sh", Exit: 3, Error: "exited with status 3", At: ts(4)},
		runtime.RunFinished{Outcome: runtime.Succeeded("ok", nil), At: ts(5)},
	} {
		tr.Event(e)
	}
	tr.Flush()
	calls := spans(sr.Ended()).prefixed(tracing.SpanExecutePrefix)
	if len(calls) != 1 {
		t.Fatalf("%d call spans", len(calls))
	}
	if by := attr(calls[0], tracing.AttrCallDecisionBy).AsString(); by != "hook:./guard.sh" {
		t.Errorf("the call's span says it was decided by %q", by)
	}
	hookEvent := func(evs []attribute.KeyValue, key attribute.Key) string {
		for _, kv := range evs {
			if kv.Key == key {
				return kv.Value.Emit()
			}
		}
		return ""
	}
	found := false
	for _, ev := range calls[0].Events() {
		if ev.Name == tracing.EventHook && hookEvent(ev.Attributes, tracing.AttrHookDecision) == "deny" &&
			hookEvent(ev.Attributes, tracing.AttrHookCommand) == "./guard.sh" {
			found = true
		}
	}
	if !found {
		t.Errorf("the call's span has no hook event: %+v", calls[0].Events())
	}
	found = false
	for _, s := range sr.Ended() {
		for _, ev := range s.Events() {
			if ev.Name == tracing.EventHook && hookEvent(ev.Attributes, tracing.AttrHookEvent) == "Stop" &&
				hookEvent(ev.Attributes, tracing.AttrHookError) == "exited with status 3" {
				found = true
			}
		}
	}
	if !found {
		t.Error("the Stop hook's run is on no span")
	}
}
