package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The scenarios the test launcher plays, by goal.
var scenarios = map[string]string{
	// Reads a file and finishes with data.
	"read a": `{"name": "reads", "steps": [
		{"calls": [{"name": "read_file", "args": {"path": "a.txt"}}]},
		{"expect": ["alpha"], "calls": [{"name": "finish", "args": {"summary": "a.txt says alpha.", "data": {"word": "alpha"}}}]}]}`,
	// Reads a file, then expects what it never read: the run fails.
	"fail": `{"name": "fails", "steps": [
		{"calls": [{"name": "read_file", "args": {"path": "a.txt"}}]},
		{"expect": ["omega"], "text": "never"}]}`,
	// Asks a question, and finishes once it reads the answer.
	"ask": `{"name": "asks", "steps": [
		{"calls": [{"name": "ask_user", "args": {"question": "Which file should I change?"}}]},
		{"expect": ["b.txt"], "calls": [{"name": "finish", "args": {"summary": "I will change b.txt."}}]}]}`,
	// Writes two files at once; finishes only if one was written and the
	// other skipped for the reason the test gives.
	"write both": `{"name": "writes", "steps": [
		{"calls": [{"name": "write_file", "args": {"path": "a.txt", "content": "ALPHA\n"}},
		           {"name": "write_file", "args": {"path": "b.txt", "content": "BETA\n"}}]},
		{"expect": ["Replaced a.txt", "b.txt is generated; leave it alone"],
		 "calls": [{"name": "finish", "args": {"summary": "Changed a.txt only."}}]}]}`,
	// Writes a file; finishes only if the headless policy skipped it.
	"write headless": `{"name": "headless", "steps": [
		{"calls": [{"name": "write_file", "args": {"path": "a.txt", "content": "ALPHA\n"}}]},
		{"expect": ["this run is headless"], "calls": [{"name": "finish", "args": {"summary": "Could not write."}}]}]}`,
	// Asks which file to write, then writes it.
	"ask then write": `{"name": "ask-write", "steps": [
		{"calls": [{"name": "ask_user", "args": {"question": "Which file?"}}]},
		{"expect": ["a.txt"], "calls": [{"name": "write_file", "args": {"path": "a.txt", "content": "ALPHA\n"}}]},
		{"expect": ["Replaced a.txt"], "calls": [{"name": "finish", "args": {"summary": "Wrote a.txt."}}]}]}`,
	// Writes one file, then finishes.
	"write one": `{"name": "one-write", "steps": [
		{"calls": [{"name": "write_file", "args": {"path": "a.txt", "content": "ALPHA\n"}}]},
		{"expect": ["Replaced a.txt"], "calls": [{"name": "finish", "args": {"summary": "Wrote a.txt."}}]}]}`,
}

// missingWorkspace is a workspace the test launcher refuses.
const missingWorkspace = "/no/such/folder"

// testLauncher opens real sessions (internal/session) over a fresh
// workspace holding a.txt and b.txt, played by a scripted model chosen by
// the goal.
type testLauncher struct {
	t *testing.T
	// mu guards opened: the server opens sessions from its handlers'
	// goroutines.
	mu     sync.Mutex
	opened []*testSession
}

