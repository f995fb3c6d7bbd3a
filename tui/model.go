package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/autopilot"
	"github.com/agenttui/agenttui/tui/board"
	"github.com/agenttui/agenttui/tui/detail"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/grant"
	"github.com/agenttui/agenttui/tui/help"
	"github.com/agenttui/agenttui/tui/input"
	"github.com/agenttui/agenttui/tui/internal/screen"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/markdown"
	"github.com/agenttui/agenttui/tui/mdtranscript"
	"github.com/agenttui/agenttui/tui/restore"
	"github.com/agenttui/agenttui/tui/rewind"
	"github.com/agenttui/agenttui/tui/taskview"
	"github.com/agenttui/agenttui/tui/transcript"
	"github.com/agenttui/agenttui/tui/trust"
)

// DefaultGrace is how long y, n, a and A are ignored after the approval
// under focus changes, so that a key pressed for something else cannot
// approve a call that has just appeared.
const DefaultGrace = board.DefaultGrace

// MinWidth and MinHeight are the smallest terminal the console draws in;
// below them it shows a notice instead of a squeezed, misleading screen.
const (
	MinWidth  = 50
	MinHeight = 14
)

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
	opts Options
	// keys are the console's keys, held by pointer like the styles:
	// bubbletea copies the Model with every message, and the keys are
	// some kilobytes that change only when the console is made.
	keys   *KeyMap
	styles *text.Styles
	// answers are where the answers to the approval requests on the board
	// go, by request; only respond sends on them.
	answers map[uint64]chan approval.Answer
	now     func() time.Time
	bridge  *Bridge

	width, height int
	focus         focusArea
	// typing is when the person last typed text, shared with every board
	// so that text typed anywhere holds back the approval keys.
	typing *board.Typing

	transcript transcript.Model
	board      board.Model
	// tasks are the session's tasks, and taskLogs their transcripts by
	// taskview.Key; nested, when set, shows a task's board and
	// transcript in place of the session's.
	tasks      *taskview.Tasks
	taskLogs   map[string]*transcript.Model
	nested     *nestedView
	detail     detail.Pane
	input      input.Box
	grant      grant.Chooser
	diffScreen detail.DiffScreen
	// rewind is the /rewind picker; restoreScreen shows a planned restore
	// (pendingRestore) for the person to confirm, and replanRestore plans
	// it anew when the workspace moves under it.
	rewind        rewind.Picker
	restoreScreen restore.Screen
	// trust asks whether to run the workspace's own hooks and servers,
	// before anything opens, or again when a hook changed; trustAsked is
	// the request it shows.
	trust          trust.Screen
	trustAsked     *TrustRequest
	pendingRestore *runtime.Restore
	replanRestore  func(ctx context.Context) (*runtime.Restore, error)
	servers        serverLine
	status         statusBar
	help           help.Model

	spin    spinner.Model
	ticking bool

	run      *activeRun
	thinking bool
	runStart time.Time
	runTook  time.Duration
	goal     string
	model    string
	mode     approval.Mode
	// reasoning is how hard the model is asked to reason, as the header
	// words it; empty shows nothing.
	reasoning string
	// usage is the session's tokens and cost so far, as the runtime last
	// reported them.
	usage model.Usage
	// ctx is the share of the context window the conversation takes, as
	// the runtime last reported it; nil when not known.
	ctx *runtime.ContextUse
	// turnUsage is the tokens of turn usageTurn, the last the model
	// reported, shown with the turn's calls and in the status bar.
	turnUsage model.Usage
	usageTurn int
	last      *runtime.GoalOutcome
	// waiting is what the run waits for before its first turn, such as
	// MCP servers starting.
	waiting string
	// retry is the model request of the turn being made again, if it is.
	retry *retryWait

	// session is the session's id for the header.
	session string
	// opening is true until Options.Open hands the session over; openErr
	// says why it could not be opened.
	opening bool
	openErr string
	// queued is input sent while the session was opening, as the run is
	// to receive it.
	queued string
	// user is the person's commands from command files, and what the
	// console keeps of the input they sent.
	user userCommands
	// replaying is true while a session's recorded events are applied;
	// lastAt is the time of the last event applied.
	replaying bool
	lastAt    time.Time

	// busy says what a slash command that replaces or compacts the
	// session is doing; opening is true meanwhile.
	busy string
	// cancelBusy stops what busy says is going on, when Esc may stop it
	// (a /compact); nil otherwise.
	cancelBusy context.CancelFunc
	// export gathers the session's events for /export.
	export *mdtranscript.Log
	// md renders the model's finished text as Markdown; see markdown().
	md *markdown.Renderer
	// term hands the terminal over to the person's editor, when the
	// console runs in one (see Run).
	term *screen.Handover

	note      string
	quitArmed bool

	// pilot is the autopilot, when there is one; tick schedules its
	// steps.
	pilot *autopilot.Pilot
	tick  func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
}

