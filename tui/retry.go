package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/transcript"
)

// retryWait is a model request that failed in a way that may pass and is
// made again, for the status bar: a countdown to the next attempt, then
// which attempt is replying.
type retryWait struct {
	attempt, max int
	// at is when the next attempt is made.
	at time.Time
}

// applyRetry shows a model request being made again: the thinking and text
// the failed attempt streamed become discarded items, a line says why and
// when the next attempt comes, and the status bar counts down to it.
func (m *Model) applyRetry(ev runtime.ModelRetry) {
	var lost []string
	if l := m.transcript.Live(); l != nil {
		if strings.TrimSpace(l.Thinking.String()) != "" {
			m.transcript.Add(transcript.DiscardedThinking(l.Thinking.String(), m.thoughtFor(l)))
			lost = append(lost, "thinking")
		}
		if strings.TrimSpace(l.Text.String()) != "" {
			m.transcript.Add(transcript.Discarded{Text: text.Clean(l.Text.String())})
			lost = append(lost, "text")
		}
	}
	m.transcript.Add(transcript.Note{Text: retryLine(ev, lost), Warn: true})
	m.transcript.SetLive(&transcript.Live{Turn: ev.Turn})
	wait := time.Duration(ev.WaitMS) * time.Millisecond
	m.retry = &retryWait{attempt: ev.Attempt, max: ev.Max, at: m.now().Add(wait)}
}

// retryLine says why a model request is made again, which attempt comes and
// after how long, and what of the failed attempt was thrown away: "↻
// retrying: the connection dropped (attempt 2 of 5, in 1.6 s) · the text
// above was discarded".
func retryLine(ev runtime.ModelRetry, lost []string) string {
	line := fmt.Sprintf("%s retrying: %s (attempt %d of %d, in %s)", text.SymRetry, text.CleanLine(ev.Why), ev.Attempt, ev.Max,
		seconds(time.Duration(ev.WaitMS)*time.Millisecond))
	switch len(lost) {
	case 1:
		line += " · the " + lost[0] + " above was discarded"
	case 2:
		line += " · the " + lost[0] + " and " + lost[1] + " above were discarded"
	}
	return line
}

// retryStatus is what the status bar says while a request is made again:
// the countdown to the next attempt, then the attempt that is replying.
func (m Model) retryStatus() string {
	r := m.retry
	if r == nil {
		return ""
	}
	if left := r.at.Sub(m.now()); left > 0 {
		return fmt.Sprintf("%s retrying in %s (attempt %d of %d)", text.SymRetry, seconds(left), r.attempt, r.max)
	}
	return fmt.Sprintf("model replying (attempt %d of %d)", r.attempt, r.max)
}

// seconds words a wait in seconds with one decimal, rounded up so that a
// countdown never shows 0.0 s while it still waits.
func seconds(d time.Duration) string {
	tenths := (d + 100*time.Millisecond - 1) / (100 * time.Millisecond)
	return fmt.Sprintf("%d.%d s", tenths/10, tenths%10)
}
