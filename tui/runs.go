package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/input"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/markdown"
	"github.com/agenttui/agenttui/tui/transcript"
)

// apply takes one item from the Bridge into the console's state. It returns
// a command when the item starts something (an opened session that carries
// on at once).
func (m *Model) apply(item any) tea.Cmd {
	if te, ok := item.(runtime.TaskEvent); ok {
		// A task's event changes the task's view and transcript only.
		// /export leaves tasks out: the session's own transcript says
		// what each task call did, in the result its model read.
		m.applyTask(te)
		return nil
	}
	if e, ok := item.(runtime.Event); ok {
		m.export.Add(e)
	}
	switch ev := item.(type) {
	case runtime.RunStarted:
		m.goal, m.model, m.runStart = text.CleanLine(ev.Goal), text.CleanLine(ev.Model), ev.At.Time
		m.lastAt = ev.At.Time
		if ev.Mode != "" {
			m.mode = approval.Mode(ev.Mode)
		}
		if ev.Resumed {
			// A resumed run has no new input: it carries on the reply the
			// session stopped in.
			m.transcript.Add(transcript.Note{Text: "resumed: the session carries on where it stopped; calls whose fate is unknown " +
				"are reported, and calls that only read run again"})
			break
		}
		label := "you"
		switch {
		case ev.Input == ev.Goal && m.last == nil:
			label = "goal"
		case m.last != nil && m.last.Status == runtime.StatusRefused:
			label = "answer"
		}
		shown, typed := m.shownInput(ev.Input)
		if typed && ev.Goal == ev.Input {
			// The header names the goal as the person typed it too,
			// in this run and the ones that follow it.
			m.user.goal = &outgoing{text: ev.Goal, typed: shown}
		}
		if g := m.user.goal; g != nil && g.text == ev.Goal {
			m.goal = text.CleanLine(g.typed)
		}
		m.transcript.Add(transcript.User{Label: label, Text: text.Clean(shown)})
	case runtime.HooksRunning:
		// The live line says what the hooks hold up until they are done.
		if l := m.transcript.Live(); l != nil {
			l.Doing = hooksRunning(ev)
		} else {
			m.transcript.SetLive(&transcript.Live{Doing: hooksRunning(ev)})
		}
	case runtime.HookRan:
		if l := m.transcript.Live(); l != nil && strings.HasPrefix(l.Doing, hooksDoing) {
			l.Doing = ""
		}
	case runtime.RunContinued:
		whose := "your"
		if ev.Workspace {
			whose = "the workspace's"
		}
		m.transcript.Add(transcript.Note{Text: text.Clean(fmt.Sprintf("%s Stop hook %s sent the agent on: %s",
			whose, approval.ParseDecider(ev.By).Label, ev.Reason)), Warn: true})
	case runtime.TurnStarted:
		m.thinking = true
		m.waiting = ""
		m.retry = nil
		m.lastAt = ev.At.Time
		m.transcript.SetLive(&transcript.Live{Turn: ev.Turn})
	case runtime.TextDelta:
		if m.transcript.Live() == nil {
			m.transcript.SetLive(&transcript.Live{Turn: ev.Turn})
		}
		m.transcript.Live().Text.WriteString(ev.Text)
	case runtime.ThinkingDelta:
		l := m.transcript.Live()
		if l == nil {
			l = &transcript.Live{Turn: ev.Turn}
			m.transcript.SetLive(l)
		}
		if l.Thinking.Len() == 0 {
			l.ThinkingSince = m.now()
		}
		l.Thinking.WriteString(ev.Text)
	case runtime.UsageReported:
		m.usage, m.turnUsage, m.usageTurn = ev.Total, ev.Usage, ev.Turn
		if c := ev.Context; c != nil {
			m.ctx = c
			// The window of the model that replied: after /model, the
			// header says the new model's, and whether it is a guess.
			if c.Window > 0 {
				m.opts.ContextWindow, m.opts.ContextGuessed = c.Window, c.Guessed
			}
		}
	case runtime.CompactionStarted:
		m.thinking = true
		m.transcript.SetLive(&transcript.Live{Doing: fmt.Sprintf("compacting the conversation to fit the context window (%s)", transcript.CompactWhy(ev))})
	case runtime.Compacted:
		m.thinking = false
		m.transcript.SetLive(nil)
		m.transcript.Add(transcript.NewCompaction(ev))
		m.transcript.Add(transcript.Note{Text: cacheRestartsCompacted})
		if ev.Context != nil {
			m.ctx = ev.Context
		}
	case runtime.CompactionFailed:
		m.thinking = false
		m.transcript.SetLive(nil)
		m.transcript.Add(transcript.Note{Text: "the conversation could not be compacted: " + text.Clean(ev.Error), Warn: true})
	case runtime.ReplyReceived:
		if m.pilot != nil && !m.replaying {
			m.pilot.Observe(ev)
		}
		m.thinking = false
		m.retry = nil
		m.addThinking(ev, m.transcript.Live())
		m.transcript.SetLive(nil)
		if strings.TrimSpace(ev.Text) != "" {
			// The reply is complete: its text is drawn as Markdown from
			// now on, rendered once per width.
			m.transcript.Add(transcript.ModelText{Doc: m.markdown().Doc(ev.Text)})
		}
		if len(ev.Calls) > 0 || ev.Cut != nil {
			r := callview.NewReply(ev)
			m.tasks.Bind(nil, r)
			m.board.SetReply(r)
			m.detail.FocusChanged()
		}
	case runtime.InvalidReply:
		if r := m.board.Reply(); r != nil && r.Turn == ev.Turn {
			r.InvalidResults(ev)
		}
	case runtime.CallStarted:
		m.lastAt = ev.At.Time
		m.board.Reply().Apply(ev)
	case runtime.CallFinished:
		m.lastAt = ev.At.Time
		m.board.Reply().Apply(ev)
	case runtime.CallDecision, runtime.CallRetried, runtime.CallPreviewed, runtime.PreviewStale:
		m.board.Reply().Apply(ev.(runtime.Event))
	case runtime.TurnEnded:
		var used model.Usage
		if m.usageTurn == ev.Turn {
			used = m.turnUsage
		}
		r := m.board.Reply()
		if r != nil && r.Turn == ev.Turn {
			r.Apply(ev)
			m.transcript.Add(transcript.NewGroup(r, m.opts.Workspace, used))
		} else if used.InputTokens+used.OutputTokens > 0 {
			m.transcript.Add(transcript.Note{Text: fmt.Sprintf("turn %d · %s", ev.Turn, text.Tokens(used))})
		}
	case runtime.Notice:
		m.transcript.Add(transcript.Note{Text: text.Clean(ev.Level + ": " + ev.Text), Warn: ev.Level != "info"})
	case runtime.RunFinished:
		if ev.Usage != nil {
			// The session's total, compactions' summaries included.
			m.usage = *ev.Usage
		}
		m.finish(ev.Outcome)
	case runtime.ModelRetry:
		m.applyRetry(ev)
	case approvalRequest:
		if len(ev.Req.Task) > 0 {
			// A task's call: it waits on the task's view, which is made
			// when no event named the task yet, so that it is always
			// shown and can be answered.
			m.tasks.Attach(ev.Request)
			m.answers[ev.ID] = ev.answer
			break
		}
		if !m.board.Reply().Attach(ev.Request) {
			// A request for a call the board does not show cannot be
			// answered by anyone: skip it rather than hang the run.
			m.respond(answer{kind: answerUnshowable, request: ev})
			break
		}
		m.answers[ev.ID] = ev.answer
	case approvalGone:
		delete(m.answers, ev.id)
		m.board.Reply().Detach(ev.id)
		m.tasks.Detach(ev.id)
	case runDone:
		if m.run == ev.run {
			m.run = nil
			m.waiting = ""
			if m.last == nil {
				o := ev.outcome
				m.last = &o
			}
			m.runEnded(ev.run)
		}
	case Opened:
		return m.open(ev)
	case serversMsg:
		m.servers.set(ev)
	case *TrustRequest:
		return m.trustAgain(ev)
	case waitingMsg:
		m.waiting = text.CleanLine(string(ev))
		if m.waiting != "" && m.transcript.Live() == nil {
			m.transcript.SetLive(&transcript.Live{})
		}
	}
	return nil
}

