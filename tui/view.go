package tui

import (
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/input"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/transcript"
)

// sizes are the heights of the parts of the screen, from the top, and how
// the input's lines are shared out.
type sizes struct {
	header, transcript, board, detail, note, input, status int
	in                                                     input.Layout
}

// minRest is the fewest lines the input leaves to the transcript and the
// board, however much it holds.
const minRest = 3

// plan divides the screen's height between the parts. The header, note and
// status lines are fixed; the input takes what its text, menu and question
// need, up to a few rows of text; the call board takes what its reply needs
// up to two fifths of the rest; the detail pane a quarter (half when
// expanded); the transcript what remains.
func (m *Model) plan() sizes {
	s := sizes{header: 2, note: 1, status: 1}
	if m.servers.shown() {
		s.header++
	}
	if m.opts.Description != "" && m.height >= 24 {
		s.header++
	}
	fixed := s.header + s.note + s.status
	s.in = m.input.Plan(m.width, max(1, m.height-fixed-minRest), m.inputRows(), m.run != nil)
	s.input = s.in.Lines()
	if m.grant.Shown() {
		s.input = m.grant.Lines()
	}
	rest := m.height - s.header - s.note - s.input - s.status
	if rest < 3 {
		return s
	}
	ab := m.activeBoard()
	if need := ab.Need(); ab.Reply() == nil && need <= 2 {
		s.board = 2
	} else {
		s.board = min(need, max(3, rest*2/5))
		s.detail = min(7, max(2, rest/4))
		if c := ab.Focused(); c != nil && c.Change != nil && c.Change.Full != nil && !c.Done {
			// A change waiting to run is what the person decides on:
			// the pane shows as much of it as the transcript can spare.
			s.detail = max(s.detail, min(m.detail.Need(c, ab.FocusedReply(), m.opts.Workspace, m.width), rest*2/5))
		}
		if m.detail.Expanded() {
			s.detail = max(4, rest/2)
		}
	}
	s.transcript = rest - s.board - s.detail
	for s.transcript < 1 && s.detail > 0 {
		s.detail--
		s.transcript++
	}
	for s.transcript < 1 && s.board > 1 {
		s.board--
		s.transcript++
	}
	return s
}

// layout tells the parts the sizes they are drawn at, which their scrolling
// works in.
func (m *Model) layout() {
	if l := m.transcript.Live(); l != nil {
		// The streaming reply ends with a spinner while the model replies.
		l.Frame, l.Waiting = "", m.waiting
		if m.thinking && m.ticking {
			l.Frame = m.spin.View()
		}
	}
	tr := m.activeTranscript()
	if l := tr.Live(); tr != &m.transcript && l != nil {
		// A task's reply streaming in, while the task runs.
		l.Frame, l.Waiting = "", ""
		if m.ticking {
			l.Frame = m.spin.View()
		}
	}
	s := m.plan()
	m.input.Fit(s.in)
	m.transcript.SetSize(m.width, s.transcript)
	tr.SetSize(m.width, s.transcript)
	m.detail.SetHeight(s.detail)
	m.diffScreen.SetHeight(s.transcript + s.board + s.detail)
	m.help.SetSize(m.width, s.transcript+s.board+s.detail)
}

// inputRows is how many rows of text the input grows to before it
// scrolls: a few, fewer on a short terminal.
func (m *Model) inputRows() int { return max(1, min(input.MaxRows, (m.height-8)/3)) }

// tooSmall reports whether the terminal is below the minimum size.
func (m Model) tooSmall() bool { return m.width < MinWidth || m.height < MinHeight }

