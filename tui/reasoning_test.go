package tui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/internal/eventtest"
)

// efforts is a SetReasoning that records what it was asked and refuses to
// turn the reasoning off, as a model that always reasons does.
type efforts struct{ asked []model.Effort }

func (e *efforts) set(level model.Effort) (string, error) {
	e.asked = append(e.asked, level)
	if level == model.EffortOff {
		return "", errors.New("anthropic:claude-test always reasons and refuses to have it turned off: set reasoning to low, medium, high, max or default")
	}
	if level == model.EffortDefault {
		return "default (medium)", nil
	}
	return string(level), nil
}

// headerLine returns the screen's first line, the header's.
func headerLine(screen string) string { return strings.SplitN(screen, "\n", 2)[0] }

// /reasoning completes its levels, says the level and the choices when
// given none, sets a level from the next turn and shows it in the header,
// and shows a refusal in one warning line without changing anything.
func TestReasoningCommand(t *testing.T) {
	e := &efforts{}
	h := newHarness(t, Options{Reasoning: "default (medium)", SetReasoning: e.set})
	if hd := headerLine(h.view()); !strings.Contains(hd, "mode reads (shift+tab) · reasoning default (medium)") {
		t.Fatalf("header %q", hd)
	}

	h.typeText("/reasoning ")
	mustContain(t, h.view(), "off", "no reasoning, where the model allows it", "max", "the most reasoning the model offers",
		"default", "the model's own default")
	h.typeText("hi")
	mustContain(t, h.view(), "▸ high")
	h.key("tab")
	if got := h.m.input.Value(); got != "/reasoning high" {
		t.Fatalf("tab completed to %q", got)
	}
	h.m.input.Reset()

	h.command("/reasoning")
	if want := "reasoning is default (medium); /reasoning off, low, medium, high, max or default sets it from the next turn"; h.m.note != want {
		t.Fatalf("note %q, want %q", h.m.note, want)
	}

	h.command("/reasoning high")
	if len(e.asked) != 1 || e.asked[0] != model.EffortHigh {
		t.Fatalf("SetReasoning was asked %v", e.asked)
	}
	s := h.view()
	mustContain(t, s, "reasoning set to high from the next run")
	if hd := headerLine(s); !strings.Contains(hd, "· reasoning high ·") {
		t.Fatalf("the header does not show the new level: %q", hd)
	}

	h.command("/reasoning off")
	s = h.view()
	mustContain(t, s, "reasoning stays high: anthropic:claude-test always reasons and refuses to have it turned off")
	if hd := headerLine(s); !strings.Contains(hd, "· reasoning high ·") {
		t.Fatalf("a refusal changed the header: %q", hd)
	}
	if n := strings.Count(s, "refuses to have it turned off"); n != 2 {
		// Once in the transcript, once in the note line.
		t.Fatalf("the refusal is said %d times:\n%s", n, s)
	}

	h.command("/reasoning extreme")
	if len(e.asked) != 2 {
		t.Fatalf("an unknown level reached SetReasoning: %v", e.asked)
	}
	mustContain(t, h.view(), `reasoning stays high: unknown reasoning effort "extreme"`)

	h.command("/reasoning default")
	mustContain(t, h.view(), "reasoning set to default (medium) from the next run")

	h.startRun("go")
	h.command("/reasoning low")
	mustContain(t, h.view(), "reasoning set to low from the next turn")
	if h.m.run == nil {
		t.Fatal("/reasoning stopped the run")
	}
}

// Without a way to set it, /reasoning says so, and the header shows no
// level it does not know.
func TestReasoningNotAvailable(t *testing.T) {
	h := newHarness(t, Options{})
	mustNotContain(t, headerLine(h.view()), "reasoning")
	h.command("/reasoning high")
	mustContain(t, h.view(), "setting the reasoning is not available in this console")
}

// /model says the new model's reasoning and that the prompt cache starts
// again, and the header shows the level for the new model; a compaction
// says the cache starts again, once.
func TestCacheRestartsAreSaid(t *testing.T) {
	now := "openai:gpt-test"
	h := newHarness(t, Options{
		Model: now, Reasoning: "medium",
		SwitchModel:       func(spec string) (string, error) { now = spec; return spec, nil },
		DescribeReasoning: func() string { return "default (high) for " + now },
	})
	h.command("/model anthropic:claude-test")
	s := h.view()
	if want := "model switched to anthropic:claude-test from the next run, reasoning default (high) for anthropic:claude-test; " +
		"the prompt cache starts again with the new model"; h.m.note != want {
		t.Fatalf("note %q, want %q", h.m.note, want)
	}
	if hd := headerLine(s); !strings.Contains(hd, "reasoning default (high) for anthropic:claude-test") {
		t.Fatalf("header %q", hd)
	}
	h.command("/model anthropic:claude-test")
	if strings.Contains(h.m.note, "cache") {
		t.Fatalf("the same model again does not start a new cache: %q", h.m.note)
	}

	h.startRun("read everything")
	h.feed(runtime.CompactionStarted{Turn: 2, Reason: "auto", Tokens: 28_000, Window: 32_000},
		runtime.Compacted{Turn: 2, Reason: "auto", From: 1, To: 40, Replies: 41, Summary: "Read the files.", TokensBefore: 28_000, TokensAfter: 3_000, Window: 32_000})
	s = h.view()
	if n := strings.Count(s, "the prompt cache starts again: the conversation's beginning changed"); n != 1 {
		t.Fatalf("the cache restart is said %d times:\n%s", n, s)
	}
	if c, n := lineOf(s, "⇣ context compacted"), lineOf(s, "the prompt cache starts again: the conversation"); n < c {
		t.Fatalf("the cache line is not after the compaction:\n%s", s)
	}
}