// open shows the session Options.Open made ready: its history as it was,
// then its notices; then it carries on an interrupted run, or starts the
// goal given on the command line, or waits for the person.
func (m *Model) open(o Opened) tea.Cmd {
	m.opening = false
	if m.opts.Opening != "" && m.note == m.opts.Opening {
		m.note = ""
	}
	queued, _ := m.takeQueued()
	if o.ID != "" {
		m.session = text.CleanLine(o.ID)
	}
	if o.Model != "" {
		m.model = text.CleanLine(o.Model)
	}
	if describe := m.opts.DescribeReasoning; describe != nil && o.Err == nil {
		// The session may use another model than the console began
		// with (a resumed one's), or another level.
		m.reasoning = text.CleanLine(describe())
	}
	if o.ContextWindow > 0 {
		m.opts.ContextWindow, m.opts.ContextGuessed = o.ContextWindow, o.ContextGuessed
	}
	if o.Err != nil {
		m.openErr = text.CleanLine(o.Err.Error())
		m.transcript.Add(transcript.Note{Text: "error: " + m.openErr, Warn: true})
		m.note = "the session could not be opened (see above) · ctrl+c twice quits"
		m.input.SetPlaceholder("nothing can run: the session could not be opened")
		m.input.Blur()
		return nil
	}
	if len(o.History) > 0 {
		m.replay(o.History)
	}
	for _, n := range o.Notices {
		m.apply(n)
	}
	var cmd tea.Cmd
	goal := m.opts.Goal
	// The goal of the command line starts the first session only, not
	// one that /clear or /resume opens later.
	m.opts.Goal = ""
	switch {
	case o.Resume != nil:
		cmd = m.launch(o.Resume)
	case goal != "":
		cmd = m.start(goal)
	case queued.typed != "" && len(o.History) == 0:
		started, _ := m.startOutgoing(queued)
		return started
	}
	if queued.typed != "" {
		// Typed before the session's history was on screen, or while
		// another start was due: the person has not seen what it would
		// answer, so it waits in the input, as typed.
		m.input.SetValue(queued.typed)
	}
	if cmd != nil {
		return cmd
	}
	switch {
	case len(o.History) > 0 && m.last != nil && m.last.Status == runtime.StatusRefused:
		m.note = "resumed: answer the agent's question below, and the same conversation goes on"
	case len(o.History) > 0:
		m.note = "resumed: type a follow-up and press enter to carry on the session"
	}
	return nil
}

