package main

import (
	"context"
	"fmt"
	"github.com/agenttui/agenttui/internal/launch"
	"io"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/history"
	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/internal/usercommands"
	"github.com/agenttui/agenttui/internal/workspacetrust"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/mcp"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui"
	"github.com/agenttui/agenttui/tui/trust"
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
	// A signal that ends the process (SIGHUP when the terminal window is
	// closed) quits the console, which then cleans up as on quitting; it
	// is caught from now on, before any temporary folder is made.
	ended := make(chan os.Signal, 1)
	signal.Notify(ended, endSignals...)
	defer signal.Stop(ended)
	o, err := parseOptions("agenttui", args, false, stdout)
	if err != nil {
		return 2, err
	}
	defer o.CloseShell()
	traceEnv, err := traces.FromEnv(os.Getenv)
	if err != nil {
		return 2, err
	}
	c := &console{o: o, resuming: o.resume != "" || o.cont, bridge: tui.NewBridge(nil)}
	defer c.bridge.Close()

	// A fresh session's model is chosen now, so that a bad --model is a
	// usage error before anything starts; a resumed session's model may
	// come from its journal, which is read after the first frame.
	var m model.Model
	description := ""
	if !c.resuming {
		if m, c.demo, err = launch.ChooseModel(&o.Settings); err != nil {
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
	pg, err := o.Playground(launch.ScenarioOf(m), c.demo)
	if err != nil {
		return 2, err
	}
	if pg != nil {
		defer pg.Cleanup()
		c.unjournaled = pg.Temp
		if pg.Temp && !c.demo {
			c.notices = append(c.notices, runtime.Notice{Level: "info", Text: pg.Note()})
		}
	}
	policy := approval.NewPolicy(o.Mode, c.bridge)
	so, err := o.SessionOptions(m, policy, traceEnv)
	if err != nil {
		return 2, err
	}
	if c.demo {
		// The MCP catalogue's copy of the workspace tools is the same, so
		// attaching it keeps the demo's pacing.
		c.unjournaled = true
		p := time.Duration(float64(demoPace) / o.speed)
		so.Wrap = func(t tool.Tool) tool.Tool { return pace(t, p) }
	}
	so.Unjournaled, so.Show, so.Servers, so.Waiting = c.unjournaled, c.bridge.Sink, c.showServers, c.bridge.Waiting
	wt, err := o.WorkspaceTrust(&so, c.demo)
	if err != nil {
		return 2, err
	}
	if c.host, err = session.New(so); err != nil {
		return 2, err
	}
	o.ProtectTrusted(wt)
	// A history that cannot be kept is said on screen, and kept for this
	// console only.
	hist, histErr := history.OpenWorkspace(o.Workspace, redact.FromEnv())
	opts := tui.Options{
		Run:          c.run,
		Open:         c.open,
		Bridge:       c.bridge,
		Policy:       policy,
		Model:        "…",
		Demo:         c.demo,
		Description:  description,
		Workspace:    o.Workspace,
		Goal:         o.goal,
		Shell:        o.Shell().Status(),
		History:      hist,
		Instructions: c.host.Prompt().Summary(),
		SwitchModel:  c.switchModel,
		SetReasoning: c.host.SetEffort,
		// Only a provider's model takes an effort: a scripted one shows
		// none.
		DescribeReasoning: func() string {
			if !providers.IsSpec(c.host.Agent().Model.Name()) {
				return ""
			}
			return c.host.Effort()
		},
		Compact:    c.host.Compact,
		Restores:   c.host,
		NewSession: c.newSession,
		Sessions:   c.sessions,
		Resume:     c.resumeSession,
		Ended:      ended,
	}
	if histErr != nil {
		c.notices = append(c.notices, runtime.Notice{Level: "warning", Text: histErr.Error()})
	}
	if wt != nil {
		if wt.Pending() {
			opts.Trust = c.trustRequest(wt.Ask(), true)
		}
		// A hook found changed since it was trusted asks again, over the
		// running session.
		wt.OnBreak(func(string) { c.bridge.AskTrust(c.trustRequest(wt.Ask(), false)) })
	}
	if !c.demo {
		// The person's command files: a few folder reads, and a bad file
		// is a notice, never a reason not to start.
		cmds, notes := usercommands.Load(usercommands.Dirs(o.Workspace), tui.BuiltinCommands())
		opts.Commands = cmds
		for _, n := range notes {
			c.notices = append(c.notices, runtime.Notice{Level: "warning", Text: n})
		}
	}
	switch {
	case o.cont:
		opts.Opening = "finding the latest session of this workspace…"
	case o.resume != "":
		opts.Opening = "loading session " + o.resume + "…"
	}
	if m != nil {
		opts.ContextWindow, opts.ContextGuessed = c.host.Agent().ContextPolicy().Window, c.host.Agent().ContextPolicy().Guessed
		opts.Model = m.Name()
		opts.Reasoning = opts.DescribeReasoning()
		if !c.unjournaled {
			opts.Session = c.host.Session().ID
		}
	}
	switch sc := launch.ScenarioOf(m); {
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
			fmt.Fprint(stdout, final.PlainOutcome(outcome))
		}
	}
	openErr := c.close(stderr)
	switch {
	case runErr != nil:
		return 1, fmt.Errorf("the console failed: %w", runErr)
	case openErr != nil:
		// It was on screen; now it stays in the scrollback too.
		if isUsage(openErr) {
			return 2, openErr
		}
		return 1, openErr
	}
	return 0, nil
}

// console is one console session's wiring between the command line, the
// session and the screen.
type console struct {
	o        *options
	resuming bool
	demo     bool
	// unjournaled says the session's workspace is temporary (the demo, a
	// scenario unpacked from its archive), so it is not journaled and its
	// id is not shown: there would be nothing to resume it in.
	unjournaled bool
	bridge      *tui.Bridge
	// host carries the session. It is complete before the console hears of
	// the session (Bridge.Open), and runs start only after that; /clear
	// and /resume replace its session while no run is going.
	host *session.Host
	// notices are said on screen when the session is opened.
	notices []runtime.Notice

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
	c.host.Attach()
}

// prepare does the work of open that can fail.
func (c *console) prepare() (tui.Opened, error) {
	var rp *journal.Replay
	var carry session.Resumption
	if c.resuming {
		var err error
		if rp, err = loadSession(c.o); err != nil {
			return tui.Opened{}, err
		}
		m, err := launch.ResumeModel(&c.o.Settings, rp, c.o.speed)
		if err != nil {
			return tui.Opened{}, err
		}
		if carry, err = c.host.Adopt(rp, m); err != nil {
			return tui.Opened{}, err
		}
	}
	// The exporter and the servers start here, off the first frame's path;
	// the exporter sends nothing until there are spans.
	if err := c.host.Start(rp); err != nil {
		return tui.Opened{}, err
	}
	opened := c.opened(rp, carry)
	opened.Notices = append(c.notices, opened.Notices...)
	return opened, nil
}

// opened returns the session the host carries now as the console shows it:
// a fresh one, or the loaded session rp with its history, then either its
// interrupted run carried on at once, or, at rest, the notices about it.
func (c *console) opened(rp *journal.Replay, carry session.Resumption) tui.Opened {
	policy := c.host.Agent().ContextPolicy()
	opened := tui.Opened{Model: c.host.Agent().Model.Name(), ContextWindow: policy.Window, ContextGuessed: policy.Guessed,
		Resume: carry.Run, Notices: carry.Notices}
	if !c.unjournaled {
		opened.ID = c.host.Session().ID
	}
	if rp != nil {
		opened.History = rp.Events
	}
	return opened
}

// run is the console's Options.Run: one run of the session with the
// person's input. A journal that could not be written is said when the run
// ends, with how to carry the session on.
func (c *console) run(ctx context.Context, input string) runtime.GoalOutcome {
	out := c.host.Run(ctx, input)
	if err := c.host.JournalErr(); err != nil {
		c.host.Say(session.JournalLost(c.host.Session().ID, err))
	}
	return out
}

// trustRequest asks the person whether to run the workspace's own hooks
// and MCP servers, before the session opens (first) or again while it runs;
// the answer runs them from now on (and remembers it) or leaves them out of
// this console.
func (c *console) trustRequest(q *workspacetrust.Question, first bool) *tui.TrustRequest {
	return &tui.TrustRequest{
		Question: trust.Question{Workspace: c.o.Workspace, File: q.HooksFile, Lines: q.Hooks, ServersFile: q.ServersFile,
			Servers: q.Servers, Changed: q.Changed, HooksOnly: q.HooksOnly},
		Answer: func(trusted bool) string {
			what := q.Subject(c.o.Workspace)
			switch {
			case !trusted && first:
				q.Decline()
				return what + " do not run in this console; you are asked again next time"
			case !trusted:
				q.Decline()
				return what + " no longer run in this console (servers already started keep running until you quit); " +
					"you are asked again next time"
			}
			if err := q.Grant(); err != nil {
				return fmt.Sprintf("%s run in this console, but the trust could not be kept (%v), so you are asked again next time", what, err)
			}
			return what + " run from now on, in every session here, until they change"
		},
	}
}

// showServers tells the console every MCP server's state and tool count.
func (c *console) showServers(all []mcp.ServerStatus) {
	out := make([]tui.Server, len(all))
	for i, s := range all {
		out[i] = tui.Server{Name: s.Name, State: string(s.State), Tools: s.Tools, Err: s.Err}
	}
	c.bridge.Servers(out)
}

// close ends the session once the console has closed: it waits for open
// (which a quick quit may have interrupted), then shuts the session down.
// It returns why the session could not be opened, if it could not.
func (c *console) close(stderr io.Writer) error {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.opening.Wait()
	journalErr, tracesErr := c.host.Close()
	for _, err := range []error{journalErr, tracesErr} {
		if err != nil {
			fmt.Fprintf(stderr, "agenttui: %v\n", err)
		}
	}
	return c.openErr
}