// newBoard returns an empty call board for the console's session.
func (m *Model) newBoard() board.Model {
	grace := m.opts.Grace
	if grace == 0 {
		grace = DefaultGrace
	}
	b := board.New(m.opts.Workspace, m.now, grace, m.keys.Board, m.styles)
	b.SetTyping(m.typing)
	return b
}

// New returns the console for opts.
func New(opts Options) Model {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	mode := opts.Mode
	if opts.Policy != nil {
		mode = opts.Policy.Mode()
	}
	m := Model{
		opts: opts, keys: new(DefaultKeyMap()), styles: text.DefaultStyles(), now: now, bridge: opts.Bridge,
		answers: map[uint64]chan approval.Answer{},
		spin:    spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		goal:    text.CleanLine(opts.Goal),
		model:   text.CleanLine(opts.Model),
		mode:    mode,
		// The level comes from the configuration, but it is drawn
		// like everything else the console did not write.
		reasoning: text.CleanLine(opts.Reasoning),
		session:   text.CleanLine(opts.Session),
		opening:   opts.Open != nil,
		export:    newExport(opts.Workspace),
		tasks:     taskview.New(),
		taskLogs:  map[string]*transcript.Model{},
		typing:    new(board.Typing),
	}
	m.board = m.newBoard()
	m.transcript = transcript.New(m.keys.Transcript, m.styles)
	m.detail = detail.NewPane(m.styles)
	m.diffScreen = detail.NewDiffScreen(m.keys.Diff, m.styles)
	m.user.cmds = fileCommands(opts.Commands)
	m.input = input.New(opts.Prefill, menuCommands(m.user.cmds), m.keys.Input, m.styles)
	if opts.History != nil {
		m.input.SetHistory(opts.History.Entries())
	}
	m.grant = grant.New(m.keys.Grant, m.styles)
	m.rewind = rewind.New(m.keys.Rewind, m.styles)
	m.help = help.New(m.keys.Help, m.styles)
	m.restoreScreen = restore.New(m.keys.Restore, m.styles)
	if opts.Grace != 0 {
		m.rewind.Grace, m.restoreScreen.Grace = max(opts.Grace, 0), max(opts.Grace, 0)
	}
	m.askTrust()
	m.tick = opts.Tick
	if m.tick == nil {
		m.tick = tea.Tick
	}
	if a := opts.Autopilot; a != nil && a.Scenario != nil && len(a.Scenario.Steps) > 0 {
		m.pilot = autopilot.New(a.Scenario, a.Speed, opts.Goal != "")
	} else {
		m.keys.Global.Autopilot.SetEnabled(false)
	}
	if opts.Demo {
		m.transcript.Add(transcript.Note{Text: realModelHint})
	}
	switch {
	case opts.Goal != "":
	case opts.Demo:
		m.note = "Enter starts the demo (edit the goal first if you like) · f1 lists every key"
		m.transcript.Add(transcript.Note{Text: "This is the built-in demo: a scripted model works on a copy of a sample project " +
			"in a temporary folder, so nothing of yours is touched. Calls that may change files wait for your approval: " +
			"press tab to reach the board, then y to approve or n to skip the call that waits."})
	default:
		m.note = "Type a goal and press enter · f1 lists every key"
	}
	if m.opening && opts.Opening != "" {
		m.note = opts.Opening
	}
	return m
}

// realModelHint is the line the demo shows about using a real model. The
// commands are joined with no-break spaces, so that wrapping keeps each on
// one line where it fits.
const realModelHint = "Demo mode · to use a real model: export" + text.NoBreak + "OPENAI_API_KEY=… and run " +
	"agenttui" + text.NoBreak + "--model" + text.NoBreak + model.RecommendedOpenAI + " " +
	"(or anthropic:… with ANTHROPIC_API_KEY, or OPENAI_BASE_URL=http://localhost:11434/v1 for Ollama)"

// overlaid says a restore's picker or preview holds the screen.
func (m *Model) overlaid() bool { return m.restoreScreen.Shown() || m.rewind.Shown() }

