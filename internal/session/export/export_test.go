package export

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// TestExportScenarioFromEvents turns a journal with the awkward cases into
// a scenario: a grant that released two calls is carried by the first, a
// skip the turn's end made is nobody's decision, an edited approval, a stop,
// an input the model never answered and a change of mode are said.
func TestExportScenarioFromEvents(t *testing.T) {
	const ws = "/w"
	at := func(ms int) runtime.Time {
		return runtime.Time{Time: time.Date(2026, 11, 30, 9, 0, 0, ms*int(time.Millisecond), time.UTC)}
	}
	writes := func(p string) *tool.Touches { x := tool.Writes(tool.Paths(ws + "/" + p)); return &x }
	planned := func(i int, name, args, raw string, touches *tool.Touches) runtime.PlannedCall {
		return runtime.PlannedCall{Index: i, Name: name, Args: json.RawMessage(args), Raw: raw, Touches: touches}
	}
	rp := &journal.Replay{Header: journal.Header{Session: "s1", Goal: "tidy\nmore", Workspace: ws}, Events: []runtime.Event{
		runtime.RunStarted{Input: "tidy", Mode: "ask", At: at(0)},
		runtime.TurnStarted{Turn: 1, At: at(0)},
		runtime.UsageReported{Turn: 1, At: at(750)},
		runtime.ReplyReceived{Turn: 1, Text: "Writing.", Calls: []runtime.PlannedCall{
			planned(0, "write_file", `{"path":"docs/a","content":"a"}`, "", writes("docs/a")),
			planned(1, "write_file", `{"path":"docs/b","content":"b"}`, "", writes("docs/b")),
			planned(2, "edit_file", `{}`, `{"path": "x"`, nil),
			planned(3, "write_file", `{"path":"c","content":"c"}`, "", writes("c")),
			planned(4, "run_shell", `{"command":"make"}`, "", writes("")),
		}},
		runtime.CallDecision{Turn: 1, Index: 1, Decision: "run", By: "grant:write_file within docs/", Reason: "released by a grant of this session"},
		runtime.CallDecision{Turn: 1, Index: 0, Decision: "run", By: "grant:write_file within docs/", Reason: "released by a grant of this session"},
		runtime.CallDecision{Turn: 1, Index: 3, Decision: "run", By: "user", Reason: "approved with the person's own version", Edited: true},
		runtime.CallDecision{Turn: 1, Index: 4, Decision: "skip", By: "user", Reason: "Skipped: the turn ended before anyone answered; the call was not run."},
		runtime.RunFinished{Outcome: runtime.Failed("tidy", "turn 1", []string{"stopped: the person stopped the turn"})},
		runtime.RunStarted{Input: "lost", Mode: "ask"},
		runtime.RunFinished{Outcome: runtime.Failed("lost", "turn 2: model reply", nil)},
		runtime.RunStarted{Input: "/etc is fine", Mode: "auto"},
		runtime.TurnStarted{Turn: 2, At: at(1000)},
		runtime.UsageReported{Turn: 2, At: at(1200)},
		runtime.ReplyReceived{Turn: 2, Text: "Done."},
	}}
	ex := FromJournal(rp)
	data, err := ex.Scenario.Encode()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := model.ParseScenario(data)
	if err != nil {
		t.Fatalf("the export does not read back: %v\n%s", err, data)
	}
	st := sc.Steps
	if len(st) != 2 || st[0].Input != "tidy" || st[0].DelayMS != 750 || st[1].Input != "/etc is fine" || st[1].DelayMS != 200 {
		t.Fatalf("steps %+v", st)
	}
	want := []string{`{"grant":"folder"}`, "<nil>", "<nil>", `"approve"`, "<nil>"}
	for i, c := range st[0].Calls {
		got := "<nil>"
		if c.Decision != nil {
			got = c.Decision.String()
		}
		if got != want[i] {
			t.Errorf("call %d: decision %s, want %s", i, got, want[i])
		}
	}
	if c := st[0].Calls[2]; c.Arguments() != `{"path": "x"` {
		t.Errorf("the invalid call's arguments: %q", c.Arguments())
	}
	if ex.approvals != 1 || ex.skips != 0 || ex.grants != 1 || ex.inputs != 2 || ex.PlayFlags() != " --mode ask" {
		t.Errorf("counts %+v, flags %q", ex, ex.PlayFlags())
	}
	notes := strings.Join(ex.notes, "\n")
	for _, w := range []string{"with their own version of its content", "stopped with esc (turn 1)",
		`the input "lost" got no reply`, "the approval mode changed during the session (ask → auto)"} {
		if !strings.Contains(notes, w) {
			t.Errorf("the notes lack %q:\n%s", w, notes)
		}
	}
}

// TestExportGrantBeforeARewind exports a session whose conversation was
// rewound after a grant: the next reply has the same turn number, and
// fewer calls. The grant is the decision of the step it was given in, and
// the later step of the same turn has none.
func TestExportGrantBeforeARewind(t *testing.T) {
	const ws = "/w"
	writes := tool.Writes(tool.Paths(ws + "/a"))
	call := func(i int) runtime.PlannedCall {
		return runtime.PlannedCall{Index: i, Name: "write_file", Args: json.RawMessage(`{"path":"a","content":"a"}`), Touches: &writes}
	}
	rp := &journal.Replay{Header: journal.Header{Session: "s1", Goal: "g", Workspace: ws}, Events: []runtime.Event{
		runtime.RunStarted{Input: "g", Mode: "ask"},
		runtime.TurnStarted{Turn: 1},
		runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{call(0), call(1)}},
		runtime.CallDecision{Turn: 1, Index: 1, Decision: "run", By: "grant:write_file", Reason: "released by a grant of this session"},
		runtime.TurnEnded{Turn: 1},
		runtime.RunFinished{Outcome: runtime.Failed("g", "turn 2", nil)},
		runtime.RestoreStarted{Seq: 1, Kind: "rewind", Messages: 1, Points: 1, Turn: 1},
		runtime.RestoreFinished{Seq: 1, Kind: "rewind", Messages: 1, Points: 1},
		runtime.RunStarted{Input: "again", Mode: "ask"},
		runtime.TurnStarted{Turn: 1},
		runtime.ReplyReceived{Turn: 1, Text: "Once.", Calls: []runtime.PlannedCall{call(0)}},
	}}
	ex := FromJournal(rp)
	st := ex.Scenario.Steps
	if len(st) != 2 || len(st[0].Calls) != 2 || len(st[1].Calls) != 1 {
		t.Fatalf("steps %+v", st)
	}
	if d := st[0].Calls[1].Decision; d == nil || d.String() != `{"grant":"tool"}` {
		t.Errorf("the grant's call has the decision %v, want the grant", d)
	}
	if st[0].Calls[0].Decision != nil || st[1].Calls[0].Decision != nil {
		t.Errorf("a call the grant did not release has a decision: %v, %v", st[0].Calls[0].Decision, st[1].Calls[0].Decision)
	}
	if ex.grants != 1 {
		t.Errorf("%d grants, want 1", ex.grants)
	}
}
