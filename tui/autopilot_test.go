package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/autopilot"
	"github.com/agenttui/agenttui/tui/input"
)

// pilotScenario is a person's session: a goal; a reply whose read runs,
// whose write is approved, whose shell command is skipped with a reason and
// whose write under docs/ gets a folder grant; a question and its answer.
const pilotScenario = `{"name": "pilot", "steps": [
  {"input": "Tidy up.", "calls": [
    {"name": "read_file", "args": {"path": "a"}},
    {"name": "write_file", "args": {"path": "b", "content": ""}, "decision": "approve"},
    {"name": "run_shell", "args": {"command": "rm -rf build"}, "decision": {"skip": "keep it"}},
    {"name": "write_file", "args": {"path": "docs/c.md", "content": ""}, "decision": {"grant": "folder"}}]},
  {"calls": [{"name": "ask_user", "args": {"question": "Which?"}}]},
  {"input": "the first", "text": "Done."}]}`

func parseScenario(t *testing.T, text string) *model.Scenario {
	t.Helper()
	sc, err := model.ParseScenario([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// newPilotHarness returns a console whose autopilot plays text at speed.
func newPilotHarness(t *testing.T, text string, speed float64) (*harness, *approval.Policy) {
	t.Helper()
	policy := approval.NewPolicy(approval.ModeReads, nil)
	policy.SetWorkspace(ws)
	h := newHarness(t, Options{Policy: policy, Autopilot: &Autopilot{Scenario: parseScenario(t, text), Speed: speed}})
	return h, policy
}

// pilotUntil wakes the autopilot until ok holds, failing when it stops
// scheduling steps first.
func (h *harness) pilotUntil(what string, ok func() bool) {
	h.t.Helper()
	for i := 0; !ok(); i++ {
		if i > 1000 || !h.wake() {
			h.t.Fatalf("the autopilot stopped before %s; status %q, note %q:\n%s", what, h.m.pilot.Say, h.m.note, h.view())
		}
	}
}

// sent returns the last input the console sent.
func (h *harness) sent() string {
	if n := len(h.m.input.History()); n > 0 {
		return h.m.input.History()[n-1]
	}
	return ""
}

func TestAutopilotTypesTheGoalAtAHumanCadence(t *testing.T) {
	h, _ := newPilotHarness(t, pilotScenario, 1)
	mustContain(t, h.view(), "▶ autopilot: typing · any key takes over")
	h.pilotUntil("the first key", func() bool { return h.m.input.Value() != "" })
	if v, took := h.m.input.Value(), h.clock.now().Sub(t0); v != "T" || took < autopilot.Lead {
		t.Fatalf("the first key typed %q after %v, want T after at least %v", v, took, autopilot.Lead)
	}
	// One key at a time, each a message of its own, as a terminal sends
	// them.
	h.pilotUntil("the second key", func() bool { return h.m.input.Value() != "T" })
	if v := h.m.input.Value(); v != "Ti" {
		t.Fatalf("then %q", v)
	}
	h.pilotUntil("the goal sent", func() bool { return h.m.run != nil })
	if h.sent() != "Tidy up." {
		t.Fatalf("sent %q", h.sent())
	}
	full := h.clock.now().Sub(t0)

	// Twice as fast takes half the time.
	h2, _ := newPilotHarness(t, pilotScenario, 2)
	h2.pilotUntil("the goal sent", func() bool { return h2.m.run != nil })
	if half := h2.clock.now().Sub(t0); half*2 < full-time.Millisecond || half*2 > full+time.Millisecond {
		t.Fatalf("at speed 2 the goal took %v, at speed 1 %v", half, full)
	}
}

// pilotReply starts the scenario's first reply on the board, each call
// asking but the read, with their requests.
func pilotReply(t *testing.T, h *harness) []approvalRequest {
	t.Helper()
	h.pilotUntil("the goal sent", func() bool { return h.m.run != nil })
	h.feed(runtime.RunStarted{Session: "s", Goal: "Tidy up.", Input: "Tidy up.", Mode: "reads", At: runtime.Time{Time: h.clock.now()}})
	reqs := []approvalRequest{request(1, 1, 1, "write_file", h.clock.now()), request(2, 1, 2, "run_shell", h.clock.now()),
		grantRequest(3, 3, "docs/c.md", "mode:reads")}
	reqs[2].Req.Call.Name = "write_file"
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "read_file", `{"path":"a"}`, reads("a"), 1),
		pc(1, "write_file", `{"path":"b","content":""}`, writes("b"), 1),
		pc(2, "run_shell", `{"command":"rm -rf build"}`, writesAnything(), 1),
		pc(3, "write_file", `{"path":"docs/c.md","content":""}`, writes("docs/c.md"), 1),
	}}, decide(1, 0, "run", "mode:reads", "reads"), decide(1, 1, "ask", "mode:reads", "asks"),
		decide(1, 2, "ask", "mode:reads", "asks"), decide(1, 3, "ask", "mode:reads", "asks"), reqs[0], reqs[1], reqs[2])
	return reqs
}

