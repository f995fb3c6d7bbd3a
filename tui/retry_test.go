package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
)

// statusLine returns the screen's last line, the status bar.
func statusLine(screen string) string {
	lines := strings.Split(screen, "\n")
	return lines[len(lines)-1]
}

// A model request made again: the failed attempt's text stays in view,
// marked discarded, a line says why and when, the status bar counts down to
// the next attempt, and the reply that follows is the one kept.
func TestModelRetryMarksTheTextDiscardedAndCountsDown(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("read the notes")
	h.feed(runtime.TurnStarted{Turn: 1, At: runtime.Time{Time: t0}}, runtime.TextDelta{Turn: 1, Text: "Let me look at the no"})
	mustContain(t, h.view(), "◆ Let me look at the no")

	h.feed(runtime.ModelRetry{Turn: 1, Attempt: 2, Max: 5, Why: "the connection dropped", Error: "the connection to OpenAI dropped", WaitMS: 1600})
	s := h.view()
	mustContain(t, s, "✗ Let me look at the no",
		"↻ retrying: the connection dropped (attempt 2 of 5, in 1.6 s) · the text above was discarded")
	mustNotContain(t, s, "◆ Let me look at the no")
	if st := statusLine(s); !strings.Contains(st, "↻ retrying in 1.6 s (attempt 2 of 5)") {
		t.Errorf("the status bar does not count down: %q", st)
	}
	h.clock.advance(time.Second)
	if st := statusLine(h.view()); !strings.Contains(st, "↻ retrying in 0.6 s (attempt 2 of 5)") {
		t.Errorf("the countdown did not move on: %q", st)
	}
	h.clock.advance(time.Second)
	if st := statusLine(h.view()); !strings.Contains(st, "model replying (attempt 2 of 5)") || strings.Contains(st, "retrying in") {
		t.Errorf("after the wait the status bar should say which attempt replies: %q", st)
	}

	h.feed(runtime.TextDelta{Turn: 1, Text: "Reading the notes."})
	mustContain(t, h.view(), "◆ Reading the notes.", "✗ Let me look at the no")
	h.feed(runtime.ReplyReceived{Turn: 1, Text: "Reading the notes."}, runtime.TurnEnded{Turn: 1})
	s = h.view()
	mustContain(t, s, "◆ Reading the notes.", "✗ Let me look at the no")
	if st := statusLine(s); strings.Contains(st, "attempt 2") {
		t.Errorf("the retry outlived its reply: %q", st)
	}
}

// A retry before anything streamed (a rate limit) discards nothing, and the
// line does not say it did.
func TestModelRetryWithNothingStreamed(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("go")
	h.feed(runtime.TurnStarted{Turn: 1, At: runtime.Time{Time: t0}},
		runtime.ModelRetry{Turn: 1, Attempt: 3, Max: 5, Why: "rate limited (429 Too Many Requests)", WaitMS: 20000})
	s := h.view()
	mustContain(t, s, "↻ retrying: rate limited (429 Too Many Requests) (attempt 3 of 5, in 20.0 s)")
	mustNotContain(t, s, "discarded", "✗")
	if st := statusLine(s); !strings.Contains(st, "↻ retrying in 20.0 s (attempt 3 of 5)") {
		t.Errorf("status %q", st)
	}
}

// The why of a retry comes from the server's error and is sanitised.
func TestModelRetryIsSanitised(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("go")
	h.feed(runtime.TurnStarted{Turn: 1, At: runtime.Time{Time: t0}}, runtime.TextDelta{Turn: 1, Text: "x\x1b[2J"},
		runtime.ModelRetry{Turn: 1, Attempt: 2, Max: 5, Why: "an error (\x1b]52;c;aGk=\x07evil\r✓ approved)", WaitMS: 1000})
	s := h.view()
	if strings.ContainsAny(s, "\x1b\a\r") {
		t.Fatalf("a control character reached the screen: %q", s)
	}
	mustContain(t, s, "retrying: an error (")
}

// A resumed session shows its recorded retries as lines, with no countdown.
func TestReplayedModelRetryShowsNoCountdown(t *testing.T) {
	h := newHarness(t, Options{})
	h.m.replay([]runtime.Event{
		runtime.RunStarted{Session: "s", Goal: "go", Input: "go", Model: "m", At: runtime.Time{Time: t0}},
		runtime.TurnStarted{Turn: 1, At: runtime.Time{Time: t0}},
		runtime.ModelRetry{Turn: 1, Attempt: 2, Max: 5, Why: "nothing arrived for 1m30s", WaitMS: 1000},
	})
	s := h.view()
	mustContain(t, s, "↻ retrying: nothing arrived for 1m30s (attempt 2 of 5, in 1.0 s)")
	if st := statusLine(s); strings.Contains(st, "retrying") {
		t.Errorf("a replayed retry counts down: %q", st)
	}
}

func TestSecondsRoundUp(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0.0 s", time.Millisecond: "0.1 s", 1600 * time.Millisecond: "1.6 s", 1601 * time.Millisecond: "1.7 s", time.Minute: "60.0 s",
	} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%s) = %q, want %q", d, got, want)
		}
	}
}
