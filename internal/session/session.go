// Package session carries one agent session in a process, for the console
// and for agenttui run alike, so that both live it the same way:
//
//   - New builds the agent over the workspace tools, with the approval
//     policy as its hook, the configured budgets and bounds, and the system
//     prompt with the project's instructions.
//   - Start sets up tracing, fans the runtime's events out (the journal
//     first, so that an intent is on disk before anything else hears of it
//     and before its effect is performed; then the screen or the printer;
//     then the tracer) and starts the MCP servers; Attach keeps the agent's
//     catalogue in step with them from then on.
//   - StartJournal, Adopt and Clear begin, reopen and end the session's
//     journal; Adopt also decides how a loaded session is carried on: its
//     goal run, its interrupted run resumed, or nothing until new input.
//   - Run runs the session once it is ready; Close shuts it all down.
//
// What differs between the front ends is handed in through Options: where
// events are shown, how the shell sandbox is made, how tools are wrapped,
// and what a person is told while a run waits. The package prints nothing:
// what the person should be told is returned, or sent to the sink.
package session

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/internal/instructions"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/mcp"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// Options are what a session is made of. Workspace and Policy are needed;
// the rest may be left zero.
type Options struct {
	// Workspace is the folder the agent works in, absolute and final.
	Workspace string
	// Model is the model of the turns to come; nil while a resumed
	// session's is not known yet (Adopt or SetModel gives it).
	Model model.Model
	// Policy is the approval policy, the agent's hook; its rules are set
	// from Rules and its workspace from Workspace.
	Policy *approval.Policy
	// Rules are the approval rules: the configured ones, then the command
	// line's.
	Rules []approval.NamedRule
	// Config is the configuration file read, if any: budgets, bounds,
	// the context window and whether sandboxed shell commands ask.
	Config *config.Config
	// MaxParallel bounds how many calls run at once.
	MaxParallel int
	// Reasoning is how hard the model is asked to reason: --reasoning,
	// else the configuration's, else the model's default.
	Reasoning model.Effort
	// Shell returns the sandbox that shell commands run in, made over the
	// workspace's resolved root; nil runs them unconfined.
	Shell func(root string) (*sandbox.Sandbox, error)
	// Wrap, when not nil, wraps each workspace tool (the console's demo
	// paces them, so a person can watch calls run).
	Wrap func(tool.Tool) tool.Tool
	// MCPConfig is the MCP configuration file named on the command line,
	// the person's own, whose servers start as it says.
	MCPConfig string
	// WorkspaceMCP, when MCPConfig is empty, are the workspace's own MCP
	// servers, which start only once the person trusts them; nil starts
	// none.
	WorkspaceMCP WorkspaceServers
	// Traces are the trace settings; zero means no traces.
	Traces traces.Settings
	// Unjournaled says the workspace is temporary (the demo, a scenario
	// unpacked from its archive), so the session is not journaled: there
	// would be nothing to resume it in.
	Unjournaled bool
	// Show hears every event after the journal and before the tracer: the
	// console's screen, or the headless printer or JSON stream.
	Show runtime.Sink
	// Servers, when set, hears the state of every MCP server each time
	// one changes, from the servers' goroutines; it must not block.
	Servers func([]mcp.ServerStatus)
	// Waiting, when set, is told what a run waits for before its first
	// turn, and "" once it waits no more.
	Waiting func(what string)
	// Hooks are the hook commands the session runs: the person's own, and
	// the workspace's, which run as HookTrust allows.
	Hooks hooks.Config
	// HookTrust is the person's trust in the workspace's own hooks (see
	// hooks.Runner.Trust); nil runs none of them.
	HookTrust *hooks.Trust
}

// WorkspaceServers are a workspace's own MCP servers, which start only
// once the person trusts them. *workspacetrust.Workspace is one.
type WorkspaceServers interface {
	// Servers returns the servers to start now; nil while untrusted.
	Servers() (*mcp.Config, error)
	// Verify reports why a server may not start now, before each start
	// and restart.
	Verify(mcp.ServerConfig) error
}

