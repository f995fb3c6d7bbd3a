package openai_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// retryModel is the model the retry tests run: its idle watchdog runs on
// the fake clock, with the idle timeout wiretest.Idle.
func retryModel(t *testing.T, base string, clock *wiretest.Clock) model.Model {
	return newModel(t, base, openai.WithStallTimeout(wiretest.Idle), openai.WithIdleTimer(clock.AfterFunc))
}

// recovered is the rest of a session after its first request failed: the
// reply with a lookup call, and the reply that finishes.
func recovered() []wiretest.Step {
	return []wiretest.Step{
		sse(join([]string{roleChunk(), textChunk("Looking it up.")}, call(0, "call_ok", "lookup", `{"key":"alpha"}`),
			[]string{finish("tool_calls"), usage(20, 5)})...),
		sse(join([]string{roleChunk()}, call(0, "call_end", "finish", `{"summary":"alpha found"}`),
			[]string{finish("tool_calls"), usage(30, 5)})...),
	}
}

var (
	boom = `{"error":{"message":"The server had an error processing your request.","type":"server_error","param":null,"code":null}}`
	rate = `{"error":{"message":"Rate limit reached for test-model.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	busy = `{"error":{"message":"Overloaded","type":"overloaded_error"}}`
)

// Each fault a provider shows in the wild, then a reply: the run succeeds
// after one more attempt, and nothing of the failed attempt remains.
func TestFaultsAreRetried(t *testing.T) {
	cases := []struct {
		name   string
		faults []wiretest.Fault
	}{
		{"stall after the first chunk", []wiretest.Fault{{
			Step: stallAfter(roleChunk(), textChunk("STALLED-TEXT")), Fragment: "STALLED-TEXT", Stalls: true,
			Why: "nothing arrived for 1m30s"}}},
		{"drop inside a call's arguments", []wiretest.Fault{{
			Step:     dropAfter(roleChunk(), textChunk("DROPPED-TEXT "), callStart(0, "call_lost", "lookup"), callArgs(0, `{"key":"DROPPED-ARG`)),
			Fragment: "DROPPED-", Why: "the connection dropped"}}},
		{"429 with Retry-After: 1", []wiretest.Fault{{
			Step: wiretest.Fail(429, rate, "Retry-After", "1"), Why: "rate limited (429 Too Many Requests)", Wait: time.Second}}},
		{"529 overloaded", []wiretest.Fault{{
			Step: wiretest.Fail(529, busy), Why: "the server is overloaded (529 Overloaded)"}}},
		{"500, then success", []wiretest.Fault{{
			Step: wiretest.Fail(500, boom), Why: "the server failed (500 Internal Server Error)"}}},
		{"a stream cut short", []wiretest.Fault{{
			Step: sse(roleChunk(), textChunk("CUT-TEXT")), Fragment: "CUT-TEXT", Why: "the reply ended before it was complete"}}},
		{"a tool call with no name", []wiretest.Fault{{
			Step:     sse(join([]string{roleChunk(), textChunk("NONAME-TEXT")}, call(0, "call_x", "", `{}`), []string{finish("tool_calls")})...),
			Fragment: "NONAME-TEXT", Why: "the reply was malformed"}}},
		{"several faults in a row", []wiretest.Fault{
			{Step: wiretest.Fail(503, boom), Why: "the server failed (503 Service Unavailable)"},
			{Step: dropAfter(roleChunk(), textChunk("FIRST-DROP")), Fragment: "FIRST-DROP", Why: "the connection dropped"},
			{Step: stallAfter(roleChunk(), textChunk("THEN-STALL")), Fragment: "THEN-STALL", Stalls: true, Why: "nothing arrived for 1m30s"},
			{Step: wiretest.Fail(429, rate, "retry-after-ms", "1500"), Why: "rate limited", Wait: 1500 * time.Millisecond},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chatAPI.CheckRecovers(t, retryModel, c.faults, recovered()...)
		})
	}
}

func TestProviderThatNeverRecoversFails(t *testing.T) {
	t.Run("500", func(t *testing.T) {
		var faults []wiretest.Fault
		for range model.DefaultRetries + 1 {
			faults = append(faults, wiretest.Fault{Step: wiretest.Fail(500, boom), Why: "the server failed (500 Internal Server Error)"})
		}
		chatAPI.CheckGivesUp(t, retryModel, faults, "failed with 500 Internal Server Error: The server had an error processing your request; try again later")
	})
	t.Run("stalls", func(t *testing.T) {
		var faults []wiretest.Fault
		for range model.DefaultRetries + 1 {
			faults = append(faults, wiretest.Fault{Step: stallAfter(roleChunk(), textChunk("quiet")), Fragment: "quiet", Stalls: true,
				Why: "nothing arrived for 1m30s"})
		}
		chatAPI.CheckGivesUp(t, retryModel, faults, "sent nothing for 1m30s, so the reply was abandoned")
	})
}

func TestErrorsThatCannotPassAreNotRetried(t *testing.T) {
	t.Run("401", func(t *testing.T) {
		chatAPI.CheckFinal(t, retryModel,
			wiretest.Fail(401, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`),
			"rejected the API key (401 Unauthorized): check OPENAI_API_KEY")
	})
	t.Run("400", func(t *testing.T) {
		chatAPI.CheckFinal(t, retryModel,
			wiretest.Fail(400, `{"error":{"message":"Invalid value for 'messages'.","type":"invalid_request_error","code":"invalid_value"}}`),
			"rejected the request (400 Bad Request: Invalid value for 'messages')")
	})
	t.Run("context overflow", func(t *testing.T) {
		chatAPI.CheckFinal(t, retryModel,
			wiretest.Fail(400, `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`),
			"the conversation no longer fits the context window of test-model")
	})
	t.Run("unknown model", func(t *testing.T) {
		chatAPI.CheckFinal(t, retryModel,
			wiretest.Fail(404, `{"error":{"message":"The model does not exist.","type":"invalid_request_error","code":"model_not_found"}}`),
			`does not know the model "test-model"`)
	})
	t.Run("403", func(t *testing.T) {
		chatAPI.CheckFinal(t, retryModel,
			wiretest.Fail(http.StatusForbidden, `{"error":{"message":"Project does not have access to model.","type":"invalid_request_error"}}`),
			"refused the request (403 Forbidden")
	})
}

// The idle watchdog abandons an attempt once nothing has arrived for the
// idle timeout, and not before: on the fake clock, a 1 s timeout ends the
// attempt at exactly 1 s of quiet after the last byte.
func TestIdleWatchdogEndsTheAttemptAtTheTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, wiretest.StallBetween(events([]string{roleChunk(), textChunk("first half")}), release,
		events([]string{textChunk("second half")})))
	clock := &wiretest.Clock{}
	m := newModel(t, srv.BaseURL(), openai.WithStallTimeout(time.Second), openai.WithIdleTimer(clock.AfterFunc))
	wiretest.CheckIdleTimeout(t, m, clock, time.Second, release, "first half", "second half", "sent nothing for 1s, so the reply was abandoned")
}

func TestRetryWaitStopsWithTheContext(t *testing.T) {
	srv := newServer(t, wiretest.Fail(500, boom))
	err := wiretest.StopDuringWait(t, newModel(t, srv.BaseURL()))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