// View draws the whole screen: exactly height lines, none wider than width.
func (m Model) View() string {
	if m.width == 0 || m.height == 0 {
		// The size is not known yet; the first real frame follows at once.
		return "agenttui"
	}
	if m.tooSmall() {
		return m.smallView()
	}
	if m.trust.Shown() {
		return m.trust.View(m.width, m.height)
	}
	s := m.plan()
	parts := make([]string, 0, 8)
	parts = append(parts, m.headerView(s.header))
	switch {
	case m.help.Shown():
		parts = append(parts, m.help.View(m.width, s.transcript+s.board+s.detail))
	case m.diffScreen.Shown():
		parts = append(parts, m.diffScreen.View(m.width, s.transcript+s.board+s.detail, m.detail.LayoutAt(m.width)))
	case m.restoreScreen.Shown():
		parts = append(parts, m.restoreScreen.View(m.width, s.transcript+s.board+s.detail))
	case m.rewind.Shown():
		parts = append(parts, m.rewind.View(m.width, s.transcript+s.board+s.detail))
	default:
		ab := m.activeBoard()
		parts = append(parts,
			m.activeTranscript().View(m.width, s.transcript, m.focus == focusTranscript),
			ab.View(m.width, s.board, m.spin.View(), m.focus == focusBoard))
		if s.detail > 0 {
			parts = append(parts, m.detail.View(ab.Focused(), ab.FocusedReply(), m.opts.Workspace, m.width, s.detail))
		}
	}
	parts = append(parts, m.styles.Accent.Render(text.Cut(m.note, m.width)))
	if m.grant.Shown() {
		parts = append(parts, m.grant.View(m.width))
	} else {
		parts = append(parts, m.input.View(s.in, m.width, m.focus == focusInput, m.run != nil))
	}
	parts = append(parts, m.statusView())
	return strings.Join(parts, "\n")
}

// smallView is the notice drawn below the minimum size.
func (m Model) smallView() string {
	lines := []string{
		text.Cut("agenttui: terminal too small", m.width),
		text.Cut(fmt.Sprintf("it is %d×%d; need ≥ %d×%d", m.width, m.height, MinWidth, MinHeight), m.width),
		text.Cut("enlarge the window (ctrl+c twice quits)", m.width),
	}
	return text.JoinLines(lines, m.height)
}

// headerView draws the header: the program, a DEMO badge in the demo, the
// model, the approval mode, how hard the model reasons, the session,
// whether shell commands are sandboxed, the goal, the MCP servers and the
// scenario's description.
func (m Model) headerView(height int) string {
	var b strings.Builder
	b.WriteString(m.styles.Title.Render("agenttui"))
	if m.opts.Demo {
		b.WriteString(" " + m.styles.Badge.Render("[DEMO]"))
	}
	b.WriteString(m.styles.Dim.Render(" · model ") + m.model)
	if w := m.opts.ContextWindow; w > 0 {
		ctx := " ctx " + text.WindowSize(w)
		if m.opts.ContextGuessed {
			ctx = " ctx ~" + text.WindowSize(w) + " (a guess)"
		}
		b.WriteString(m.styles.Dim.Render(ctx))
	}
	b.WriteString(m.styles.Dim.Render(" · mode ") + m.styles.Bold.Render(text.CleanLine(string(m.mode))) + m.styles.Dim.Render(" (shift+tab)"))
	if m.mode == approval.ModePlan {
		// Plan mode changes what the agent may do: it must be seen.
		b.WriteString(" " + m.styles.Badge.Render("[PLAN: read-only]"))
	}
	if m.reasoning != "" {
		// After the mode, which a narrow terminal must still show.
		b.WriteString(m.styles.Dim.Render(" · reasoning ") + m.reasoning)
	}
	b.WriteString(m.styles.Dim.Render(" · focus ") + m.focus.String())
	if m.session != "" {
		b.WriteString(m.styles.Dim.Render(" · session ") + m.session)
	}
	if m.opts.Instructions != "" {
		b.WriteString(m.styles.Dim.Render(" · ") + text.CleanLine(m.opts.Instructions))
	}
	lines := []string{text.Cut(b.String(), m.width)}
	goal := m.goal
	if goal == "" {
		goal = m.styles.Dim.Render("none yet")
	}
	shell := ""
	if m.opts.Shell != "" {
		// Whether commands are confined changes what approving one
		// means: it leads the line, in warning colours when they are not.
		style := m.styles.Dim
		if !strings.HasPrefix(m.opts.Shell, "shell: sandboxed") {
			style = m.styles.Warn
		}
		shell = style.Render(text.CleanLine(m.opts.Shell)) + m.styles.Dim.Render(" · ")
	}
	lines = append(lines, text.Cut(shell+m.styles.Dim.Render("Goal: ")+goal, m.width))
	if m.servers.shown() {
		lines = append(lines, m.servers.View(m.styles, m.width))
	}
	if len(lines) < height {
		lines = append(lines, m.styles.Dim.Render(text.Cut(text.CleanLine(m.opts.Description), m.width)))
	}
	return text.JoinLines(lines, height)
}