// Host is one session's life in a process: the agent, the session it runs,
// its journal, its MCP servers and its tracer. Make it with New.
//
// The caller never overlaps runs, Compact, Adopt and Clear with each other:
// those own the session and the journal's state, which the runtime's and
// the MCP servers' goroutines only read through atomics.
type Host struct {
	opts   Options
	agent  *runtime.Agent
	model  *model.Switchable
	tools  []tool.Tool
	prompt instructions.Prompt
	// promptBase is the configuration's own system prompt, if any, which
	// a resumed session's prompt is made from again.
	promptBase string

	// session is the session the host carries; journalTried says its
	// journal was made (or found impossible); toolsCheck is the session,
	// resumed at rest, whose tools are compared with the agent's at the
	// next run, once the MCP servers are attached.
	session      *runtime.Session
	journalTried bool
	toolsCheck   *journal.Replay

	// jw is the journal, once there is one; the sink reads it from the
	// runtime's and the MCP servers' goroutines.
	jw atomic.Pointer[journal.Writer]
	// servers is set by Start, once the MCP configuration is read; the
	// servers' goroutines read it to report their states.
	servers atomic.Pointer[mcpCatalog]
	// attached is closed by Attach, which changes the agent's Sink: no run
	// may start before.
	attached chan struct{}

	// traces is the exporter Start set up and Close flushes; traceID is
	// the session's trace, in hex, when traces are on, and headerTrace the
	// one a new journal records (empty for a resumed session's process).
	traces      *traces.Exporter
	traceID     string
	headerTrace string

	// tempCheckpoints is the temporary folder of an unjournaled session's
	// checkpoints, removed when the session ends.
	tempCheckpoints string

	// notices are what New found wrong but could work around (an agent
	// file that does not load), sent once Start has a sink.
	notices []runtime.Notice
	// ws is the workspace the tools work in.
	ws *workspace.Workspace
}

// New builds the session's agent and gives it a fresh session; nothing is
// started, so it is cheap enough to do before the console's first frame. A
// workspace the tools cannot work in, or a rule the policy refuses, is an
// *Error; a sandbox Shell cannot make is Shell's error, as it returned it.
func New(o Options) (*Host, error) {
	ws, err := openWorkspace(o.Workspace, o.Shell)
	if err != nil {
		return nil, err
	}
	// Files changed from now on are not the workspace's own: what they
	// say is untrusted by default (a fetched or cloned file).
	ws.SetSessionStart(time.Now())
	// A redirect is followed only as far as the policy would let a first
	// request to its target run (see redirects.go).
	var h *Host
	web := workspace.WebOptions{Follow: func(r workspace.Redirect) bool { return h.followsRedirect(r) }}
	if o.Config != nil {
		web.AllowPrivate = o.Config.WebAllowPrivate
	}
	ws.SetWeb(web)
	tools := wrapTools(ws.Tools(), o.Wrap)
	h = &Host{opts: o, model: model.NewSwitchable(o.Model), attached: make(chan struct{}), ws: ws}
	tools = append(tools, h.taskTool(ws))
	h.tools = tools
	// The tools are ours, and their schemas are compiled when first called:
	// compiling them all now would cost the first frame several milliseconds.
	cat, err := runtime.NewLazyCatalog(tools...)
	if err != nil {
		return nil, fmt.Errorf("building the tool catalogue: %w", err)
	}
	o.Policy.SetWorkspace(o.Workspace)
	if err := o.Policy.SetRules(o.Rules); err != nil {
		return nil, &Error{Err: err}
	}
	a := &runtime.Agent{
		Model:       h.model,
		Catalog:     cat,
		Hooks:       []runtime.Hook{o.Policy},
		MaxParallel: o.MaxParallel,
		Mode:        func() string { return string(o.Policy.Mode()) },
	}
	if c := o.Config; c != nil {
		a.Budgets = c.Budgets
		a.MaxOutputTokens = c.MaxOutputTokens
		a.MaxResultBytes = c.MaxResultBytes
		a.Prices = c.Prices
		o.Policy.SetSandboxedShell(c.SandboxedShell)
	}
	a.Reasoning = o.Reasoning
	a.Untrusted = o.Config.UntrustedSource()
	if o.Model != nil {
		a.Context = contextPolicy(o.Config, o.Model)
		// An effort the model refuses would fail the first turn; it is
		// said now, before anything starts.
		if err := model.CheckEffort(o.Model.Name(), o.Reasoning); model.Refuses(err) {
			return nil, &Error{Err: err}
		}
	}
	// The prompt is read once, here, so that every request of the session
	// carries the same bytes and a provider's prompt cache can serve them.
	base, err := o.Config.SystemPrompt()
	if err != nil {
		return nil, err
	}
	h.promptBase = base
	h.prompt = instructions.SystemPrompt(base, o.Workspace, time.Now())
	a.System = h.prompt.Text
	h.agent = a
	h.SetHooks(o.Hooks)
	h.session = runtime.NewSession(newID(time.Now()))
	return h, nil
}

// WorkspaceTools returns the built-in tools over the folder dir, their
// shell commands confined by the sandbox shell makes (when shell is not
// nil), each wrapped by wrap when it is not nil.
func WorkspaceTools(dir string, shell func(root string) (*sandbox.Sandbox, error), wrap func(tool.Tool) tool.Tool) ([]tool.Tool, error) {
	ws, err := openWorkspace(dir, shell)
	if err != nil {
		return nil, err
	}
	return wrapTools(ws.Tools(), wrap), nil
}

