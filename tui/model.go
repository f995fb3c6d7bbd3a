package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// MinWidth and MinHeight are the smallest terminal the console draws in;
// below them it shows a notice instead of a squeezed, misleading screen.
const (
	MinWidth  = 50
	MinHeight = 14
)

// Options configure the console.
type Options struct {
	// Run runs the agent on the session with the person's input (a goal, an
	// answer or a follow-up) until the run ends. The console calls it in
	// its own goroutine, one run at a time, and cancels ctx with a
	// runtime.Stop cause when the person stops the turn.
	Run func(ctx context.Context, input string) runtime.GoalOutcome
	// Bridge delivers the run's events and approval requests; the agent's
	// Sink and the policy's Approver must be this Bridge's.
	Bridge *Bridge
	// Policy is the session's approval policy, whose mode Shift+Tab
	// cycles; nil shows Mode and cycles nothing.
	Policy *approval.Policy
	// Mode is the approval mode shown when Policy is nil.
	Mode approval.Mode
	// Model names the model in the header.
	Model string
	// Demo marks the built-in demo in the header.
	Demo bool
	// Description is the scenario's one-line description, if any.
	Description string
	// Workspace is the folder the agent works in; footprints are shown
	// relative to it.
	Workspace string
	// Goal, when set, starts a run at once.
	Goal string
	// Prefill is put in the input line when there is no Goal, such as the
	// demo's goal.
	Prefill string
	// Now tells the time; nil means time.Now. Tests pass a fake clock so
	// the grace period and elapsed times need no sleeping.
	Now func() time.Time
	// Grace is how long approval keys are ignored after the approval under
	// focus changes; zero means DefaultGrace, negative means none.
	Grace time.Duration
}

// focusArea is the part of the screen keys go to.
type focusArea int

const (
	focusInput focusArea = iota
	focusBoard
	focusTranscript
)

func (f focusArea) String() string {
	return [...]string{"input", "board", "transcript"}[f]
}

// activeRun is a run whose goroutine has not returned.
type activeRun struct {
	// ctx is the run's context, kept so that tests can see why it ended.
	ctx      context.Context
	cancel   context.CancelCauseFunc
	done     chan struct{} // closed when Run returned; outcome is set then
	outcome  runtime.GoalOutcome
	stopping bool
}

// startMsg starts a run with the goal given on the command line.
type startMsg struct{ input string }

// Model is the console: it routes messages to its parts and lays them out.
// It is a bubbletea model; run it with tea.NewProgram.
type Model struct {
	opts   Options
	keys   KeyMap
	now    func() time.Time
	bridge *Bridge

	width, height int
	focus         focusArea

	transcript transcriptModel
	board      boardModel
	detail     detailPane
	input      inputLine
	status     statusBar
	help       helpOverlay

	spin    spinner.Model
	ticking bool

	run      *activeRun
	thinking bool
	runStart time.Time
	runTook  time.Duration
	goal     string
	model    string
	mode     approval.Mode
	usage    model.Usage
	last     *runtime.GoalOutcome

	note      string
	quitArmed bool
}

// New returns the console for opts.
func New(opts Options) Model {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	grace := opts.Grace
	if grace == 0 {
		grace = DefaultGrace
	}
	mode := opts.Mode
	if opts.Policy != nil {
		mode = opts.Policy.Mode()
	}
	m := Model{
		opts: opts, keys: DefaultKeyMap(), now: now, bridge: opts.Bridge,
		transcript: newTranscript(),
		board:      newBoard(opts.Workspace, now, grace),
		detail:     newDetail(),
		input:      newInput(opts.Prefill),
		spin:       spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		goal:       cleanLine(opts.Goal),
		model:      cleanLine(opts.Model),
		mode:       mode,
	}
	m.board.Keys, m.transcript.Keys, m.input.Keys = m.keys.Board, m.keys.Transcript, m.keys.Input
	switch {
	case opts.Goal != "":
	case opts.Demo:
		m.note = "Enter starts the demo (edit the goal first if you like) · f1 lists every key"
		m.transcript.add(noteItem{text: "This is the built-in demo: a scripted model works on a copy of a sample project " +
			"in a temporary folder, so nothing of yours is touched. Calls that may change files wait for your approval: " +
			"focus one on the board and press y to approve or n to skip it."})
	default:
		m.note = "Type a goal and press enter · f1 lists every key"
	}
	return m
}

// Init starts listening to the Bridge, and the run when a goal was given.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.bridge.wait()}
	if m.opts.Goal != "" {
		goal := m.opts.Goal
		cmds = append(cmds, func() tea.Msg { return startMsg{input: goal} })
	}
	return tea.Batch(cmds...)
}

// Running reports whether a run's goroutine has not returned yet.
func (m Model) Running() bool { return m.run != nil }

