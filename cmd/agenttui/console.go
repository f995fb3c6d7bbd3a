package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui"
)

// demoPace is how long each demo tool call pauses in the console, so a person
// can watch calls wait, run side by side and finish.
const demoPace = 350 * time.Millisecond

// stopWait bounds how long quitting waits for a stopped run to return, so
// its outcome can be printed; the runtime gives running calls two seconds.
const stopWait = 5 * time.Second

// runConsole opens the interactive console. With a goal it starts a run at
// once; without one it waits for the person to type a goal (in the demo the
// input holds the demo's goal, and Enter starts it). With --resume or
// --continue it shows the stored session and carries it on.
//
// Nothing slow happens before the first frame: what is cheap and can fail
// as a usage error (flags, configuration, the model of a fresh session, the
// workspace tools) is checked first, and the rest — loading a session's
// journal, the --continue scan, the MCP servers — happens once the console
// is on screen (console.open). A session that cannot be opened is shown as
// an error on screen and makes the exit code 2, as it does for "agenttui
// run".
//
// When the console closes, the outcome of the last run that ended is printed
// to the normal screen, so it stays in the scrollback. The exit code is 0
// whatever that outcome was: the console is an interactive session, not a
// check; "agenttui run" is the command whose exit code follows the outcome.
// It is 1 only when the console itself could not run, and 2 for usage
// errors.
func runConsole(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	o, err := parseOptions("agenttui", args, false, stdout)
	if err != nil {
		return 2, err
	}
	defer o.closeShell()
	traceEnv, err := traces.FromEnv(os.Getenv)
	if err != nil {
		return 2, err
	}
	c := &console{o: o, resuming: o.resume != "" || o.cont, bridge: tui.NewBridge(nil), attached: make(chan struct{}),
		traceEnv: traceEnv}
	defer c.bridge.Close()

	// A fresh session's model is chosen now, so that a bad --model is a
	// usage error before anything starts; a resumed session's model may
	// come from its journal, which is read after the first frame.
	var m model.Model
	description := ""
	if !c.resuming {
		if m, c.demo, err = chooseModel(o); err != nil {
			return 2, err
		}
		if err := checkPlay(o, m); err != nil {
			return 2, err
		}
		if s, ok := m.(*model.Scripted); ok {
			description = s.Scenario().Description
			m = s.WithSpeed(o.speed)
		}
	}
	in, inOK := stdin.(*os.File)
	out, outOK := stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return 2, usagef(`the console needs a terminal; for a run without one use: agenttui run "goal"`)
	}
	// A scenario that carries its workspace (the demo's is the sample
	// project) plays in it.
	pg, err := preparePlayground(o, scenarioOf(m), c.demo)
	if err != nil {
		return 2, err
	}
	if pg != nil {
		defer pg.cleanup()
		c.unjournaled = pg.temp
		if pg.temp && !c.demo {
			c.notices = append(c.notices, runtime.Notice{Level: "info", Text: pg.note()})
		}
	}
	if c.demo {
		c.unjournaled = true
		p := time.Duration(float64(demoPace) / o.speed)
		c.wrap = func(t tool.Tool) tool.Tool { return pace(t, p) }
	}
	c.policy = approval.NewPolicy(o.mode, c.bridge)
	// The agent asks whichever model /model last chose.
	c.model = model.NewSwitchable(m)
	if c.agent, err = newAgent(o, c.model, c.policy, nil, c.wrap); err != nil {
		return 2, err
	}
	hist, histErr := openHistory(o.workspace)
	opts := tui.Options{
		Run:         c.run,
		Open:        c.open,
		Bridge:      c.bridge,
		Policy:      c.policy,
		Model:       "…",
		Demo:        c.demo,
		Description: description,
		Workspace:   o.workspace,
		Goal:        o.goal,
		Shell:       o.shell.Status(),
		History:     hist,
		SwitchModel: c.switchModel,
		Compact:     c.compact,
		NewSession:  c.newSession,
		Sessions:    c.sessions,
		Resume:      c.resumeSession,
	}
	if histErr != nil {
		c.notices = append(c.notices, runtime.Notice{Level: "warning", Text: histErr.Error()})
	}
	switch {
	case o.cont:
		opts.Opening = "finding the latest session of this workspace…"
	case o.resume != "":
		opts.Opening = "loading session " + o.resume + "…"
	}
	opts.Instructions = o.prompt.Summary()
	if m != nil {
		opts.ContextWindow, opts.ContextGuessed = c.agent.ContextPolicy().Window, c.agent.ContextPolicy().Guessed
		opts.Model = m.Name()
		c.session = runtime.NewSession(newSessionID(time.Now()))
		if !c.unjournaled {
			opts.Session = c.session.ID
		}
	}
	switch sc := scenarioOf(m); {
	case sc != nil && o.autopilot:
		opts.Autopilot = &tui.Autopilot{Scenario: sc, Speed: o.speed}
	case sc != nil && o.goal == "":
		// The person the scenario recorded typed this first: the input
		// starts with it, and Enter sends it.
		opts.Prefill = sc.Steps[0].Input
	}
	rec, err := startRecording(o.record, out, opts.Description)
	if err != nil {
		return 2, err
	}
	var recorder tui.Recorder
	if rec != nil {
		recorder = rec
	}
	final, runErr := tui.Run(tui.New(opts), in, out, recorder)
	if rec != nil {
		stopRecording(rec, o.record, stderr)
	}
	// The alternate screen is gone: the outcome goes to the normal screen,
	// where it stays in the scrollback.
	if runErr == nil {
		if outcome, ok := final.Outcome(stopWait); ok {
			fmt.Fprint(stdout, tui.PlainOutcome(outcome))
		}
	}
	openErr := c.close(stderr)
	switch {
	case runErr != nil:
		return 1, fmt.Errorf("the console failed: %w", runErr)
	case openErr != nil:
		// It was on screen; now it stays in the scrollback too.
		if _, ok := usageLine(openErr); ok {
			return 2, openErr
		}
		return 1, openErr
	}
	return 0, nil
}

