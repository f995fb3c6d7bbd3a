package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/internal/eventtest"
)

// pagerThought is what the model thinks before it reads the pager.
const pagerThought = "The pager loses its last page.\nProbably integer division: 45 items at 20 a page give 2 pages, not 3.\nRead pager.go first."

// streamThinking starts turn and streams thought in two pieces, took apart
// on the console's clock, then the reply's first words.
func (h *harness) streamThinking(turn int, thought string, took time.Duration) {
	h.t.Helper()
	half := strings.Index(thought, "\n") + 1
	h.feed(runtime.TurnStarted{Turn: turn, At: runtime.Time{Time: h.clock.now()}}, runtime.ThinkingDelta{Turn: turn, Text: thought[:half]})
	h.clock.advance(took)
	h.feed(runtime.ThinkingDelta{Turn: turn, Text: thought[half:]}, runtime.TextDelta{Turn: turn, Text: "Reading pager.go."})
}

// reply ends turn with the reply text and reasoning parts, after the usage
// the model reported for it.
func (h *harness) reply(turn int, text string, used model.Usage, parts ...model.Reasoning) {
	h.t.Helper()
	h.feed(runtime.UsageReported{Turn: turn, Usage: used, Total: used},
		runtime.ReplyReceived{Turn: turn, Text: text, Reasoning: parts}, runtime.TurnEnded{Turn: turn})
}

