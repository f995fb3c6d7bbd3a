package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttui/agenttui/runtime/tool"
)

// server is one configured server and its life: starting, ready, stopped
// and restarted once, failed or down.
type server struct {
	m   *Manager
	cfg ServerConfig

	mu    sync.Mutex
	state State
	err   string
	conn  *conn   // the live connection while ready
	tools []*Tool // the tools of the last listing
	// restarted says the one restart a server gets has been used.
	restarted bool
	// pending is closed when the start or restart in progress ends; nil
	// when none is.
	pending chan struct{}

	listMu sync.Mutex // serialises re-listings after list_changed
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{Name: s.cfg.Name, Transport: s.cfg.Transport, State: s.state, Err: s.err}
	if s.offers() {
		st.Tools = len(s.tools)
	}
	if s.conn != nil {
		st.PID = s.conn.pid()
	}
	return st
}

// offers reports whether the server's tools are offered: they are unless
// it failed or is down. A stopped server's tools stay, since a call starts
// it again, and so do those of one being restarted. s.mu must be held.
func (s *server) offers() bool { return s.state != StateFailed && s.state != StateDown }

// run starts the server (or restarts it, when restart is true) and
// records the result. It is run by a goroutine of the manager while
// s.pending is open.
func (s *server) run(restart bool) {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.StartTimeout)
	defer cancel()
	c, tools, left, err := s.connect(ctx)

	s.mu.Lock()
	pending := s.pending
	s.pending = nil
	if s.m.isClosed() {
		s.mu.Unlock()
		close(pending)
		if c != nil {
			c.close(true)
		}
		return
	}
	if err != nil {
		what := "did not start"
		s.state = StateFailed
		if restart {
			what = "stopped and could not be restarted, so it is down"
			s.state = StateDown
		}
		s.err = err.Error()
		s.mu.Unlock()
		close(pending)
		s.m.notice(levelWarning, fmt.Sprintf("MCP server %q %s: %v; its tools are not available", s.cfg.Name, what, err))
		if restart {
			s.m.changed()
		}
		return
	}
	same := restart && sameTools(s.tools, tools)
	s.state, s.err, s.conn, s.tools = StateReady, "", c, tools
	if restart {
		s.restarted = true
	}
	close(c.live)
	s.mu.Unlock()
	close(pending)
	s.reportLeftOut(left)
	if restart {
		s.m.notice(levelInfo, fmt.Sprintf("MCP server %q was restarted", s.cfg.Name))
	}
	if !same {
		s.m.changed()
	}
	s.m.spawn(func() { s.watch(c) })
}

// connect opens a connection and lists the server's tools, within ctx,
// once Options.Verify lets the server start.
func (s *server) connect(ctx context.Context) (*conn, []*Tool, []string, error) {
	if verify := s.m.opts.Verify; verify != nil {
		if err := verify(s.cfg); err != nil {
			return nil, nil, nil, err
		}
	}
	c := &conn{s: s, live: make(chan struct{}), done: make(chan struct{}), closed: make(chan struct{})}
	client := sdk.NewClient(&sdk.Implementation{Name: "agenttui", Version: "1"}, &sdk.ClientOptions{
		// No roots: the configuration, not this client, says what a server
		// may reach (the reference filesystem server would otherwise ask).
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			// Re-list off the connection's reading goroutine, which must go
			// on reading for the listing to be answered.
			s.m.spawn(func() { s.relist(c) })
		},
	})
	transport := c.transport(s.m.dir)
	// A server that does not answer in time is killed now rather than
	// after a polite grace period: it has shown it will not cooperate.
	stop := context.AfterFunc(ctx, c.kill)
	session, err := client.Connect(ctx, transport, nil)
	if err == nil {
		c.started(session)
		var tools []*Tool
		var left []string
		tools, left, err = s.list(ctx, c)
		if err == nil && stop() {
			return c, tools, left, nil
		}
	}
	stop()
	err = s.startError(ctx, c, err)
	c.close(false)
	if tail := c.stderrTail(); tail != "" {
		err = fmt.Errorf("%v (its last output: %s)", err, tail)
	}
	return nil, nil, nil, err
}

