package launch

import (
	"context"
	"errors"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/playground"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// HeadlessOptions say how a session without the console is brought up.
type HeadlessOptions struct {
	// Goal is the session's goal, which its journal records; empty for a
	// loaded session carried on.
	Goal string
	// Replay is a loaded session to carry on (see LoadSession), or nil
	// for a fresh one.
	Replay *journal.Replay
	// Approver answers the calls that need approval; nil skips them, as
	// nobody can answer (the headless policy).
	Approver approval.Approver
	// Show hears every event, after the journal.
	Show runtime.Sink
	// Traces are the trace settings; zero means no traces.
	Traces traces.Settings
	// Speed, when above zero, plays a scenario's delays that many times
	// as fast; otherwise a scenario plays without them, since nobody
	// watches.
	Speed float64
	// Started, when set, is called once the session's tools are set up
	// and before anything is said, so that a printer can name the shell
	// sandbox and the trace.
	Started func(*session.Host)
}

// Headless is a session brought up without the console by Open: its host,
// its approval policy and what Open made for it.
type Headless struct {
	// Host carries the session.
	Host *session.Host
	// Policy is the session's approval policy; SetApprover changes who
	// answers it between runs.
	Policy *approval.Policy
	// Carry says how a loaded session goes on (see session.Resumption).
	Carry session.Resumption

	settings *Settings
	pg       *playground.Playground
	goal     string
}

// Open brings a session up the way agenttui run does: it chooses the model,
// unpacks a scenario's workspace (a fresh session only), builds the session
// with the settings' policy, rules, sandbox and trusted hooks, starts its
// MCP servers (the workspace's own only once trusted) and waits for them (so the first reply can use every tool),
// and begins its journal or adopts the loaded one. It does not run the
// goal. s becomes the session's own: Close closes its sandbox.
func Open(ctx context.Context, s *Settings, o HeadlessOptions) (_ *Headless, err error) {
	hl := &Headless{settings: s, goal: o.Goal}
	if o.Replay != nil && o.Goal == "" {
		hl.goal = o.Replay.Header.Goal
	}
	defer func() {
		if err != nil {
			hl.CloseSession()
		}
	}()
	m, demo := model.Model(nil), false
	if o.Replay != nil {
		m, err = ResumeModel(s, o.Replay, 1)
	} else {
		m, demo, err = ChooseModel(s)
	}
	if err != nil {
		return nil, err
	}
	if sc, ok := m.(*model.Scripted); ok {
		if o.Speed > 0 {
			m = sc.WithSpeed(o.Speed)
		} else {
			m = sc.WithoutDelays()
		}
	}
	// A scenario that carries its workspace (the demo's is the sample
	// project) plays in it; a resumed session stays in its own.
	unjournaled := demo
	if o.Replay == nil {
		if hl.pg, err = s.Playground(ScenarioOf(m), demo); err != nil {
			return nil, err
		}
		unjournaled = unjournaled || hl.pg != nil && hl.pg.Temp
	}
	hl.Policy = approval.NewPolicy(s.Mode, o.Approver)
	so, err := s.SessionOptions(m, hl.Policy, o.Traces)
	if err != nil {
		return nil, err
	}
	so.Unjournaled, so.Show = unjournaled, o.Show
	wt, err := s.WorkspaceTrust(&so, demo)
	if err != nil {
		return nil, err
	}
	if hl.Host, err = session.New(so); err != nil {
		return nil, err
	}
	s.ProtectTrusted(wt)
	// MCP servers start first, so a bad configuration stops here before
	// anything else happens.
	if err := hl.Host.Start(o.Replay); err != nil {
		return nil, err
	}
	if o.Started != nil {
		o.Started(hl.Host)
	}
	if wt != nil && wt.Pending() {
		// Nobody can be asked here, so the workspace's own hooks do not
		// run and its servers do not start; the person's own do.
		hl.Host.Say(wt.UntrustedNotice())
	}
	if hl.pg != nil && hl.pg.Temp && !demo {
		hl.Host.Say(runtime.Notice{Level: "info", Text: hl.pg.Note()})
	}
	// The journal is opened once the servers are attached, so that its
	// header records the tools the run really offers.
	hl.Host.WaitServers(ctx)
	hl.Host.Attach()
	if o.Replay != nil {
		if hl.Carry, err = hl.Host.Adopt(o.Replay, nil); err != nil {
			return nil, err
		}
	} else if err := hl.Host.StartJournal(o.Goal); err != nil {
		return nil, err
	}
	for _, n := range hl.Carry.Notices {
		hl.Host.Say(n)
	}
	return hl, nil
}

// ID returns the session's id.
func (hl *Headless) ID() string { return hl.Host.Session().ID }

// Workspace returns the folder the session works in.
func (hl *Headless) Workspace() string { return hl.settings.Workspace }

// Goal returns the session's goal.
func (hl *Headless) Goal() string { return hl.goal }

// SetApprover makes a the approver of the next run's calls that need
// approval; nil applies the headless policy.
func (hl *Headless) SetApprover(a approval.Approver) { hl.Policy.SetApprover(a) }

// Run runs the session with input and returns its outcome. A loaded
// session whose last run was interrupted has that run carried on first
// (see session.Resumption), once; input then follows it, unless the
// carried run was stopped.
func (hl *Headless) Run(ctx context.Context, input string) runtime.GoalOutcome {
	if carry := hl.Carry.Run; carry != nil {
		hl.Carry.Run = nil
		if o := carry(ctx); ctx.Err() != nil {
			return o
		}
	}
	return hl.Host.Run(ctx, input)
}

// CloseSession shuts the session down (its MCP servers, its journal, its
// traces), then removes a temporary playground and ends the shell sandbox.
// journalErr and tracesErr are as session.Host.Close gives them.
func (hl *Headless) CloseSession() (journalErr, tracesErr error) {
	if hl.Host != nil {
		journalErr, tracesErr = hl.Host.Close()
	}
	hl.cleanup()
	return journalErr, tracesErr
}

// Close is CloseSession for callers that only need one error: the
// journal's, else the traces'.
func (hl *Headless) Close() error {
	journalErr, tracesErr := hl.CloseSession()
	if journalErr != nil {
		return errors.New(session.JournalLost(hl.ID(), journalErr).Text)
	}
	return tracesErr
}

// cleanup removes what Open made besides the host.
func (hl *Headless) cleanup() {
	if hl.pg != nil {
		hl.pg.Cleanup()
	}
	hl.settings.CloseShell()
}