func TestAutopilotAnswersApprovalsAsRecorded(t *testing.T) {
	h, policy := newPilotHarness(t, pilotScenario, 1)
	reqs := pilotReply(t, h)
	arrived := h.clock.now()

	// It moves the focus to the first call it has a decision for, lets the
	// viewer read it, then approves it.
	h.pilotUntil("the write approved", func() bool { return len(reqs[0].answer) > 0 })
	a, _ := answered(reqs[0])
	if !a.Approve || h.m.board.Focus() != 1 {
		t.Fatalf("answer %+v with focus on #%d", a, h.m.board.Focus()+1)
	}
	if took := h.clock.now().Sub(arrived); took < autopilot.Read {
		t.Fatalf("approved %v after the request, before a viewer could read it", took)
	}
	mustContain(t, h.view(), "approved #2 write_file")

	// The shell command: n, the reason typed key by key, Enter.
	h.pilotUntil("the reason prompt", func() bool { return h.m.input.Mode() == input.ModeReason })
	mustContain(t, h.view(), "Skip #3 run_shell · reason ›", "▶ autopilot: skipping #3 run_shell")
	h.pilotUntil("the reason typed", func() bool { return h.m.input.Value() == "keep it" })
	h.pilotUntil("the skip sent", func() bool { return len(reqs[1].answer) > 0 })
	if a, _ := answered(reqs[1]); a.Approve || a.Reason != "keep it" {
		t.Fatalf("the shell command's answer: %+v", a)
	}

	// The write under docs/: g, then the folder grant.
	h.pilotUntil("the grant", func() bool { return len(policy.Grants()) > 0 })
	if g := policy.Grants(); len(g) != 1 || g[0].Label(ws) != "write_file within docs/" {
		t.Fatalf("grants %v", g)
	}
}

func TestAutopilotWaitsOutTheGracePeriod(t *testing.T) {
	// So fast that its reading pause is shorter than the grace period.
	h, _ := newPilotHarness(t, pilotScenario, 1000)
	reqs := pilotReply(t, h)
	arrived := h.clock.now()
	h.pilotUntil("the write approved", func() bool {
		if strings.Contains(h.m.note, "ignored") {
			t.Fatalf("the autopilot pressed a key the board ignored: %q", h.m.note)
		}
		return len(reqs[0].answer) > 0
	})
	if took := h.clock.now().Sub(arrived); took < DefaultGrace {
		t.Fatalf("approved %v after the request arrived, within the grace period", took)
	}
}