// A session opened with another model shows that model's level.
func TestOpenedSessionShowsItsModelsReasoning(t *testing.T) {
	now := "high"
	h := newHarness(t, Options{Reasoning: now, DescribeReasoning: func() string { return now }})
	now = "none"
	h.feed(Opened{ID: "s-2", Model: "openai:gpt-old"})
	if hd := headerLine(h.view()); !strings.Contains(hd, "reasoning none ·") {
		t.Fatalf("header %q", hd)
	}
}

// The header's context window is the window of the model that last
// replied, and says when it is a guess: after /model to a model the tables
// do not know.
func TestHeaderWindowFollowsTheModel(t *testing.T) {
	h := newHarness(t, Options{ContextWindow: 200_000})
	mustContain(t, headerLine(h.view()), "ctx 200k ·")
	h.startRun("go")
	h.feed(runtime.UsageReported{Turn: 1, Usage: eventtest.Used(1000, 0, 10, -1), Total: eventtest.Used(1000, 0, 10, -1),
		Context: &runtime.ContextUse{Tokens: 1010, Window: 32_000, Percent: 3, Guessed: true}})
	mustContain(t, headerLine(h.view()), "ctx ~32k (a guess)")
}

// The status bar shows the session's tokens with the cached input and the
// cost, the cost only when it is known, and the total the run ended with.
func TestStatusBarUsage(t *testing.T) {
	h := newHarness(t, Options{})
	h.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	h.startRun("go")
	h.feed(runtime.UsageReported{Turn: 1, Usage: eventtest.Used(48_000, 41_000, 2_100, 0.07), Total: eventtest.Used(48_000, 41_000, 2_100, 0.07)})
	st := statusLine(h.view())
	if !strings.HasSuffix(st, "│ tokens 48k in (41k cached) · 2.1k out · $0.07") {
		t.Fatalf("status %q", st)
	}
	h.feed(runtime.UsageReported{Turn: 2, Usage: eventtest.Used(2_000, 0, 300, -1), Total: eventtest.Used(50_000, 41_000, 2_400, -1)})
	st = statusLine(h.view())
	if !strings.HasSuffix(st, "│ tokens 50k in (41k cached) · 2.4k out") || strings.Contains(st, "$") || strings.Contains(st, "last turn") {
		t.Fatalf("status without a known cost %q", st)
	}
	out := runtime.Succeeded("done", nil)
	total := eventtest.Used(52_000, 41_000, 2_500, -1)
	h.feed(runtime.RunFinished{Outcome: out, Usage: &total}, runDone{run: h.m.run, outcome: out})
	if st = statusLine(h.view()); !strings.Contains(st, "│ tokens 52k in (41k cached) · 2.5k out │") {
		t.Fatalf("status after the run %q", st)
	}
}

// The outcome printed on exit ends with the session's usage when the model
// reported any, and is the plain outcome alone when it did not.
func TestPlainOutcomeWithUsage(t *testing.T) {
	out := runtime.Succeeded("Fixed the last page.", nil)
	h := newHarness(t, Options{})
	if got, want := h.m.PlainOutcome(out), PlainOutcome(out); got != want {
		t.Fatalf("with no usage: %q, want %q", got, want)
	}
	h.startRun("go")
	total := eventtest.Used(48_000, 41_000, 2_100, 0.07)
	h.feed(runtime.RunFinished{Outcome: out, Usage: &total}, runDone{run: h.m.run, outcome: out})
	o, ok := h.m.Outcome(0)
	if !ok {
		t.Fatal("no outcome")
	}
	want := "✓ Succeeded\n  Fixed the last page.\ntokens 48k in (41k cached) · 2.1k out · $0.07\n"
	if got := h.m.PlainOutcome(o); got != want {
		t.Fatalf("PlainOutcome =\n%q\nwant\n%q", got, want)
	}
	// /clear starts a session that has used nothing yet.
	h.m.resetSession()
	if got := h.m.PlainOutcome(o); strings.Contains(got, "tokens") {
		t.Fatalf("a new session kept the old usage: %q", got)
	}
}
