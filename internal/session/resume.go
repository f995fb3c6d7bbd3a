package session

import (
	"context"

	"github.com/agenttui/agenttui/internal/instructions"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// Resumption is how a loaded session is carried on, as Adopt decides it
// for the console and agenttui run alike.
type Resumption struct {
	// Run carries the session on where its journal ends, once the host is
	// Ready: the goal of a session that stopped before its first run
	// began, or its interrupted run, resumed without performing any
	// completed effect again. Either says first what the person should
	// know: damage the load tolerated, and tools that changed. Run is nil
	// for a session at rest, which waits for new input; its last outcome
	// (a question, say) is the journal's.
	Run func(ctx context.Context) runtime.GoalOutcome
	// Notices are the damage the load of a session at rest tolerated,
	// for the caller to show as the session opens. Whether its tools
	// changed is said at its next run, once the MCP servers are attached.
	Notices []runtime.Notice
}

// Adopt makes the loaded session rp the host's session in place of the one
// it has, whose journal is closed, with its own journal reopened for
// appending and no grants; m, when not nil, is the model to carry it on
// with. It returns how to carry it on. Nothing changes when rp's journal
// cannot be reopened or the current one cannot be closed.
func (h *Host) Adopt(rp *journal.Replay, m model.Model) (Resumption, error) {
	jw, err := journal.Reopen(rp, redact.FromEnv())
	if err != nil {
		return Resumption{}, err
	}
	if err := h.closeJournal(); err != nil {
		jw.Close()
		return Resumption{}, err
	}
	if m != nil {
		h.SetModel(m)
	}
	h.closeCheckpoints()
	h.session = rp.Session
	// A file is the workspace's own when it was there as it is when the
	// session first began, not when this process did. The system prompt
	// gives that day too, not this process's, so that the resumed
	// session's requests carry the bytes its earlier ones did and the
	// provider's prompt cache still serves them.
	if !rp.Header.Started.IsZero() {
		h.ws.SetSessionStart(rp.Header.Started)
		h.prompt = instructions.SystemPrompt(h.promptBase, h.opts.Workspace, rp.Header.Started)
		h.agent.System = h.prompt.Text
	}
	h.jw.Store(jw)
	h.journalTried, h.toolsCheck = true, nil
	h.opts.Policy.ClearGrants()
	restored := h.adoptCheckpoints(jw)

	session, agent := h.session, h.agent
	switch {
	case len(session.Messages) == 0:
		// The session stopped before its first run began.
		return Resumption{Run: func(ctx context.Context) runtime.GoalOutcome {
			h.Ready(ctx)
			h.sayResumed(rp, restored)
			for _, n := range h.openCheckpoints(ctx) {
				h.Say(n)
			}
			return agent.Run(ctx, session, rp.Header.Goal)
		}}, nil
	case !rp.AtRest:
		return Resumption{Run: func(ctx context.Context) runtime.GoalOutcome {
			h.Ready(ctx)
			h.sayResumed(rp, restored)
			for _, n := range h.openCheckpoints(ctx) {
				h.Say(n)
			}
			return agent.Resume(ctx, session, rp.Interrupted)
		}}, nil
	}
	h.toolsCheck = rp
	return Resumption{Notices: append(damageNotices(rp), restored...)}, nil
}

// adoptCheckpoints opens the adopted session's checkpoint store, when it
// recorded checkpoints, and settles a restore it left unfinished. The
// settlement is journaled through jw even before the session's sink is
// set, as it is in the console, which starts its sink later.
func (h *Host) adoptCheckpoints(jw *journal.Writer) []runtime.Notice {
	if len(h.session.Changes) == 0 {
		return nil
	}
	if h.agent.Sink == nil {
		h.agent.Sink = jw.Event
		defer func() { h.agent.Sink = nil }()
	}
	return h.openCheckpoints(context.Background())
}

// sayResumed says what a person should know about a loaded session whose
// run is about to go on: tolerated damage, and changed tools.
func (h *Host) sayResumed(rp *journal.Replay, restored []runtime.Notice) {
	for _, n := range append(damageNotices(rp), restored...) {
		h.Say(n)
	}
	if n, ok := toolsNotice(rp, h.agent); ok {
		h.Say(n)
	}
}

// damageNotices returns the damage loading a session tolerated.
func damageNotices(rp *journal.Replay) []runtime.Notice {
	var out []runtime.Notice
	for _, w := range rp.Warnings {
		out = append(out, runtime.Notice{Level: "warning", Text: "journal: " + w})
	}
	return out
}

// toolsNotice says when the tools the agent will offer — the workspace's and
// the MCP servers', so it is asked once the servers are attached — differ
// from those the session was recorded with.
func toolsNotice(rp *journal.Replay, agent *runtime.Agent) (runtime.Notice, bool) {
	if rp.Header.Catalog == "" || rp.Header.Catalog == agent.CurrentCatalog().Digest() {
		return runtime.Notice{}, false
	}
	return runtime.Notice{Level: "warning", Text: "the tools changed since this session was recorded " +
		"(a tool, an MCP server or a schema differs); calls to tools that are gone will be refused"}, true
}
