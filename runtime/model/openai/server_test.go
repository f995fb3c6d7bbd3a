package openai_test

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

	"github.com/openai/openai-go/v3/option"

	"github.com/agenttui/agenttui/runtime/model/openai"
)

// testKey is the API key the tests use; no message may contain it.
const testKey = "sk-test-secret-0123456789"

// step answers one request of a fakeServer.
type step func(w http.ResponseWriter, r *http.Request)

// fakeServer speaks the Chat Completions wire format: each request is
// answered by the next step, and every request body is kept.
type fakeServer struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	steps []step
	seen  []map[string]any
	auth  []string
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
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if n >= len(f.steps) {
		f.t.Errorf("unexpected request %d", n+1)
		http.Error(w, `{"error":{"message":"no more steps"}}`, http.StatusInternalServerError)
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

func (f *fakeServer) baseURL() string { return f.srv.URL + "/v1" }

// newModel returns a model over f whose retries wait at most a millisecond.
func newModel(t *testing.T, base string, opts ...openai.Option) *openai.Model {
	t.Helper()
	all := append([]openai.Option{
		openai.WithBaseURL(base), openai.WithAPIKey(testKey),
		openai.WithRequestOptions(option.WithMaxRetryDelay(time.Millisecond)),
	}, opts...)
	m, err := openai.New("test-model", all...)
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

// sse answers with the chunks as server-sent events, then [DONE].
func sse(chunks ...string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		fl := w.(http.Flusher)
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
			fl.Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
		fl.Flush()
	}
}

// chunk builds one chat.completion.chunk with a delta for choice 0.
func chunk(delta string, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"test-model",`+
		`"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`, delta, fr)
}

func roleChunk() string { return chunk(`{"role":"assistant","content":""}`, "") }

func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return chunk(fmt.Sprintf(`{"content":%s}`, b), "")
}

// callStart opens call index with its id and name, and no arguments yet.
func callStart(index int, id, name string) string {
	return chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`,
		index, id, name), "")
}

// callArgs adds a piece of the arguments of call index.
func callArgs(index int, piece string) string {
	b, _ := json.Marshal(piece)
	return chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, index, b), "")
}

func finish(reason string) string { return chunk(`{}`, reason) }

// usage is the final chunk that stream_options.include_usage asks for.
func usage(in, out int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"test-model","choices":[],`+
		`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out)
}

// call streams a whole call, its arguments in pieces of about a third.
func call(index int, id, name, args string) []string {
	out := []string{callStart(index, id, name)}
	third := max(len(args)/3, 1)
	for i := 0; i < len(args); i += third {
		out = append(out, callArgs(index, args[i:min(i+third, len(args))]))
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

// dropAfter sends the chunks and then closes the connection without ending
// the response, the way a proxy or a crashed server drops a stream.
func dropAfter(chunks ...string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		conn.Close()
	}
}

// stallAfter sends the chunks and then sends nothing more until the client
// gives up.
func stallAfter(chunks ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// messagesOf returns the messages of a request body.
func messagesOf(t *testing.T, req map[string]any) []map[string]any {
	t.Helper()
	raw, _ := req["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i] = m.(map[string]any)
	}
	return out
}

// toolMessages returns the tool messages of a request as "id: content".
func toolMessages(t *testing.T, req map[string]any) []string {
	var out []string
	for _, m := range messagesOf(t, req) {
		if m["role"] == "tool" {
			out = append(out, fmt.Sprintf("%v: %v", m["tool_call_id"], m["content"]))
		}
	}
	return out
}

func noKey(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, testKey) {
		t.Errorf("the API key appears in %q", s)
	}
}