// openWorkspace opens the workspace at dir, its shell commands confined by
// the sandbox shell makes (when shell is not nil).
func openWorkspace(dir string, shell func(root string) (*sandbox.Sandbox, error)) (*workspace.Workspace, error) {
	ws, err := workspace.New(dir)
	if err != nil {
		return nil, &Error{Err: fmt.Errorf("--workspace %s: %v", dir, err)}
	}
	if shell != nil {
		sb, err := shell(ws.Root())
		if err != nil {
			return nil, err
		}
		ws.SetSandbox(sb)
	}
	return ws, nil
}

// wrapTools wraps each tool by wrap, when it is not nil.
func wrapTools(tools []tool.Tool, wrap func(tool.Tool) tool.Tool) []tool.Tool {
	if wrap != nil {
		for i, t := range tools {
			tools[i] = wrap(t)
		}
	}
	return tools
}

// contextPolicy returns the context window and compaction threshold of m:
// the configured window, else the built-in table's, else a guess. A
// scripted model (the demo, a scenario) has no window unless one is
// configured: its conversations are short and its context is not a real
// one.
func contextPolicy(c *config.Config, m model.Model) runtime.ContextPolicy {
	p := runtime.ContextPolicy{AutoCompact: runtime.DefaultAutoCompact}
	if c != nil && c.AutoCompact != nil {
		p.AutoCompact = *c.AutoCompact
	}
	if c != nil && c.ContextWindow > 0 {
		p.Window = c.ContextWindow
		return p
	}
	if sw, ok := m.(*model.Switchable); ok {
		m = sw.Current()
	}
	if _, scripted := m.(*model.Scripted); scripted || m == nil {
		return runtime.ContextPolicy{AutoCompact: p.AutoCompact}
	}
	p.Window, p.Guessed = model.ContextWindow(m.Name())
	p.Guessed = !p.Guessed
	return p
}

// newID returns a fresh session id: the start time, then random hex, so ids
// sort by age and never collide.
func newID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Agent returns the session's agent: its model (a *model.Switchable),
// context policy and catalogue are what the console shows.
func (h *Host) Agent() *runtime.Agent { return h.agent }

// Session returns the session the host carries now.
func (h *Host) Session() *runtime.Session { return h.session }

// Prompt returns the system prompt the agent was given.
func (h *Host) Prompt() instructions.Prompt { return h.prompt }

// TraceID returns the session's trace, in hex, once Start has set traces
// up; empty when traces are off.
func (h *Host) TraceID() string { return h.traceID }

// SetModel makes m the model of the turns to come, with its own context
// window, while a run may be going (the console's /model). When m refuses
// the reasoning effort the session asks for (a model that always reasons,
// asked for none), the effort goes back to m's default, and the person is
// told.
func (h *Host) SetModel(m model.Model) {
	h.model.Set(m)
	h.agent.SetContextPolicy(contextPolicy(h.opts.Config, m))
	if err := model.CheckEffort(m.Name(), h.agent.Effort()); model.Refuses(err) {
		h.agent.SetEffort(model.EffortDefault)
		if h.agent.Sink != nil {
			h.Say(runtime.Notice{Level: "warning", Text: err.Error() + "; reasoning is back to the model's default"})
		}
	}
}

// SetEffort makes e the reasoning effort of the turns to come, while a run
// may be going (the console's /reasoning), and returns how the header
// says it. An effort the current model cannot take is refused, changing
// nothing, with an error that says which setting to change.
func (h *Host) SetEffort(e model.Effort) (string, error) {
	name := h.model.Name()
	if err := model.CheckEffort(name, e); err != nil {
		return "", err
	}
	h.agent.SetEffort(e)
	return model.DescribeEffort(name, e), nil
}

// Effort says how hard the current model is asked to reason, as the
// console's header shows it.
func (h *Host) Effort() string { return model.DescribeEffort(h.model.Name(), h.agent.Effort()) }

// Say tells the person n through the agent's sink, as the runtime's own
// notices are told: journaled, shown and traced. It may be called once
// Start has returned.
func (h *Host) Say(n runtime.Notice) { h.agent.Sink(n) }

// Error is a session that cannot be set up as asked, for a reason the
// person can mend: a workspace the tools cannot work in, a rule the
// approval policy refuses, an MCP configuration that is wrong, a session
// that cannot be found or read or belongs to another workspace. Its message
// is one line. The command tells it from a failure of the machine by its
// type, and exits 2.
type Error struct {
	// Err says what is wrong.
	Err error
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }
