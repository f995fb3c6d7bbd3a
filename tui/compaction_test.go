package tui

import (
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// TestCompactionOnScreen shows the context window in the header, its share
// in the status bar, a compaction as one line in the transcript that the
// transcript's Enter expands to the summary, and leaves the transcript
// above it as it was.
func TestCompactionOnScreen(t *testing.T) {
	h := newHarness(t, Options{ContextWindow: 32_000, ContextGuessed: true, Instructions: "AGENTS.md ×2"})
	h.startRun("read everything")
	h.feed(runtime.ReplyReceived{Turn: 1, Text: "Reading the first file."})
	h.feed(runtime.UsageReported{Turn: 1, Usage: model.Usage{InputTokens: 27_000, OutputTokens: 100},
		Context: &runtime.ContextUse{Tokens: 27_100, Window: 32_000, Percent: 84, Guessed: true}})
	screen := h.view()
	mustContain(t, screen, "model scenario:test ctx ~32k (a guess) · mode reads", "AGENTS.md ×2", "ctx 84%")
	h.feed(runtime.CompactionStarted{Turn: 2, Reason: "auto", Tokens: 28_000, Window: 32_000})
	mustContain(t, h.view(), "compacting the conversation to fit the context window (ctx 87%)")
	h.feed(runtime.Compacted{Turn: 2, Reason: "auto", From: 1, To: 40, Replies: 41, Summary: "Read the files; the bug is in pager.go.\nNothing changed yet.",
		TokensBefore: 28_000, TokensAfter: 3_000, Window: 32_000, Context: &runtime.ContextUse{Tokens: 3_000, Window: 32_000, Percent: 9}})
	screen = h.view()
	mustContain(t, screen, "⇣ context compacted: 41 turns → summary of 15 tokens · ctx 87% → 9%", "ctx 9%", "Reading the first file.")
	mustNotContain(t, screen, "the bug is in pager.go", "compacting the conversation")
	h.key("tab") // the board has focus during a run; tab moves it to the transcript
	h.key("enter")
	mustContain(t, h.view(), "│ Read the files; the bug is in pager.go.", "│ Nothing changed yet.")
	h.key("enter")
	if strings.Contains(h.view(), "the bug is in pager.go") {
		t.Error("enter did not fold the summary again")
	}
	h.feed(runtime.CompactionFailed{Turn: 3, Reason: "auto", Error: "the model's summary was empty"})
	mustContain(t, h.view(), "the conversation could not be compacted: the model's summary was empty")
}
