package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// The retry tests of the Responses API mirror those of Chat Completions:
// the same faults, the same recovery, the same words.

// responsesRetryModel is the model the retry tests run over the Responses
// API: its idle watchdog runs on the fake clock, with the idle timeout
// wiretest.Idle.
func responsesRetryModel(t *testing.T, base string, clock *wiretest.Clock) model.Model {
	return newResponsesModel(t, base, openai.WithStallTimeout(wiretest.Idle), openai.WithIdleTimer(clock.AfterFunc))
}

// respRecovered is the rest of a session after its first request failed:
// the reply with a lookup call, and the reply that finishes.
func respRecovered() []wiretest.Step {
	return []wiretest.Step{
		respond(respUsage(20, 0, 5, 2), reasoning("rs_ok", "Look it up."), message("m_ok", "Looking it up."),
			fcall("fc_ok", "call_ok", "lookup", `{"key":"alpha"}`)),
		respond(respUsage(30, 16, 5, 0), fcall("fc_end", "call_end", "finish", `{"summary":"alpha found"}`)),
	}
}

// partial is the start of a response: created, and a message that has
// begun to stream text.
func partial(text string) []string {
	return []string{
		event("response.created", `"response":{"id":"resp_x","status":"in_progress"}`),
		event("response.output_item.added", `"output_index":0,"item":{"id":"m_x","type":"message","content":[],"role":"assistant"}`),
		event("response.output_text.delta", fmt.Sprintf(`"output_index":0,"item_id":"m_x","content_index":0,"delta":%s`, q(text))),
	}
}

func TestResponsesFaultsAreRetried(t *testing.T) {
	failed := func(code, msg string) string {
		return event("response.failed", fmt.Sprintf(`"response":{"id":"resp_x","status":"failed","error":{"code":%q,"message":%q},"usage":null}`, code, msg))
	}
	cases := []struct {
		name   string
		faults []wiretest.Fault
	}{
		{"stall after the first event", []wiretest.Fault{{
			Step: wiretest.StallAfter(partial("STALLED-TEXT")...), Fragment: "STALLED-TEXT", Stalls: true,
			Why: "nothing arrived for 1m30s"}}},
		{"drop inside a call's arguments", []wiretest.Fault{{
			Step: wiretest.DropAfter(append(partial("DROPPED-TEXT "),
				event("response.output_item.added", `"output_index":1,"item":{"id":"fc_x","type":"function_call","call_id":"call_lost","name":"lookup","arguments":""}`),
				event("response.function_call_arguments.delta", `"output_index":1,"item_id":"fc_x","delta":"{\"key\":\"DROPPED-ARG"`))...),
			Fragment: "DROPPED-", Why: "the connection dropped"}}},
		{"429 with Retry-After: 1", []wiretest.Fault{{
			Step: wiretest.Fail(429, rate, "Retry-After", "1"), Why: "rate limited (429 Too Many Requests)", Wait: time.Second}}},
		{"529 overloaded", []wiretest.Fault{{
			Step: wiretest.Fail(529, busy), Why: "the server is overloaded (529 Overloaded)"}}},
		{"500, then success", []wiretest.Fault{{
			Step: wiretest.Fail(500, boom), Why: "the server failed (500 Internal Server Error)"}}},
		{"a stream cut short", []wiretest.Fault{{
			Step: wiretest.SSE(partial("CUT-TEXT")...), Fragment: "CUT-TEXT", Why: "the reply ended before it was complete"}}},
		{"a function call with no name", []wiretest.Fault{{
			Step: wiretest.SSE(append(partial("NONAME-TEXT"),
				event("response.output_item.done", `"output_index":1,"item":{"id":"fc_x","type":"function_call","call_id":"call_x","name":"","arguments":"{}"}`),
				event("response.completed", `"response":{"status":"completed","usage":`+respUsage(1, 0, 1, 0)+`}`))...),
			Fragment: "NONAME-TEXT", Why: "the reply was malformed"}}},
		{"an error event", []wiretest.Fault{{
			Step:     wiretest.SSE(append(partial("ERRORED-TEXT"), event("error", `"code":"server_error","message":"The server had an error while processing your request.","param":null,"sequence_number":4`))...),
			Fragment: "ERRORED-TEXT", Why: "an error in the middle of the reply (The server had an error while processing your request)"}}},
		{"a failed response", []wiretest.Fault{{
			Step:     wiretest.SSE(append(partial("FAILED-TEXT"), failed("server_error", "The model had an error."))...),
			Fragment: "FAILED-TEXT", Why: "an error in the middle of the reply (The model had an error)"}}},
		{"several faults in a row", []wiretest.Fault{
			{Step: wiretest.Fail(503, boom), Why: "the server failed (503 Service Unavailable)"},
			{Step: wiretest.DropAfter(partial("FIRST-DROP")...), Fragment: "FIRST-DROP", Why: "the connection dropped"},
			{Step: wiretest.StallAfter(partial("THEN-STALL")...), Fragment: "THEN-STALL", Stalls: true, Why: "nothing arrived for 1m30s"},
			{Step: wiretest.Fail(429, rate, "retry-after-ms", "1500"), Why: "rate limited", Wait: 1500 * time.Millisecond},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			responsesAPI.CheckRecovers(t, responsesRetryModel, c.faults, respRecovered()...)
		})
	}
}

