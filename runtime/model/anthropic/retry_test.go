package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
)

// retryModel is the model the retry tests run: its idle watchdog runs on
// the fake clock, with the idle timeout wiretest.Idle.
func retryModel(t *testing.T, base string, clock *wiretest.Clock) model.Model {
	return newModel(t, base, anthropic.WithStallTimeout(wiretest.Idle), anthropic.WithIdleTimer(clock.AfterFunc))
}

// recovered is the rest of a session after its first request failed: the
// reply with a lookup call, and the reply that finishes.
func recovered() []wiretest.Step {
	return []wiretest.Step{
		wiretest.SSE(join(start(20), text(0, "Looking it up."), toolUse(1, "toolu_ok", "lookup", `{"key":"alpha"}`), end("tool_use", 5))...),
		wiretest.SSE(join(start(30), toolUse(0, "toolu_end", "finish", `{"summary":"alpha found"}`), end("tool_use", 5))...),
	}
}

var (
	boom = apiError("api_error", "Internal server error")
	rate = apiError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit.")
	busy = apiError("overloaded_error", "Overloaded")
)

// Each fault a provider shows in the wild, then a reply: the run succeeds
// after one more attempt, and nothing of the failed attempt remains.
func TestFaultsAreRetried(t *testing.T) {
	cases := []struct {
		name   string
		faults []wiretest.Fault
	}{
		{"stall after the first chunk", []wiretest.Fault{{
			Step: wiretest.StallAfter(join(start(5), text(0, "STALLED-TEXT"))...), Fragment: "STALLED-TEXT", Stalls: true,
			Why: "nothing arrived for 1m30s"}}},
		{"drop inside a call's arguments", []wiretest.Fault{{
			Step:     wiretest.DropAfter(join(start(5), text(0, "DROPPED-TEXT "), toolOpen(1, "toolu_lost", "lookup", `{"key":`, `"DROPPED-ARG`))...),
			Fragment: "DROPPED-", Why: "the connection dropped"}}},
		{"429 with Retry-After: 1", []wiretest.Fault{{
			Step: wiretest.Fail(429, rate, "Retry-After", "1"), Why: "rate limited (429 Too Many Requests)", Wait: time.Second}}},
		{"529 overloaded", []wiretest.Fault{{
			Step: wiretest.Fail(529, busy), Why: "the server is overloaded (529 Overloaded)"}}},
		{"overloaded error event", []wiretest.Fault{{
			Step:     wiretest.SSE(join(start(5), text(0, "EVENT-TEXT"), event("error", busy))...),
			Fragment: "EVENT-TEXT", Why: "an error in the middle of the reply (Overloaded)"}}},
		{"500, then success", []wiretest.Fault{{
			Step: wiretest.Fail(500, boom), Why: "the server failed (500 Internal Server Error)"}}},
		{"a stream cut short", []wiretest.Fault{{
			Step: wiretest.SSE(join(start(5), text(0, "CUT-TEXT"))...), Fragment: "CUT-TEXT", Why: "the reply ended before it was complete"}}},
		{"a tool_use with no name", []wiretest.Fault{{
			Step:     wiretest.SSE(join(start(5), text(0, "NONAME-TEXT"), toolUse(1, "toolu_x", "", `{}`), end("tool_use", 3))...),
			Fragment: "NONAME-TEXT", Why: "the reply was malformed"}}},
		{"several faults in a row", []wiretest.Fault{
			{Step: wiretest.Fail(503, boom), Why: "the server failed (503 Service Unavailable)"},
			{Step: wiretest.DropAfter(join(start(5), text(0, "FIRST-DROP"))...), Fragment: "FIRST-DROP", Why: "the connection dropped"},
			{Step: wiretest.StallAfter(join(start(5), text(0, "THEN-STALL"))...), Fragment: "THEN-STALL", Stalls: true, Why: "nothing arrived for 1m30s"},
			{Step: wiretest.Fail(529, busy, "retry-after-ms", "1500"), Why: "overloaded", Wait: 1500 * time.Millisecond},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			messagesAPI.CheckRecovers(t, retryModel, c.faults, recovered()...)
		})
	}
}

func TestProviderThatNeverRecoversFails(t *testing.T) {
	t.Run("529", func(t *testing.T) {
		var faults []wiretest.Fault
		for range model.DefaultRetries + 1 {
			faults = append(faults, wiretest.Fault{Step: wiretest.Fail(529, busy), Why: "the server is overloaded (529 Overloaded)"})
		}
		messagesAPI.CheckGivesUp(t, retryModel, faults, "is overloaded (529 Overloaded: Overloaded); try again later")
	})
	t.Run("stalls", func(t *testing.T) {
		var faults []wiretest.Fault
		for range model.DefaultRetries + 1 {
			faults = append(faults, wiretest.Fault{Step: wiretest.StallAfter(join(start(5), text(0, "quiet"))...), Fragment: "quiet", Stalls: true,
				Why: "nothing arrived for 1m30s"})
		}
		messagesAPI.CheckGivesUp(t, retryModel, faults, "sent nothing for 1m30s, so the reply was abandoned")
	})
}

func TestErrorsThatCannotPassAreNotRetried(t *testing.T) {
	t.Run("401", func(t *testing.T) {
		messagesAPI.CheckFinal(t, retryModel, wiretest.Fail(401, apiError("authentication_error", "invalid x-api-key")),
			"rejected the API key (401 Unauthorized): check ANTHROPIC_API_KEY")
	})
	t.Run("400", func(t *testing.T) {
		messagesAPI.CheckFinal(t, retryModel, wiretest.Fail(400, apiError("invalid_request_error", "messages: roles must alternate")),
			"rejected the request (400 Bad Request: messages: roles must alternate)")
	})
	t.Run("context overflow", func(t *testing.T) {
		messagesAPI.CheckFinal(t, retryModel, wiretest.Fail(400, apiError("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")),
			"the conversation no longer fits the context window of test-model")
	})
	t.Run("unknown model", func(t *testing.T) {
		messagesAPI.CheckFinal(t, retryModel, wiretest.Fail(404, apiError("not_found_error", "model: test-model")),
			`does not know the model "test-model"`)
	})
	t.Run("403", func(t *testing.T) {
		messagesAPI.CheckFinal(t, retryModel, wiretest.Fail(http.StatusForbidden, apiError("permission_error", "Your API key does not have permission to use the specified resource.")),
			"refused the request (403 Forbidden")
	})
}

// The idle watchdog abandons an attempt once nothing has arrived for the
// idle timeout, and not before: on the fake clock, a 1 s timeout ends the
// attempt at exactly 1 s of quiet after the last byte.
func TestIdleWatchdogEndsTheAttemptAtTheTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, wiretest.StallBetween(join(start(5), text(0, "first half")[:2]), release,
		join(text(0, "second half")[1:2])))
	clock := &wiretest.Clock{}
	m := newModel(t, srv.BaseURL(), anthropic.WithStallTimeout(time.Second), anthropic.WithIdleTimer(clock.AfterFunc))
	wiretest.CheckIdleTimeout(t, m, clock, time.Second, release, "first half", "second half", "sent nothing for 1s, so the reply was abandoned")
}

func TestRetryWaitStopsWithTheContext(t *testing.T) {
	srv := newServer(t, wiretest.Fail(500, boom))
	err := wiretest.StopDuringWait(t, newModel(t, srv.BaseURL()))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
