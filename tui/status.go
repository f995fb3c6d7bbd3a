package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// statusBar is the bottom line: what is running, waiting and asking, the
// keys that work now, tokens used and time. It has no keys of its own.
type statusBar struct{}

// statusInfo is what the status bar shows, gathered by the console.
type statusInfo struct {
	running, waiting, asking   int
	active, stopping, replying bool
	waitingFor                 string
	retry                      string // the countdown to a model request's next attempt
	frame                      string
	usage, turn                model.Usage
	elapsed                    string
	hints                      string
	ended                      string
	ctx                        *runtime.ContextUse
	// pilot is what the autopilot is doing; pilotWarn says it wants the
	// person's attention (paused, or waiting for them).
	pilot     string
	pilotWarn bool
}

// View draws the bar on one line of width columns.
func (statusBar) View(st *text.Styles, width int, s statusInfo) string {
	var parts []string
	switch {
	case s.stopping:
		parts = append(parts, st.Warn.Render("stopping "+s.frame))
	case s.active:
		p := fmt.Sprintf("%s running %d · waiting %d", s.frame, s.running, s.waiting)
		if s.frame == "" {
			p = fmt.Sprintf("running %d · waiting %d", s.running, s.waiting)
		}
		switch {
		case s.waitingFor != "":
			p += " · waiting for " + s.waitingFor
		case s.retry != "":
			p += " · " + s.retry
		case s.replying:
			p += " · model replying"
		}
		parts = append(parts, st.Accent.Render(p))
		if s.asking > 0 {
			parts = append(parts, st.Warn.Render(fmt.Sprintf("%s %d need approval", text.SymAsk, s.asking)))
		}
	case s.ended != "":
		parts = append(parts, s.ended)
	default:
		parts = append(parts, st.Dim.Render("idle"))
	}
	if s.pilot != "" {
		style := st.Accent.Render
		if s.pilotWarn {
			style = st.Warn.Render
		}
		parts = append(parts, style(s.pilot))
	}
	// What is going on comes first and the hints next; the token count is
	// the first thing a narrow terminal loses.
	if s.elapsed != "" {
		parts = append(parts, st.Dim.Render(s.elapsed))
	}
	parts = append(parts, st.Key.Render(s.hints))
	if c := s.ctx; c != nil {
		style := st.Dim.Render
		if c.Percent >= 80 {
			style = st.Warn.Render
		}
		parts = append(parts, style(fmt.Sprintf("ctx %d%%", c.Percent)))
	}
	if s.usage.InputTokens+s.usage.OutputTokens > 0 {
		t := text.Tokens(s.usage)
		if s.turn.InputTokens+s.turn.OutputTokens > 0 {
			t += fmt.Sprintf(" (last turn %s/%s)", text.Count(s.turn.InputTokens), text.Count(s.turn.OutputTokens))
		}
		parts = append(parts, st.Dim.Render(t))
	}
	return text.Cut(strings.Join(parts, st.Dim.Render(" │ ")), width)
}

// clockTime renders a time of day for "waiting since".
func clockTime(t time.Time) string { return t.Format(time.TimeOnly) }