func TestResponsesProviderThatNeverRecoversFails(t *testing.T) {
	t.Run("500", func(t *testing.T) {
		var faults []wiretest.Fault
		for range model.DefaultRetries + 1 {
			faults = append(faults, wiretest.Fault{Step: wiretest.Fail(500, boom), Why: "the server failed (500 Internal Server Error)"})
		}
		responsesAPI.CheckGivesUp(t, responsesRetryModel, faults, "failed with 500 Internal Server Error: The server had an error processing your request; try again later")
	})
	t.Run("stalls", func(t *testing.T) {
		var faults []wiretest.Fault
		for range model.DefaultRetries + 1 {
			faults = append(faults, wiretest.Fault{Step: wiretest.StallAfter(partial("quiet")...), Fragment: "quiet", Stalls: true,
				Why: "nothing arrived for 1m30s"})
		}
		responsesAPI.CheckGivesUp(t, responsesRetryModel, faults, "sent nothing for 1m30s, so the reply was abandoned")
	})
}

func TestResponsesErrorsThatCannotPassAreNotRetried(t *testing.T) {
	cases := []struct {
		name string
		step wiretest.Step
		want string
	}{
		{"401", wiretest.Fail(401, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`),
			"rejected the API key (401 Unauthorized): check OPENAI_API_KEY"},
		{"context overflow", wiretest.Fail(400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`),
			"the conversation no longer fits the context window of test-model"},
		{"an unsupported effort", apiError(400, "Unsupported value: 'reasoning.effort' does not support 'none' with this model. Supported values are: 'low', 'medium', 'high', 'xhigh', and 'max'.", "reasoning.effort", "unsupported_value"),
			`refused the reasoning setting for test-model (400 Bad Request: Unsupported value: 'reasoning.effort' does not support 'none' with this model. Supported values are: 'low', 'medium', 'high', 'xhigh', and 'max'): change the reasoning effort with the configuration's "reasoning": {"effort": …}, --reasoning or /reasoning`},
		{"an unsupported summary", apiError(400, "Unsupported parameter: 'reasoning.summary' is not supported with this model.", "reasoning.summary", "unsupported_parameter"),
			"refused the reasoning setting for test-model (400 Bad Request: Unsupported parameter: 'reasoning.summary' is not supported with this model)"},
		{"a sampling setting", apiError(400, "Unsupported parameter: 'temperature' is not supported with this model.", "temperature", "unsupported_parameter"),
			"refused a setting test-model does not take (400 Bad Request: Unsupported parameter: 'temperature' is not supported with this model): agenttui sets no sampling parameters"},
		{"a failed response", wiretest.SSE(append(partial("x"), event("response.failed",
			`"response":{"status":"failed","error":{"code":"invalid_prompt","message":"Invalid prompt: your prompt was flagged as potentially violating our usage policy."}}`))...),
			"reported an error in the middle of the reply: Invalid prompt: your prompt was flagged"},
		{"no responses endpoint", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "404 page not found", http.StatusNotFound)
		}, `has no Responses API endpoint at`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			responsesAPI.CheckFinal(t, responsesRetryModel, c.step, c.want)
		})
	}
}

// The idle watchdog abandons an attempt once nothing has arrived for the
// idle timeout, and not before.
func TestResponsesIdleWatchdogEndsTheAttemptAtTheTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := responsesAPI.Start(t, wiretest.StallBetween(partial("first half"), release,
		[]string{event("response.output_text.delta", `"output_index":0,"item_id":"m_x","content_index":0,"delta":"second half"`)}))
	clock := &wiretest.Clock{}
	m := newResponsesModel(t, srv.BaseURL(), openai.WithStallTimeout(time.Second), openai.WithIdleTimer(clock.AfterFunc))
	wiretest.CheckIdleTimeout(t, m, clock, time.Second, release, "first half", "second half", "sent nothing for 1s, so the reply was abandoned")
}

func TestResponsesRetryWaitStopsWithTheContext(t *testing.T) {
	srv := responsesAPI.Start(t, wiretest.Fail(500, boom))
	err := wiretest.StopDuringWait(t, newResponsesModel(t, srv.BaseURL()))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestResponsesIsTheDefaultForOpenAI checks the wire each server gets by
// default and by choice.
func TestResponsesIsTheDefaultForOpenAI(t *testing.T) {
	t.Setenv(openai.EnvBaseURL, "")
	for _, c := range []struct {
		opts []openai.Option
		want openai.API
	}{
		{nil, openai.APIResponses},
		{[]openai.Option{openai.WithAPI(openai.APIChat)}, openai.APIChat},
		{[]openai.Option{openai.WithBaseURL("http://localhost:11434/v1")}, openai.APIChat},
		{[]openai.Option{openai.WithBaseURL("http://localhost:8000/v1"), openai.WithAPI(openai.APIResponses)}, openai.APIResponses},
	} {
		m, err := openai.New("gpt-6.2-sol", append([]openai.Option{openai.WithAPIKey(testKey)}, c.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if m.API() != c.want {
			t.Errorf("%d options: %q, want %q", len(c.opts), m.API(), c.want)
		}
	}
	for in, want := range map[string]openai.API{"responses": openai.APIResponses, " Chat ": openai.APIChat, "": openai.APIDefault} {
		if got, err := openai.ParseAPI(in); err != nil || got != want {
			t.Errorf("ParseAPI(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := openai.ParseAPI("completions"); err == nil || err.Error() != `unknown OpenAI API "completions": use "responses" (the Responses API) or "chat" (Chat Completions)` {
		t.Errorf("ParseAPI(completions): %v", err)
	}
	if _, err := openai.New("m", openai.WithAPIKey(testKey), openai.WithAPI("grpc")); err == nil {
		t.Error("an unknown API was accepted")
	}
	// The run over the Responses API succeeds end to end without a base
	// URL's chat path being touched.
	srv := responsesAPI.Start(t, respRecovered()...)
	out, _, _ := runAgent(t, newResponsesModel(t, srv.BaseURL()), "s", "look up alpha")
	if out.Status != runtime.StatusSucceeded {
		t.Errorf("outcome %+v", out)
	}
}