func TestAutopilotTypesTheAnswerAndEnds(t *testing.T) {
	h, _ := newPilotHarness(t, pilotScenario, 100)
	pilotReply(t, h)
	h.pilotUntil("the three answers", func() bool { return len(h.m.opts.Policy.Grants()) > 0 })
	h.feed(runtime.TurnEnded{Turn: 1}, runtime.TurnStarted{Turn: 2},
		runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{pc(0, "ask_user", `{"question":"Which?"}`, &tool.Touches{}, 1)}},
		runtime.RunFinished{Outcome: runtime.Refused("Which?")}, runDone{run: h.m.run, outcome: runtime.Refused("Which?")})
	h.pilotUntil("the answer sent", func() bool { return h.m.run != nil })
	if h.sent() != "the first" {
		t.Fatalf("answered %q", h.sent())
	}
	h.feed(runtime.RunStarted{Input: "the first"}, runtime.ReplyReceived{Turn: 3, Text: "Done."},
		runtime.RunFinished{Outcome: runtime.Succeeded("Done.", nil)}, runDone{run: h.m.run, outcome: runtime.Succeeded("Done.", nil)})
	if h.wake() {
		t.Fatal("the autopilot scheduled a step after the scenario was played out")
	}
	mustContain(t, h.view(), "autopilot: the scenario is played out")
}

func TestPersonsKeyPausesTheAutopilotAndCtrlOResumes(t *testing.T) {
	h, _ := newPilotHarness(t, pilotScenario, 1)
	h.pilotUntil("two keys typed", func() bool { return h.m.input.Value() == "Ti" })
	h.key("x")
	mustContain(t, h.view(), "⏸ autopilot paused · ctrl+o resumes", "autopilot paused: the console is yours")
	if h.m.input.Value() != "Tix" {
		t.Fatalf("the person's key did not reach the input: %q", h.m.input.Value())
	}
	for h.wake() {
	}
	if h.m.input.Value() != "Tix" || h.m.run != nil {
		t.Fatalf("the autopilot went on while paused: %q", h.m.input.Value())
	}
	// Resumed over text it did not type, it says so and waits.
	h.update(keyMsg("ctrl+o"))
	h.pilotUntil("it stops again", func() bool { return h.m.pilot.Paused })
	mustContain(t, h.view(), "autopilot paused: the input holds text the autopilot did not type")
	h.update(keyMsg("backspace"))
	h.update(keyMsg("ctrl+o"))
	mustContain(t, h.view(), "autopilot resumed")
	h.pilotUntil("the goal sent", func() bool { return h.m.run != nil })
	if h.sent() != "Tidy up." {
		t.Fatalf("sent %q", h.sent())
	}
}

func TestAutopilotWaitsForThePersonWithoutADecision(t *testing.T) {
	h, _ := newPilotHarness(t, `{"name": "x", "steps": [{"input": "go", "calls": [{"name": "write_file", "args": {"path": "b"}}]}, {"text": "ok"}]}`, 100)
	h.pilotUntil("the goal sent", func() bool { return h.m.run != nil })
	req := request(1, 1, 0, "write_file", h.clock.now())
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "write_file", `{"path":"b"}`, writes("b"), 1)}},
		decide(1, 0, "ask", "mode:reads", "asks"), req)
	if h.wake() {
		t.Fatal("the autopilot acted on a call the scenario has no decision for")
	}
	mustContain(t, h.view(), "autopilot waits for you: no decision recorded for #1 write_file")
}

func TestHelpListsTheAutopilotKeyOnlyWithAnAutopilot(t *testing.T) {
	h, _ := newPilotHarness(t, pilotScenario, 1)
	h.key("f1")
	mustContain(t, h.view(), "ctrl+o", "resume the autopilot")
	plain := newHarness(t, Options{})
	plain.key("f1")
	mustNotContain(t, plain.view(), "resume the autopilot")
	if s := strings.Count(plain.view(), "ctrl+o"); s != 0 {
		t.Fatalf("ctrl+o is listed without an autopilot")
	}
}

func TestAutopilotClosesASearchThePersonLeftOpen(t *testing.T) {
	h, _ := newPilotHarness(t, pilotScenario, 10)
	h.pilotUntil("two keys typed", func() bool { return h.m.input.Value() == "Ti" })
	h.key("ctrl+r")
	if !h.m.input.Searching() {
		t.Fatal("ctrl+r did not open the history search")
	}
	h.key("ctrl+o")
	h.pilotUntil("the goal sent", func() bool { return h.m.run != nil })
	if h.sent() != "Tidy up." {
		t.Fatalf("sent %q", h.sent())
	}
}
