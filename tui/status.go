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
	// thinking says the reply streaming in has only thought so far.
	thinking   bool
	waitingFor string
	retry      string // the countdown to a model request's next attempt
	frame      string
	usage      model.Usage
	elapsed    string
	hints      string
	ended      string
	ctx        *runtime.ContextUse
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
		case s.replying && s.thinking:
			p += " · model thinking"
		case s.replying:
			p += " · model replying"
		}
		parts = append(parts, st.Accent.Render(p))
		if s.asking > 0 {
			parts = append(parts, st.Warn.Render(asking(s.asking)))
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
	// What is going on comes first. While a run goes, the hints come
	// next, since they carry the approval keys and their pauses, and the
	// session's tokens and cost are the first thing a narrow terminal
	// loses; with no run going, the hints are the everyday ones (also in
	// the help), and what the session cost comes before them.
	if s.elapsed != "" {
		parts = append(parts, st.Dim.Render(s.elapsed))
	}
	var used []string
	if c := s.ctx; c != nil {
		style := st.Dim.Render
		if c.Percent >= 80 {
			style = st.Warn.Render
		}
		used = append(used, style(fmt.Sprintf("ctx %d%%", c.Percent)))
	}
	if s.usage.Tokens() > 0 {
		// The session's total only: each turn's own figures are in the
		// transcript, under its calls, which keeps the bar calm.
		used = append(used, st.Dim.Render(text.Tokens(s.usage)))
	}
	if s.active {
		parts = append(append(parts, st.Key.Render(s.hints)), used...)
	} else {
		parts = append(append(parts, used...), st.Key.Render(s.hints))
	}
	return text.Cut(strings.Join(parts, st.Dim.Render(" │ ")), width)
}

// asking says how many calls wait for the person: "? 1 call to approve",
// "? 3 calls to approve". It is short, since it must survive a narrow bar.
func asking(n int) string {
	if n == 1 {
		return text.SymAsk + " 1 call to approve"
	}
	return fmt.Sprintf("%s %d calls to approve", text.SymAsk, n)
}

// clockTime renders a time of day for "waiting since".
func clockTime(t time.Time) string { return t.Format(time.TimeOnly) }
