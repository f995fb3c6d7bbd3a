package session

import (
	"context"
	"errors"

	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
)

// Start readies what the session talks to: the exporter of its traces, the
// fan-out of its events, and its MCP servers, which come up in the
// background. rp is the loaded session that is carried on, whose trace the
// spans join, or nil for a fresh session, which gets a trace of its own. A
// trace setting or MCP configuration that cannot work is an error
// (*traces.Error, *Error) before any server starts.
//
// The console calls it after its first frame, agenttui run at once; the
// agent's Sink is set here, so nothing may run before.
func (h *Host) Start(rp *journal.Replay) error {
	tr, err := traces.Start(h.opts.Traces)
	if err != nil {
		return err
	}
	h.traces = tr
	id := tr.SessionTrace(rp)
	tracer := tr.Tracer(id)
	if tracer != nil {
		h.traceID = id.String()
		if rp == nil {
			h.headerTrace = h.traceID
		}
	}
	// The journal comes first: an intent is on disk before anything else
	// hears of it, and before the effect is performed.
	show := h.opts.Show
	h.agent.Sink = func(e runtime.Event) {
		if jw := h.jw.Load(); jw != nil {
			jw.Event(e)
		}
		if show != nil {
			show(e)
		}
		if tracer != nil {
			tracer.Event(e)
		}
	}
	h.agent.Durable = h.JournalErr
	for _, n := range h.notices {
		h.agent.Sink(n)
	}
	servers := newMCPCatalog(h.tools)
	servers.watch = h.reportServers
	if err := servers.start(context.Background(), h.opts.Workspace, h.opts.MCPConfig, h.opts.WorkspaceMCP); err != nil {
		return err
	}
	h.servers.Store(servers)
	return nil
}

// WaitServers waits until every MCP server has started or failed (each
// within its start timeout), or ctx ends. agenttui run waits before Attach,
// so its first reply can use every tool and the servers' notices come
// before anything else; the console does not wait, and its first run does.
func (h *Host) WaitServers(ctx context.Context) {
	h.servers.Load().waitReady(ctx)
}

// Attach hands the agent the MCP servers' tools, from its next turn on, and
// a fresh catalogue whenever they change, and sends it the servers' notices
// held so far. With no servers there is nothing to attach: the agent keeps
// the catalogue it has. Runs may start once it returns.
func (h *Host) Attach() {
	if servers := h.servers.Load(); servers.mgr() != nil {
		servers.attach(h.agent)
	}
	close(h.attached)
	h.reportServers()
}

// Ready waits until the MCP catalogue is attached and, the first time, the
// servers have started or failed, so that the first reply can use every
// tool; Options.Waiting is told what it waits for. It returns early when
// ctx ends.
func (h *Host) Ready(ctx context.Context) {
	select {
	case <-h.attached:
	case <-ctx.Done():
		return
	}
	servers := h.servers.Load()
	mgr := servers.mgr()
	if mgr == nil {
		return
	}
	select {
	case <-mgr.Ready():
		return
	default:
	}
	h.waiting("MCP servers to start")
	servers.waitReady(ctx)
	h.waiting("")
}

// waiting tells Options.Waiting what a run waits for, when it is set.
func (h *Host) waiting(what string) {
	if h.opts.Waiting != nil {
		h.opts.Waiting(what)
	}
}

// Run runs the session with the person's input, once it is Ready: a session
// resumed at rest first says whether its tools changed, and a fresh
// session's journal is made at its first run, with the input as its goal;
// a journal that cannot be made is said, and the session goes on unjournaled.
func (h *Host) Run(ctx context.Context, input string) runtime.GoalOutcome {
	h.Ready(ctx)
	if rp := h.toolsCheck; rp != nil {
		h.toolsCheck = nil
		if n, ok := toolsNotice(rp, h.agent); ok {
			h.Say(n)
		}
	}
	if err := h.StartJournal(input); err != nil {
		h.Say(runtime.Notice{Level: "warning", Text: "this session is not journaled, so it cannot be resumed: " + err.Error()})
	}
	for _, n := range h.openCheckpoints(ctx) {
		h.Say(n)
	}
	return h.agent.Run(ctx, h.session, input)
}

// Compact compacts the session's conversation now, the summary keeping
// focus in particular (the console's /compact). A session with no run yet
// has nothing to compact.
func (h *Host) Compact(ctx context.Context, focus string) error {
	if len(h.session.Messages) == 0 {
		return errors.New("the session has no conversation yet")
	}
	h.Ready(ctx)
	return h.agent.Compact(ctx, h.session, focus)
}

// reportServers hands Options.Servers every MCP server's state and tool
// count. It is called when the servers are attached and after each of their
// notices and changes: there is no polling.
func (h *Host) reportServers() {
	servers := h.servers.Load()
	if h.opts.Servers == nil || servers == nil {
		// A notice during start, before Start has stored the catalogue:
		// Attach reports the states once it has.
		return
	}
	if all := servers.servers(); len(all) > 0 {
		h.opts.Servers(all)
	}
}

// Close ends the session: it shuts the MCP servers down and waits until
// they are gone, closes the journal, and flushes the traces within their
// bound. journalErr is why the journal could not be closed whole (its first
// write error, if it had one), and tracesErr what could not be exported;
// the caller says them.
func (h *Host) Close() (journalErr, tracesErr error) {
	if servers := h.servers.Load(); servers != nil {
		servers.close()
	}
	if jw := h.jw.Swap(nil); jw != nil {
		journalErr = jw.Close()
	}
	h.closeCheckpoints()
	return journalErr, h.traces.Close()
}
