package session

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/mcp"
	"github.com/agenttui/agenttui/runtime/tool"
)

// startMCP starts the MCP servers of configPath (--mcp-config) when it is
// given, else the workspace's own that own gives (none until the person
// trusts them, each verified before it starts and restarts); with neither
// it returns a nil manager and no error. An unreadable or invalid
// configuration is an *Error, one line naming the file, the server and the
// problem, and nothing is started.
//
// The servers start in the background and work in the workspace; notice
// hears about those that fail, and onChange (which may be nil) is called
// whenever the servers' tools change, from the manager's goroutines. When
// ctx ends the servers are shut down as by Close.
func startMCP(ctx context.Context, workspace, configPath string, own WorkspaceServers, notice func(runtime.Notice), onChange func()) (*mcp.Manager, error) {
	opts := mcp.Options{Dir: workspace, Notice: notice, OnChange: onChange}
	var cfg *mcp.Config
	var err error
	switch {
	case configPath != "":
		if abs, err := filepath.Abs(configPath); err == nil {
			configPath = abs
		}
		cfg, err = mcp.LoadConfig(configPath)
	case own != nil:
		cfg, err = own.Servers()
		opts.Verify = own.Verify
	}
	if err != nil {
		return nil, &Error{Err: err}
	}
	if cfg == nil {
		return nil, nil
	}
	m := mcp.Start(cfg, opts)
	context.AfterFunc(ctx, func() { m.Close() })
	return m, nil
}

// mcpCatalog keeps an agent's catalogue in step with the MCP servers: the
// workspace tools plus the servers' current tools, rebuilt whenever those
// change. A tool that cannot be declared (a schema that does not compile, a
// name declared twice) is left out with a notice, once, and the rest load.
// Notices (servers that failed, tools left out) are held until attach and
// then go to the agent's sink, in order, one at a time.
//
// Use: newMCPCatalog, start (before anything else starts, so that a bad
// configuration stops the command cleanly), waitReady where a run must find
// every tool at its first turn, attach once the agent's Sink is final, and
// close on exit.
type mcpCatalog struct {
	base []tool.Tool
	// watch, when set before start, is called after every notice and
	// every change of the servers' tools, so the console can show each
	// server's state as it changes; it must not block.
	watch func()

	mu       sync.Mutex // guards the fields below
	manager  *mcp.Manager
	agent    *runtime.Agent
	held     []runtime.Notice
	reported map[string]bool

	sendMu sync.Mutex // keeps notices in order while held ones are sent
}

// newMCPCatalog returns a catalogue source over the workspace tools base.
func newMCPCatalog(base []tool.Tool) *mcpCatalog {
	return &mcpCatalog{base: base, reported: map[string]bool{}}
}

// start starts the MCP servers as startMCP does; with no configuration it
// does nothing.
func (c *mcpCatalog) start(ctx context.Context, workspace, configPath string, own WorkspaceServers) error {
	m, err := startMCP(ctx, workspace, configPath, own, c.notice, c.changed)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.manager = m
	c.mu.Unlock()
	return nil
}

// waitReady waits until every server has started or failed, or ctx ends.
func (c *mcpCatalog) waitReady(ctx context.Context) {
	if m := c.mgr(); m != nil {
		select {
		case <-m.Ready():
		case <-ctx.Done():
		}
	}
}

// build returns a catalogue of the workspace tools and the servers' tools
// as they are now.
func (c *mcpCatalog) build() *runtime.Catalog {
	tools := append([]tool.Tool(nil), c.base...)
	if m := c.mgr(); m != nil {
		tools = append(tools, m.Tools()...)
	}
	cat, left := runtime.BuildCatalog(tools...)
	for _, err := range left {
		c.mu.Lock()
		seen := c.reported[err.Error()]
		c.reported[err.Error()] = true
		c.mu.Unlock()
		if !seen {
			c.notice(runtime.Notice{Level: "warning", Text: "a tool was left out: " + err.Error()})
		}
	}
	return cat
}

// attach hands the agent a catalogue with the servers' tools, from its
// next turn (its first one too), and a fresh one whenever they change. It
// wraps the agent's Sink, which must be final, with serialSink, because
// notices come from the servers' goroutines, and sends it the notices held
// so far.
func (c *mcpCatalog) attach(a *runtime.Agent) {
	if a.Sink == nil {
		a.Sink = func(runtime.Event) {}
	}
	a.Sink = serialSink(a.Sink)
	c.sendMu.Lock()
	c.mu.Lock()
	c.agent = a
	held := c.held
	c.held = nil
	c.mu.Unlock()
	for _, n := range held {
		a.Sink(n)
	}
	c.sendMu.Unlock()
	// A change may have come before attach; build now in any case.
	a.SetCatalog(c.build())
}

// notice is the manager's Notice: it holds the notice until attach, then
// sends it to the agent's sink.
func (c *mcpCatalog) notice(n runtime.Notice) {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	a := c.agent
	if a == nil {
		c.held = append(c.held, n)
	}
	c.mu.Unlock()
	if a != nil {
		a.Sink(n)
	}
	if c.watch != nil {
		c.watch()
	}
}

// changed is the manager's OnChange.
func (c *mcpCatalog) changed() {
	c.mu.Lock()
	a := c.agent
	c.mu.Unlock()
	if a != nil {
		a.SetCatalog(c.build())
	}
	if c.watch != nil {
		c.watch()
	}
}

// servers returns the status of every MCP server.
func (c *mcpCatalog) servers() []mcp.ServerStatus {
	if m := c.mgr(); m != nil {
		return m.Servers()
	}
	return nil
}

// close shuts the servers down and waits until they are gone.
func (c *mcpCatalog) close() {
	if m := c.mgr(); m != nil {
		m.Close()
	}
}

// mgr returns the servers' manager: nil when there is no configuration, or
// before start (c itself may be nil then).
func (c *mcpCatalog) mgr() *mcp.Manager {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.manager
}

// serialSink returns a sink that passes events to s one at a time. The
// agent never calls its sink concurrently, but MCP notices come from the
// servers' own goroutines, so a sink that hears both needs this.
func serialSink(s runtime.Sink) runtime.Sink {
	var mu sync.Mutex
	return func(e runtime.Event) {
		mu.Lock()
		defer mu.Unlock()
		s(e)
	}
}