// asking returns how many calls wait for the person: the reply's and the
// tasks', every one of which waits for an answer.
func (m Model) asking() int {
	_, _, ask := m.board.Reply().Counts()
	return ask + m.tasks.Asking()
}

// statusView gathers and draws the status bar.
func (m Model) statusView() string {
	run, wait, _ := m.board.Reply().Counts()
	ask := m.asking()
	if m.run == nil {
		run, wait, ask = 0, 0, 0
	}
	info := statusInfo{
		running: run, waiting: wait, asking: ask,
		active: m.run != nil, stopping: m.run != nil && m.run.stopping, replying: m.run != nil && m.thinking,
		waitingFor: m.waiting, usage: m.usage, hints: m.hints(), ctx: m.ctx,
	}
	if m.run != nil && m.thinking {
		info.retry = m.retryStatus()
		l := m.transcript.Live()
		info.thinking = l != nil && l.Thinking.Len() > 0 && l.Text.Len() == 0
	}
	info.pilot, info.pilotWarn = m.pilot.Status(m.keys.Global.Autopilot.Help().Key)
	if m.ticking {
		info.frame = m.spin.View()
	}
	switch {
	case m.run != nil && m.ticking:
		info.elapsed = text.Since(m.now().Sub(m.runStart))
	case m.run != nil:
		// Nothing moves, so nothing ticks: a static "since" instead of a
		// counter that would need redrawing.
		pending := append(m.board.Reply().Pending(0), m.tasks.Pending()...)
		if len(pending) > 0 {
			first := pending[0].AskedAt
			for _, c := range pending[1:] {
				if c.AskedAt.Before(first) {
					first = c.AskedAt
				}
			}
			info.elapsed = "waiting for you since " + clockTime(first)
		}
	case m.last != nil:
		info.elapsed = "took " + text.Since(m.runTook)
	}
	if m.run == nil && m.last != nil {
		switch m.last.Status {
		case runtime.StatusSucceeded:
			info.ended = m.styles.OK.Render(text.SymOK + " succeeded")
		case runtime.StatusFailed:
			info.ended = m.styles.Err.Render(text.SymErr + " failed")
		default:
			info.ended = m.styles.Warn.Render(text.SymAsk + " question")
		}
	}
	return m.status.View(m.styles, m.width, info)
}