// startError words why a start failed. It is called before the connection
// is closed, so that a process that ended by itself can be told from one
// this side killed.
func (s *server) startError(ctx context.Context, c *conn, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("it did not answer within %s", s.m.opts.StartTimeout)
	case c.proc.Load() != nil && (c.ended() || errors.Is(err, sdk.ErrConnectionClosed) && waitFor(c.proc.Load().exited, s.m.opts.StopGrace)):
		// "connection closed: EOF" says less than how the process ended,
		// which its end of the pipe has just told.
		return c.endError()
	case err == nil:
		return ctx.Err()
	}
	return err
}

// list fetches every page of the server's tool list and declares them.
func (s *server) list(ctx context.Context, c *conn) ([]*Tool, []string, error) {
	var listed []*sdk.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("listing its tools: %w", err)
		}
		listed = append(listed, t)
	}
	tools, left := s.declare(listed)
	return tools, left, nil
}

func (s *server) reportLeftOut(left []string) {
	for _, why := range left {
		s.m.notice(levelWarning, fmt.Sprintf("MCP server %q: %s", s.cfg.Name, why))
	}
}

// relist answers a tools/list_changed notification from connection c.
func (s *server) relist(c *conn) {
	// A notification may come before the first listing is recorded; the
	// listing that answers it must come after.
	select {
	case <-c.live:
	case <-c.closed:
		return
	case <-s.m.ctx.Done():
		return
	}
	s.listMu.Lock()
	defer s.listMu.Unlock()
	ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.StartTimeout)
	defer cancel()
	tools, left, err := s.list(ctx, c)
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	if err != nil {
		s.mu.Unlock()
		s.m.notice(levelWarning, fmt.Sprintf("MCP server %q said its tools changed, but %v; keeping the tools it had", s.cfg.Name, err))
		return
	}
	same := sameTools(s.tools, tools)
	s.tools = tools
	s.mu.Unlock()
	s.reportLeftOut(left)
	if !same {
		s.m.changed()
	}
}

// watch waits for connection c to end and, unless it was closed on
// purpose, records that the server stopped.
func (s *server) watch(c *conn) {
	select {
	case <-c.done:
		s.lost(c, c.endError())
	case <-s.m.ctx.Done():
	}
}

// lost records that the server behind c stopped because of err, and
// returns what became of it, StateStopped (started again at its next call)
// or StateDown, and why it stopped. It is idempotent per connection.
func (s *server) lost(c *conn, err error) (State, string) {
	why := c.cause(err)
	s.mu.Lock()
	if s.conn != c || s.m.isClosed() {
		s.mu.Unlock()
		return c.fate()
	}
	s.conn = nil
	s.err = "stopped: " + why
	s.state = StateStopped
	if s.restarted {
		s.state = StateDown
		s.err = "stopped again after a restart: " + why
	}
	c.setFate(s.state, why)
	state := s.state
	s.mu.Unlock()

	if !s.m.spawn(func() { c.close(true) }) {
		c.close(true)
	}
	if state == StateDown {
		s.m.notice(levelWarning, fmt.Sprintf("MCP server %q is down: it stopped again after it had been restarted once (%s); "+
			"its tools are no longer offered", s.cfg.Name, why))
		s.m.changed()
	} else {
		s.m.notice(levelWarning, fmt.Sprintf("MCP server %q stopped (%s); it will be started again at the next call to one of its tools",
			s.cfg.Name, why))
	}
	return state, why
}

// acquire returns a live connection for a call, restarting a stopped
// server first. When there is none it returns the result the call ends
// with instead.
func (s *server) acquire(ctx context.Context) (*conn, tool.Return, bool) {
	for {
		if s.m.isClosed() {
			return nil, s.fail(tool.Other, fmt.Sprintf("The MCP server %q was shut down, so this call did not run.", s.cfg.Name)), false
		}
		s.mu.Lock()
		switch s.state {
		case StateReady:
			c := s.conn
			s.mu.Unlock()
			return c, tool.Return{}, true
		case StateStopped:
			s.state = StateStarting
			s.pending = make(chan struct{})
			if !s.m.spawn(func() { s.run(true) }) {
				close(s.pending)
				s.pending = nil
			}
		case StateDown, StateFailed:
			what := "is down"
			if s.state == StateFailed {
				what = "did not start"
			}
			why := s.err
			s.mu.Unlock()
			return nil, s.fail(tool.Other, fmt.Sprintf("The MCP server %q %s (%s), so this call did not run. "+
				"Its tools cannot be used in this session.", s.cfg.Name, what, why)), false
		}
		pending := s.pending
		s.mu.Unlock()
		if pending == nil {
			continue
		}
		select {
		case <-pending:
		case <-ctx.Done():
			return nil, cancelled(ctx, false), false
		}
	}
}

