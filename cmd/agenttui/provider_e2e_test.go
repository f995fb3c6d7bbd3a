package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// e2eKey is the API key the end-to-end tests give the binary; it must never
// appear in what the binary prints.
const e2eKey = "test-key-e2e-5b1d9c"

// wireServer answers each request with the next of its responses and keeps
// what it received.
type wireServer struct {
	srv       *httptest.Server
	mu        sync.Mutex
	responses []http.HandlerFunc
	bodies    []map[string]any
	auth      []string
}

func newWireServer(t *testing.T, responses ...http.HandlerFunc) *wireServer {
	w := &wireServer{responses: responses}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		w.mu.Lock()
		n := len(w.bodies)
		w.bodies = append(w.bodies, body)
		w.auth = append(w.auth, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		w.mu.Unlock()
		if n >= len(w.responses) {
			http.Error(rw, `{"error":{"message":"no more responses"}}`, http.StatusInternalServerError)
			return
		}
		w.responses[n](rw, r)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *wireServer) received() []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]map[string]any(nil), w.bodies...)
}

// streamEvents answers with server-sent events, written one by one.
func streamEvents(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}
}

// openAIStream is a Chat Completions stream: the chunks as data lines, then
// [DONE].
func openAIStream(chunks ...string) http.HandlerFunc {
	var events []string
	for _, c := range append(chunks, "[DONE]") {
		events = append(events, "data: "+c+"\n\n")
	}
	return streamEvents(events...)
}

func openAIChunk(delta, finish string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	return `{"id":"chatcmpl-e2e","object":"chat.completion.chunk","created":1700000000,"model":"test-model","choices":[{"index":0,"delta":` +
		delta + `,"finish_reason":` + fr + `}]}`
}

func openAIUsage(in, out int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-e2e","object":"chat.completion.chunk","created":1700000000,"model":"test-model","choices":[],`+
		`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out)
}

// openAICall streams one call: the id and name, then the arguments in two
// pieces.
func openAICall(index int, id, name, args string) []string {
	half := len(args) / 2
	piece := func(s string) string {
		b, _ := json.Marshal(s)
		return openAIChunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, index, b), "")
	}
	return []string{
		openAIChunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, index, id, name), ""),
		piece(args[:half]), piece(args[half:]),
	}
}

// providerEnv is the environment without any provider settings of the
// machine running the tests, with state and config kept in dir, and extra.
func providerEnv(dir string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OPENAI_") || strings.HasPrefix(kv, "ANTHROPIC_") || strings.HasPrefix(kv, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "NO_COLOR=1", "XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	return append(env, extra...)
}

// runWithEnv runs the built binary in dir with env.
func runWithEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = env
	r := execute(t, cmd)
	if strings.Contains(r.stdout+r.stderr, e2eKey) {
		t.Errorf("the API key appears in the output:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Errorf("a stack trace on stderr:\n%s", r.stderr)
	}
	return r
}

func ofType(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestProviderOpenAIHeadlessRun(t *testing.T) {
	ws := workspaceWithNotes(t)
	srv := newWireServer(t,
		openAIStream(append(append([]string{
			openAIChunk(`{"role":"assistant","content":""}`, ""),
			openAIChunk(`{"content":"Reading "}`, ""), openAIChunk(`{"content":"the notes."}`, "")},
			openAICall(0, "call_read", "read_file", `{"path":"notes.txt"}`)...),
			openAIChunk(`{}`, "tool_calls"), openAIUsage(111, 22))...),
		openAIStream(append(openAICall(0, "call_finish", "finish", `{"summary":"The note says to remember the milk.","data":{"item":"milk"}}`),
			openAIChunk(`{}`, "tool_calls"), openAIUsage(222, 33))...),
	)
	env := providerEnv(t.TempDir(), "OPENAI_BASE_URL="+srv.srv.URL+"/v1", "OPENAI_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "openai:test-model", "--json", "--mode", "auto", "--workspace", ws, "read the notes")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	if started := ofType(evs, "run_started"); len(started) != 1 || started[0]["model"] != "openai:test-model" {
		t.Errorf("run_started %v", started)
	}
	replies := ofType(evs, "reply")
	if len(replies) != 2 || replies[0]["text"] != "Reading the notes." {
		t.Fatalf("replies %v", replies)
	}
	calls, _ := json.Marshal(replies[0]["calls"].([]any)[0].(map[string]any)["args"])
	first := replies[0]["calls"].([]any)[0].(map[string]any)
	if first["id"] != "call_read" || first["name"] != "read_file" || string(calls) != `{"path":"notes.txt"}` {
		t.Errorf("the first reply's call %v", first)
	}
	finished := ofType(evs, "call_finished")
	if len(finished) != 2 || finished[0]["outcome"] != "success" || !strings.Contains(finished[0]["result"].(string), "remember the milk") {
		t.Errorf("call_finished %v", finished)
	}
	usage := ofType(evs, "usage")
	got, _ := json.Marshal([]any{usage[0]["usage"], usage[1]["usage"], usage[1]["total"]})
	if len(usage) != 2 || string(got) != `[{"input_tokens":111,"output_tokens":22},{"input_tokens":222,"output_tokens":33},{"input_tokens":333,"output_tokens":55}]` {
		t.Errorf("usage events %s", got)
	}
	out := lastOutcome(t, evs)
	data, _ := json.Marshal(out["extracted_data"])
	if out["status"] != "succeeded" || out["summary"] != "The note says to remember the milk." || string(data) != `{"item":"milk"}` {
		t.Errorf("outcome %v", out)
	}

	// What the server received: the key, and the result of the call under
	// its id.
	bodies := srv.received()
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(bodies))
	}
	for i, a := range srv.auth {
		if a != "Bearer "+e2eKey {
			t.Errorf("request %d authorization %q", i+1, a)
		}
	}
	msgs := bodies[1]["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "tool" || last["tool_call_id"] != "call_read" || !strings.Contains(last["content"].(string), "remember the milk") {
		t.Errorf("the result sent back %v", last)
	}
}

func TestProviderOpenAIHeadlessFailure(t *testing.T) {
	ws := workspaceWithNotes(t)
	srv := newWireServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+e2eKey+`.","type":"invalid_request_error","code":"invalid_api_key"}}`)
	})
	env := providerEnv(t.TempDir(), "OPENAI_BASE_URL="+srv.srv.URL+"/v1", "OPENAI_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "openai:test-model", "--json", "--workspace", ws, "read the notes")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	out := lastOutcome(t, events(t, r.stdout))
	attempts, _ := out["attempts"].([]any)
	want := "the model failed: the server at " + srv.srv.URL + "/v1 rejected the API key (401 Unauthorized): check OPENAI_API_KEY"
	if out["status"] != "failed" || len(attempts) == 0 || attempts[len(attempts)-1] != want {
		t.Errorf("outcome %v\nwant the attempt %q", out, want)
	}
	if n := len(srv.received()); n != 1 {
		t.Errorf("%d requests: a rejected key is not retried", n)
	}
}