// console is one console session's wiring between the command line, the
// agent, its journal, its MCP servers and the screen.
type console struct {
	o        *options
	resuming bool
	demo     bool
	// unjournaled says the session's workspace is temporary (the demo, a
	// scenario unpacked from its archive), so it is not journaled and its
	// id is not shown: there would be nothing to resume it in.
	unjournaled bool
	wrap        func(tool.Tool) tool.Tool
	bridge      *tui.Bridge
	policy      *approval.Policy
	// servers is set by open, once the MCP configuration is read.
	servers atomic.Pointer[mcpCatalog]

	// agent and session are complete before the console hears of the
	// session (Bridge.Open), and runs start only after that. /clear and
	// /resume replace the session while no run is going.
	agent   *runtime.Agent
	session *runtime.Session
	// model is the agent's model, which /model switches.
	model *model.Switchable
	// notices are said on screen when the session is opened.
	notices []runtime.Notice
	// jw is the journal, once there is one; the sink reads it from the
	// runtime's and the MCP servers' goroutines.
	jw atomic.Pointer[journal.Writer]
	// journalTried is touched only by runs, which never overlap.
	journalTried bool
	// toolsCheck is the session, resumed at rest, whose tools are compared
	// with the agent's at the first run, once the MCP servers are attached;
	// prepare sets it before the console can start a run.
	toolsCheck *journal.Replay
	// attached is closed once the MCP catalogue is attached to the agent,
	// which changes its Sink: no run may start before.
	attached chan struct{}
	// traceEnv is what the environment asks of traces; traces is their
	// exporter, set up by open (after the first frame) and flushed by
	// close; nil when traces are off.
	traceEnv traces.Settings
	traces   *traces.Exporter

	mu      sync.Mutex // guards closing and opening
	closing bool
	opening sync.WaitGroup
	openErr error // set by open; read after opening is done
}

