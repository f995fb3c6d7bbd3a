package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model/anthropic"
)

// testKey is the API key the tests use; no message may contain it.
const testKey = "sk-ant-test-secret-0123456789"

// step answers one request of a fakeServer.
type step func(w http.ResponseWriter, r *http.Request)

// fakeServer speaks the Messages wire format: each request is answered by
// the next step, and every request body and key header is kept.
type fakeServer struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	steps []step
	seen  []map[string]any
	keys  []string
}

func newServer(t *testing.T, steps ...step) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("request body is not JSON: %v: %s", err, body)
	}
	f.mu.Lock()
	n := len(f.seen)
	f.seen = append(f.seen, req)
	f.keys = append(f.keys, r.Header.Get("X-Api-Key"))
	f.mu.Unlock()
	if r.Header.Get("Anthropic-Version") == "" {
		f.t.Errorf("request %d has no anthropic-version header", n+1)
	}
	if r.URL.Path != "/v1/messages" {
		fail(404, `{"type":"error","error":{"type":"not_found_error","message":"Not found"}}`)(w, r)
		return
	}
	if n >= len(f.steps) {
		f.t.Errorf("unexpected request %d", n+1)
		fail(500, `{"type":"error","error":{"type":"api_error","message":"no more steps"}}`)(w, r)
		return
	}
	f.steps[n](w, r)
}

// requests returns the bodies received so far.
func (f *fakeServer) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.seen...)
}

func (f *fakeServer) baseURL() string { return f.srv.URL }

func newModel(t *testing.T, base string, opts ...anthropic.Option) *anthropic.Model {
	t.Helper()
	m, err := anthropic.New("test-model", append([]anthropic.Option{anthropic.WithBaseURL(base), anthropic.WithAPIKey(testKey)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// testContext bounds a test so that a hang fails it instead of the suite.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// event is one server-sent event with its type and JSON data.
func event(typ, data string) string { return fmt.Sprintf("event: %s\ndata: %s\n\n", typ, data) }

// sse answers with the events.
func sse(events ...string) step {
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

func start(in int) string {
	return event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",`+
		`"content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, in))
}

func ping() string { return event("ping", `{"type":"ping"}`) }

// text is a whole text block streamed in the pieces.
func text(index int, pieces ...string) []string {
	out := []string{event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index))}
	for _, p := range pieces {
		b, _ := json.Marshal(p)
		out = append(out, event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, b)))
	}
	return append(out, blockStop(index))
}

// toolOpen starts a tool_use block and streams its input in the pieces,
// leaving it open.
func toolOpen(index int, id, name string, pieces ...string) []string {
	out := []string{event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, index, id, name))}
	for _, p := range pieces {
		b, _ := json.Marshal(p)
		out = append(out, event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, b)))
	}
	return out
}

// toolUse is a whole tool_use block, its input in pieces of about a third.
func toolUse(index int, id, name, input string) []string {
	var pieces []string
	third := max(len(input)/3, 1)
	for i := 0; i < len(input); i += third {
		pieces = append(pieces, input[i:min(i+third, len(input))])
	}
	return append(toolOpen(index, id, name, pieces...), blockStop(index))
}

func blockStop(index int) string {
	return event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

// end is the message_delta with the stop reason and the output count, and
// message_stop.
func end(stop string, out int) []string {
	return []string{
		event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, out)),
		event("message_stop", `{"type":"message_stop"}`),
	}
}

func join(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

// fail answers with an HTTP error and a JSON body.
func fail(status int, body string, header ...string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func apiError(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}

// dropAfter sends the events and then closes the connection without ending
// the response.
func dropAfter(events ...string) step {
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

// stallAfter sends the events and then nothing more until the client gives
// up.
func stallAfter(events ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// messagesOf returns the messages of a request body.
func messagesOf(req map[string]any) []map[string]any {
	raw, _ := req["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i] = m.(map[string]any)
	}
	return out
}

// results returns the tool_result blocks of a request's last message as
// "id: content" with " (error)" for is_error.
func results(req map[string]any) []string {
	msgs := messagesOf(req)
	var out []string
	for _, b := range msgs[len(msgs)-1]["content"].([]any) {
		block := b.(map[string]any)
		if block["type"] != "tool_result" {
			continue
		}
		var text []string
		content, _ := block["content"].([]any)
		for _, c := range content {
			text = append(text, c.(map[string]any)["text"].(string))
		}
		s := fmt.Sprintf("%v: %s", block["tool_use_id"], strings.Join(text, ""))
		if block["is_error"] == true {
			s += " (error)"
		}
		out = append(out, s)
	}
	return out
}

func noKey(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, testKey) {
		t.Errorf("the API key appears in %q", s)
	}
}
