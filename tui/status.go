package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
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
func (statusBar) View(width int, s statusInfo) string {
	var parts []string
	switch {
	case s.stopping:
		parts = append(parts, stWarn.Render("stopping "+s.frame))
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
		parts = append(parts, stAccent.Render(p))
		if s.asking > 0 {
			parts = append(parts, stWarn.Render(fmt.Sprintf("%s %d need approval", symAsk, s.asking)))
		}
	case s.ended != "":
		parts = append(parts, s.ended)
	default:
		parts = append(parts, stDim.Render("idle"))
	}
	if s.pilot != "" {
		style := stAccent.Render
		if s.pilotWarn {
			style = stWarn.Render
		}
		parts = append(parts, style(s.pilot))
	}
	// What is going on comes first and the hints next; the token count is
	// the first thing a narrow terminal loses.
	if s.elapsed != "" {
		parts = append(parts, stDim.Render(s.elapsed))
	}
	parts = append(parts, stKey.Render(s.hints))
	if c := s.ctx; c != nil {
		style := stDim.Render
		if c.Percent >= 80 {
			style = stWarn.Render
		}
		parts = append(parts, style(fmt.Sprintf("ctx %d%%", c.Percent)))
	}
	if s.usage.InputTokens+s.usage.OutputTokens > 0 {
		t := tokens(s.usage)
		if s.turn.InputTokens+s.turn.OutputTokens > 0 {
			t += fmt.Sprintf(" (last turn %s/%s)", count(s.turn.InputTokens), count(s.turn.OutputTokens))
		}
		parts = append(parts, stDim.Render(t))
	}
	return cut(strings.Join(parts, stDim.Render(" │ ")), width)
}

// tokens renders token usage: "tokens 12.3k in · 950 out".
func tokens(u model.Usage) string {
	return fmt.Sprintf("tokens %s in · %s out", count(u.InputTokens), count(u.OutputTokens))
}

// count renders a token count compactly: 950, 12.3k, 4.5M.
func count(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// clockTime renders a time of day for "waiting since".
func clockTime(t time.Time) string { return t.Format(time.TimeOnly) }
