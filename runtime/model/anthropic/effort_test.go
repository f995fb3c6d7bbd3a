package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
)

// sentAs returns the request body the model called name sends for req.
func sentAs(t *testing.T, name string, req model.Request) map[string]any {
	t.Helper()
	srv := newServer(t, wiretest.SSE(join(start(1), text(0, "ok"), end("end_turn", 1))...))
	m, err := anthropic.New(name, anthropic.WithBaseURL(srv.BaseURL()), anthropic.WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Reply(wiretest.Context(t), req, nil); err != nil {
		t.Fatal(err)
	}
	return srv.Requests()[0]
}

// TestEffortMapping pins the request each family is sent for each effort:
// the thinking parameter, output_config and max_tokens.
func TestEffortMapping(t *testing.T) {
	const none = "null"
	adaptive := `{"display":"summarized","type":"adaptive"}`
	// The models with preserved thinking also ask for blocks whose prefix
	// changed to be dropped; see TestCompactionKeepsThinkingValid.
	preserved := `{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"display":"summarized","type":"adaptive"}`
	effort := func(e string) string { return `{"effort":"` + e + `"}` }
	for _, tc := range []struct {
		model    string
		effort   model.Effort
		thinking string
		config   string
		max      int
	}{
		// Always on, adaptive, with effort: Fable, Mythos, Opus 5.5.
		{"claude-opus-5-5", model.EffortDefault, preserved, none, anthropic.ThinkingMaxTokens},
		{"claude-opus-5-5", model.EffortLow, preserved, effort("low"), anthropic.ThinkingMaxTokens},
		{"claude-opus-5-5", model.EffortMax, preserved, effort("max"), anthropic.ThinkingMaxTokens},
		{"claude-fable-5-2", model.EffortHigh, preserved, effort("high"), anthropic.ThinkingMaxTokens},
		{"claude-mythos-5-1", model.EffortMedium, preserved, effort("medium"), anthropic.ThinkingMaxTokens},
		{"claude-mythos-preview", model.EffortMax, adaptive, effort("max"), anthropic.ThinkingMaxTokens},
		// Adaptive models that think by default turn it off with "disabled".
		{"claude-opus-5", model.EffortOff, `{"type":"disabled"}`, none, anthropic.DefaultMaxTokens},
		{"claude-sonnet-5", model.EffortOff, `{"type":"disabled"}`, none, anthropic.DefaultMaxTokens},
		{"claude-haiku-5-5", model.EffortOff, `{"type":"disabled"}`, none, anthropic.DefaultMaxTokens},
		{"claude-haiku-5-5", model.EffortDefault, preserved, none, anthropic.ThinkingMaxTokens},
		{"claude-opus-5", model.EffortMax, adaptive, effort("max"), anthropic.ThinkingMaxTokens},
		// Sonnet 5.5 refuses "disabled" and takes "between_tools", alone.
		{"claude-sonnet-5-5", model.EffortOff, `{"type":"between_tools"}`, none, anthropic.DefaultMaxTokens},
		{"claude-sonnet-5-5", model.EffortHigh, preserved, effort("high"), anthropic.ThinkingMaxTokens},
		// Adaptive models that do not think unless asked: off sends nothing.
		{"claude-opus-4-8", model.EffortOff, none, none, anthropic.DefaultMaxTokens},
		{"claude-opus-4-7", model.EffortDefault, adaptive, none, anthropic.ThinkingMaxTokens},
		{"claude-opus-4-6", model.EffortMax, adaptive, effort("max"), anthropic.ThinkingMaxTokens},
		{"claude-sonnet-4-6-20260217", model.EffortLow, adaptive, effort("low"), anthropic.ThinkingMaxTokens},
		// Budget models: no thinking by default, a budget below max_tokens.
		{"claude-sonnet-4-5-20250929", model.EffortDefault, none, none, anthropic.DefaultMaxTokens},
		{"claude-sonnet-4-5", model.EffortOff, none, none, anthropic.DefaultMaxTokens},
		{"claude-sonnet-4-5", model.EffortLow, `{"budget_tokens":2048,"display":"summarized","type":"enabled"}`, none, 2048 + anthropic.DefaultMaxTokens},
		{"claude-haiku-4-5", model.EffortMedium, `{"budget_tokens":8192,"display":"summarized","type":"enabled"}`, none, 8192 + anthropic.DefaultMaxTokens},
		{"claude-opus-4-5", model.EffortHigh, `{"budget_tokens":16384,"display":"summarized","type":"enabled"}`, none, 16384 + anthropic.DefaultMaxTokens},
		{"claude-sonnet-4-5", model.EffortMax, `{"budget_tokens":32000,"display":"summarized","type":"enabled"}`, none, 32000 + anthropic.DefaultMaxTokens},
		// Opus 4.1 writes at most 32,000 tokens: the budget gives way.
		{"claude-opus-4-1", model.EffortMax, `{"budget_tokens":23808,"display":"summarized","type":"enabled"}`, none, 32000},
		// A model that does not reason is sent nothing.
		{"claude-3-5-haiku-20241022", model.EffortHigh, none, none, anthropic.DefaultMaxTokens},
		// A model the tables do not know: nothing by default or off, the
		// adaptive form for an effort.
		{"claude-opus-6", model.EffortDefault, none, none, anthropic.DefaultMaxTokens},
		{"claude-opus-6", model.EffortOff, none, none, anthropic.DefaultMaxTokens},
		{"claude-opus-6", model.EffortHigh, adaptive, effort("high"), anthropic.ThinkingMaxTokens},
	} {
		body := sentAs(t, tc.model, model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}, Effort: tc.effort})
		thinking, _ := json.Marshal(body["thinking"])
		config, _ := json.Marshal(body["output_config"])
		if string(thinking) != tc.thinking || string(config) != tc.config || body["max_tokens"] != float64(tc.max) {
			t.Errorf("%s at %s: thinking %s, output_config %s, max_tokens %v\nwant %s, %s, %d",
				tc.model, tc.effort, thinking, config, body["max_tokens"], tc.thinking, tc.config, tc.max)
		}
	}
}

