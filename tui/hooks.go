package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/transcript"
	"github.com/agenttui/agenttui/tui/trust"
)

// TrustRequest asks the person whether to run the hook commands and MCP
// servers a workspace's own configuration defines: before the session
// opens (Options.Trust), or while it runs, when a hook is found changed
// since it was trusted (Bridge.AskTrust).
type TrustRequest struct {
	// Question is what the trust screen shows.
	Question trust.Question
	// Answer is called once with the person's answer (before Options.Open,
	// for Options.Trust); what it returns is said in the transcript.
	Answer func(trusted bool) string
}

// askTrust shows the trust screen when the workspace's commands wait for
// the person: nothing opens, so no hook and no server runs, until it is
// answered.
func (m *Model) askTrust() {
	if t := m.opts.Trust; t != nil {
		m.showTrust(t)
	}
}

// showTrust opens the trust screen on r, in place of a question it shows.
func (m *Model) showTrust(r *TrustRequest) {
	m.trust = trust.New(m.keys.Trust, m.styles, m.now)
	if m.opts.Grace != 0 {
		m.trust.Grace = max(m.opts.Grace, 0)
	}
	m.trust.Show(r.Question)
	m.trustAsked = r
}

// trustAgain shows the question a running session asks again, and draws
// the screen again once its keys answer.
func (m *Model) trustAgain(r *TrustRequest) tea.Cmd {
	m.showTrust(r)
	return m.tick(m.trust.Grace, func(time.Time) tea.Msg { return trustArmed{} })
}

// trustArmed says the trust screen's grace period is over: drawing the
// screen again shows the keys that now answer.
type trustArmed struct{}

// trustKey passes a key to the trust screen and, once the person answered,
// says what the answer means and, for the question asked before the
// session opened, opens it.
func (m *Model) trustKey(msg tea.KeyMsg) tea.Cmd {
	act := m.trust.Update(msg)
	if !act.Answered {
		return nil
	}
	r := m.trustAsked
	m.trustAsked = nil
	said := r.Answer(act.Trust)
	if said != "" {
		m.transcript.Add(transcript.Note{Text: text.Clean(said), Warn: !act.Trust})
	}
	if r != m.opts.Trust {
		return nil
	}
	return m.openCmd()
}

// openCmd opens the session, or starts the goal given when there is no
// session to open.
func (m *Model) openCmd() tea.Cmd {
	if open := m.opts.Open; open != nil {
		return func() tea.Msg { open(); return nil }
	}
	if m.opts.Goal != "" {
		goal := m.opts.Goal
		return func() tea.Msg { return startMsg{input: goal} }
	}
	return nil
}

// hooksDoing begins what the live line says while hooks run.
const hooksDoing = "running your "

// hooksRunning says what the person's hooks hold up while they run.
func hooksRunning(ev runtime.HooksRunning) string {
	switch ev.Event {
	case "PreToolUse":
		return hooksDoing + "PreToolUse hooks before the calls are planned"
	case "UserPromptSubmit":
		return hooksDoing + "UserPromptSubmit hooks on the input"
	}
	return hooksDoing + text.CleanLine(ev.Event) + " hooks"
}
