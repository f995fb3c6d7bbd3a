package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/autopilot"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/input"
)

// Autopilot plays the person a scenario records: it types each step's
// input, and answers each call's approval as the scenario's decision says.
type Autopilot struct {
	// Scenario is the scenario the console's model plays; its steps'
	// inputs and its calls' decisions are what the autopilot does.
	Scenario *model.Scenario
	// Speed divides every pause the autopilot makes: 2 plays twice as
	// fast. Zero or less means 1.
	Speed float64
}

// pilotWake wakes the autopilot to take its next step. Only the wake
// whose seq is current counts: a pause or a newer plan voids the others.
type pilotWake struct{ seq int }

// pilotSnapshot is what the screen shows, for the autopilot to decide on.
func (m *Model) pilotSnapshot() autopilot.Snapshot {
	s := autopilot.Snapshot{
		Now:          m.now(),
		OpenFailed:   m.openErr != "",
		HelpOpen:     m.help.Shown(),
		DiffOpen:     m.diffScreen.Shown(),
		GrantOpen:    m.grant.Shown(),
		GrantFor:     m.grant.Call(),
		Running:      m.run != nil,
		Busy:         m.opening || m.busy != "" || m.queued != "",
		Reply:        m.board.Reply(),
		BoardFocus:   m.board.Focus(),
		FocusOnTask:  m.board.FocusOnTask(),
		Rows:         m.board.Rows(),
		Focused:      m.board.Focused(),
		TaskOpen:     m.nested != nil,
		Focus:        autopilot.FocusElsewhere,
		Input:        m.input.Value(),
		InputOverlay: m.input.Overlay(),
		Searching:    m.input.Searching(),
		GraceUntil:   m.board.GraceUntil(),
		ResumeKey:    m.keys.Global.Autopilot.Help().Key,
		Grants:       m.grantOffers,
	}
	if m.input.Mode() == input.ModeReason {
		s.ReasonFor = m.input.ReasonFor()
	}
	switch m.focus {
	case focusInput:
		s.Focus = autopilot.FocusInput
	case focusBoard:
		s.Focus = autopilot.FocusBoard
	}
	return s
}

// grantOffers returns the grants the grant chooser would offer for c, or nil
// when it would offer none: no policy, a call that does not wait, or one
// an ask rule or the provenance of its arguments asks about, which no grant
// can release.
func (m *Model) grantOffers(c *callview.Call) []approval.Grant {
	if m.opts.Policy == nil || c == nil || c.Req == nil {
		return nil
	}
	if who := c.Req.Req.Asker().Who; who == approval.WhoRule || who == approval.WhoProvenance {
		return nil
	}
	return m.opts.Policy.GrantOptions(c.Req.Req)
}

// pilotNext decides the autopilot's next step from what the screen shows.
func (m *Model) pilotNext() (autopilot.Step, bool) {
	next, step, ok := autopilot.Next(*m.pilot, m.pilotSnapshot())
	*m.pilot = next
	return step, ok
}

// drivePilot schedules the autopilot's next step, unless one is scheduled,
// it is paused or done, or there is nothing to do until the console
// changes (the next message will ask again).
func (m *Model) drivePilot() tea.Cmd {
	p := m.pilot
	if p == nil || p.Paused || p.Done || p.Waking {
		return nil
	}
	step, ok := m.pilotNext()
	if !ok {
		return nil
	}
	p.Waking = true
	seq := p.Seq
	return m.tick(max(0, step.At.Sub(m.now())), func(time.Time) tea.Msg { return pilotWake{seq: seq} })
}

// wakePilot takes the autopilot's step, if it is due; it presses the key
// through the console's own key handling.
func (m *Model) wakePilot(w pilotWake) tea.Cmd {
	p := m.pilot
	if p == nil || w.seq != p.Seq {
		return nil
	}
	p.Waking = false
	if p.Paused || p.Done {
		return nil
	}
	step, ok := m.pilotNext()
	if !ok || step.At.After(m.now()) {
		return nil
	}
	p.Pressed(step, m.now())
	return m.key(step.Key)
}

// personKey lets a person's key take the console over from the autopilot
// (it pauses) or give it back (the Autopilot key). It reports whether the
// key is used up by that.
func (m *Model) personKey(msg tea.KeyMsg) (used, paused bool) {
	p := m.pilot
	if p == nil {
		return false, false
	}
	if key.Matches(msg, m.keys.Global.Autopilot) {
		if p.Paused {
			p.Resume()
			m.note = "autopilot resumed"
		} else {
			p.Interrupt()
			p.Paused = true
			m.note = "autopilot paused: the console is yours · " + m.keys.Global.Autopilot.Help().Key + " resumes it"
		}
		return true, false
	}
	if p.Paused || p.Done {
		return false, false
	}
	p.Interrupt()
	p.Paused = true
	return false, true
}