// replay shows a session's recorded events the way the console showed them
// when they happened: each finished reply's calls as a group with their
// outcomes, model text, the person's messages and each outcome; the last
// reply stays on the board, and the last outcome readies the input (the
// Answer prompt after a question).
func (m *Model) replay(events []runtime.Event) {
	m.replaying = true
	for _, e := range events {
		m.apply(e)
	}
	m.replaying = false
	// Nothing is running: the run that was replying when the session
	// stopped is over, whatever comes next.
	m.thinking = false
	m.retry = nil
	m.transcript.SetLive(nil)
	text := "── the transcript above is the session as its journal recorded it ──"
	if m.session != "" {
		text = fmt.Sprintf("── the transcript above is session %s as its journal recorded it ──", m.session)
	}
	m.transcript.Add(transcript.Note{Text: text})
	m.transcript.ToBottom()
}

// finish shows a run's outcome and readies the input for what comes next.
func (m *Model) finish(o runtime.GoalOutcome) {
	if l := m.transcript.Live(); l != nil {
		// What the model thought before the run ended stays, folded.
		if th, ok := transcript.NewThinking(nil, l.Thinking.String(), 0, m.thoughtFor(l)); ok {
			m.transcript.Add(th)
		}
		if strings.TrimSpace(l.Text.String()) != "" {
			// A reply the run ended in the middle of stays plain: it is
			// not a complete Markdown document.
			m.transcript.Add(transcript.ModelText{Plain: text.Clean(l.Text.String())})
		}
	}
	m.transcript.SetLive(nil)
	m.thinking = false
	m.retry = nil
	m.waiting = ""
	m.last = &o
	if m.replaying {
		// The journal's own times: the clock now says when it was read.
		m.runTook = m.lastAt.Sub(m.runStart)
	} else {
		m.runTook = m.now().Sub(m.runStart)
	}
	m.transcript.Add(transcript.Outcome{O: o})
	if m.input.Mode() == input.ModeReason {
		m.input.CloseReason()
	}
	if o.Status == runtime.StatusRefused {
		m.input.SetMode(input.ModeAnswer, o.Summary)
	} else {
		m.input.SetMode(input.ModeFollowUp, "")
	}
	m.transcript.ToBottom()
	// The run is over, so no approval can be pending: moving to the input
	// cannot make a keystroke approve anything, and the next message is
	// typed there.
	m.setFocus(focusInput)
}

// start begins a run with input.
func (m *Model) start(input string) tea.Cmd {
	m.input.Reset()
	run := m.opts.Run
	return m.launch(func(ctx context.Context) runtime.GoalOutcome { return run(ctx, input) })
}

// launch runs fn as the session's run, in its own goroutine.
func (m *Model) launch(fn func(ctx context.Context) runtime.GoalOutcome) tea.Cmd {
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &activeRun{ctx: ctx, cancel: cancel, done: make(chan struct{})}
	m.run = r
	m.thinking = true
	m.runStart = m.now()
	m.input.SetMode(input.ModeGoal, "")
	if m.last != nil {
		m.input.SetMode(input.ModeFollowUp, "")
	}
	m.note = ""
	m.transcript.ToBottom()
	// Focus stays where the person left it, usually the input they just
	// sent from: the board takes focus only when they move it there, so
	// text they go on typing can never answer a call.
	bridge := m.bridge
	// What the first answer's Markdown needs is set up beside the run,
	// while the model thinks, rather than before the first frame (which
	// it would slow and grow) or when the answer comes (which it would
	// hold up); see markdown.Warm.
	return tea.Batch(warmMarkdown, func() tea.Msg {
		out := fn(ctx)
		r.outcome = out
		close(r.done)
		bridge.push(runDone{run: r, outcome: out})
		return nil
	})
}

// warmMarkdown sets up what the first answer's Markdown needs, once.
func warmMarkdown() tea.Msg {
	markdown.Warm()
	return nil
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
	return m.run != nil && (m.thinking || m.board.Reply().AnyRunning())
}

// startTicking starts the spinner when something began to move.
func (m *Model) startTicking() tea.Cmd {
	if m.ticking || !m.needTick() {
		return nil
	}
	m.ticking = true
	return m.spin.Tick
}
