// Package mcpserver is agenttui's face as an MCP server: another agent or an
// editor hands agenttui a goal over MCP (the run_goal tool), gets the run's
// GoalOutcome back, and may carry the session on (continue_session) or look
// at the sessions the server holds (list_sessions).
//
// A call that needs approval is asked of the calling client's user through
// elicitation when the client can elicit, and skipped by the headless policy
// otherwise; a clarification question is asked the same way. The run's
// progress goes to the client as progress notifications when the call asked
// for them, and a client that cancels its call stops the run as Esc does in
// the console, so the journal and the outcome say what was not finished.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Launcher opens sessions for the server.
type Launcher interface {
	// Open prepares a fresh session for a goal: its workspace, model and approval policy resolved
	// from the request and the person's configuration, its MCP servers started and its journal begun.
	// It does not run the goal. An error is the caller's to mend (a workspace that does not exist, an
	// unknown mode or model) and its message is one line, which the server returns as a tool error.
	Open(ctx context.Context, req OpenRequest) (Session, error)
}

// Reopener is a Launcher that can also reopen a journaled session the
// server does not hold (one begun before the server restarted, as a client
// that starts its servers afresh restarts them), so that continue_session
// carries it on.
type Reopener interface {
	// Reopen loads session id from its journal and prepares it to go on,
	// its events going to show. A session no journal holds is
	// ErrUnknownSession; any other error is one line, returned as a tool
	// error.
	Reopen(ctx context.Context, id string, show runtime.Sink) (Session, error)
}

// ErrUnknownSession is what Reopen returns for a session no journal holds.
var ErrUnknownSession = errors.New("unknown session")

// OpenRequest is what run_goal asks of a session.
type OpenRequest struct {
	// Goal is the goal the session's first run pursues.
	Goal string
	// Workspace is the folder the session works in; "" means the server's
	// own workspace.
	Workspace string
	// Mode is the approval mode; "" means the configured mode.
	Mode string
	// Model is the model; "" means the configured model.
	Model string
	// Show hears every event of every run of the session, from the runtime's goroutines; it must not block.
	Show runtime.Sink
}

// Session is one agent session the server carries. Runs of one session never overlap (the server ensures it).
type Session interface {
	// ID returns the session's id, which continue_session names it by.
	ID() string
	// Workspace returns the folder the session works in.
	Workspace() string
	// Goal returns the goal the session was opened for.
	Goal() string
	// SetApprover makes a the approver of the next run's calls that need approval; nil applies the
	// headless policy (those calls are skipped, and the model reads why).
	SetApprover(a approval.Approver)
	// Run runs the session with input (the goal at first, later an answer or a follow-up) and returns
	// its outcome. When ctx ends with a cause made by runtime.Stop, the run stops like Esc in the console:
	// every unsettled call gets its honest not-finished result, and the outcome says so.
	Run(ctx context.Context, input string) runtime.GoalOutcome
	// Close ends the session (closes its journal, stops its MCP servers).
	Close() error
}

// Options configure the server.
type Options struct {
	// Version is agenttui's version, which the server reports to clients
	// as its implementation's version.
	Version string
}

// Why a run stops early, as the model and the outcome read it.
const (
	clientCancelled = "the MCP client cancelled the request"
	shuttingDown    = "the MCP server is shutting down"
)

// Server is agenttui's MCP server. Make it with New; it is safe for use by
// many clients at once, each run_goal call running its own session.
type Server struct {
	launcher Launcher
	mcp      *mcp.Server
	http     http.Handler

	// closing ends when Close begins: runs stop, elicitations end and no
	// new run starts.
	closing     context.Context
	stopClosing context.CancelFunc
	closeOnce   sync.Once
	closeErr    error

	// mu guards sessions, byID, closed and every entry's running, outcome
	// and idle fields: list_sessions reads them while runs change them.
	mu       sync.Mutex
	sessions []*entry // oldest first
	byID     map[string]*entry
	closed   bool
	// calls counts the tool calls that hold a session or are opening one;
	// Close waits for them before it closes the sessions. Add is only
	// called under mu while closed is false.
	calls sync.WaitGroup
}