func TestProviderAnthropicHeadlessRun(t *testing.T) {
	ws := workspaceWithNotes(t)
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	srv := newWireServer(t, streamEvents(
		ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Nothing "}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"to do."}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	))
	env := providerEnv(t.TempDir(), "ANTHROPIC_BASE_URL="+srv.srv.URL, "ANTHROPIC_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "anthropic:test-model", "--json", "--workspace", ws, "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	if out := lastOutcome(t, evs); out["status"] != "succeeded" || out["summary"] != "Nothing to do." {
		t.Errorf("outcome %v", out)
	}
	if u := ofType(evs, "usage"); len(u) != 1 || fmt.Sprint(u[0]["usage"]) != "map[input_tokens:40 output_tokens:4]" {
		t.Errorf("usage %v", u)
	}
	if srv.auth[0] != e2eKey {
		t.Errorf("x-api-key %q", srv.auth[0])
	}
}

func TestProviderConfigurationErrors(t *testing.T) {
	ws := workspaceWithNotes(t)
	env := providerEnv(t.TempDir())
	cases := []struct{ model, want string }{
		{"openai:gpt-5", "agenttui: OPENAI_API_KEY is not set: export it, or set OPENAI_BASE_URL for a compatible server such as Ollama, or use --model demo\n"},
		{"anthropic:claude-opus-4-7", "agenttui: ANTHROPIC_API_KEY is not set: export it, or use --model demo\n"},
		{"openai:", "agenttui: --model openai: needs a model name, for example --model openai:gpt-6.2-sol\n"},
		{"anthropic:", "agenttui: --model anthropic: needs a model name, for example --model anthropic:claude-opus-5-5\n"},
	}
	for _, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			r := runWithEnv(t, ws, env, "run", "--model", c.model, "--json", "go")
			if r.code != 2 || r.stderr != c.want || r.stdout != "" {
				t.Errorf("exit %d\nstdout: %q\nstderr: %q\nwant:   %q", r.code, r.stdout, r.stderr, c.want)
			}
		})
	}
	r := runWithEnv(t, ws, append(env, "OPENAI_BASE_URL=localhost:11434"), "run", "--model", "openai:llama3.2", "go")
	if r.code != 2 || !strings.Contains(r.stderr, `OPENAI_BASE_URL "localhost:11434" is not an http or https URL`) {
		t.Errorf("a bad base URL: exit %d, %q", r.code, r.stderr)
	}
}
