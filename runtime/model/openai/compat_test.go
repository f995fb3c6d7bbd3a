package openai_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// thinkChunk is a delta of reasoning text in the field a compatible server
// uses: reasoning_content (DeepSeek, LM Studio) or reasoning (OpenRouter,
// Ollama, vLLM).
func thinkChunk(field, s string) string { return chunk(fmt.Sprintf(`{%q:%s}`, field, q(s)), "") }

// thinkingServer is a Chat Completions server that streams reasoning and
// enforces what a compatible server does with it sent back: wantBack false
// refuses any request that carries reasoning back, as DeepSeek's first
// reasoner did; wantBack true refuses a request whose tool-calling turn
// lacks it, as DeepSeek's thinking mode does
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls).
type thinkingServer struct {
	*wiretest.Server
	mu       sync.Mutex
	bodies   []map[string]any
	refusals []string
}

func newThinkingServer(t *testing.T, wantBack bool, replies ...wiretest.Step) *thinkingServer {
	ts := &thinkingServer{}
	var steps []wiretest.Step
	next := 0
	handle := func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		reqs := ts.Server.Requests()
		body := reqs[len(reqs)-1]
		ts.bodies = append(ts.bodies, body)
		for i, m := range wiretest.Messages(body) {
			_, content := m["reasoning_content"]
			_, reasoning := m["reasoning"]
			back := content || reasoning
			switch {
			case m["role"] != "assistant":
			case !wantBack && back:
				msg := fmt.Sprintf("messages[%d]: reasoning_content must not be sent back in the input messages", i)
				ts.refusals = append(ts.refusals, msg)
				ts.mu.Unlock()
				wiretest.Fail(400, `{"error":{"message":`+q(msg)+`,"type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)(w, r)
				return
			case wantBack && !back && m["tool_calls"] != nil:
				msg := "The `reasoning_content` in the thinking mode must be passed back to the API."
				ts.refusals = append(ts.refusals, msg)
				ts.mu.Unlock()
				wiretest.Fail(400, `{"error":{"message":`+q(msg)+`,"type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`)(w, r)
				return
			}
		}
		step := replies[next]
		next++
		ts.mu.Unlock()
		step(w, r)
	}
	for range 2 * len(replies) {
		steps = append(steps, handle)
	}
	ts.Server = chatAPI.Start(t, steps...)
	return ts
}

func (ts *thinkingServer) Refusals() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.refusals...)
}

// thinkingTurns are two replies that reason before they call.
func thinkingTurns(field string) []wiretest.Step {
	return []wiretest.Step{
		sse(join([]string{roleChunk(), thinkChunk(field, "The key is alpha;"), thinkChunk(field, " look it up.")},
			call(0, "call_a", "lookup", `{"key":"alpha"}`), []string{finish("tool_calls"), usage(120, 30)})...),
		sse(join([]string{roleChunk(), thinkChunk(field, "Found it.")},
			call(0, "call_b", "finish", `{"summary":"alpha found"}`), []string{finish("tool_calls"), usage(200, 10)})...),
	}
}

// TestCompatibleReasoningIsShownNotSentBack runs a tool loop against a
// server that streams reasoning_content and refuses it sent back: the
// thinking reaches the agent, is kept as readable text, and no request
// carries it.
func TestCompatibleReasoningIsShownNotSentBack(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning"} {
		t.Run(field, func(t *testing.T) {
			ts := newThinkingServer(t, false, thinkingTurns(field)...)
			out, s, rec := runAgent(t, newModel(t, ts.BaseURL()), "s", "look up alpha")
			if out.Status != runtime.StatusSucceeded {
				t.Fatalf("outcome %+v; refusals %q", out, ts.Refusals())
			}
			if r := ts.Refusals(); len(r) != 0 || len(ts.Requests()) != 2 {
				t.Fatalf("%d requests, refusals %q", len(ts.Requests()), r)
			}
			if got := strings.Join(rec.thinking[1], "|"); got != "The key is alpha;| look it up." {
				t.Errorf("turn 1's thinking deltas %q", got)
			}
			want := model.Reasoning{Source: "openai:test-model", Kind: model.ReasoningText, Text: "The key is alpha; look it up."}
			if r := s.Messages[1].Reasoning; len(r) != 1 || r[0] != want {
				t.Errorf("turn 1's reasoning %+v, want %+v", r, want)
			}
			for i, req := range ts.Requests() {
				if _, ok := req["reasoning_effort"]; ok {
					t.Errorf("request %d: an effort the person did not set was sent to a compatible server", i+1)
				}
			}
		})
	}
}

