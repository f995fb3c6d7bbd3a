package autopilot

import (
	"encoding/json"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// scenario is a person who types a goal and approves the write it leads to.
func scenario(t *testing.T) *model.Scenario {
	t.Helper()
	sc, err := model.ParseScenario([]byte(`{"name": "p", "steps": [
	  {"input": "Go.", "calls": [{"name": "read_file", "args": {"path": "a"}},
	                             {"name": "write_file", "args": {"path": "b", "content": ""}, "decision": "approve"}]},
	  {"text": "Done."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// waitingWrite returns the scenario's first reply with its write waiting
// for approval, as the board holds it.
func waitingWrite() *callview.Reply {
	w := tool.Writes(tool.Paths("/w/b"))
	r := tool.Reads(tool.Paths("/w/a"))
	reply := callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		{Index: 0, Name: "read_file", Args: json.RawMessage(`{"path":"a"}`), Touches: &r, WaitsFor: []int{}, Batch: 1},
		{Index: 1, Name: "write_file", Args: json.RawMessage(`{"path":"b","content":""}`), Touches: &w, WaitsFor: []int{}, Batch: 1},
	}})
	reply.Attach(callview.Request{ID: 1, Since: t0, Req: approval.Request{Turn: 1, Index: 1, Call: tool.Call{Name: "write_file"}}})
	return reply
}

// TestNextTypesTheGoalAfterALead types the first step's input key by key,
// the first after the lead-in pause, and leaves the pilot it was given as it
// was.
func TestNextTypesTheGoalAfterALead(t *testing.T) {
	p := *New(scenario(t), 1, false)
	s := Snapshot{Now: t0, Focus: FocusInput}
	next, step, ok := Next(p, s)
	if !ok || string(step.Key.Runes) != "G" || step.At.Before(t0.Add(Lead)) {
		t.Fatalf("first step %+v at %v (ok %v), want G no sooner than %v", step.Key, step.At, ok, t0.Add(Lead))
	}
	if next.Say != "typing" || p.Say != "" {
		t.Fatalf("Next said %q and left the given pilot saying %q", next.Say, p.Say)
	}
	again, step2, _ := Next(p, s)
	if step2.Key.String() != step.Key.String() || !step2.At.Equal(step.At) || again.Say != next.Say {
		t.Fatalf("the same snapshot gave another step: %+v then %+v", step, step2)
	}
	s.Input = "Go."
	_, send, ok := Next(next, s)
	if !ok || send.Key.Type != tea.KeyEnter {
		t.Fatalf("with the goal typed, the step is %+v (ok %v), want Enter", send.Key, ok)
	}
	s.Input = "Stop"
	paused, _, ok := Next(next, s)
	if ok || !paused.Paused {
		t.Fatalf("text the autopilot did not type did not pause it (ok %v, paused %v)", ok, paused.Paused)
	}
}

// TestNextApprovesAfterReadingAndTheGracePeriod moves focus to the board and
// onto the waiting write, then presses y no sooner than the board's grace
// period allows.
func TestNextApprovesAfterReadingAndTheGracePeriod(t *testing.T) {
	p := New(scenario(t), 1, false)
	reply := waitingWrite()
	p.Observe(runtime.ReplyReceived{Turn: 1})
	s := Snapshot{Now: t0, Running: true, Reply: reply, Focus: FocusInput}
	_, step, ok := Next(*p, s)
	if !ok || step.Key.Type != tea.KeyTab {
		t.Fatalf("from the input the step is %+v (ok %v), want Tab", step.Key, ok)
	}
	s.Focus = FocusBoard
	_, step, _ = Next(*p, s)
	if step.Key.Type != tea.KeyDown {
		t.Fatalf("with #1 focused the step is %+v, want ↓ to #2", step.Key)
	}
	s.BoardFocus = 1
	s.GraceUntil = t0.Add(10 * time.Second)
	next, step, ok := Next(*p, s)
	if !ok || string(step.Key.Runes) != "y" || step.At.Before(s.GraceUntil) || step.At.Before(t0.Add(Read)) {
		t.Fatalf("the answer is %+v at %v (ok %v), want y no sooner than %v", step.Key, step.At, ok, s.GraceUntil)
	}
	if next.Say != "approving #2 write_file" {
		t.Fatalf("the autopilot says %q", next.Say)
	}
	if got, _ := next.Status("ctrl+o"); got != "▶ autopilot: approving #2 write_file · any key takes over" {
		t.Fatalf("status %q", got)
	}
}