// Outcome returns the outcome of the last run that ended. When a run is
// still going (the person quit during it, which stops it), it first waits up
// to wait for that run to return.
func (m Model) Outcome(wait time.Duration) (runtime.GoalOutcome, bool) {
	if r := m.run; r != nil {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-r.done:
			return r.outcome, true
		case <-t.C:
		}
	}
	if m.last == nil {
		return runtime.GoalOutcome{}, false
	}
	return *m.last, true
}

// Update routes a message to the parts of the console.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case eventsMsg:
		for _, item := range msg {
			m.apply(item)
		}
		cmds = append(cmds, m.board.externalChange(), m.bridge.wait())
	case startMsg:
		cmds = append(cmds, m.start(msg.input))
	case spinner.TickMsg:
		if !m.needTick() {
			// Nothing runs: let the tick chain end, so an idle console
			// does no work at all.
			m.ticking = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		cmds = append(cmds, cmd)
	case graceEndMsg:
		// Only a redraw: the hints change now that the keys work.
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.transcript.scroll(-3)
		case tea.MouseButtonWheelDown:
			m.transcript.scroll(3)
		}
	case tea.KeyMsg:
		cmds = append(cmds, m.key(msg))
	}
	cmds = append(cmds, m.startTicking())
	m.layout()
	return m, tea.Batch(cmds...)
}

// apply takes one item from the Bridge into the console's state.
func (m *Model) apply(item any) {
	switch ev := item.(type) {
	case runtime.RunStarted:
		m.goal, m.model, m.runStart = cleanLine(ev.Goal), cleanLine(ev.Model), ev.At.Time
		if ev.Mode != "" {
			m.mode = approval.Mode(ev.Mode)
		}
		label := "you"
		switch {
		case ev.Input == ev.Goal && m.last == nil:
			label = "goal"
		case m.last != nil && m.last.Status == runtime.StatusRefused:
			label = "answer"
		}
		m.transcript.add(userItem{label: label, text: clean(ev.Input)})
	case runtime.TurnStarted:
		m.thinking = true
		m.transcript.live = &liveText{turn: ev.Turn}
	case runtime.TextDelta:
		if m.transcript.live == nil {
			m.transcript.live = &liveText{turn: ev.Turn}
		}
		m.transcript.live.text.WriteString(ev.Text)
	case runtime.UsageReported:
		m.usage = ev.Total
	case runtime.ReplyReceived:
		m.thinking = false
		m.transcript.live = nil
		if text := clean(ev.Text); strings.TrimSpace(text) != "" {
			m.transcript.add(modelItem{text: text})
		}
		if len(ev.Calls) > 0 || ev.Cut != nil {
			m.board.setReply(newReply(ev))
			m.detail.focusChanged()
		}
	case runtime.InvalidReply:
		if r := m.board.reply; r != nil && r.turn == ev.Turn {
			r.invalidResults(ev)
		}
	case runtime.CallDecision, runtime.CallStarted, runtime.CallRetried, runtime.CallFinished:
		if r := m.board.reply; r != nil {
			r.apply(ev.(runtime.Event))
		}
	case runtime.TurnEnded:
		if r := m.board.reply; r != nil && r.turn == ev.Turn {
			r.apply(ev)
			m.transcript.add(newGroup(r, m.opts.Workspace))
		}
	case runtime.Notice:
		m.transcript.add(noteItem{text: clean(ev.Level + ": " + ev.Text), warn: ev.Level != "info"})
	case runtime.RunFinished:
		m.finish(ev.Outcome)
	case approvalRequest:
		if !m.board.reply.attach(ev) {
			// A request for a call the board does not show cannot be
			// answered by anyone: skip it rather than hang the run.
			ev.answer <- approval.SkipWith("the console could not show this call to the person")
		}
	case approvalGone:
		m.board.reply.detach(ev.id)
	case runDone:
		if m.run == ev.run {
			m.run = nil
			if m.last == nil {
				o := ev.outcome
				m.last = &o
			}
		}
	}
}

// finish shows a run's outcome and readies the input for what comes next.
func (m *Model) finish(o runtime.GoalOutcome) {
	if l := m.transcript.live; l != nil && strings.TrimSpace(l.text.String()) != "" {
		m.transcript.add(modelItem{text: clean(l.text.String())})
	}
	m.transcript.live = nil
	m.thinking = false
	m.last = &o
	m.runTook = m.now().Sub(m.runStart)
	m.transcript.add(outcomeItem{o: o})
	if m.input.mode == modeReason {
		m.input.closeReason()
	}
	if o.Status == runtime.StatusRefused {
		m.input.setMode(modeAnswer, o.Summary)
	} else {
		m.input.setMode(modeFollowUp, "")
	}
	m.transcript.toBottom()
	// The run is over, so no approval can be pending: moving to the input
	// cannot make a keystroke approve anything, and the next message is
	// typed there.
	m.setFocus(focusInput)
}