// Init starts listening to the Bridge, opens the session when Options.Open
// is set, and starts the run when a goal was given. Init's commands run
// after the first frame is drawn.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.bridge.wait()}
	if m.trust.Shown() {
		// The session opens once the person answered; the screen is
		// drawn again when its keys start to answer.
		cmds = append(cmds, m.tick(m.trust.Grace, func(time.Time) tea.Msg { return trustArmed{} }))
	} else {
		cmds = append(cmds, m.openCmd())
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
			cmds = append(cmds, m.apply(item))
		}
		cmds = append(cmds, m.syncBoards(), m.bridge.wait())
		if m.grant.Stale() {
			m.grant.Close()
			m.note = "the call is no longer waiting for approval; no grant given"
		}
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
	case board.GraceEndMsg:
		// A redraw, since the hints change now that the keys work; or,
		// when the person typed again meanwhile, a wait for the next.
		cmds = append(cmds, m.activeBoard().Rearm(msg))
	case editorDone:
		m.editorReturned(msg)
	case inputEdited:
		m.inputEdited(msg)
	case compacted:
		m.opening, m.busy = false, ""
		if m.cancelBusy != nil {
			m.cancelBusy()
			m.cancelBusy = nil
		}
		switch {
		case errors.Is(msg.err, context.Canceled):
			m.say("compaction stopped; the conversation is as it was", false)
		case msg.err != nil:
			m.say("could not compact the conversation: "+text.CleanLine(msg.err.Error()), true)
		default:
			m.say("compacted the conversation", false)
		}
		cmds = append(cmds, m.startQueued())
	case sessionSwitched:
		cmds = append(cmds, m.switched(msg))
	case sessionsListed:
		m.listed(msg)
	case restorePlanned:
		cmds = append(cmds, m.planned(msg))
	case restoreDone:
		cmds = append(cmds, m.restored(msg))
	case tea.MouseMsg:
		if m.help.Shown() {
			m.helpKey(msg)
			break
		}
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.activeTranscript().Scroll(-3)
		case tea.MouseButtonWheelDown:
			m.activeTranscript().Scroll(3)
		}
	case tea.KeyMsg:
		// Every key message comes from the person: the autopilot's keys
		// arrive as pilotWake and go to key directly.
		used, paused := m.personKey(msg)
		if !used {
			if m.typesText(msg) {
				cmds = append(cmds, m.activeBoard().Typed())
			}
			cmds = append(cmds, m.key(msg))
		}
		if paused && m.note == "" {
			m.note = "autopilot paused: the console is yours · " + m.keys.Global.Autopilot.Help().Key + " resumes it"
		}
	case pilotWake:
		cmds = append(cmds, m.wakePilot(msg))
	default:
		if input.IsShiftEnter(msg) && m.focus == focusInput && !m.modal() {
			m.input.Newline()
		}
	}
	cmds = append(cmds, m.startTicking(), m.drivePilot())
	m.layout()
	return m, tea.Batch(cmds...)
}

// typesText reports whether a key the person pressed is typed text: a
// printable key that goes to the input, or several runes or a paste
// anywhere. Text holds the approval keys back for board.TypingPause.
func (m *Model) typesText(msg tea.KeyMsg) bool {
	if msg.Paste || msg.Type == tea.KeyRunes && len(msg.Runes) > 1 {
		return true
	}
	printable := (msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace) && !msg.Alt
	return printable && m.focus == focusInput && !m.modal()
}

// modal reports whether a screen that takes every key is open above the
// console: the trust question, the help, the grant chooser, the
// full-screen diff, the undo preview or the rewind picker.
func (m *Model) modal() bool {
	return m.trust.Shown() || m.help.Shown() || m.grant.Shown() || m.diffScreen.Shown() || m.overlaid()
}

