package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/input"
)

func TestDemoOpensWithHeaderAndPrefilledGoal(t *testing.T) {
	h := newHarness(t, Options{Demo: true, Model: "demo", Prefill: "Find and fix the bug.", Description: "Built-in demo: a pagination bug"})
	screen := h.view()
	mustContain(t, screen, "agenttui [DEMO] · model demo · mode reads", "Built-in demo: a pagination bug",
		"Enter starts the demo", "Goal › Find and fix the bug.")
	if h.m.focus != focusInput {
		t.Fatalf("focus starts on the %s, want the input", h.m.focus)
	}
	if h.m.ticking || h.m.run != nil {
		t.Fatal("the console started something before the person pressed enter")
	}
	h.key("enter")
	if h.m.run == nil || h.m.focus != focusInput {
		t.Fatalf("enter did not start the demo, or moved focus from the input (focus %s)", h.m.focus)
	}
}

func TestNoGoalShowsHint(t *testing.T) {
	h := newHarness(t, Options{})
	mustContain(t, h.view(), "Type a goal and press enter", "Goal › type what the agent should do")
	h.key("enter")
	if h.m.run != nil {
		t.Fatal("enter with nothing typed started a run")
	}
	mustContain(t, h.view(), "type something first")
}

func TestGoalOnCommandLineStartsAtOnce(t *testing.T) {
	h := newHarness(t, Options{Goal: "fix the tests"})
	if cmd := h.m.Init(); cmd == nil {
		t.Fatal("Init returned no command")
	}
	h.update(startMsg{input: "fix the tests"})
	if h.m.run == nil {
		t.Fatal("a goal on the command line did not start a run")
	}
}

func TestRefusedBecomesAnswerPrompt(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("change it")
	q := "Which file should I change?"
	h.feed(runtime.RunFinished{Outcome: runtime.Refused(q)})
	run := h.m.run
	h.feed(runDone{run: run, outcome: runtime.Refused(q)})
	screen := h.view()
	mustContain(t, screen, "The agent asks a question", q, "? "+q, "Answer ›")
	if h.m.focus != focusInput || h.m.input.Mode() != input.ModeAnswer {
		t.Fatalf("after a question, focus is on the %s in mode %d", h.m.focus, h.m.input.Mode())
	}
	h.typeText("b.txt")
	h.key("enter")
	if h.m.run == nil || h.m.run == run {
		t.Fatal("the answer did not start a new run")
	}
	h.feed(runtime.RunStarted{Goal: "change it", Input: "b.txt"})
	mustContain(t, h.view(), "answer › b.txt")
}

func TestFollowUpAfterOutcome(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("do it")
	out := runtime.Succeeded("Done.", json.RawMessage(`{"b":2,"a":[1,"x"]}`))
	h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
	screen := h.view()
	mustContain(t, screen, "✓ Succeeded", "Done.", "Extracted data:", `"a": [`, `"b": 2`, "Follow-up ›", "✓ succeeded")
	h.typeText("and the docs")
	h.key("enter")
	if h.m.run == nil {
		t.Fatal("a follow-up did not start a run")
	}
}

func TestInputRefusedWhileRunning(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("do it")
	first := h.m.run
	h.key("tab")
	h.key("tab")
	h.typeText("more")
	h.key("enter")
	if h.m.run != first {
		t.Fatal("input during a run started another run")
	}
	mustContain(t, h.view(), "a run is going")
	if h.m.input.Value() != "more" {
		t.Fatalf("the refused input was lost: %q", h.m.input.Value())
	}
}

func TestEscStopsTheTurn(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("do it")
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "run_shell", `{"command":"sleep 30"}`, writesAnything(), 1),
		pc(1, "write_file", `{"path":"x","content":""}`, writes("x"), 2, 0),
		pc(2, "read_file", `{"path":"y"}`, reads("y"), 2, 0),
	}}, decide(1, 0, "run", "mode:auto", "auto"), decide(1, 1, "run", "mode:auto", "auto"), decide(1, 2, "run", "mode:auto", "auto"),
		started(1, 0, "run_shell", t0))
	h.key("esc")
	if h.m.run == nil || !h.m.run.stopping {
		t.Fatal("esc did not stop the run")
	}
	if got := runtime.StopReason(h.m.run.ctx); got != "the person stopped the turn" {
		t.Fatalf("stop reason = %q", got)
	}
	mustContain(t, h.view(), "stopping")
	partly := finished(1, 0, "run_shell", "error", "cancelled", "The call to run_shell did not finish: the person stopped the turn. It may have partly run.", 900)
	partly.NotFinished, partly.Why = true, "the person stopped the turn"
	notRun := finished(1, 1, "write_file", "skipped", "", "The call to write_file was not run: the person stopped the turn.", 0)
	notRun.NotFinished, notRun.Started, notRun.Why = true, false, "the person stopped the turn"
	notRun2 := finished(1, 2, "read_file", "skipped", "", "The call to read_file was not run: the person stopped the turn.", 0)
	notRun2.NotFinished, notRun2.Started, notRun2.Why = true, false, "the person stopped the turn"
	out := runtime.Failed("do it", "turn 1: the reply's calls", []string{"stopped: the person stopped the turn"})
	h.feed(partly, notRun, notRun2, runtime.TurnEnded{Turn: 1}, runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
	screen := h.view()
	mustContain(t, screen, "◐ may have partly run: the person stopped the turn while it ran",
		"⊘ not run: the person stopped the turn", "✗ Failed",
		"stopped: the person stopped the turn", "Failing step: turn 1: the reply's calls")
	if h.m.run != nil {
		t.Fatal("the run is still marked active after it returned")
	}
}