// TestCompatibleReasoningGoesBackWhenTheServerAsks runs the loop against a
// server in DeepSeek's thinking mode, which refuses a tool-calling turn
// without its reasoning_content: the first request that lacks it is made
// again at once with it, and every later request carries it.
func TestCompatibleReasoningGoesBackWhenTheServerAsks(t *testing.T) {
	turns := thinkingTurns("reasoning_content")
	turns = append(turns[:1], sse(join([]string{roleChunk(), thinkChunk("reasoning_content", "One more.")},
		call(0, "call_c", "lookup", `{"key":"beta"}`), []string{finish("tool_calls"), usage(150, 10)})...), turns[1])
	ts := newThinkingServer(t, true, turns...)
	out, _, _ := runAgent(t, newModel(t, ts.BaseURL()), "s", "look up alpha")
	if out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v; refusals %q", out, ts.Refusals())
	}
	if r := ts.Refusals(); len(r) != 1 || len(ts.Requests()) != 4 {
		t.Fatalf("%d requests and refusals %q, want 4 and one refusal", len(ts.Requests()), r)
	}
	last := wiretest.Messages(ts.Requests()[3])
	if last[2]["reasoning_content"] != "The key is alpha; look it up." || last[4]["reasoning_content"] != "One more." {
		t.Errorf("the last request's assistant messages %v and %v", last[2], last[4])
	}
}

// openAIClient is an HTTP client that sends requests meant for OpenAI
// itself to the test server at base, so that a model made without a base
// URL can be tested.
func openAIClient(base string) *http.Client {
	u, _ := url.Parse(base)
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = u.Scheme, u.Host
		r.Host = u.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestChatReasoningSettings checks what Chat Completions sends: OpenAI's own
// reasoning model gets its effort, the cache key and usage details read;
// a compatible server gets an effort only when the person set one.
func TestChatReasoningSettings(t *testing.T) {
	cachedUsage := `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":50,` +
		`"total_tokens":950,"prompt_tokens_details":{"cached_tokens":800},"completion_tokens_details":{"reasoning_tokens":30}}}`
	srv := newServer(t, sse(roleChunk(), textChunk("ok"), finish("stop"), cachedUsage))
	t.Setenv(openai.EnvBaseURL, "")
	m, err := openai.New("gpt-5.5", openai.WithAPIKey(testKey), openai.WithAPI(openai.APIChat), openai.WithHTTPClient(openAIClient(srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Reply(wiretest.Context(t), model.Request{Effort: model.EffortMax, CacheKey: "sess", MaxOutputTokens: 100,
		Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0]
	if body["reasoning_effort"] != "xhigh" || body["prompt_cache_key"] != "sess" || body["max_completion_tokens"] != 100.0 {
		t.Errorf("request %v", body)
	}
	if want := (model.Usage{InputTokens: 900, OutputTokens: 50, CacheReadTokens: 800, ReasoningTokens: 30}); r.Usage != want {
		t.Errorf("usage %+v, want %+v", r.Usage, want)
	}

	deepSeekUsage := `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":50,` +
		`"total_tokens":950,"prompt_cache_hit_tokens":640,"prompt_cache_miss_tokens":260}}`
	srv = newServer(t, sse(roleChunk(), textChunk("ok"), finish("stop"), deepSeekUsage), sse(roleChunk(), textChunk("ok"), finish("stop")))
	compat := newModel(t, srv.BaseURL())
	r, err = compat.Reply(wiretest.Context(t), model.Request{CacheKey: "sess", Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage.CacheReadTokens != 640 {
		t.Errorf("DeepSeek's cache hits were read as %+v", r.Usage)
	}
	if _, err := compat.Reply(wiretest.Context(t), model.Request{Effort: model.EffortMax, Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	first, second := srv.Requests()[0], srv.Requests()[1]
	if _, ok := first["reasoning_effort"]; ok {
		t.Errorf("an effort the person did not set was sent to a compatible server: %v", first["reasoning_effort"])
	}
	if _, ok := first["prompt_cache_key"]; ok {
		t.Errorf("a compatible server was sent prompt_cache_key")
	}
	if second["reasoning_effort"] != "xhigh" {
		t.Errorf("the effort the person set was sent as %v", second["reasoning_effort"])
	}
}

// TestChatToolsWithReasoningAreExplained checks the words for OpenAI's
// refusal of function tools with a reasoning effort on Chat Completions.
func TestChatToolsWithReasoningAreExplained(t *testing.T) {
	srv := newServer(t, wiretest.Fail(400, `{"error":{"message":"Function tools with reasoning_effort are not supported for gpt-5.6-terra in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.","type":"invalid_request_error","param":"reasoning_effort","code":null}}`))
	_, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	want := `takes tools with reasoning only on the Responses API (400 Bad Request: Function tools with reasoning_effort are not supported for gpt-5.6-terra in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'): set "openai_api": "responses" in the configuration, or the reasoning effort to off`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant one saying %s", err, want)
	}
}
