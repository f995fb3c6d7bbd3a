package callview

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// TestOriginsGatherFromEveryEvent takes a call's origins from the planned
// call, its decision and its approval request, each once, and words an ask
// made for them on the board by its sources.
func TestOriginsGatherFromEveryEvent(t *testing.T) {
	r := reply()
	write := r.Get(1)
	if write.HasOrigins() || write.Marked() != nil {
		t.Fatal("a call without origins has some")
	}
	content := tool.Origin{Argument: "content", Start: 0, End: 1, Turn: 1, Index: 0, Tool: "web_fetch", Source: "web:evil.example"}
	path := tool.Origin{Argument: "path", Start: 5, End: 9, Turn: 2, Index: 1, Tool: "read_file", Source: "workspace:notes.md",
		Task: []string{"t1"}}
	r.Apply(runtime.CallDecision{Turn: 3, Index: 1, Decision: runtime.DecisionAsk, By: "provenance", Reason: "its arguments came from…",
		Provenance: []tool.Origin{content}})
	r.Attach(Request{ID: 1, Since: t0, Req: approval.Request{Turn: 3, Index: 1, Call: tool.Call{Name: "write_file"}, By: "provenance",
		Provenance: []tool.Origin{content, path}}})
	if len(write.Origins) != 2 {
		t.Fatalf("origins = %+v, want content and path once each", write.Origins)
	}
	if s, _ := r.StateText(write, "/w", ""); s != "? needs approval (then waits for #1) · from web:evil.example, workspace:notes.md" {
		t.Fatalf("state = %q", s)
	}
	m := write.Marked()
	if len(m) != 2 || m[0].Value != "x" || !m[0].Found || len(m[0].Spans) != 1 || m[1].Value != "docs/a.md" ||
		m[1].Spans[0] != (Span{5, 9}) || !strings.Contains(m[1].Words, "read_file #2 of turn 2 in task t1 (workspace:notes.md)") {
		t.Fatalf("marked = %+v", m)
	}
}

// TestMarkedFindsPointersAndClampsSpans finds a value a JSON pointer names,
// merges spans that overlap, and keeps every span inside the value and on
// its runes' boundaries.
func TestMarkedFindsPointersAndClampsSpans(t *testing.T) {
	w := tool.Writes(tool.Anything())
	origin := func(arg string, start, end int) tool.Origin {
		return tool.Origin{Argument: arg, Start: start, End: end, Turn: 1, Tool: "web_fetch", Source: "web:a"}
	}
	r := NewReply(runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{{Index: 0, Name: "x", Batch: 1, Touches: &w,
		Args: json.RawMessage(`{"files":[{"a/b":"héllo"}],"n":3}`),
		Provenance: []tool.Origin{origin("/files/0/a~1b", 2, 4), origin("/files/0/a~1b", 3, 99), origin("n", 0, 1),
			origin("/files/1/x", 0, 1), origin("/files/00/a~1b", 0, 1)}}}})
	m := r.Get(0).Marked()
	if len(m) != 4 || m[0].Value != "héllo" || len(m[0].Spans) != 1 || m[0].Spans[0] != (Span{1, 6}) {
		t.Fatalf("marked = %+v", m)
	}
	for _, x := range m[1:] {
		if x.Found || x.Spans != nil {
			t.Fatalf("%s was found: %+v", x.Argument, x)
		}
	}
	for _, c := range []struct {
		start, end int
		want       Span
		ok         bool
	}{
		{-3, 2, Span{0, 3}, true}, {2, 2, Span{2, 2}, false}, {4, 2, Span{4, 4}, false}, {6, 9, Span{6, 6}, false}, {5, 6, Span{5, 6}, true},
	} {
		got, ok := ClampSpan("héllo", c.start, c.end)
		if got != c.want || ok != c.ok {
			t.Errorf("ClampSpan(%d, %d) = %v %v, want %v %v", c.start, c.end, got, ok, c.want, c.ok)
		}
	}
}