// TestEffortRefusals checks that asking a model that always thinks to stop
// is refused in one line that names the setting, and that no request is
// sent.
func TestEffortRefusals(t *testing.T) {
	for _, name := range []string{"claude-fable-5-2", "claude-mythos-5-2", "claude-fable-5-1", "claude-mythos-5-1",
		"claude-fable-5", "claude-mythos-5", "claude-mythos-preview", "claude-opus-5-5"} {
		srv := newServer(t) // any request is unexpected
		m, err := anthropic.New(name, anthropic.WithBaseURL(srv.BaseURL()), anthropic.WithAPIKey(testKey))
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}, Effort: model.EffortOff}, nil)
		want := "anthropic:" + name + " always reasons and refuses to have it turned off: set reasoning to low, medium, high, max or default " +
			"(\"reasoning\": {\"effort\": …} in the configuration, --reasoning, or /reasoning)"
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", name, err, want)
		}
		if _, transient := wiretest.Transient(err); transient {
			t.Errorf("%s: the refusal may pass, so it would be retried", name)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("%s: %d requests sent", name, n)
		}
	}
}

// TestExplicitOutputLimitIsKept checks that an output limit the request
// sets is not raised for adaptive thinking, which fits within it.
func TestExplicitOutputLimitIsKept(t *testing.T) {
	body := sentAs(t, "claude-opus-5-5", model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}, MaxOutputTokens: 1000})
	if body["max_tokens"] != 1000.0 {
		t.Errorf("max_tokens %v", body["max_tokens"])
	}
}

// TestCompactionRequest checks the summary request: thinking off where the
// model allows it, else its least effort with room on top of the 4,096
// tokens of the summary; no cache breakpoints.
func TestCompactionRequest(t *testing.T) {
	for _, tc := range []struct {
		model, thinking, config string
		max                     int
	}{
		{"claude-opus-5-5", `{"display":"omitted","type":"adaptive"}`, `{"effort":"low"}`, 4096 + 8192},
		{"claude-fable-5-2", `{"display":"omitted","type":"adaptive"}`, `{"effort":"low"}`, 4096 + 8192},
		{"claude-opus-5", `{"type":"disabled"}`, "null", 4096},
		{"claude-sonnet-5-5", `{"type":"between_tools"}`, "null", 4096},
		{"claude-opus-4-6", "null", "null", 4096},
		{"claude-sonnet-4-5", "null", "null", 4096},
		{"claude-opus-6", "null", "null", 4096},
	} {
		req := model.Request{System: "Summarise.", Messages: []model.Message{{Role: model.RoleUser, Text: "history"}},
			MaxOutputTokens: 4096, Compact: true, Effort: model.EffortMax}
		body := sentAs(t, tc.model, req)
		thinking, _ := json.Marshal(body["thinking"])
		config, _ := json.Marshal(body["output_config"])
		if string(thinking) != tc.thinking || string(config) != tc.config || body["max_tokens"] != float64(tc.max) {
			t.Errorf("%s: thinking %s, output_config %s, max_tokens %v", tc.model, thinking, config, body["max_tokens"])
		}
		if n := countBreakpoints(body); n != 0 {
			t.Errorf("%s: %d breakpoints", tc.model, n)
		}
	}
}

// TestRefusedSettingIsExplained checks that a 400 refusing a reasoning
// setting says, in one line, which agenttui setting to change, with the
// API's own words.
func TestRefusedSettingIsExplained(t *testing.T) {
	for _, msg := range []string{
		`"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`,
		`"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`,
		`To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of {"type": "disabled"}. The model does not think before responding.`,
		`adaptive thinking is not supported on this model`,
		`This model does not support the effort parameter.`,
		`output_config.effort 'xhigh' is not supported when thinking is disabled on this model. Use effort 'high' or below, or enable thinking.`,
		"`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
		"`temperature` may only be set to 1 when thinking is enabled.",
	} {
		srv := newServer(t, wiretest.Fail(400, apiError("invalid_request_error", msg)))
		m := &wiretest.Recorder{Model: newModel(t, srv.BaseURL())}
		out, _, _ := wiretest.Run(t, m, "go")
		wiretest.Failed(t, out, `refused the reasoning setting sent to test-model (400 Bad Request: `+strings.TrimSuffix(msg, ".")+`): change the reasoning effort with "reasoning": {"effort": …} in the configuration, --reasoning, or /reasoning in the console`, testKey)
	}
	// A thinking block sent back wrong is no setting: it is reported as the
	// API says it.
	srv := newServer(t, wiretest.Fail(400, apiError("invalid_request_error", "messages.1.content.0: Invalid `signature` in `thinking` block")))
	out, _, _ := wiretest.Run(t, newModel(t, srv.BaseURL()), "go")
	wiretest.Failed(t, out, "rejected the request (400 Bad Request: messages.1.content.0: Invalid `signature` in `thinking` block)", testKey)
}
