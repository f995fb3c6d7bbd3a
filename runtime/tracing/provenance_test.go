package tracing_test

import (
	"slices"
	"testing"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/tracing"
)

// A call's span says where its arguments came from.
func TestCallSpanCarriesProvenance(t *testing.T) {
	tp, sr := recorder(t)
	tr := tracing.New(tp, tracing.Options{Redact: redact.New()})
	origins := []tool.Origin{
		{Argument: "command", Start: 5, End: 35, Turn: 1, Index: 0, Tool: "web_fetch", Source: "web:evil.example"},
		{Argument: "command", Start: 40, End: 60, Turn: 1, Index: 0, Tool: "web_fetch", Source: "web:evil.example"},
	}
	for _, e := range []runtime.Event{
		runtime.RunStarted{Session: "s1", Goal: "g", Input: "g", Model: "openai:gpt-test", Mode: "auto", At: ts(0)},
		runtime.TurnStarted{Turn: 2, At: ts(1)},
		runtime.ReplyReceived{Turn: 2, Stop: "tool_calls", Calls: []runtime.PlannedCall{readPlan(0, "a")}},
		runtime.CallDecision{Turn: 2, Index: 0, Decision: "skip", By: "headless", Reason: "r", Provenance: origins, At: ts(2)},
		runtime.CallFinished{Turn: 2, Index: 0, Name: "read_file", Outcome: "skipped", At: ts(3)},
		runtime.TurnEnded{Turn: 2},
		runtime.RunFinished{Outcome: runtime.Succeeded("ok", nil), At: ts(4)},
	} {
		tr.Event(e)
	}
	tr.Flush()
	calls := spans(sr.Ended()).prefixed(tracing.SpanExecutePrefix)
	if len(calls) != 1 {
		t.Fatalf("%d call spans", len(calls))
	}
	got := attr(calls[0], tracing.AttrCallProvenance).AsStringSlice()
	if !slices.Equal(got, []string{"command ← web:evil.example"}) {
		t.Fatalf("provenance attribute %q", got)
	}
}