// open readies the session after the first frame: it loads the journal of
// a resumed session (the --continue scan included), chooses its model,
// reopens its journal, starts the MCP servers, and hands the session to the
// console. It never waits for the servers to come up: the first run does.
func (c *console) open() {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.opening.Add(1)
	c.mu.Unlock()
	defer c.opening.Done()

	opened, err := c.prepare()
	if err != nil {
		c.openErr = err
		c.bridge.Open(tui.Opened{Err: err})
		return
	}
	// History first, then whatever the servers have to say.
	c.bridge.Open(opened)
	if servers := c.servers.Load(); servers.mgr() != nil {
		// With no servers there is nothing to attach: the agent keeps the
		// catalogue it has, and no notice can come from elsewhere.
		servers.attach(c.agent)
	}
	close(c.attached)
	c.reportServers()
}

// prepare does the work of open that can fail.
func (c *console) prepare() (tui.Opened, error) {
	o := c.o
	var rp *journal.Replay
	if c.resuming {
		var err error
		if rp, err = loadSession(o); err != nil {
			return tui.Opened{}, err
		}
		m, jw, err := adopt(o, rp)
		if err != nil {
			return tui.Opened{}, err
		}
		c.model.Set(m)
		c.agent.SetContextPolicy(contextPolicy(o, m))
		c.session = rp.Session
		c.jw.Store(jw)
		c.journalTried = true
	}
	// The exporter is set up here, off the first frame's path; it sends
	// nothing until there are spans.
	tr, err := traces.Start(c.traceEnv)
	if err != nil {
		return tui.Opened{}, err
	}
	c.traces = tr
	traceID := tr.SessionTrace(rp)
	tracer := tr.Tracer(traceID)
	if tracer != nil && rp == nil {
		o.traceID = traceID.String()
	}
	// The journal comes first: an intent is on disk before anything else
	// hears of it, and before the effect is performed.
	c.agent.Sink = func(e runtime.Event) {
		if jw := c.jw.Load(); jw != nil {
			jw.Event(e)
		}
		c.bridge.Sink(e)
		if tracer != nil {
			tracer.Event(e)
		}
	}
	c.agent.Durable = journalErr(&c.jw)
	// The MCP catalogue's own copy of the workspace tools is wrapped the
	// same way, or attaching it would undo the demo's pacing.
	base, err := workspaceTools(o, c.wrap)
	if err != nil {
		return tui.Opened{}, err
	}
	servers := newMCPCatalog(base)
	servers.watch = c.reportServers
	if err := servers.start(context.Background(), o.workspace, o.mcpConfig); err != nil {
		return tui.Opened{}, err
	}
	c.servers.Store(servers)
	if rp == nil {
		opened := tui.Opened{Model: c.model.Name(), Notices: c.notices}
		opened.ContextWindow, opened.ContextGuessed = c.agent.ContextPolicy().Window, c.agent.ContextPolicy().Guessed
		if !c.unjournaled {
			opened.ID = c.session.ID
		}
		return opened, nil
	}
	opened := c.opened(rp)
	opened.Notices = append(c.notices, opened.Notices...)
	return opened, nil
}

// opened returns the loaded session rp, which is the console's session now,
// as the console shows it: its history, then either its interrupted run
// carried on at once, or, at rest, the notices about it.
func (c *console) opened(rp *journal.Replay) tui.Opened {
	opened := tui.Opened{Model: c.model.Name(), ID: c.session.ID, History: rp.Events}
	opened.ContextWindow, opened.ContextGuessed = c.agent.ContextPolicy().Window, c.agent.ContextPolicy().Guessed
	session, agent := c.session, c.agent
	switch {
	case len(session.Messages) == 0:
		// The session stopped before its first run began.
		opened.Resume = func(ctx context.Context) runtime.GoalOutcome {
			c.ready(ctx)
			return agent.Run(ctx, session, rp.Header.Goal)
		}
	case !rp.AtRest:
		opened.Resume = func(ctx context.Context) runtime.GoalOutcome {
			c.ready(ctx)
			for _, n := range resumeNotices(rp, agent) {
				agent.Sink(n)
			}
			return agent.Resume(ctx, session, rp.Interrupted)
		}
	default:
		// At rest: the history's last outcome readies the input (the
		// Answer prompt after a question); nothing runs until the person
		// says more.
		opened.Notices = damageNotices(rp)
		c.toolsCheck = rp
	}
	return opened
}

