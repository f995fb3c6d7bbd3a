package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/input"
)

func TestRetriesOnTheBoard(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "fetch", `{"url":"x"}`, reads("x"), 1)}},
		decide(1, 0, "run", "mode:reads", "reads"), started(1, 0, "fetch", t0),
		runtime.CallRetried{Turn: 1, Index: 0, Attempt: 2, MaxAttempts: 3, Failure: "timeout: no answer in 30s", BackoffMS: 200})
	mustContain(t, h.view(), "↻ retry: attempt 2 of 3 in 0.2s · attempt 1 failed (timeout: no answer in 30s)",
		"retry: attempt 1 failed (timeout: no answer in 30s); retrying in 200 ms")
	ev := started(1, 0, "fetch", t0.Add(time.Second))
	ev.Attempt = 2
	h.feed(ev)
	mustContain(t, h.view(), "▶ running", "· attempt 2 of 3 (after timeout: no answer in 30s)", "(attempt 2)")
	done := finished(1, 0, "fetch", "success", "", "fetched", 1200)
	done.Attempts = 2
	h.feed(done)
	mustContain(t, h.view(), "✓ succeeded after 2 attempts → fetched", "2 attempts")
}

func TestNoticesAreSanitised(t *testing.T) {
	h := newHarness(t, Options{})
	h.feed(runtime.Notice{Level: "warning", Text: "MCP server \"evil\x1b[2J\" did not start\x1b]52;c;aGFja2Vk\x07\r✓ approved #1"})
	s := h.view()
	mustContain(t, s, `warning: MCP server "evil␛`, "did not start")
	if strings.ContainsAny(s, "\x1b\a\r") {
		t.Fatalf("a control character of the notice reached the screen: %q", s)
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "✓ approved") {
			t.Fatalf("the notice drew a line of its own: %q", l)
		}
	}
}

func TestServerStatusLine(t *testing.T) {
	h := newHarness(t, Options{})
	mustNotContain(t, h.view(), "mcp:")
	h.feed(serversMsg{{Name: "fs", State: "starting"}, {Name: "tracker", State: "starting"}})
	mustContain(t, h.view(), "mcp: ○ fs starting… · ○ tracker starting…")
	h.feed(serversMsg{{Name: "fs", State: "ready", Tools: 11}, {Name: "tracker", State: "failed", Err: "exit status 3"}})
	s := h.view()
	mustContain(t, s, "mcp: ✓ fs ready, 11 tools · ✗ tracker failed")
	if lines := strings.Split(s, "\n"); len(lines) != 40 || !strings.HasPrefix(lines[2], "mcp:") {
		t.Fatalf("the server line is not the header's third line of a whole screen:\n%s", s)
	}
	h.feed(serversMsg{{Name: "fs", State: "stopped", Tools: 11}, {Name: "evil\x1b[31m", State: "down"}})
	s = h.view()
	mustContain(t, s, "◐ fs stopped (restarts at its next call), 11 tools", "✗ evil␛ down")
}

func TestWaitingForServers(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	h.feed(waitingMsg("MCP servers to start"))
	mustContain(t, h.view(), "waiting for MCP servers to start")
	h.feed(runtime.TurnStarted{Turn: 1})
	mustNotContain(t, h.view(), "waiting for MCP servers")
}

func TestTokensPerTurnAndInTotal(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	h.feed(runtime.UsageReported{Turn: 1, Usage: model.Usage{InputTokens: 1200, OutputTokens: 300}, Total: model.Usage{InputTokens: 1200, OutputTokens: 300}},
		runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "read_file", `{"path":"a"}`, reads("a"), 1)}},
		decide(1, 0, "run", "mode:reads", "r"), started(1, 0, "read_file", t0), finished(1, 0, "read_file", "success", "", "ok", 1),
		runtime.TurnEnded{Turn: 1},
		runtime.UsageReported{Turn: 2, Usage: model.Usage{InputTokens: 1500, OutputTokens: 40}, Total: model.Usage{InputTokens: 2700, OutputTokens: 340}},
		runtime.ReplyReceived{Turn: 2, Text: "Done."}, runtime.TurnEnded{Turn: 2})
	mustContain(t, h.view(), "turn 1 · 1 call(s) · tokens 1.2k in · 300 out", "turn 2 · tokens 1.5k in · 40 out",
		"│ tokens 2.7k in · 340 out")
}

func TestDemoSaysHowToUseARealModel(t *testing.T) {
	h := newHarness(t, Options{Demo: true, Model: "demo"})
	mustContain(t, h.view(), "Demo mode · to use a real model: export OPENAI_API_KEY=… and run agenttui --model openai:gpt-6.2-sol")
	h = newHarness(t, Options{})
	mustNotContain(t, h.view(), "Demo mode")
}

func TestPlanModeIsVisible(t *testing.T) {
	policy := approval.NewPolicy(approval.ModeAuto, nil)
	h := newHarness(t, Options{Policy: policy})
	mustNotContain(t, h.view(), "PLAN")
	h.key("tab")
	h.key("shift+tab")
	if policy.Mode() != approval.ModePlan {
		t.Fatalf("mode %s", policy.Mode())
	}
	mustContain(t, h.view(), "mode plan (shift+tab) [PLAN: read-only]")
}