// lineOf returns the index of the first line of screen that holds s, or -1.
func lineOf(screen, s string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// The thinking streams dimmed above the reply's text, and folds to one
// line when the reply arrives: its tokens and how long the model thought.
func TestThinkingStreamsThenFolds(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix the pager")
	h.streamThinking(1, pagerThought, 6*time.Second)
	s := h.view()
	mustContain(t, s, "  ✻ thinking…", "    │ The pager loses its last page.", "    │ Read pager.go first.", "◆ Reading pager.go.")
	if th, reply := lineOf(s, "✻ thinking…"), lineOf(s, "◆ Reading pager.go."); th < 0 || th > reply {
		t.Fatalf("the thinking is not above the reply:\n%s", s)
	}

	h.reply(1, "Reading pager.go.", model.Usage{InputTokens: 900, OutputTokens: 1500}, eventtest.Thought(pagerThought, 1400))
	s = h.view()
	mustContain(t, s, "  ✻ thinking · 1.4k tokens · 6 s\n◆ Reading pager.go.")
	mustNotContain(t, s, "The pager loses its last page.", "thinking…")
}

// The tokens come from the reasoning parts, else from the turn's reasoning
// tokens; a session read from its journal says no time, which the reading
// would make up.
func TestThinkingTokensAndTime(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix the pager")
	h.streamThinking(1, pagerThought, 1500*time.Millisecond)
	h.reply(1, "Reading pager.go.", model.Usage{InputTokens: 900, OutputTokens: 1500, ReasoningTokens: 900}, eventtest.Thought(pagerThought, 0))
	mustContain(t, h.view(), "✻ thinking · 900 tokens · 2 s\n")

	h = newHarness(t, Options{})
	h.m.replay([]runtime.Event{
		runtime.RunStarted{Session: "s", Goal: "go", Input: "go", Model: "m", At: runtime.Time{Time: t0}},
		runtime.TurnStarted{Turn: 1, At: runtime.Time{Time: t0}},
		runtime.ThinkingDelta{Turn: 1, Text: "Recorded thinking."},
		runtime.ReplyReceived{Turn: 1, Text: "Done.", Reasoning: []model.Reasoning{eventtest.Thought("Recorded thinking.", 0)}},
	})
	mustContain(t, h.view(), "  ✻ thinking\n◆ Done.")
}

// t in the transcript unfolds the thinking nearest the bottom of the view
// and folds it again; the hints say so where it applies, the help lists it,
// and in the input t is only a letter.
func TestThinkingKeyUnfoldsAndFolds(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix the pager")
	h.streamThinking(1, "First thought.\nAbout the pager.", time.Second)
	h.reply(1, "Reading pager.go.", model.Usage{}, eventtest.Thought("First thought.\nAbout the pager.", 0))
	for i := range 40 {
		// More than a screen between the two replies' thinking.
		h.feed(runtime.Notice{Level: "info", Text: fmt.Sprintf("notice %d", i)})
	}
	h.streamThinking(2, pagerThought, time.Second)
	h.reply(2, "Fixing it.", model.Usage{}, eventtest.Thought(pagerThought, 0))

	h.key("tab") // a run has the board focused; tab moves to the transcript
	if st := statusLine(h.view()); !strings.Contains(st, "t thinking") {
		t.Errorf("the hints do not offer t: %q", st)
	}
	h.key("t")
	s := h.view()
	mustContain(t, s, "    │ The pager loses its last page.", "    │ Read pager.go first.\n◆ Fixing it.")
	mustNotContain(t, s, "First thought.")
	h.key("t")
	mustNotContain(t, h.view(), "The pager loses its last page.")

	// Scrolled to the start, the first reply's thinking is the nearest.
	h.key("home")
	h.key("t")
	mustContain(t, h.view(), "    │ First thought.", "    │ About the pager.")
	mustNotContain(t, h.view(), "The pager loses its last page.")

	h.key("f1")
	mustContain(t, h.helpScreens("down"), "t         show or fold the model's thinking")
	h.key("esc")
	h.key("tab") // to the input
	h.key("t")
	if h.m.input.Value() != "t" {
		t.Fatalf("t in the input was not text: %q", h.m.input.Value())
	}
}

// Above the view, the nearest thinking is scrolled to, its first line at
// the top, when t unfolds it.
func TestThinkingKeyScrollsToThinkingAboveTheView(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix the pager")
	h.streamThinking(1, pagerThought, time.Second)
	h.reply(1, "Reading pager.go.", model.Usage{}, eventtest.Thought(pagerThought, 0))
	for i := range 60 {
		h.feed(runtime.Notice{Level: "info", Text: fmt.Sprintf("notice %d", i)})
	}
	h.key("tab")
	mustNotContain(t, h.view(), "✻ thinking")
	h.key("t")
	s := h.view()
	if got := lineOf(s, "✻ thinking · 1 s"); got != 2 {
		t.Fatalf("the unfolded thinking starts on line %d, not at the top of the transcript:\n%s", got, s)
	}
	mustContain(t, s, "    │ The pager loses its last page.", "↓ more below")
}

// Without thinking, t says there is none; reasoning the provider hid says
// so on its line, and t says there is nothing to read.
func TestHiddenThinking(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix the pager")
	h.key("tab")
	h.key("t")
	if !strings.Contains(h.m.note, "no thinking to show") {
		t.Errorf("note %q", h.m.note)
	}
	// Anthropic: a redacted block, only a payload.
	h.reply(1, "Reading pager.go.", model.Usage{}, eventtest.HiddenThought())
	mustContain(t, h.view(), "  ✻ thinking · reasoning hidden by the provider\n◆ Reading pager.go.")
	h.key("t")
	if !strings.Contains(h.m.note, "the provider hid the model's reasoning") {
		t.Errorf("note %q", h.m.note)
	}
	// OpenAI Chat Completions: reasoning tokens counted, nothing sent.
	h.reply(2, "Done.", model.Usage{InputTokens: 10, OutputTokens: 600, ReasoningTokens: 512})
	mustContain(t, h.view(), "  ✻ thinking · reasoning hidden by the provider · 512 tokens\n◆ Done.")
	// A model that does not reason shows no thinking at all.
	h.reply(3, "Plain.", model.Usage{InputTokens: 10, OutputTokens: 6})
	if s := h.view(); lineOf(s, "◆ Plain.") != lineOf(s, "turn 2 · tokens")+1 {
		t.Fatalf("a reply without reasoning got a thinking line:\n%s", s)
	}
}

// A retried attempt voids its thinking as it voids its text: both stay in
// view, marked discarded, the retry line says so, and the thinking kept is
// the next attempt's alone.
func TestModelRetryVoidsTheThinking(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix the pager")
	h.feed(runtime.TurnStarted{Turn: 1, At: runtime.Time{Time: t0}}, runtime.ThinkingDelta{Turn: 1, Text: "A first thought"})
	h.clock.advance(3 * time.Second)
	h.feed(runtime.ModelRetry{Turn: 1, Attempt: 2, Max: 5, Why: "the connection dropped", WaitMS: 1000})
	s := h.view()
	mustContain(t, s, "  ✗ thinking · 3 s · discarded with its attempt",
		"↻ retrying: the connection dropped (attempt 2 of 5, in 1.0 s) · the thinking above was discarded")
	mustNotContain(t, s, "A first thought")

	h.feed(runtime.ThinkingDelta{Turn: 1, Text: "A second thought"}, runtime.TextDelta{Turn: 1, Text: "Half a re"})
	h.feed(runtime.ModelRetry{Turn: 1, Attempt: 3, Max: 5, Why: "the connection dropped", WaitMS: 1000})
	mustContain(t, h.view(), "· the thinking and text above were discarded", "✗ Half a re")

	h.feed(runtime.ThinkingDelta{Turn: 1, Text: "The third thought"})
	s = h.view()
	mustContain(t, s, "│ The third thought")
	mustNotContain(t, s, "A second thought")
	h.reply(1, "Done.", model.Usage{}, eventtest.Thought("The third thought", 0))
	h.key("tab")
	h.key("t")
	s = h.view()
	mustContain(t, s, "│ The third thought")
	mustNotContain(t, s, "A first thought", "A second thought")
}

// A run that ends while the model thinks keeps what it thought, folded.
func TestRunEndedDuringThinking(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix the pager")
	h.feed(runtime.TurnStarted{Turn: 1, At: runtime.Time{Time: t0}}, runtime.ThinkingDelta{Turn: 1, Text: "Halfway through a thought"})
	if st := statusLine(h.view()); !strings.Contains(st, "· model thinking") {
		t.Errorf("the status bar does not say the model thinks: %q", st)
	}
	h.clock.advance(4 * time.Second)
	out := runtime.Failed("fix the pager", "turn 1", []string{"stopped: the person stopped the turn"})
	h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
	s := h.view()
	mustContain(t, s, "  ✻ thinking · 4 s\n", "✗ Failed")
	mustNotContain(t, s, "thinking…")
}

// Thinking is untrusted: escape sequences and controls become placeholders,
// while it streams and unfolded.
func TestThinkingIsSanitised(t *testing.T) {
	evil := "clear\x1b[2J the screen\r✓ approved\n\x1b]52;c;aGk=\x07 and \u202eevil"
	h := newHarness(t, Options{})
	h.startRun("go")
	h.feed(runtime.TurnStarted{Turn: 1}, runtime.ThinkingDelta{Turn: 1, Text: evil})
	s := h.view()
	if strings.ContainsAny(s, "\x1b\a\r\u202e") {
		t.Fatalf("streaming thinking reached the screen raw: %q", s)
	}
	mustContain(t, s, "│ clear␛ the screen␍✓ approved")
	h.reply(1, "ok", model.Usage{}, eventtest.Thought(evil, 0))
	h.key("tab")
	h.key("t")
	s = h.view()
	if strings.ContainsAny(s, "\x1b\a\r\u202e") {
		t.Fatalf("unfolded thinking reached the screen raw: %q", s)
	}
	mustContain(t, s, "│ clear␛ the screen␍✓ approved", "⟨U+202E⟩evil")
}

// TestThinkingScreensGolden pins the thinking on screen, without colour, at
// two widths: streaming, folded, unfolded and hidden; and the status bar's
// usage with its cost and cached input, and without a cost.
func TestThinkingScreensGolden(t *testing.T) {
	long := pagerThought + "\nThe fix is to round up: (total + size - 1) / size, and a test for 45 items at 20 a page."
	folded := func(h *harness) {
		h.startRun("fix the pager")
		h.streamThinking(1, long, 6*time.Second)
		h.feed(runtime.UsageReported{Turn: 1, Usage: eventtest.Used(48_000, 41_000, 2_100, 0.07), Total: eventtest.Used(48_000, 41_000, 2_100, 0.07)},
			runtime.ReplyReceived{Turn: 1, Text: "Reading pager.go.", Reasoning: []model.Reasoning{eventtest.Thought(long, 1400)}},
			runtime.TurnEnded{Turn: 1})
	}
	scenes := []struct {
		name string
		set  func(h *harness)
	}{
		{"streaming", func(h *harness) {
			h.startRun("fix the pager")
			h.streamThinking(1, long, 2*time.Second)
		}},
		{"folded", folded},
		{"expanded", func(h *harness) {
			folded(h)
			h.key("tab")
			h.key("t")
		}},
		{"hidden", func(h *harness) {
			h.startRun("fix the pager")
			h.reply(1, "Reading pager.go.", eventtest.Used(1_200, 0, 700, -1), eventtest.HiddenThought())
		}},
		{"usage_cost", func(h *harness) {
			folded(h)
			out := runtime.Succeeded("Fixed the last page.", nil)
			total := eventtest.Used(96_400, 88_000, 4_300, 0.1234)
			h.feed(runtime.RunFinished{Outcome: out, Usage: &total}, runDone{run: h.m.run, outcome: out})
		}},
		{"usage_no_cost", func(h *harness) {
			h.startRun("fix the pager")
			h.reply(1, "Done.", eventtest.Used(12_345, 0, 678, -1))
			out := runtime.Succeeded("Done.", nil)
			h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
		}},
	}
	for _, sc := range scenes {
		for _, size := range [][2]int{{80, 24}, {120, 32}} {
			t.Run(fmt.Sprintf("%s_%d", sc.name, size[0]), func(t *testing.T) {
				h := newHarness(t, Options{Reasoning: "default (medium)"})
				h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				sc.set(h)
				screen := h.view()
				checkScreen(t, screen, size[0], size[1])
				golden.RequireEqual(t, []byte(screen+"\n"))
			})
		}
	}
}