// start begins a run with input.
func (m *Model) start(input string) tea.Cmd {
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &activeRun{ctx: ctx, cancel: cancel, done: make(chan struct{})}
	m.run = r
	m.thinking = true
	m.runStart = m.now()
	m.input.reset()
	m.input.setMode(modeGoal, "")
	if m.last != nil {
		m.input.setMode(modeFollowUp, "")
	}
	m.note = ""
	m.transcript.toBottom()
	m.setFocus(focusBoard)
	run, bridge := m.opts.Run, m.bridge
	return func() tea.Msg {
		out := run(ctx, input)
		r.outcome = out
		close(r.done)
		bridge.push(runDone{run: r, outcome: out})
		return nil
	}
}

// stop stops the running turn.
func (m *Model) stop(why string) {
	if m.run == nil || m.run.stopping {
		return
	}
	m.run.stopping = true
	m.run.cancel(runtime.Stop(why))
}

// needTick reports whether anything on screen moves: a call running or the
// model replying. Waiting for approval moves nothing.
func (m *Model) needTick() bool {
	return m.run != nil && (m.thinking || m.board.reply.anyRunning())
}

// startTicking starts the spinner when something began to move.
func (m *Model) startTicking() tea.Cmd {
	if m.ticking || !m.needTick() {
		return nil
	}
	m.ticking = true
	return m.spin.Tick
}

func (m *Model) setFocus(f focusArea) {
	m.focus = f
	if f == focusInput {
		m.input.focus()
	} else {
		m.input.blur()
	}
}

// key routes a key press.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	g := m.keys.Global
	if key.Matches(msg, g.Quit) {
		if m.quitArmed {
			m.stop("the person quit the console")
			return tea.Quit
		}
		m.quitArmed = true
		m.note = "press Ctrl+C again to quit"
		return nil
	}
	m.quitArmed = false
	m.note = ""
	if m.help.open {
		if key.Matches(msg, g.Help, g.Stop) {
			m.help.toggle()
		}
		return nil
	}
	switch {
	case key.Matches(msg, g.Stop):
		switch {
		case m.input.mode == modeReason:
			m.input.closeReason()
			m.setFocus(focusBoard)
			m.note = "skip cancelled"
		case m.run != nil:
			m.stop("the person stopped the turn")
			m.note = "stopping the turn: running calls are cancelled, and each call says whether it ran"
		case m.detail.expanded:
			m.detail.toggle()
		}
		return nil
	case key.Matches(msg, g.Mode):
		m.cycleMode()
		return nil
	case key.Matches(msg, g.Focus):
		if m.input.mode == modeReason {
			m.note = "finish the skip reason first: enter skips, esc cancels"
			return nil
		}
		m.setFocus((m.focus + 1) % 3)
		return nil
	case key.Matches(msg, g.PageUp, g.PageDown):
		n := max(1, m.transcript.height-1)
		if m.focus == focusBoard && m.detail.expanded {
			n = max(1, m.detail.height-2)
		}
		if key.Matches(msg, g.PageUp) {
			n = -n
		}
		if m.focus == focusBoard && m.detail.expanded {
			m.detail.scroll(n)
		} else {
			m.transcript.scroll(n)
		}
		return nil
	case msg.Type == tea.KeyF1, m.focus != focusInput && key.Matches(msg, g.Help) && !msg.Paste:
		m.help.toggle()
		return nil
	}
	switch m.focus {
	case focusInput:
		if key.Matches(msg, m.input.Keys.Submit) && !msg.Paste {
			return m.submit()
		}
		return m.input.Update(msg)
	case focusBoard:
		before := m.board.focus
		act := m.board.Update(msg)
		if m.board.focus != before {
			m.detail.focusChanged()
		}
		m.note = act.note
		if act.toggleDetails {
			m.detail.toggle()
		}
		if act.skip != nil {
			m.input.openReason(act.skip)
			m.setFocus(focusInput)
		}
	case focusTranscript:
		if msg.Paste || len(msg.Runes) > 1 {
			m.note = "typed text is ignored here: press tab to reach the input"
			return nil
		}
		m.transcript.Update(msg)
	}
	return nil
}

// submit acts on Enter in the input.
func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.input.value())
	if m.input.mode == modeReason {
		c := m.input.reasonFor
		m.input.closeReason()
		m.setFocus(focusBoard)
		switch {
		case c == nil || c.req == nil:
			m.note = "that call is no longer waiting for approval"
		default:
			c.answer(approval.SkipWith(text))
			m.note = fmt.Sprintf("skipped #%d %s", c.index+1, c.name)
		}
		m.board.personChange()
		return nil
	}
	if m.run != nil {
		m.note = "a run is going: wait for its outcome, or press esc to stop it; your text stays in the input"
		return nil
	}
	if text == "" {
		m.note = "type something first"
		return nil
	}
	return m.start(text)
}

// cycleMode moves the approval mode to the next one.
func (m *Model) cycleMode() {
	next := m.mode.Next()
	if m.opts.Policy != nil {
		m.opts.Policy.SetMode(next)
	}
	m.mode = next
	m.note = fmt.Sprintf("approval mode: %s (for calls of the replies to come)", next)
}
