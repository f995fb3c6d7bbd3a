package mcpserver

import (
	"context"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOverStreamableHTTP checks a goal over streamable HTTP: the approval
// is elicited and progress arrives on the call's stream, which takes a
// stateful session.
func TestOverStreamableHTTP(t *testing.T) {
	srv, l := newServer(t)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	var asked atomic.Int32
	opts, progress := progressClient(elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		if asked.Add(1) > 1 {
			return accept(map[string]any{"decision": "skip", "reason": "asked again"}), nil
		}
		if !strings.Contains(message, "+ALPHA") {
			return accept(map[string]any{"decision": "skip", "reason": "the diff was not shown"}), nil
		}
		return accept(map[string]any{"decision": "approve"}), nil
	}))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	params := &mcp.CallToolParams{Name: "run_goal", Arguments: map[string]any{"goal": "write one"}}
	params.SetProgressToken("http")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomeOf(t, res); o.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome = %+v, %q", o, texts(t, res))
	}
	if got := readFile(t, filepath.Join(l.session(sessionOf(t, res)).Workspace(), "a.txt")); got != "ALPHA\n" {
		t.Errorf("a.txt = %q", got)
	}
	progressUntil(t, progress, "http", "turn 2: finish Wrote a.txt. succeeded")
}

// TestServeStdio checks the server over a stream: it serves until the
// stream ends, then closes its sessions and returns nil.
func TestServeStdio(t *testing.T) {
	srv, l := newServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), inR, outW) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "run_goal", map[string]any{"goal": "read a"})
	if res.IsError {
		t.Fatalf("run_goal = %q", texts(t, res))
	}
	id := sessionOf(t, res)
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, served, "ServeStdio to return"); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
	if !l.session(id).closed.Load() {
		t.Error("the session was not closed when the stream ended")
	}
}

// TestServeStdioUntilCancelled checks that ServeStdio returns nil when its
// context ends, having stopped the run that was waiting.
func TestServeStdioUntilCancelled(t *testing.T) {
	srv, l := newServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(ctx, inR, outW) }()
	asked := make(chan struct{}, 1)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})).Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_goal", Arguments: map[string]any{"goal": "write one"}})
	}()
	wait(t, asked, "the approval")
	cancel()
	if err := wait(t, served, "ServeStdio to return"); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
	// The output is the caller's to close, as a process's standard output
	// closes when it exits; then the client sees the server go.
	_ = outW.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.opened) != 1 || !l.opened[0].closed.Load() {
		t.Error("the session was not closed when the context ended")
	}
}