// refusedHistory is what the journal holds of a session whose run ended
// with a question.
func refusedHistory() []runtime.Event {
	return []runtime.Event{
		runtime.RunStarted{Session: "s1", Goal: "tidy the notes", Input: "tidy the notes", Model: "scenario:r", Mode: "reads", At: runtime.Time{Time: t0}},
		runtime.TurnStarted{Turn: 1, At: runtime.Time{Time: t0}},
		runtime.ReplyReceived{Turn: 1, Text: "Reading first.", Calls: []runtime.PlannedCall{pc(0, "read_file", `{"path":"notes.txt"}`, reads("notes.txt"), 1)}},
		decide(1, 0, "run", "mode:reads", "reads"),
		started(1, 0, "read_file", t0),
		finished(1, 0, "read_file", "success", "", "remember the milk", 2),
		runtime.TurnEnded{Turn: 1},
		runtime.TurnStarted{Turn: 2, At: runtime.Time{Time: t0.Add(time.Second)}},
		runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{pc(0, "ask_user", `{"question":"Which notes?"}`, reads(""), 1)}},
		runtime.TurnEnded{Turn: 2},
		runtime.RunFinished{Outcome: runtime.Refused("Which notes?")},
	}
}

func TestOpenedSessionShowsHistoryAndAsks(t *testing.T) {
	var runs []string
	h := newHarness(t, Options{Open: func() {}, Opening: "loading session s1…", Run: func(_ context.Context, in string) runtime.GoalOutcome {
		runs = append(runs, in)
		return runtime.Succeeded("ok", nil)
	}})
	mustContain(t, h.view(), "loading session s1…")
	if h.m.Init() == nil || h.m.run != nil {
		t.Fatal("the console started a run before the session was open")
	}
	h.feed(Opened{ID: "s1", Model: "scenario:r", History: refusedHistory()})
	s := h.view()
	mustContain(t, s, "session s1", "model scenario:r", "Goal: tidy the notes", "goal › tidy the notes", "◆ Reading first.",
		"✓ #1 read_file path=notes.txt · succeeded → remember the milk", "The agent asks a question", "Which notes?",
		"the transcript above is session s1 as its journal recorded it", "Answer ›", "resumed: answer the agent's question")
	mustNotContain(t, s, "loading session", "model is replying")
	if h.m.run != nil || h.m.input.Mode() != input.ModeAnswer || h.m.focus != focusInput {
		t.Fatalf("after the history: run %v, input mode %d, focus %s", h.m.run != nil, h.m.input.Mode(), h.m.focus)
	}
	h.typeText("the kitchen ones")
	h.key("enter")
	if h.m.run == nil {
		t.Fatal("the answer did not start a run")
	}
	h.feed(runtime.RunStarted{Session: "s1", Goal: "tidy the notes", Input: "the kitchen ones"})
	mustContain(t, h.view(), "answer › the kitchen ones")
}

func TestOpenedSessionResumesAtOnce(t *testing.T) {
	h := newHarness(t, Options{Open: func() {}})
	history := refusedHistory()[:6] // stopped while the read ran
	h.feed(Opened{ID: "s1", History: history, Resume: func(context.Context) runtime.GoalOutcome {
		return runtime.Succeeded("carried on", nil)
	}})
	if h.m.run == nil {
		t.Fatal("an interrupted session was not carried on at once")
	}
	mustContain(t, h.view(), "Calls · turn 1", "#1 read_file")
	h.feed(runtime.RunStarted{Session: "s1", Goal: "tidy the notes", Resumed: true})
	mustContain(t, h.view(), "resumed: the session carries on where it stopped")
	mustNotContain(t, h.view(), "you › ")
}

func TestInputWhileOpeningStartsOnceOpen(t *testing.T) {
	h := newHarness(t, Options{Open: func() {}})
	h.typeText("do it")
	h.key("enter")
	if h.m.run != nil {
		t.Fatal("a run started before the session was open")
	}
	mustContain(t, h.view(), "your input starts as soon as it is open")
	h.feed(Opened{ID: "s2"})
	if h.m.run == nil {
		t.Fatal("the input sent while opening did not start once open")
	}
}

func TestOpenErrorIsShownAndNothingRuns(t *testing.T) {
	h := newHarness(t, Options{Open: func() {}, Goal: "do it"})
	h.feed(Opened{Err: errors.New("no such session abc in /state (agenttui sessions lists this workspace's sessions)\x1b[2J")})
	s := h.view()
	mustContain(t, s, "error: no such session abc", "the session could not be opened")
	if strings.Contains(s, "\x1b[2J") {
		t.Fatal("the error's escape reached the screen")
	}
	h.typeText("x")
	h.key("enter")
	if h.m.run != nil {
		t.Fatal("a run started although the session could not be opened")
	}
}

// A call that an early end caught says what ended it, not a stop nobody
// made: here the session's record could not be written.
func TestNotRunSaysWhatEndedIt(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	why := "the session record cannot be written (writing the session journal: no space left on device), and nothing runs without one"
	ev := finished(1, 0, "write_file", "skipped", "", "The call to write_file was not run: "+why+".", 0)
	ev.NotFinished, ev.Started, ev.Why = true, false, why
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "write_file", `{"path":"a"}`, writes("a"), 1)}},
		decide(1, 0, "run", "mode:auto", "auto"), ev)
	screen := h.view()
	mustContain(t, screen, "⊘ not run: the session record cannot be written",
		"outcome: ⊘ not run: the session record cannot be written (writing the session journal: no space left on device)")
	mustNotContain(t, screen, "stopped")
}