// entry is one session the server holds.
type entry struct {
	sess Session
	// id, workspace and goal are the session's, read once when it was
	// registered, so that listing never calls into a session.
	id, workspace, goal string
	// progress hears the current run's events for the call that runs it,
	// when that call asked for progress; nil otherwise.
	progress atomic.Pointer[progress]

	// running says a tool call holds the session (it runs, or waits for
	// an answer between runs); outcome is the JSON of its last run's
	// outcome, nil before the first ends; idle is closed when the call
	// that holds it lets it go. Server.mu guards all three.
	running bool
	outcome json.RawMessage
	idle    chan struct{}
	// reopening says the entry stands for a journaled session that the
	// call holding it is reopening: it is in byID, so that no other call
	// reopens the same journal, but not yet listed.
	reopening bool
}

// hear passes the session's events to the progress of the call that runs
// it, if that call asked for progress. It is the session's Show.
func (e *entry) hear(ev runtime.Event) {
	if p := e.progress.Load(); p != nil {
		p.hear(ev)
	}
}

// New returns agenttui's MCP server, opening sessions with l.
func New(l Launcher, o Options) *Server {
	closing, stop := context.WithCancel(context.Background())
	s := &Server{launcher: l, closing: closing, stopClosing: stop, byID: map[string]*entry{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "agenttui", Title: "agenttui", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// No logging capability: the server sends no log messages.
		Capabilities: &mcp.ServerCapabilities{},
		// A run asks its approvals and questions while it runs, through
		// requests the server sends the client. The 2026-07-28 protocol
		// forbids those in favour of results that end the call and ask to
		// be called again, which a run that is half way through a reply
		// cannot do; so the server speaks the versions before it, and a
		// newer client falls back to one of them.
		SupportedProtocolVersions: legacyVersions(),
	})
	s.addTools()
	// Stateful sessions, so that elicitation and progress reach the client.
	s.http = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	return s
}

// instructions tell a client what the server is for.
const instructions = "agenttui runs a goal with its tool-using agent in a workspace and returns how it ended: " +
	"succeeded (a summary and extracted data), failed (what died), or refused (a question for you). " +
	"Start with run_goal; answer a question or send a follow-up with continue_session; " +
	"list_sessions shows the sessions this server holds."

// legacyVersions returns the protocol versions the SDK supports that still
// let a server send requests (elicitation) while it handles a call.
func legacyVersions() []string {
	var out []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			out = append(out, v)
		}
	}
	return out
}

// MCP returns the SDK server, for transports the server has no method for.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Handler returns the server as streamable HTTP, with stateful sessions so
// that elicitation and progress notifications reach the client.
func (s *Server) Handler() http.Handler { return s.http }

// ServeStdio serves one client over in and out (newline-delimited JSON-RPC,
// as over a process's standard input and output) until in ends or ctx ends,
// then closes the server (see Close). A line that is not JSON is answered
// with a JSON-RPC parse error and one that is no JSON-RPC message with an
// invalid request, and the server goes on serving. When in ends, the
// requests read before its end are answered first, the runs going stopped
// as Close stops them. It closes in when in is an io.ReadCloser, since a
// read blocked on it could not end otherwise, and leaves out to the caller.
// It returns nil when the stream or ctx ended, and otherwise the
// transport's error or Close's.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	// The runs stop as soon as ctx ends: the SDK waits for the calls in
	// flight before it lets go of the stream.
	stop := context.AfterFunc(ctx, func() { _ = s.Close() })
	defer stop()
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	err := s.mcp.Run(ctx, newLineTransport(rc, out, func() { _ = s.Close() }))
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		err = nil
	}
	return errors.Join(err, s.Close())
}

// nopWriteCloser leaves closing the output to whoever opened it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Close stops the runs going (their calls get not-finished results saying
// the MCP server is shutting down), waits for the tool calls that hold
// sessions to return, and closes every session. Tool calls made afterwards
// are refused. Calling it again waits for the first call and returns its
// error.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.stopClosing()
		s.calls.Wait()
		s.mu.Lock()
		sessions := s.sessions
		s.mu.Unlock()
		var errs []error
		for _, e := range sessions {
			if err := e.sess.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// errShuttingDown refuses a tool call made while the server closes.
var errShuttingDown = errors.New("the MCP server is shutting down")

// enter counts a tool call that will hold or open a session, unless the
// server is closing.
func (s *Server) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errShuttingDown
	}
	s.calls.Add(1)
	return nil
}