func (l *testLauncher) Open(ctx context.Context, req OpenRequest) (Session, error) {
	if req.Workspace == missingWorkspace {
		return nil, fmt.Errorf("--workspace %s: the folder does not exist", req.Workspace)
	}
	text, ok := scenarios[req.Goal]
	if !ok {
		return nil, fmt.Errorf("no scenario plays the goal %q", req.Goal)
	}
	sc, err := model.ParseScenario([]byte(text))
	if err != nil {
		return nil, err
	}
	mode := approval.ModeReads
	if req.Mode != "" {
		if mode, err = approval.ParseMode(req.Mode); err != nil {
			return nil, err
		}
	}
	ws, err := filepath.EvalSymlinks(l.t.TempDir())
	if err != nil {
		return nil, err
	}
	for name, content := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	ts := &testSession{workspace: ws, goal: req.Goal, policy: approval.NewPolicy(mode, nil)}
	h, err := session.New(session.Options{
		Workspace: ws, Model: model.NewScripted("scenario:"+sc.Name, sc), Policy: ts.policy, Unjournaled: true,
		Show: func(e runtime.Event) {
			ts.events.add(e)
			if req.Show != nil {
				req.Show(e)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	if err := h.Start(nil); err != nil {
		return nil, err
	}
	h.Attach()
	if err := h.StartJournal(req.Goal); err != nil {
		return nil, err
	}
	ts.h = h
	l.mu.Lock()
	l.opened = append(l.opened, ts)
	l.mu.Unlock()
	return ts, nil
}

// session returns the session the launcher opened with id.
func (l *testLauncher) session(id string) *testSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.opened {
		if s.ID() == id {
			return s
		}
	}
	l.t.Fatalf("the launcher opened no session %s", id)
	return nil
}

// testSession is a session.Host as the server's Session.
type testSession struct {
	h         *session.Host
	policy    *approval.Policy
	workspace string
	goal      string
	events    recorder
	closed    atomic.Bool
}

func (s *testSession) ID() string                      { return s.h.Session().ID }
func (s *testSession) Workspace() string               { return s.workspace }
func (s *testSession) Goal() string                    { return s.goal }
func (s *testSession) SetApprover(a approval.Approver) { s.policy.SetApprover(a) }
func (s *testSession) Run(ctx context.Context, input string) runtime.GoalOutcome {
	return s.h.Run(ctx, input)
}
func (s *testSession) Close() error {
	s.closed.Store(true)
	journalErr, tracesErr := s.h.Close()
	return errors.Join(journalErr, tracesErr)
}

// recorder keeps a session's events; the runtime adds them from its
// goroutines.
type recorder struct {
	mu     sync.Mutex // guards events
	events []runtime.Event
}

func (r *recorder) add(e runtime.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) all() []runtime.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]runtime.Event(nil), r.events...)
}

// hermetic keeps the sessions' configuration and state out of the person's
// folders.
func hermetic(t *testing.T) {
	t.Helper()
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"} {
		t.Setenv(v, t.TempDir())
	}
}

// newServer returns a server over a test launcher, closed when the test
// ends.
func newServer(t *testing.T) (*Server, *testLauncher) {
	t.Helper()
	hermetic(t)
	l := &testLauncher{t: t}
	srv := New(l, Options{Version: "test"})
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	return srv, l
}

// connect connects a client with opts to srv in memory; wire, when not
// nil, gets every message the client reads, as it came, before the client
// acts on it.
func connect(t *testing.T, srv *Server, opts *mcp.ClientOptions, wire *syncBuffer) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	var clientT mcp.Transport = ct
	if wire != nil {
		clientT = &mcp.LoggingTransport{Transport: ct, Writer: wire}
	}
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// syncBuffer is a bytes.Buffer that several goroutines may write.
type syncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// call calls tool with args and fails the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// texts returns the text blocks of a result.
func texts(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T is not text", c)
		}
		out = append(out, tc.Text)
	}
	return out
}

// outcomeOf decodes the structured content of a result as a GoalOutcome.
func outcomeOf(t *testing.T, res *mcp.CallToolResult) runtime.GoalOutcome {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var o runtime.GoalOutcome
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	return o
}

// sessionOf returns the session a result names in its _meta, checking the
// text names it too.
func sessionOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	id, _ := res.Meta[MetaSession].(string)
	if id == "" {
		t.Fatalf("the result's _meta names no session: %v", res.Meta)
	}
	if tx := texts(t, res); len(tx) != 2 || tx[1] != "Session "+id+": continue it with continue_session." {
		t.Fatalf("the second text block does not name session %s: %q", id, tx)
	}
	return id
}

// sessionList is list_sessions' structured content.
type sessionList struct {
	Sessions []struct {
		Session   string          `json:"session"`
		Workspace string          `json:"workspace"`
		Goal      string          `json:"goal"`
		State     string          `json:"state"`
		Outcome   json.RawMessage `json:"outcome"`
	} `json:"sessions"`
}

// listSessions calls list_sessions and decodes its structured content.
func listSessions(t *testing.T, cs *mcp.ClientSession) sessionList {
	t.Helper()
	res := call(t, cs, "list_sessions", map[string]any{})
	if res.IsError {
		t.Fatalf("list_sessions: %q", texts(t, res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var l sessionList
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// wait waits for ch, failing the test after a long while: a hang is a
// failure, not a reason to sleep.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// elicitFunc adapts a function to the client's elicitation handler.
func elicitFunc(f func(ctx context.Context, message string) (*mcp.ElicitResult, error)) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return f(ctx, req.Params.Message)
	}}
}

// accept returns an accepted elicitation with content.
func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// readFile returns a file's content, failing the test when it cannot.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// contains fails the test unless s holds every one of want.
func contains(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, s)
		}
	}
}