// hints are the keys that do something now.
func (m Model) hints() string {
	switch {
	case m.help.Shown():
		return "↑↓ pgup pgdn home end scroll · esc/? close help"
	case m.diffScreen.Shown():
		return "↑↓ pgup pgdn scroll · v layout · esc close · y approve · n skip"
	case m.restoreScreen.Shown() && !m.restoreScreen.Armed(m.now()):
		return "keys paused ½ s: look at what the restore writes first · n cancel"
	case m.restoreScreen.Shown():
		return "↑↓ file · pgup pgdn scroll · o overwrite a conflicting file · y confirm · n cancel"
	case m.rewind.Shown() && !m.rewind.Armed(m.now()):
		return "keys paused ½ s: look at the points first · esc cancel"
	case m.rewind.Shown():
		return "↑↓ choose a point · 1 code and conversation · 2 code only · 3 conversation only · esc cancel"
	case m.grant.Shown() && m.activeBoard().Typing():
		return "grant keys paused: you are typing · esc close"
	case m.grant.Shown() && !m.activeBoard().Armed():
		return "grant keys paused ½ s: the approvals just changed · esc close"
	case m.grant.Shown():
		return fmt.Sprintf("1–%d or ↑↓ enter give the grant · esc close", m.grant.Len())
	case m.openErr != "":
		return "ctrl+c×2 quit"
	case m.focus == focusInput && m.input.Mode() == input.ModeReason:
		return "enter skip the call · esc cancel"
	case m.focus == focusInput && m.input.Searching():
		return "type to search · ctrl+r older · enter take · esc cancel"
	case m.focus == focusInput && len(m.input.Menu()) > 0:
		return "tab complete · ↑↓ choose · enter run · esc close"
	case m.focus == focusInput && m.nested != nil:
		return "esc back to the session · tab board · ctrl+j new line · ctrl+c×2 quit"
	case m.focus == focusInput && m.run != nil && m.asking() > 0:
		// The status bar says what waits; this says how to reach it.
		return "tab approve on the board · esc stop · ctrl+j new line · ctrl+c×2 quit"
	case m.focus == focusInput && m.run != nil:
		return "esc stop · tab board · ctrl+j new line · ctrl+c×2 quit"
	case m.focus == focusInput:
		return "enter send · ctrl+j new line · ↑ history · / commands · f1 help"
	case m.focus == focusBoard:
		return m.boardHints()
	}
	back := ""
	if m.nested != nil {
		back = " · esc back"
	}
	if m.activeTranscript().HasThinking() {
		return "↑↓ pgup pgdn scroll · t thinking · end follow · tab next" + back
	}
	return "↑↓ pgup pgdn scroll · end follow · tab next" + back
}

// boardHints are the keys that do something on the board on screen.
func (m Model) boardHints() string {
	ab := m.activeBoard()
	c := ab.Focused()
	back := ""
	if m.nested != nil {
		back = " · esc back"
	}
	onTask := ab.FocusOnTask()
	switch {
	case c != nil && c.Req != nil && ab.Typing():
		return "approval keys paused: you are typing; they work 1½ s after the last key"
	case c != nil && c.Req != nil && !ab.Armed():
		return "approval keys paused ½ s: the approval just changed"
	case c != nil && c.Req != nil && onTask:
		return "y approve · n skip · g grant · A all · enter details" + back
	case c != nil && c.Req != nil:
		return "y approve · n skip · g grant · a batch · A all · enter details" + back
	case c != nil && c.Task != nil && len(ab.Pending()) > 0 && ab.Armed():
		return "↑↓ focus · enter open the task · A approve all" + back
	case c != nil && c.Task != nil:
		return "↑↓ focus · enter open the task · ? help" + back
	case len(ab.Pending()) > 0 && ab.Armed():
		return "↑↓ focus · A approve all · enter details" + back
	}
	return "↑↓ focus · enter details · ? help" + back
}

// PlainOutcome returns the outcome as plain text for the normal screen after
// the console closes: the summary and extracted data, the failure report, or
// the question. Untrusted parts are sanitised and no styling is added.
func PlainOutcome(o runtime.GoalOutcome) string { return transcript.PlainOutcome(o) }

// PlainOutcome returns o as the package's PlainOutcome does, followed by
// the session's usage on a line of its own when the model reported any:
// "tokens 48k in (41k cached) · 2.1k out · $0.07", the cost only when it is
// known. It is what the console prints to the normal screen on exit, with
// o from Outcome.
func (m Model) PlainOutcome(o runtime.GoalOutcome) string {
	out := transcript.PlainOutcome(o)
	if m.usage.Tokens() > 0 {
		out += text.Tokens(m.usage) + "\n"
	}
	return out
}