// register makes e the entry of sess, a freshly opened session held by the
// call that opened it, and adds it to the sessions the server holds.
func (s *Server) register(e *entry, sess Session) {
	id, workspace, goal := sess.ID(), sess.Workspace(), sess.Goal()
	s.mu.Lock()
	defer s.mu.Unlock()
	e.sess, e.id, e.workspace, e.goal = sess, id, workspace, goal
	e.running, e.idle = true, make(chan struct{})
	s.sessions = append(s.sessions, e)
	s.byID[e.id] = e
}

// errUnknown and errBusy say why a session cannot be continued.
var (
	errUnknown = errors.New("unknown session")
	errBusy    = errors.New("session is running")
)

// take gives the calling tool call the session id, which must be idle, and
// counts the call (see enter).
func (s *Server) take(id string) (*entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errShuttingDown
	}
	e, ok := s.byID[id]
	if _, can := s.launcher.(Reopener); !ok && can {
		e = &entry{id: id, running: true, idle: make(chan struct{}), reopening: true}
		s.byID[id] = e
		s.calls.Add(1)
		return e, nil
	}
	switch {
	case !ok:
		return nil, errUnknown
	case e.running:
		return nil, errBusy
	}
	e.running = true
	e.idle = make(chan struct{})
	s.calls.Add(1)
	return e, nil
}

// adopt makes sess, reopened from its journal, the session of e, which the
// calling tool call reserved with take, and lists it.
func (s *Server) adopt(e *entry, sess Session) {
	workspace, goal := sess.Workspace(), sess.Goal()
	s.mu.Lock()
	defer s.mu.Unlock()
	e.sess, e.workspace, e.goal, e.reopening = sess, workspace, goal, false
	s.sessions = append(s.sessions, e)
}

// forget drops e, which take reserved for a session that could not be
// reopened, and lets go of it.
func (s *Server) forget(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, e.id)
	e.running = false
	close(e.idle)
}

// settle records the outcome of a run of e, whose call still holds it.
func (s *Server) settle(e *entry, raw json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.outcome = raw
}

// release lets go of e: the call that held it is about to return.
func (s *Server) release(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.running = false
	close(e.idle)
}

// listed is one session as list_sessions shows it.
type listed struct {
	Session   string          `json:"session"`
	Workspace string          `json:"workspace"`
	Goal      string          `json:"goal"`
	State     string          `json:"state"`
	Outcome   json.RawMessage `json:"outcome"`
}

// list returns the sessions the server holds, oldest first.
func (s *Server) list() []listed {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]listed, 0, len(s.sessions))
	for _, e := range s.sessions {
		state := "idle"
		if e.running {
			state = "running"
		}
		out = append(out, listed{Session: e.id, Workspace: e.workspace, Goal: e.goal, State: state, Outcome: e.outcome})
	}
	return out
}

// idleOf returns the channel closed when the call holding session id lets
// it go; nil for a session the server does not hold. Tests wait on it.
func (s *Server) idleOf(id string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byID[id]; ok {
		return e.idle
	}
	return nil
}

// runOnce runs e once with input under a context that outlives ctx, so that
// a cancelled call still waits for the run to stop and its journal to hold
// the not-finished results: when ctx ends, or the server closes, the run is
// stopped with the reason the model and the outcome read.
func (s *Server) runOnce(ctx context.Context, e *entry, input string) runtime.GoalOutcome {
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	stopClient := context.AfterFunc(ctx, func() { cancel(runtime.Stop(clientCancelled)) })
	defer stopClient()
	stopServer := context.AfterFunc(s.closing, func() { cancel(runtime.Stop(shuttingDown)) })
	defer stopServer()
	return e.sess.Run(runCtx, input)
}

// untilClosing returns a context that ends when ctx ends or the server
// begins to close, and the function that releases it.
func (s *Server) untilClosing(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.closing, cancel)
	return c, func() { stop(); cancel() }
}