func (m *Model) setFocus(f focusArea) {
	m.focus = f
	if f == focusInput {
		m.input.Focus()
	} else {
		m.input.Blur()
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
	if m.trust.Shown() {
		return m.trustKey(msg)
	}
	if m.help.Shown() {
		m.helpKey(msg)
		return nil
	}
	if m.grant.Shown() {
		m.grantKey(msg)
		return nil
	}
	if m.diffScreen.Shown() {
		return m.diffKey(msg)
	}
	if m.restoreScreen.Shown() {
		return m.restoreKey(msg)
	}
	if m.rewind.Shown() {
		return m.rewindKey(msg)
	}
	if m.focus == focusInput && m.input.Overlay() && key.Matches(msg, m.input.Keys.Close, m.input.Keys.Complete) {
		// The menu or the history search is open: Esc closes it and Tab
		// completes, rather than stopping the run or moving focus.
		return m.inputKey(msg)
	}
	switch {
	case key.Matches(msg, g.Stop):
		switch {
		case m.input.Mode() == input.ModeReason:
			m.input.CloseReason()
			m.setFocus(focusBoard)
			m.note = "skip cancelled"
		case m.nested != nil:
			// In a task's view Esc goes back; it never stops the run.
			m.closeTask()
		case m.run != nil:
			m.stop("the person stopped the turn")
			m.note = "stopping the turn: running calls are cancelled, and each call says whether it ran"
		case m.cancelBusy != nil:
			m.cancelBusy()
			m.note = "stopping: " + m.busy
		case m.detail.Expanded():
			m.detail.Toggle()
		}
		return nil
	case key.Matches(msg, g.Mode):
		m.cycleMode()
		return nil
	case key.Matches(msg, g.Focus):
		if m.input.Mode() == input.ModeReason {
			m.note = "finish the skip reason first: enter skips, esc cancels"
			return nil
		}
		m.setFocus((m.focus + 1) % 3)
		if m.focus == focusBoard && m.activeBoard().FocusPending() {
			// The person came to the board: what waits for them is
			// what they came for.
			m.detail.FocusChanged()
		}
		return nil
	case key.Matches(msg, g.PageUp, g.PageDown):
		tr := m.activeTranscript()
		n := max(1, tr.Height()-1)
		if m.focus == focusBoard && m.detail.Expanded() {
			n = max(1, m.detail.Height()-2)
		}
		if key.Matches(msg, g.PageUp) {
			n = -n
		}
		if m.focus == focusBoard && m.detail.Expanded() {
			m.detail.Scroll(n)
		} else {
			tr.Scroll(n)
		}
		return nil
	case msg.Type == tea.KeyF1, m.focus != focusInput && key.Matches(msg, g.Help) && !msg.Paste:
		m.toggleHelp()
		return nil
	}
	switch m.focus {
	case focusInput:
		return m.inputKey(msg)
	case focusBoard:
		return m.boardKey(msg)
	case focusTranscript:
		if msg.Paste || len(msg.Runes) > 1 {
			m.note = "typed text is ignored here: press tab to reach the input"
			return nil
		}
		if act := m.activeTranscript().Update(msg); act.Note != "" {
			m.note = act.Note
		}
	}
	return nil
}

// boardKey routes a key to the board on screen (the session's, or an open
// task's) and acts on what it asks.
func (m *Model) boardKey(msg tea.KeyMsg) tea.Cmd {
	b := m.activeBoard()
	before := b.Focused()
	act := b.Update(msg)
	if b.Focused() != before {
		m.detail.FocusChanged()
	}
	m.note = act.Note
	if act.OpenTask != nil {
		m.openTask(act.OpenTask)
		return nil
	}
	if len(act.Approve) > 0 {
		m.respond(answer{kind: answerApprove, calls: act.Approve})
	}
	if act.ToggleDetails {
		m.detail.Toggle()
	}
	if act.ToggleLayout {
		l := m.detail.ToggleLayout(m.width)
		m.note = "diffs are shown " + map[bool]string{true: "side by side", false: "unified"}[l == diffview.Split]
	}
	if act.FullDiff {
		m.diffScreen.Show(b.Focused())
	}
	if act.Skip != nil {
		m.diffScreen.Close()
		m.input.OpenReason(act.Skip)
		m.setFocus(focusInput)
	}
	if act.Grant != nil {
		m.diffScreen.Close()
		m.offerGrants(act.Grant)
	}
	if act.Edit != nil {
		m.diffScreen.Close()
		return m.editChange(act.Edit)
	}
	return nil
}

// diffKey routes a key while the full-screen diff is open: the approval
// keys answer the call it shows, as they would on the board; the rest
// scroll it.
func (m *Model) diffKey(msg tea.KeyMsg) tea.Cmd {
	b := m.board.Keys
	if key.Matches(msg, b.Approve, b.Skip, b.Edit, b.Grant) {
		return m.boardKey(msg)
	}
	act := m.diffScreen.Update(msg)
	switch {
	case act.Close:
		m.diffScreen.Close()
	case act.ToggleLayout:
		m.detail.ToggleLayout(m.width)
	}
	return nil
}

// cycleMode moves the approval mode to the next one.
func (m *Model) cycleMode() { m.setMode(m.mode.Next()) }

// setMode sets the approval mode, for the calls of the replies to come.
func (m *Model) setMode(next approval.Mode) {
	if m.opts.Policy != nil {
		m.opts.Policy.SetMode(next)
	}
	m.mode = next
	m.note = fmt.Sprintf("approval mode: %s (for calls of the replies to come)", next)
}

// markdown returns the renderer of the model's text, made at its first use:
// by then the first frame is drawn, so the terminal's background is known.
func (m *Model) markdown() *markdown.Renderer {
	if m.md == nil {
		m.md = markdown.New(lipgloss.ColorProfile(), lipgloss.HasDarkBackground())
	}
	return m.md
}