// call runs the server's tool name with args.
func (s *server) call(ctx context.Context, name string, args json.RawMessage) tool.Return {
	c, ret, ok := s.acquire(ctx)
	if !ok {
		return ret
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	// The call also ends when its connection is closed, so that Close
	// never waits for a call the server will not answer.
	callCtx, stop := c.bind(ctx)
	defer stop()
	res, err := c.session.CallTool(callCtx, &sdk.CallToolParams{Name: name, Arguments: args})
	switch {
	case err == nil:
		return s.result(name, res)
	case ctx.Err() != nil:
		return cancelled(ctx, true)
	case s.m.isClosed():
		return s.fail(tool.Other, fmt.Sprintf("The MCP server %q was shut down while running this call, "+
			"so the call may have partly run.", s.cfg.Name))
	}
	if wire, ok := answered(err); ok && wire.Code == oversizeCode {
		// The server is alive and well; only its answer was too large to
		// read. It did run the call.
		text := fmt.Sprintf("The call to %s ran, but the MCP server %q answered with more than this session can take: %s, "+
			"so the answer was dropped. Ask the tool for less: narrower arguments, or a page at a time if it offers paging.",
			name, s.cfg.Name, wire.Message)
		return tool.Fail(tool.Other(fmt.Sprintf("MCP server %s: tools/call %s: %s", s.cfg.Name, name, wire.Message)), text)
	}
	if wire, ok := answered(err); ok && !c.ended() {
		// The server answered, with an error instead of a result: it is
		// alive and stays so.
		text := fmt.Sprintf("The MCP server %q refused the call to %s: %s", s.cfg.Name, name, wire.Message)
		return tool.Fail(tool.Other(fmt.Sprintf("MCP server %s: tools/call %s: %s", s.cfg.Name, name, wire.Message)), text)
	}
	state, why := s.lost(c, err)
	text := fmt.Sprintf("The MCP server %q stopped while running this call (%s). The call may have partly run: check before repeating it. ", s.cfg.Name, why)
	if state == StateDown {
		text += "It had already been restarted once, so it is now down and its tools cannot be used in this session."
	} else {
		text += "The server will be started again at the next call to one of its tools."
	}
	return s.fail(tool.Other, text)
}

// answered returns the error the server sent back, if err is one, as
// opposed to one the SDK made up because the request could not be sent or
// its answer could not arrive.
func answered(err error) (*jsonrpc.Error, bool) {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil, false
	}
	switch wire.Code {
	case codeClientClosing, codeServerClosing, codeRejected:
		return nil, false
	}
	return wire, true
}

// Codes the SDK's JSON-RPC layer gives errors of its own making (see
// jsonrpc2.ErrClientClosing, ErrServerClosing and ErrRejected in the SDK).
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// fail returns an error result whose text the model reads. Servers over
// HTTP fail with kind network, since what broke is a connection.
func (s *server) fail(kind func(string) tool.Failure, text string) tool.Return {
	if s.cfg.Transport == TransportHTTP {
		kind = tool.Network
	}
	return tool.Fail(kind(fmt.Sprintf("MCP server %s: %s", s.cfg.Name, firstLine(text, 200))), text)
}

// cancelled is the result of a call whose context ended first.
func cancelled(ctx context.Context, started bool) tool.Return {
	text := "The call was cancelled before the MCP server could run it."
	if started {
		text = "The call was cancelled before the MCP server answered; it may have partly run."
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return tool.Fail(tool.Timeout("the call ran out of time"), text)
	}
	return tool.Fail(tool.Cancelled("the call was cancelled"), text)
}
