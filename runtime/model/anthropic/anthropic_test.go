package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/tool"
)

func TestThreeTurnToolRunSucceeds(t *testing.T) {
	srv := newServer(t,
		wiretest.SSE(join(start(120), ping(), text(0, "Looking up ", "both keys."),
			toolUse(1, "toolu_a", "lookup", `{"key":"alpha"}`), toolUse(2, "toolu_b", "lookup", `{"key": "beta"}`),
			end("tool_use", 30))...),
		wiretest.SSE(join(start(200), toolUse(0, "toolu_c", "lookup", `{"key":"missing"}`), end("tool_use", 10))...),
		wiretest.SSE(join(start(260), toolUse(0, "toolu_d", "finish", `{"summary":"alpha and beta found","data":{"alpha":1}}`), end("tool_use", 20))...),
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
	if first["model"] != "test-model" || first["stream"] != true || first["max_tokens"] != float64(anthropic.DefaultMaxTokens) {
		t.Errorf("model/stream/max_tokens: %v %v %v", first["model"], first["stream"], first["max_tokens"])
	}
	system, _ := json.Marshal(first["system"])
	// The system prompt is a cache breakpoint; see TestCacheBreakpoints.
	if want, _ := json.Marshal([]map[string]any{{"cache_control": map[string]string{"type": "ephemeral"}, "text": runtime.DefaultSystemPrompt, "type": "text"}}); string(system) != string(want) {
		t.Errorf("system %s", system)
	}
	if got := results(reqs[1]); !reflect.DeepEqual(got, []string{"toolu_a: value of alpha", "toolu_b: value of beta"}) {
		t.Errorf("second request's results %q", got)
	}
	asst, _ := json.Marshal(wiretest.Messages(reqs[1])[1])
	want := `{"content":[{"text":"Looking up both keys.","type":"text"},` +
		`{"id":"toolu_a","input":{"key":"alpha"},"name":"lookup","type":"tool_use"},` +
		`{"id":"toolu_b","input":{"key":"beta"},"name":"lookup","type":"tool_use"}],"role":"assistant"}`
	if string(asst) != want {
		t.Errorf("assistant message\n%s\nwant\n%s", asst, want)
	}
	if got := results(reqs[2]); !reflect.DeepEqual(got, []string{"toolu_c: no entry for missing (error)"}) {
		t.Errorf("third request's results %q", got)
	}
	for i, k := range srv.Keys() {
		if k != testKey {
			t.Errorf("request %d x-api-key %q", i+1, k)
		}
	}
}

func TestCutCallBecomesOutputLimit(t *testing.T) {
	cutArgs := `{"key":"bbbbbbbb`
	turn1 := join(start(50), text(0, "Two lookups."), toolUse(1, "toolu_a", "lookup", `{"key":"alpha"}`),
		toolOpen(2, "toolu_b", "lookup", cutArgs[:6], cutArgs[6:]), end("max_tokens", 100))

	t.Run("reply", func(t *testing.T) {
		srv := newServer(t, wiretest.SSE(turn1...))
		r, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := model.Reply{
			Text:  "Two lookups.",
			Calls: []tool.Call{{ID: "toolu_a", Name: "lookup", Arguments: `{"key":"alpha"}`}},
			Cut:   &tool.Call{ID: "toolu_b", Name: "lookup", Arguments: cutArgs},
			Stop:  model.StopOutputLimit, Usage: model.Usage{InputTokens: 50, OutputTokens: 100},
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("reply %+v\nwant  %+v", r, want)
		}
	})

	t.Run("run", func(t *testing.T) {
		srv := newServer(t, wiretest.SSE(turn1...), wiretest.SSE(join(start(80), text(0, "Done."), end("end_turn", 2))...))
		out, _, _ := wiretest.Run(t, newModel(t, srv.BaseURL()), "go")
		if out.Status != runtime.StatusSucceeded {
			t.Fatalf("outcome %+v", out)
		}
		second := srv.Requests()[1]
		want := []string{
			"toolu_a: " + feedback.PeerNotExecuted + " (error)",
			"toolu_b: " + feedback.OutputLimit("lookup", cutArgs) + " (error)",
		}
		if got := results(second); !reflect.DeepEqual(got, want) {
			t.Errorf("results\n%q\nwant\n%q", got, want)
		}
		blocks, _ := json.Marshal(wiretest.Messages(second)[1]["content"].([]any)[2])
		if string(blocks) != `{"id":"toolu_b","input":{},"name":"lookup","type":"tool_use"}` {
			t.Errorf("the cut call in the history: %s", blocks)
		}
	})
}

func TestInvalidArgumentsBecomeInvalidReply(t *testing.T) {
	bad := `{"key": alpha}`
	srv := newServer(t,
		wiretest.SSE(join(start(10), toolUse(0, "toolu_a", "lookup", bad), end("tool_use", 5))...),
		wiretest.SSE(join(start(20), text(0, "Sorry."), end("end_turn", 2))...),
	)
	out, s, _ := wiretest.Run(t, newModel(t, srv.BaseURL()), "go")
	if out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if got := s.Messages[1].Calls[0].Arguments; got != bad {
		t.Errorf("the raw arguments became %q", got)
	}
	second := srv.Requests()[1]
	if got := results(second); len(got) != 1 || got[0] != "toolu_a: "+feedback.InvalidArguments("lookup", bad)+" (error)" {
		t.Errorf("results %q", got)
	}
	blocks, _ := json.Marshal(wiretest.Messages(second)[1]["content"])
	if string(blocks) != `[{"id":"toolu_a","input":{},"name":"lookup","type":"tool_use"}]` {
		t.Errorf("the invalid call in the history: %s", blocks)
	}
}

func TestErrorsEndTheRunWithAClearMessage(t *testing.T) {
	rate := apiError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit.")
	boom := apiError("api_error", "Internal server error")
	busy := apiError("overloaded_error", "Overloaded")
	quick := []string{"retry-after-ms", "1"}
	cases := []struct {
		name  string
		step  wiretest.Step
		opts  []anthropic.Option
		path  string // appended to the base URL
		want  string
		retry string // what a retry says; empty for an error that cannot pass
	}{
		{name: "401", step: wiretest.Fail(401, apiError("authentication_error", "invalid x-api-key")),
			want: "rejected the API key (401 Unauthorized): check ANTHROPIC_API_KEY"},
		{name: "404 model", step: wiretest.Fail(404, apiError("not_found_error", "model: test-model")),
			want: `does not know the model "test-model" (404 Not Found: model: test-model): check the name after anthropic:`},
		{name: "404 path", path: "/v1", want: "has no messages endpoint at"},
		{name: "prompt too long", step: wiretest.Fail(400, apiError("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")),
			want: "the conversation no longer fits the context window of test-model (prompt is too long: 210000 tokens > 200000 maximum)"},
		{name: "400", step: wiretest.Fail(400, apiError("invalid_request_error", "messages: roles must alternate")),
			want: "rejected the request (400 Bad Request: messages: roles must alternate)"},
		{name: "no credit", step: wiretest.Fail(400, apiError("invalid_request_error", "Your credit balance is too low to access the Anthropic API.")),
			want: "says the account has no credit left"},
		{name: "429", step: wiretest.Fail(429, rate, quick...),
			want:  "is limiting the rate of requests (429 Too Many Requests: Number of request tokens has exceeded your per-minute rate limit); wait a little and try again",
			retry: "rate limited (429 Too Many Requests)"},
		{name: "429 with a long wait", step: wiretest.Fail(429, rate, "retry-after", "600"),
			want: "is limiting the rate of requests (429 Too Many Requests: Number of request tokens has exceeded your per-minute rate limit) and asks to wait 10m0s; try again then"},
		{name: "409", step: wiretest.Fail(409, apiError("api_error", "Conflict")),
			want: "could not take the request (409 Conflict: Conflict); try again", retry: "the server could not take the request (409 Conflict)"},
		{name: "500", step: wiretest.Fail(500, boom, quick...),
			want: "failed with 500 Internal Server Error: Internal server error; try again later", retry: "the server failed (500 Internal Server Error)"},
		{name: "529", step: wiretest.Fail(529, busy, quick...),
			want: "is overloaded (529 Overloaded: Overloaded); try again later", retry: "the server is overloaded (529 Overloaded)"},
		{name: "dropped connection", step: wiretest.DropAfter(join(start(5), text(0, "Half a th"))...),
			want: "dropped in the middle of the reply (unexpected end of the stream); try again", retry: "the connection dropped"},
		{name: "stalled stream", step: wiretest.StallAfter(start(5)), opts: []anthropic.Option{anthropic.WithStallTimeout(50 * time.Millisecond)},
			want: "sent nothing for 50ms, so the reply was abandoned; try again", retry: "nothing arrived for 50ms"},
		{name: "error event", step: wiretest.SSE(start(5), event("error", apiError("overloaded_error", "Overloaded"))),
			want: "reported an error in the middle of the reply: Overloaded", retry: "an error in the middle of the reply (Overloaded)"},
		{name: "invalid request event", step: wiretest.SSE(start(5), event("error", apiError("invalid_request_error", "Bad tool schema"))),
			want: "reported an error in the middle of the reply: Bad tool schema"},
		{name: "no stop reason", step: wiretest.SSE(join(start(5), text(0, "and then"))...),
			want: "ended before it was complete (no stop reason)", retry: "the reply ended before it was complete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var steps []wiretest.Step
			if c.step != nil {
				steps = append(steps, c.step)
			}
			srv := newServer(t, steps...)
			m := &wiretest.Recorder{Model: newModel(t, srv.BaseURL()+c.path, c.opts...)}
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
	m := newModel(t, "http://"+addr)
	_, err := m.Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	want := fmt.Sprintf("cannot reach the server at http://%s: connection refused; is it running, and is ANTHROPIC_BASE_URL right?", addr)
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
		fmt.Fprint(w, start(5))
		w.(http.Flusher).Flush()
		cancel() // the person pressed Esc while the reply streamed
		<-r.Context().Done()
	})
	_, err := newModel(t, srv.BaseURL()).Reply(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestToolUseWithoutAnIDGetsOne(t *testing.T) {
	srv := newServer(t, wiretest.SSE(join(start(5), toolUse(0, "", "lookup", `{"key":"alpha"}`), end("tool_use", 3))...))
	r, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Calls) != 1 || r.Calls[0].ID == "" || r.Calls[0].Name != "lookup" {
		t.Fatalf("calls %+v: want one lookup with an id made up, so that its result can answer it", r.Calls)
	}
}

// TestBytesThatAreNotUTF8AreMended checks that raw bytes a server put inside
// a JSON string reach the model's history as U+FFFD, as the journal would
// write them, so that a resumed session sends what a live one did.
func TestBytesThatAreNotUTF8AreMended(t *testing.T) {
	steps := join(start(5),
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"caf\xe9 \xff\"}}"),
		blockStop(0),
		toolOpen(1, "toolu_a", "lookup", "{\"key\":\"\xfe\"}"), blockStop(1), end("tool_use", 3))
	srv := newServer(t, wiretest.SSE(steps...))
	r, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "caf\uFFFD \uFFFD" || len(r.Calls) != 1 || r.Calls[0].Arguments != `{"key":"`+"\uFFFD"+`"}` {
		t.Fatalf("reply %q, calls %+v", r.Text, r.Calls)
	}
}