// run is the console's Options.Run: one run of the session with the
// person's input.
func (c *console) run(ctx context.Context, input string) runtime.GoalOutcome {
	c.ready(ctx)
	if rp := c.toolsCheck; rp != nil {
		c.toolsCheck = nil
		if n, ok := toolsNotice(rp, c.agent); ok {
			c.agent.Sink(n)
		}
	}
	c.startJournal(input)
	out := c.agent.Run(ctx, c.session, input)
	if jw := c.jw.Load(); jw != nil && jw.Err() != nil {
		c.agent.Sink(journalLost(c.session.ID, jw.Err()))
	}
	return out
}

// compact is the console's /compact: the session's conversation is
// compacted now, the summary keeping focus in particular. A session with no
// run yet has nothing to compact.
func (c *console) compact(ctx context.Context, focus string) error {
	if len(c.session.Messages) == 0 {
		return errors.New("the session has no conversation yet")
	}
	c.ready(ctx)
	return c.agent.Compact(ctx, c.session, focus)
}

// ready waits until the MCP catalogue is attached and, the first time, the
// servers have started or failed (each within its start timeout), so that
// the first reply can use every tool; the screen says what it waits for.
func (c *console) ready(ctx context.Context) {
	select {
	case <-c.attached:
	case <-ctx.Done():
		return
	}
	servers := c.servers.Load()
	mgr := servers.mgr()
	if mgr == nil {
		return
	}
	select {
	case <-mgr.Ready():
		return
	default:
	}
	c.bridge.Waiting("MCP servers to start")
	servers.waitReady(ctx)
	c.bridge.Waiting("")
}

// startJournal creates the journal of a fresh session at its first run,
// whose input is the session's goal. A console opened and closed without a
// run leaves no journal behind. A journal that cannot be created is said on
// screen; the session goes on, but cannot be resumed.
func (c *console) startJournal(goal string) {
	if c.journalTried || c.unjournaled {
		return
	}
	c.journalTried = true
	jw, err := startJournal(c.o, c.session.ID, goal, c.agent, c.policy, false)
	if err != nil {
		c.agent.Sink(runtime.Notice{Level: "warning", Text: "this session is not journaled, so it cannot be resumed: " + err.Error()})
		return
	}
	c.jw.Store(jw)
}

// reportServers tells the console every MCP server's state and tool count.
// It is called when the servers start and after each of their notices and
// changes: there is no polling.
func (c *console) reportServers() {
	servers := c.servers.Load()
	if servers == nil {
		// A notice during start, before open has stored the catalogue:
		// open reports the states once it has.
		return
	}
	all := servers.servers()
	if len(all) == 0 {
		return
	}
	out := make([]tui.Server, len(all))
	for i, s := range all {
		out[i] = tui.Server{Name: s.Name, State: string(s.State), Tools: s.Tools, Err: s.Err}
	}
	c.bridge.Servers(out)
}

// close ends the session once the console has closed: it waits for open
// (which a quick quit may have interrupted), shuts the MCP servers down and
// closes the journal. It returns why the session could not be opened, if
// it could not.
func (c *console) close(stderr io.Writer) error {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.opening.Wait()
	if servers := c.servers.Load(); servers != nil {
		servers.close()
	}
	if jw := c.jw.Load(); jw != nil {
		if err := jw.Close(); err != nil {
			fmt.Fprintf(stderr, "agenttui: %v\n", err)
		}
	}
	if err := c.traces.Close(); err != nil {
		fmt.Fprintf(stderr, "agenttui: %v\n", err)
	}
	return c.openErr
}
