package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
	"github.com/agenttui/agenttui/runtime/tool"
)

func join(chunks ...[]string) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

func TestThreeTurnToolRunSucceeds(t *testing.T) {
	srv := newServer(t,
		sse(join([]string{roleChunk(), textChunk("Looking up "), textChunk("both keys.")},
			call(0, "call_a", "lookup", `{"key":"alpha"}`),
			call(1, "call_b", "lookup", `{"key": "beta"}`),
			[]string{finish("tool_calls"), usage(120, 30)})...),
		sse(join([]string{roleChunk()}, call(0, "call_c", "lookup", `{"key":"missing"}`),
			[]string{finish("tool_calls"), usage(200, 10)})...),
		sse(join([]string{roleChunk()}, call(0, "call_d", "finish", `{"summary":"alpha and beta found","data":{"alpha":1}}`),
			[]string{finish("tool_calls"), usage(260, 20)})...),
	)
	out, s, deltas := wiretest.Run(t, newModel(t, srv.BaseURL()), "look up alpha and beta")
	if out.Status != runtime.StatusSucceeded || out.Summary != "alpha and beta found" {
		t.Fatalf("outcome %+v", out)
	}
	if want := (model.Usage{InputTokens: 580, OutputTokens: 60}); s.Usage != want {
		t.Errorf("usage %+v, want %+v", s.Usage, want)
	}
	if got := deltas[1]; !reflect.DeepEqual(got, []string{"Looking up ", "both keys."}) {
		t.Errorf("turn 1 deltas %q, want two pieces", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := reqs[0]
	if first["model"] != "test-model" || first["stream"] != true {
		t.Errorf("model/stream: %v %v", first["model"], first["stream"])
	}
	if so, _ := first["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options %v", first["stream_options"])
	}
	msgs := wiretest.Messages(first)
	if msgs[0]["role"] != "system" || msgs[0]["content"] != runtime.DefaultSystemPrompt ||
		msgs[1]["role"] != "user" || msgs[1]["content"] != "look up alpha and beta" {
		t.Errorf("first messages %v", msgs)
	}
	var lookupParams any
	for _, tl := range first["tools"].([]any) {
		fn := tl.(map[string]any)["function"].(map[string]any)
		if fn["name"] == "lookup" {
			lookupParams = fn["parameters"]
		}
	}
	if p, _ := lookupParams.(map[string]any); p["required"] == nil || p["additionalProperties"] != false {
		t.Errorf("lookup parameters %v", lookupParams)
	}
	if got := toolMessages(reqs[1]); !reflect.DeepEqual(got, []string{"call_a: value of alpha", "call_b: value of beta"}) {
		t.Errorf("second request's results %q", got)
	}
	asst := wiretest.Messages(reqs[1])[2]
	calls := asst["tool_calls"].([]any)
	if asst["content"] != "Looking up both keys." || len(calls) != 2 ||
		calls[1].(map[string]any)["function"].(map[string]any)["arguments"] != `{"key": "beta"}` {
		t.Errorf("assistant message %v", asst)
	}
	if got := toolMessages(reqs[2]); len(got) != 3 || got[2] != "call_c: Error: no entry for missing" {
		t.Errorf("third request's results %q", got)
	}
	for i, a := range srv.Keys() {
		if a != "Bearer "+testKey {
			t.Errorf("request %d authorization %q", i+1, a)
		}
	}
}

func TestCutCallBecomesOutputLimit(t *testing.T) {
	cutArgs := `{"key":"bbbbbbbb`
	turn1 := join([]string{roleChunk(), textChunk("Two lookups.")}, call(0, "call_a", "lookup", `{"key":"alpha"}`),
		[]string{callStart(1, "call_b", "lookup"), callArgs(1, cutArgs[:6]), callArgs(1, cutArgs[6:]), finish("length"), usage(50, 100)})

	t.Run("reply", func(t *testing.T) {
		srv := newServer(t, sse(turn1...))
		r, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := model.Reply{
			Text:  "Two lookups.",
			Calls: []tool.Call{{ID: "call_a", Name: "lookup", Arguments: `{"key":"alpha"}`}},
			Cut:   &tool.Call{ID: "call_b", Name: "lookup", Arguments: cutArgs},
			Stop:  model.StopOutputLimit, Usage: model.Usage{InputTokens: 50, OutputTokens: 100},
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("reply %+v\nwant  %+v", r, want)
		}
	})

	t.Run("run", func(t *testing.T) {
		srv := newServer(t, sse(turn1...), sse(roleChunk(), textChunk("Done."), finish("stop")))
		out, _, _ := wiretest.Run(t, newModel(t, srv.BaseURL()), "go")
		if out.Status != runtime.StatusSucceeded {
			t.Fatalf("outcome %+v", out)
		}
		second := srv.Requests()[1]
		want := []string{
			"call_a: Error: " + feedback.PeerNotExecuted,
			"call_b: Error: " + feedback.OutputLimit("lookup", cutArgs),
		}
		if got := toolMessages(second); !reflect.DeepEqual(got, want) {
			t.Errorf("results\n%q\nwant\n%q", got, want)
		}
		calls := wiretest.Messages(second)[2]["tool_calls"].([]any)
		if len(calls) != 2 || calls[1].(map[string]any)["function"].(map[string]any)["arguments"] != "{}" {
			t.Errorf("the cut call in the history: %v", calls)
		}
	})
}

func TestInvalidArgumentsBecomeInvalidReply(t *testing.T) {
	bad := `{"key": alpha}`
	srv := newServer(t,
		sse(join([]string{roleChunk()}, call(0, "call_a", "lookup", bad), []string{finish("tool_calls")})...),
		sse(roleChunk(), textChunk("Sorry."), finish("stop")),
	)
	out, s, _ := wiretest.Run(t, newModel(t, srv.BaseURL()), "go")
	if out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if got := s.Messages[1].Calls[0].Arguments; got != bad {
		t.Errorf("the raw arguments became %q", got)
	}
	got := toolMessages(srv.Requests()[1])
	if len(got) != 1 || got[0] != "call_a: Error: "+feedback.InvalidArguments("lookup", bad) {
		t.Errorf("results %q", got)
	}
}

func TestErrorsEndTheRunWithAClearMessage(t *testing.T) {
	rate := `{"error":{"message":"Rate limit reached for test-model.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	boom := `{"error":{"message":"The server had an error processing your request.","type":"server_error","param":null,"code":null}}`
	quota := `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	cases := []struct {
		name  string
		step  wiretest.Step
		opts  []openai.Option
		base  string // a path to use instead of /v1
		want  string
		retry string // what a retry says; empty for an error that cannot pass
	}{
		{name: "401", step: wiretest.Fail(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`),
			want: "rejected the API key (401 Unauthorized): check OPENAI_API_KEY"},
		{name: "404 model", step: wiretest.Fail(404, `{"error":{"message":"The model `+"`test-model`"+` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`),
			want: `does not know the model "test-model" (404 Not Found: The model ` + "`test-model`" + ` does not exist or you do not have access to it): check the name after openai:`},
		{name: "404 path", base: "", want: "has no chat completions endpoint at"},
		{name: "context overflow", step: wiretest.Fail(400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`),
			want: "the conversation no longer fits the context window of test-model (This model's maximum context length is 128000 tokens."},
		{name: "400", step: wiretest.Fail(400, `{"error":{"message":"Invalid value for 'temperature'.","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}`),
			want: "rejected the request (400 Bad Request: Invalid value for 'temperature')"},
		{name: "no quota", step: wiretest.Fail(429, quota),
			want: "says the account has no quota left (429 Too Many Requests: You exceeded your current quota): check its plan and billing"},
		{name: "429", step: wiretest.Fail(429, rate, "retry-after-ms", "1"),
			want:  "is limiting the rate of requests (429 Too Many Requests: Rate limit reached for test-model); wait a little and try again",
			retry: "rate limited (429 Too Many Requests)"},
		{name: "429 with a long wait", step: wiretest.Fail(429, rate, "retry-after", "600"),
			want: "is limiting the rate of requests (429 Too Many Requests: Rate limit reached for test-model) and asks to wait 10m0s; try again then"},
		{name: "408", step: wiretest.Fail(408, `{"error":{"message":"Request timed out."}}`),
			want: "could not take the request (408 Request Timeout: Request timed out); try again", retry: "the server could not take the request (408 Request Timeout)"},
		{name: "500", step: wiretest.Fail(500, boom),
			want:  "failed with 500 Internal Server Error: The server had an error processing your request; try again later",
			retry: "the server failed (500 Internal Server Error)"},
		{name: "529", step: wiretest.Fail(529, `{"error":{"message":"Overloaded","type":"overloaded_error"}}`),
			want: "is overloaded (529 Overloaded: Overloaded); try again later", retry: "the server is overloaded (529 Overloaded)"},
		{name: "dropped connection", step: dropAfter(roleChunk(), textChunk("Half a th")),
			want: "dropped in the middle of the reply (unexpected end of the stream); try again", retry: "the connection dropped"},
		{name: "stalled stream", step: stallAfter(roleChunk()), opts: []openai.Option{openai.WithStallTimeout(50 * time.Millisecond)},
			want: "sent nothing for 50ms, so the reply was abandoned; try again", retry: "nothing arrived for 50ms"},
		{name: "error event", step: sse(roleChunk(), `{"error":{"message":"The model is overloaded.","type":"server_error"}}`),
			want: "reported an error in the middle of the reply: The model is overloaded.", retry: "an error in the middle of the reply (The model is overloaded)"},
		{name: "overflow event", step: sse(roleChunk(), `{"error":{"message":"This model's maximum context length is 8192 tokens."}}`),
			want: "the conversation no longer fits the context window of test-model"},
		{name: "no finish reason", step: sse(roleChunk(), textChunk("and then")),
			want: "ended before it was complete (no finish reason)", retry: "the reply ended before it was complete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var steps []wiretest.Step
			if c.step != nil {
				steps = append(steps, c.step)
			}
			srv := newServer(t, steps...)
			base := srv.BaseURL()
			if c.base != "" || c.name == "404 path" {
				base = srv.URL + c.base
			}
			m := &wiretest.Recorder{Model: newModel(t, base, c.opts...)}
			out, _, _ := wiretest.Run(t, m, "go")
			wiretest.Failed(t, out, c.want, testKey)
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want one: the SDK's own retries are off", n)
			}
			why, transient := wiretest.Transient(m.Err())
			if transient != (c.retry != "") || why != c.retry {
				t.Errorf("the error may pass: %v, saying %q; want %v, saying %q", transient, why, c.retry != "", c.retry)
			}
		})
	}
}

func TestServerDown(t *testing.T) {
	addr := wiretest.DeadAddr(t)
	m := newModel(t, "http://"+addr+"/v1")
	_, err := m.Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	want := fmt.Sprintf("cannot reach the server at http://%s/v1: connection refused; is it running, and is OPENAI_BASE_URL right?", addr)
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
	if why, ok := wiretest.Transient(err); !ok || why != "cannot reach the server (connection refused)" {
		t.Errorf("a server that is down may come up: %q, %v", why, ok)
	}
}

func TestCancelledContextEndsTheReply(t *testing.T) {
	ctx, cancel := context.WithCancel(wiretest.Context(t))
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", textChunk("x"))
		w.(http.Flusher).Flush()
		cancel() // the person pressed Esc while the reply streamed
		<-r.Context().Done()
	})
	_, err := newModel(t, srv.BaseURL()).Reply(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestBytesThatAreNotUTF8AreMended checks that raw bytes a server put inside
// a JSON string reach the model's history as U+FFFD, as the journal would
// write them, so that a resumed session sends what a live one did.
func TestBytesThatAreNotUTF8AreMended(t *testing.T) {
	srv := newServer(t, sse(roleChunk(), chunk("{\"content\":\"caf\xe9 \xff\"}", ""),
		chunk("{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"arguments\":\"{\\\"key\\\":\\\"\xfe\\\"}\"}}]}", ""),
		finish("tool_calls")))
	r, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "caf\uFFFD \uFFFD" || len(r.Calls) != 1 || r.Calls[0].Arguments != `{"key":"`+"\uFFFD"+`"}` {
		t.Fatalf("reply %q, calls %+v", r.Text, r.Calls)
	}
}