func TestCtrlCTwiceQuits(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("x")
	if cmd := h.update(keyMsg("ctrl+c")); isQuit(cmd) {
		t.Fatal("one ctrl+c quit")
	}
	mustContain(t, h.view(), "press Ctrl+C again to quit")
	h.key("j") // any other key disarms it
	if cmd := h.update(keyMsg("ctrl+c")); isQuit(cmd) {
		t.Fatal("ctrl+c, j, ctrl+c quit")
	}
	cmd := h.update(keyMsg("ctrl+c"))
	if !isQuit(cmd) {
		t.Fatal("ctrl+c twice did not quit")
	}
	if got := runtime.StopReason(h.m.run.ctx); got != "the person quit the console" {
		t.Fatalf("quitting left the run going (reason %q)", got)
	}
}

// isQuit reports whether cmd, run, gives tea.QuitMsg, looking inside
// batches. The keys tested never return a command that blocks.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if isQuit(c) {
				return true
			}
		}
	}
	return false
}

func TestShiftTabCyclesMode(t *testing.T) {
	policy := approval.NewPolicy(approval.ModeAsk, nil)
	h := newHarness(t, Options{Policy: policy})
	for _, want := range []approval.Mode{approval.ModeReads, approval.ModeAuto, approval.ModePlan, approval.ModeAsk} {
		h.key("shift+tab")
		if policy.Mode() != want {
			t.Fatalf("mode = %s, want %s", policy.Mode(), want)
		}
		mustContain(t, h.view(), "mode "+string(want)+" (shift+tab)")
	}
}

func TestHelpListsEveryKey(t *testing.T) {
	h := newHarness(t, Options{})
	h.key("f1")
	screen := h.helpScreens("pgdown")
	for _, group := range h.m.keys.FullHelp() {
		for _, b := range group {
			if !b.Enabled() {
				// The autopilot's key, without an autopilot.
				continue
			}
			mustContain(t, screen, b.Help().Key, b.Help().Desc)
		}
	}
	mustContain(t, screen, "g      session grant")
	h.key("esc")
	mustNotContain(t, h.view(), "esc or ? closes this")
	// ? opens help from the board, but is text in the input.
	h.key("?")
	if !strings.Contains(h.m.input.Value(), "?") || h.m.help.Shown() {
		t.Fatal("? in the input was not text")
	}
	h.key("tab")
	h.key("?")
	if !h.m.help.Shown() {
		t.Fatal("? on the board did not open help")
	}
}

func TestTabCyclesFocus(t *testing.T) {
	h := newHarness(t, Options{})
	for _, want := range []focusArea{focusBoard, focusTranscript, focusInput} {
		h.key("tab")
		if h.m.focus != want {
			t.Fatalf("focus = %s, want %s", h.m.focus, want)
		}
		mustContain(t, h.view(), "focus "+want.String())
	}
}

func TestOutcomeWaitsForStoppedRun(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("x")
	r := h.m.run
	want := runtime.Failed("x", "turn 1", []string{"stopped: the person quit the console"})
	go func() {
		<-r.ctx.Done()
		r.outcome = want
		close(r.done)
	}()
	r.cancel(runtime.Stop("the person quit the console"))
	got, ok := h.m.Outcome(time.Minute)
	if !ok || got.Status != runtime.StatusFailed {
		t.Fatalf("Outcome = %+v, %v", got, ok)
	}
	if text := PlainOutcome(got); !strings.Contains(text, "Failed") || !strings.Contains(text, "stopped: the person quit the console") {
		t.Fatalf("plain outcome:\n%s", text)
	}
}
