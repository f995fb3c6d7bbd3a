package callview

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// reply is a read and a write of the same file, the write behind the read.
func reply() *Reply {
	r := tool.Reads(tool.Paths("/w/docs/a.md"))
	w := tool.Writes(tool.Paths("/w/docs/a.md"))
	return NewReply(runtime.ReplyReceived{Turn: 3, Calls: []runtime.PlannedCall{
		{Index: 0, Name: "read_file", Args: json.RawMessage(`{"path":"docs/a.md"}`), Touches: &r, WaitsFor: []int{}, Batch: 1},
		{Index: 1, Name: "write_file", Args: json.RawMessage(`{"path":"docs/a.md","content":"x"}`), Touches: &w, WaitsFor: []int{0}, Batch: 2},
	}})
}

// TestStatesFollowTheEvents walks a write through every state the board
// shows while it waits for a read, asks, is answered, runs and succeeds, and
// checks the words the board shows at each.
func TestStatesFollowTheEvents(t *testing.T) {
	r := reply()
	read, write := r.Get(0), r.Get(1)
	step := func(want State, words string, evs ...any) {
		t.Helper()
		for _, e := range evs {
			switch e := e.(type) {
			case Request:
				if !r.Attach(e) {
					t.Fatalf("the request for #%d was not attached", e.Req.Index+1)
				}
			case runtime.Event:
				r.Apply(e)
			}
		}
		got, _ := r.StateText(write, "/w", "*")
		if r.State(write) != want || !strings.Contains(got, words) {
			t.Fatalf("the write is in state %d saying %q; want %d saying %q", r.State(write), got, want, words)
		}
	}
	step(StateWaiting, "⧗ waits for #1")
	step(StateAsking, "? needs approval (then waits for #1) · mode:reads: reads mode asks before a call that may change things",
		runtime.CallDecision{Turn: 3, Index: 1, Decision: runtime.DecisionAsk, By: "mode:reads",
			Reason: "reads mode asks before a call that may change things (it writes /w/docs/a.md)"},
		Request{ID: 7, Since: t0, Req: approval.Request{Turn: 3, Index: 1, Call: tool.Call{Name: "write_file"}}})
	if p := r.Pending(0); len(p) != 1 || p[0] != write {
		t.Fatalf("pending calls: %v", p)
	}
	write.MarkAnswered(true)
	step(StateAnswered, "… approved, starting")
	if len(r.Pending(0)) != 0 {
		t.Fatal("an answered call is still pending")
	}
	step(StateQueued, "○ queued · cleared by grant: write_file within docs/",
		runtime.CallDecision{Turn: 3, Index: 1, Decision: runtime.DecisionRun, By: "grant:write_file within docs/",
			Reason: "released by a grant of this session"},
		runtime.CallFinished{Turn: 3, Index: 0, Name: "read_file", Outcome: "success", Result: "x", Started: true})
	if r.State(read) != StateSucceeded {
		t.Fatalf("the read is in state %d", r.State(read))
	}
	step(StateRunning, "▶ running * · cleared by grant: write_file within docs/",
		runtime.CallStarted{Turn: 3, Index: 1, Name: "write_file", Attempt: 1, At: runtime.Time{Time: t0}})
	step(StateSucceeded, "✓ succeeded · cleared by grant: write_file within docs/ → Wrote docs/a.md",
		runtime.CallFinished{Turn: 3, Index: 1, Name: "write_file", Outcome: "success", Result: "Wrote docs/a.md", Started: true})
	if running, waiting, asking := r.Counts(); running+waiting+asking != 0 {
		t.Fatalf("a settled reply counts %d running, %d waiting, %d asking", running, waiting, asking)
	}
}

// TestRequestsOnlyReachCallsThatWait refuses a request for another turn or a
// settled call, and lets the runtime withdraw one.
func TestRequestsOnlyReachCallsThatWait(t *testing.T) {
	r := reply()
	if r.Attach(Request{ID: 1, Req: approval.Request{Turn: 2, Index: 1}}) {
		t.Fatal("a request of another turn was attached")
	}
	r.Apply(runtime.CallFinished{Turn: 3, Index: 0, Outcome: "success", Started: true})
	if r.Attach(Request{ID: 2, Req: approval.Request{Turn: 3, Index: 0}}) {
		t.Fatal("a request for a settled call was attached")
	}
	if !r.Attach(Request{ID: 3, Req: approval.Request{Turn: 3, Index: 1}}) {
		t.Fatal("the waiting write's request was not attached")
	}
	r.Detach(3)
	if r.Get(1).Req != nil || len(r.Pending(0)) != 0 {
		t.Fatal("a withdrawn request stayed on its call")
	}
}

// TestBadgesSayWhatACallTouches pins the footprint badges and words.
func TestBadgesSayWhatACallTouches(t *testing.T) {
	r := reply()
	if got := Badge(r.Get(0), "/w"); got != "R docs/a.md" {
		t.Errorf("the read's badge is %q", got)
	}
	if got := Footprint(r.Get(1).Touches, "/w"); got != "writes docs/a.md" {
		t.Errorf("the write's footprint is %q", got)
	}
	ind := tool.Independent()
	if got := FootprintBadge(&ind, "/w"); got != "I" {
		t.Errorf("an independent call's badge is %q", got)
	}
	if got := Footprint(nil, "/w"); got != "none: the call was not valid" {
		t.Errorf("an invalid call's footprint is %q", got)
	}
}
