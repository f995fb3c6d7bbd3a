// Package wiretest is what the tests of the model providers share: a fake
// server that answers each request with the next of a list of steps and
// keeps what it was sent, the steps that do not depend on the wire format,
// and a whole run of the agent over a model.
//
// Each provider's tests build the bodies and events of their own wire format
// and describe their API's paths and headers with an API.
package wiretest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Step answers one request of a Server.
type Step func(w http.ResponseWriter, r *http.Request)

// API is what a Server knows of a provider's API.
type API struct {
	// Base is the path of the base URL a model is given, such as "/v1".
	Base string
	// Path is where requests must go, such as "/v1/chat/completions".
	Path string
	// KeyHeader is the header that carries the API key.
	KeyHeader string
	// Key is the API key the tests give their models, which no message
	// may hold.
	Key string
	// NotFound answers a request for another path, the way the provider's
	// servers do.
	NotFound Step
	// Check, when set, checks request n (from 1) before it is answered.
	Check func(t *testing.T, n int, r *http.Request)
}

// Server is a fake server of an API: each request is answered by the next
// step, and every request body and key header is kept.
type Server struct {
	// URL is the server's URL, without the base path.
	URL   string
	t     *testing.T
	api   API
	mu    sync.Mutex
	steps []Step
	seen  []map[string]any
	keys  []string
}

// Start starts a Server that answers with steps and is closed when the test
// ends.
func (a API) Start(t *testing.T, steps ...Step) *Server {
	t.Helper()
	s := &Server{t: t, api: a, steps: steps}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		s.t.Errorf("request body is not JSON: %v: %s", err, body)
	}
	s.mu.Lock()
	n := len(s.seen)
	s.seen = append(s.seen, req)
	s.keys = append(s.keys, r.Header.Get(s.api.KeyHeader))
	s.mu.Unlock()
	if s.api.Check != nil {
		s.api.Check(s.t, n+1, r)
	}
	if r.URL.Path != s.api.Path {
		s.api.NotFound(w, r)
		return
	}
	if n >= len(s.steps) {
		s.t.Errorf("unexpected request %d", n+1)
		Fail(http.StatusInternalServerError, `{"error":{"message":"no more steps"}}`)(w, r)
		return
	}
	s.steps[n](w, r)
}

// BaseURL is the base URL to give a model.
func (s *Server) BaseURL() string { return s.URL + s.api.Base }

// Requests returns the bodies received so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.seen...)
}

// Keys returns the key header of each request received so far.
func (s *Server) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

// SSE answers with the events, each a whole server-sent event, flushing
// after each so that the client reads them as they would arrive.
func SSE(events ...string) Step {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		fl := w.(http.Flusher)
		for _, e := range events {
			io.WriteString(w, e)
			fl.Flush()
		}
	}
}

// Fail answers with an HTTP error and a JSON body, and with the header
// given as pairs of name and value.
func Fail(status int, body string, header ...string) Step {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// DropAfter sends the events and then closes the connection without ending
// the response, the way a proxy or a crashed server drops a stream.
func DropAfter(events ...string) Step {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
		}
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		conn.Close()
	}
}

// StallAfter sends the events and then nothing more until the client gives
// up.
func StallAfter(events ...string) Step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// Context bounds a test so that a hang fails it instead of the suite.
func Context(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Messages returns the messages of a request body.
func Messages(req map[string]any) []map[string]any {
	raw, _ := req["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i] = m.(map[string]any)
	}
	return out
}

// Failed checks that out is a failed run whose last attempt says want, on
// one line that begins "the model failed" and does not hold key (when key
// is not empty).
func Failed(t *testing.T, out runtime.GoalOutcome, want, key string) {
	t.Helper()
	if out.Status != runtime.StatusFailed || len(out.Attempts) == 0 {
		t.Fatalf("outcome %+v", out)
	}
	msg := out.Attempts[len(out.Attempts)-1]
	t.Log(msg)
	if !strings.HasPrefix(msg, "the model failed") || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("message %q\ndoes not say %q", msg, want)
	}
	if key != "" && strings.Contains(msg, key) {
		t.Errorf("the API key appears in %q", msg)
	}
}

// DeadAddr returns a local address that nothing listens on.
func DeadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Lookup is a read-only tool that looks up a key, and fails for the key
// "missing".
type Lookup struct{}

// Declaration declares the tool lookup with one parameter, key.
func (Lookup) Declaration() tool.Declaration {
	return tool.Declaration{
		Name:        "lookup",
		Description: "Looks up a key.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"],"additionalProperties":false}`),
		Annotations: tool.Annotations{ReadOnly: true},
	}
}

// Call returns "value of" and the key, or a not-found failure.
func (Lookup) Call(_ context.Context, raw json.RawMessage) tool.Return {
	var args struct{ Key string }
	_ = json.Unmarshal(raw, &args)
	if args.Key == "missing" {
		return tool.Fail(tool.NotFound("no entry"), "no entry for missing")
	}
	return tool.Ok("value of " + args.Key)
}

// Run drives a whole run with the agent over m and Lookup, returning the
// outcome, the session and the text deltas by turn.
func Run(t *testing.T, m model.Model, goal string) (runtime.GoalOutcome, *runtime.Session, map[int][]string) {
	t.Helper()
	cat, err := runtime.NewCatalog(Lookup{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	deltas := map[int][]string{}
	a := &runtime.Agent{Model: m, Catalog: cat, Sink: func(e runtime.Event) {
		if d, ok := e.(runtime.TextDelta); ok {
			mu.Lock()
			deltas[d.Turn] = append(deltas[d.Turn], d.Text)
			mu.Unlock()
		}
	}}
	s := runtime.NewSession("test")
	out := a.Run(Context(t), s, goal)
	return out, s, deltas
}

// Recorder is a model that keeps the error its last reply ended with.
type Recorder struct {
	model.Model
	mu  sync.Mutex // guards err
	err error
}

// Reply asks the model and keeps its error.
func (r *Recorder) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	reply, err := r.Model.Reply(ctx, req, onDelta)
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	return reply, err
}

// Err returns the error the last reply ended with.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Transient returns why err may pass, and whether it is marked so.
func Transient(err error) (string, bool) {
	var te *model.TransientError
	if errors.As(err, &te) {
		return te.Why, true
	}
	return "", false
}
