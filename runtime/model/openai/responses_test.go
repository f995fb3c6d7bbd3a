package openai_test

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
	"github.com/agenttui/agenttui/runtime/tool"
)

// loopTurns is a three-turn tool loop in which every reply reasons: two
// lookups side by side; text between two reasoning items and a lookup that
// fails; then finish. The second and third turns read most of their input
// from the prompt cache.
func loopTurns() []rulesTurn {
	return []rulesTurn{
		{respUsage(1200, 0, 300, 120), []out{
			{kind: "reasoning", id: "rs_1", parts: []string{"**Planning**\n\nLook up both keys.", "Both at once; they are independent."}, encrypted: "gAAAAB1+/x==<&>"},
			fcall("fc_1", "call_a", "lookup", `{"key":"alpha"}`),
			fcall("fc_2", "call_b", "lookup", `{"key": "beta"}`),
		}},
		{respUsage(1500, 1152, 200, 80), []out{
			reasoning("rs_2", "Both keys were found."),
			message("msg_1", "Alpha and beta are there; one more."),
			reasoning("rs_3", "Check a key that is missing."),
			fcall("fc_3", "call_c", "lookup", `{"key":"missing"}`),
		}},
		{respUsage(1800, 1408, 100, 40), []out{
			reasoning("rs_4", "Done."),
			fcall("fc_4", "call_d", "finish", `{"summary":"alpha and beta found"}`),
		}},
	}
}

// TestResponsesToolLoopKeepsReasoning runs a tool loop against a server
// that refuses, as OpenAI does, a request that is not stateless, a
// reasoning item changed or not followed by the item that followed it, and
// a call without its output, and also one that drops an earlier reasoning
// item. The run succeeds; each request carries the earlier reasoning items
// byte for byte and in place; the summaries stream as thinking; the cached
// and reasoning tokens reach the usage events.
func TestResponsesToolLoopKeepsReasoning(t *testing.T) {
	rs := newRulesServer(t, "sess-1", loopTurns()...)
	out, s, rec := runAgent(t, newResponsesModel(t, rs.BaseURL()), "sess-1", "look up alpha and beta")
	if out.Status != runtime.StatusSucceeded || out.Summary != "alpha and beta found" {
		t.Fatalf("outcome %+v; the server refused %q", out, rs.Refusals())
	}
	if r := rs.Refusals(); len(r) != 0 {
		t.Fatalf("the server refused %q", r)
	}
	reqs := rs.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := reqs[0]
	if first["model"] != "test-model" || first["instructions"] != runtime.DefaultSystemPrompt || first["parallel_tool_calls"] != true {
		t.Errorf("model %v, instructions %.40q, parallel %v", first["model"], first["instructions"], first["parallel_tool_calls"])
	}
	if _, ok := first["reasoning"]; ok {
		t.Errorf("a model the tables do not know was sent reasoning settings: %v", first["reasoning"])
	}
	var lookup map[string]any
	for _, tl := range first["tools"].([]any) {
		if tm := tl.(map[string]any); tm["name"] == "lookup" {
			lookup = tm
		}
	}
	if lookup["type"] != "function" || lookup["strict"] != false || lookup["description"] != "Looks up a key." {
		t.Errorf("lookup tool %v", lookup)
	}
	if p, _ := lookup["parameters"].(map[string]any); p["additionalProperties"] != false || p["required"] == nil {
		t.Errorf("lookup parameters %v", lookup["parameters"])
	}
	wantInputs := [][]string{
		{"user"},
		{"user", "reasoning rs_1", "call call_a", "call call_b", "output call_a", "output call_b"},
		{"user", "reasoning rs_1", "call call_a", "call call_b", "output call_a", "output call_b",
			"reasoning rs_2", "assistant", "reasoning rs_3", "call call_c", "output call_c"},
	}
	for i, req := range reqs {
		var got []string
		for _, it := range inputOf(req) {
			got = append(got, describe(it))
		}
		if !reflect.DeepEqual(got, wantInputs[i]) {
			t.Errorf("request %d's input\n%q\nwant\n%q", i+1, got, wantInputs[i])
		}
	}
	in3 := inputOf(reqs[2])
	if in3[7]["content"] != "Alpha and beta are there; one more." || in3[10]["output"] != "Error: no entry for missing" ||
		in3[4]["output"] != "value of alpha" || in3[9]["arguments"] != `{"key":"missing"}` {
		t.Errorf("third request's input %v", in3)
	}
	if _, ok := in3[2]["id"]; ok {
		t.Errorf("a call was sent with its item id: %v", in3[2])
	}

	// The thinking streamed as it came, a summary's parts as paragraphs.
	if got := strings.Join(rec.thinking[1], ""); got != "**Planning**\n\nLook up both keys.\n\nBoth at once; they are independent." {
		t.Errorf("turn 1's thinking %q", got)
	}
	if got := strings.Join(rec.thinking[2], ""); got != "Both keys were found.Check a key that is missing." {
		t.Errorf("turn 2's thinking %q", got)
	}
	if got := strings.Join(rec.text[2], ""); got != "Alpha and beta are there; one more." {
		t.Errorf("turn 2's text %q", got)
	}

	// The reasoning is kept on its reply: where it came, what it said, and
	// the item as it was sent.
	turns := loopTurns()
	r2 := s.Messages[3].Reasoning
	if len(r2) != 2 {
		t.Fatalf("turn 2's reasoning %+v", r2)
	}
	want := model.Reasoning{Source: "openai:test-model", Kind: model.ReasoningItem, Text: "Check a key that is missing.",
		Data: turns[1].items[2].itemJSON(true), Calls: 0, AfterText: true}
	if r2[1] != want {
		t.Errorf("turn 2's second reasoning\n%+v\nwant\n%+v", r2[1], want)
	}
	if r1 := s.Messages[1].Reasoning; len(r1) != 1 || r1[0].Tokens != 120 || r1[0].Data != turns[0].items[0].itemJSON(true) {
		t.Errorf("turn 1's reasoning %+v", r1)
	}

	// Usage: cached and reasoning tokens reach the usage events.
	if len(rec.usage) != 3 {
		t.Fatalf("%d usage events", len(rec.usage))
	}
	if u := rec.usage[1].Usage; u.InputTokens != 1500 || u.CacheReadTokens != 1152 || u.OutputTokens != 200 || u.ReasoningTokens != 80 {
		t.Errorf("turn 2's usage %+v", u)
	}
	if tot := rec.usage[2].Total; tot.InputTokens != 4500 || tot.CacheReadTokens != 2560 || tot.ReasoningTokens != 240 {
		t.Errorf("the session's usage %+v", tot)
	}
	for i, k := range rs.keys {
		if k != "Bearer "+testKey {
			t.Errorf("request %d authorization %q", i+1, k)
		}
	}
}

// turnOneThen serves the first turn of loopTurns, and then answers the
// request req2 makes of the conversation that turn left, as changed by
// change: the error it ends with.
func turnOneThen(t *testing.T, change func(msgs []model.Message), opts ...openai.Option) (error, *rulesServer) {
	t.Helper()
	rs := newRulesServer(t, "k", loopTurns()...)
	m := newResponsesModel(t, rs.BaseURL(), opts...)
	req := model.Request{CacheKey: "k", Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}
	r, err := m.Reply(wiretest.Context(t), req, nil)
	if err != nil {
		t.Fatalf("turn 1: %v (the server refused %q)", err, rs.Refusals())
	}
	msgs := append(req.Messages,
		model.Message{Role: model.RoleAssistant, Text: r.Text, Calls: r.Calls, Reasoning: r.Reasoning},
		model.Message{Role: model.RoleTool, Results: []tool.Result{
			{CallID: "call_a", Name: "lookup", Content: "value of alpha"}, {CallID: "call_b", Name: "lookup", Content: "value of beta"}}})
	change(msgs)
	_, err = m.Reply(wiretest.Context(t), model.Request{CacheKey: "k", Messages: msgs}, nil)
	return err, rs
}

// TestResponsesRulesServerRefuses checks that the server of the tool loop
// does refuse what it says it refuses, with OpenAI's words, and how each
// refusal is explained.
func TestResponsesRulesServerRefuses(t *testing.T) {
	cases := []struct {
		name   string
		change func(msgs []model.Message)
		opts   []openai.Option
		status string
		want   string
	}{
		{name: "unchanged", change: func([]model.Message) {}},
		{name: "a changed byte of the reasoning", change: func(msgs []model.Message) {
			p := &msgs[1].Reasoning[0]
			p.Data = strings.Replace(p.Data, "gAAAAB1", "gAAAAB2", 1)
		}, status: "The encrypted content for item rs_1 could not be verified",
			want: "could not verify the reasoning of an earlier reply (400 Bad Request: The encrypted content for item rs_1 could not be verified"},
		{name: "the reasoning of another model", change: func(msgs []model.Message) {
			msgs[1].Reasoning[0].Source = "openai:gpt-6.2-sol"
		}, status: "the reasoning item rs_1 of an earlier turn is missing"},
		{name: "a reasoning item out of place", change: func(msgs []model.Message) {
			msgs[1].Reasoning[0].Calls = 1
		}, status: "Item 'rs_1' of type 'reasoning' was provided without its required following item."},
		{name: "store", change: func([]model.Message) {}, opts: []openai.Option{openai.WithRequestOptions(option.WithJSONSet("store", true))},
			status: "Store must be set to false"},
		{name: "no encrypted reasoning", change: func([]model.Message) {}, opts: []openai.Option{openai.WithRequestOptions(option.WithJSONDel("include"))},
			status: "Item with id 'rs_1' not found. Items are not persisted when `store` is set to false.",
			want:   "no longer has an item an earlier reply refers to (404 Not Found: Item with id 'rs_1' not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			var rs *rulesServer
			if c.name == "store" {
				rs = newRulesServer(t, "k", loopTurns()...)
				_, err = newResponsesModel(t, rs.BaseURL(), c.opts...).Reply(wiretest.Context(t),
					model.Request{CacheKey: "k", Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}, nil)
			} else {
				err, rs = turnOneThen(t, c.change, c.opts...)
			}
			refusals := rs.Refusals()
			if c.status == "" {
				if err != nil || len(refusals) != 0 {
					t.Fatalf("error %v, refusals %q", err, refusals)
				}
				return
			}
			if len(refusals) != 1 || !strings.Contains(refusals[0], c.status) {
				t.Fatalf("refusals %q, want one saying %q", refusals, c.status)
			}
			if err == nil || strings.Contains(err.Error(), "\n") || (c.want != "" && !strings.Contains(err.Error(), c.want)) {
				t.Errorf("error %v, want one line saying %q", err, c.want)
			}
			if _, transient := wiretest.Transient(err); transient {
				t.Errorf("a refusal of the request was marked as one that may pass: %v", err)
			}
		})
	}
}

// TestResponsesRulesServerPairsCalls checks that the server of the tool
// loop refuses, with OpenAI's words, a call without its output and an output
// without its call, which the model never sends and so are sent raw.
func TestResponsesRulesServerPairsCalls(t *testing.T) {
	err, rs := turnOneThen(t, func([]model.Message) {})
	if err != nil {
		t.Fatal(err)
	}
	reasoning := loopTurns()[0].items[0].itemJSON(true)
	for _, c := range []struct{ input, want string }{
		{`{"role":"user","content":"go"},` + reasoning + `,{"type":"function_call","call_id":"call_a","name":"lookup","arguments":"{}"},` +
			`{"type":"function_call","call_id":"call_b","name":"lookup","arguments":"{}"},{"type":"function_call_output","call_id":"call_a","output":"x"}`,
			"No tool output found for function call call_b."},
		{`{"role":"user","content":"go"},{"type":"function_call_output","call_id":"call_q","output":"x"}`,
			"No tool call found for function call output with call_id call_q."},
	} {
		body := `{"model":"test-model","store":false,"include":["reasoning.encrypted_content"],"prompt_cache_key":"k","stream":true,"input":[` + c.input + `]}`
		res, err := http.Post(rs.BaseURL()+"/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 400 || !strings.Contains(string(got), c.want) {
			t.Errorf("%d %s, want 400 saying %q", res.StatusCode, got, c.want)
		}
	}
}

// TestResponsesReasoningSettings checks what each family is sent for each
// effort, and that a request the model cannot take is never sent.
func TestResponsesReasoningSettings(t *testing.T) {
	cases := []struct {
		model   string
		effort  model.Effort
		compact bool
		want    string // the reasoning object sent, or "" for none
		err     string
	}{
		{model: "gpt-6.2-sol", want: `{"summary":"auto"}`},
		{model: "gpt-6.2-sol", effort: model.EffortHigh, want: `{"effort":"high","summary":"auto"}`},
		{model: "gpt-6.2-sol", effort: model.EffortMax, want: `{"effort":"max","summary":"auto"}`},
		{model: "gpt-6.2-sol", effort: model.EffortOff, err: "gpt-6.2-sol always reasons and refuses to have it turned off"},
		{model: "gpt-6.1-terra", effort: model.EffortOff, want: `{"effort":"none","summary":"auto"}`},
		{model: "gpt-5.5", effort: model.EffortMax, want: `{"effort":"xhigh","summary":"auto"}`},
		{model: "gpt-5-mini", effort: model.EffortOff, want: `{"effort":"minimal","summary":"auto"}`},
		{model: "o4-mini", effort: model.EffortMax, want: `{"effort":"high","summary":"auto"}`},
		{model: "gpt-5.5-pro", effort: model.EffortLow, want: `{"effort":"medium","summary":"auto"}`},
		{model: "gpt-5.5", effort: model.EffortHigh, compact: true, want: `{"effort":"none","summary":"auto"}`},
		{model: "gpt-6.2-astra", compact: true, want: `{"effort":"low","summary":"auto"}`},
		{model: "gpt-4.1", effort: model.EffortHigh, want: ""},
		{model: "gpt-5-chat-latest", effort: model.EffortLow, want: ""},
		{model: "my-new-model"},
		{model: "my-new-model", effort: model.EffortMax, want: `{"effort":"xhigh","summary":"auto"}`},
		{model: "ft:o4-mini-2025-04-16:acme::abc123", effort: model.EffortOff, err: "always reasons"},
	}
	for _, c := range cases {
		t.Run(c.model+"/"+c.effort.String(), func(t *testing.T) {
			srv := responsesAPI.Start(t, respond(respUsage(10, 0, 2, 0), message("msg_1", "ok")))
			m, err := openai.New(c.model, openai.WithBaseURL(srv.BaseURL()), openai.WithAPIKey(testKey), openai.WithAPI(openai.APIResponses))
			if err != nil {
				t.Fatal(err)
			}
			req := model.Request{Effort: c.effort, Compact: c.compact, Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}
			_, err = m.Reply(wiretest.Context(t), req, nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || len(srv.Requests()) != 0 {
					t.Errorf("error %v after %d requests, want %q before any", err, len(srv.Requests()), c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r, ok := srv.Requests()[0]["reasoning"]; ok {
				b, _ := json.Marshal(r)
				got = string(b)
			}
			if got != c.want {
				t.Errorf("reasoning %s, want %s", got, c.want)
			}
		})
	}
}

// TestResponsesRequestIsByteStable checks that the fields that make a
// session's prefix are the same bytes on every request, that the body is
// the one encoding/json reads back, and that the output limit and the cache
// key are sent.
func TestResponsesRequestIsByteStable(t *testing.T) {
	srv := responsesAPI.Start(t, respond(respUsage(10, 0, 2, 0), message("m1", "one")), respond(respUsage(20, 10, 2, 0), message("m2", "two")))
	m := newResponsesModel(t, srv.BaseURL())
	tools := []tool.Declaration{wiretest.Lookup{}.Declaration(), {Name: "bare", Description: "No schema."},
		{Name: "odd", Description: "A \"quoted\" <html> & \u2028 description.", Parameters: json.RawMessage(` { "type" : "object" } `)}}
	req := model.Request{System: "be brief\n\ttabbed \x01", Tools: tools, MaxOutputTokens: 4096, CacheKey: "sess-9",
		Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}
	for i := range 2 {
		r, err := m.Reply(wiretest.Context(t), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Messages = append(req.Messages, model.Message{Role: model.RoleAssistant, Text: r.Text}, model.Message{Role: model.RoleUser, Text: "more " + string(rune('a'+i))})
	}
	reqs := srv.Requests()
	prefix := func(body map[string]any) string {
		delete(body, "input")
		b, _ := json.Marshal(body)
		return string(b)
	}
	if a, b := prefix(reqs[0]), prefix(reqs[1]); a != b {
		t.Errorf("the prefix changed between requests:\n%s\n%s", a, b)
	}
	first := srv.Requests()[0]
	if first["max_output_tokens"] != 4096.0 || first["prompt_cache_key"] != "sess-9" || first["store"] != false ||
		first["instructions"] != "be brief\n\ttabbed \x01" {
		t.Errorf("request %v", first)
	}
	got, _ := json.Marshal(first["tools"])
	want := `[{"description":"Looks up a key.","name":"lookup","parameters":{"additionalProperties":false,"properties":{"key":{"type":"string"}},"required":["key"],"type":"object"},"strict":false,"type":"function"},` +
		`{"description":"No schema.","name":"bare","parameters":{"properties":{},"type":"object"},"strict":false,"type":"function"},` +
		`{"description":"A \"quoted\" \u003chtml\u003e \u0026 \u2028 description.","name":"odd","parameters":{"type":"object"},"strict":false,"type":"function"}]`
	if string(got) != want {
		t.Errorf("tools\n%s\nwant\n%s", got, want)
	}
	if inc, _ := json.Marshal(first["include"]); string(inc) != `["reasoning.encrypted_content"]` {
		t.Errorf("include %s", inc)
	}
}

// TestResponsesConversationIsConvertedFaithfully sends a conversation with
// every kind of message and checks the input items, in order.
func TestResponsesConversationIsConvertedFaithfully(t *testing.T) {
	srv := responsesAPI.Start(t, respond(respUsage(10, 0, 2, 0), message("m", "ok")))
	m := newResponsesModel(t, srv.BaseURL())
	item := func(id string) string {
		return `{"id":"` + id + `","type":"reasoning","summary":[],"encrypted_content":"e` + id + `"}`
	}
	mine := func(id string, calls int, afterText bool) model.Reasoning {
		return model.Reasoning{Source: m.Name(), Kind: model.ReasoningItem, Data: item(id), Calls: calls, AfterText: afterText}
	}
	req := model.Request{Messages: []model.Message{
		{Role: model.RoleUser, Text: "goal"},
		{Role: model.RoleAssistant, Text: "Trying.", Calls: []tool.Call{
			{ID: "c1", Name: "lookup", Arguments: `{"key":"a"}`},
			{ID: "c2", Name: "lookup", Arguments: `{"key": nope`},
		}, Cut: &tool.Call{ID: "c3", Name: "lookup", Arguments: `{"key":"aaa`},
			Reasoning: []model.Reasoning{
				mine("rs_a", 0, false),
				// Another model's reasoning and readable text alone are
				// never sent.
				{Source: "openai:gpt-6.2-sol", Kind: model.ReasoningItem, Data: item("rs_other")},
				{Source: m.Name(), Kind: model.ReasoningText, Text: "chat thinking"},
				mine("rs_b", 1, true),
				mine("rs_c", 3, true), // after the cut call: nothing followed it
			}},
		{Role: model.RoleTool, Results: []tool.Result{
			{CallID: "c1", Name: "lookup", Content: "Not run: a peer was invalid.", IsError: true},
			{CallID: "c2", Name: "lookup", Content: "error: bad arguments", IsError: true},
			{CallID: "c3", Name: "lookup", Content: "cut off", IsError: true},
			{CallID: "c9", Name: "lookup", Content: "a result of no call"},
		}},
		{Role: model.RoleAssistant, Calls: []tool.Call{
			{ID: "c4", Name: "ask_user", Arguments: `{"question":"Which?"}`},
			{ID: "c5", Name: "lookup", Arguments: `{"key":"b"}`},
		}},
		{Role: model.RoleTool, Results: []tool.Result{{CallID: "c4", Name: "ask_user", Content: "Asked."}}},
		{Role: model.RoleUser, Text: "the first"},
		{Role: model.RoleAssistant, Reasoning: []model.Reasoning{mine("rs_d", 0, false)}}, // reasoning alone
		{Role: model.RoleUser, Text: "and more"},
	}}
	if _, err := m.Reply(wiretest.Context(t), req, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(inputOf(srv.Requests()[0]))
	want := `[{"content":"goal","role":"user","type":"message"},` +
		`{"encrypted_content":"ers_a","id":"rs_a","summary":[],"type":"reasoning"},` +
		`{"content":"Trying.","role":"assistant","type":"message"},` +
		`{"arguments":"{\"key\":\"a\"}","call_id":"c1","name":"lookup","type":"function_call"},` +
		`{"encrypted_content":"ers_b","id":"rs_b","summary":[],"type":"reasoning"},` +
		`{"arguments":"{}","call_id":"c2","name":"lookup","type":"function_call"},` +
		`{"arguments":"{}","call_id":"c3","name":"lookup","type":"function_call"},` +
		`{"call_id":"c1","output":"Error: Not run: a peer was invalid.","type":"function_call_output"},` +
		`{"call_id":"c2","output":"error: bad arguments","type":"function_call_output"},` +
		`{"call_id":"c3","output":"Error: cut off","type":"function_call_output"},` +
		`{"arguments":"{\"question\":\"Which?\"}","call_id":"c4","name":"ask_user","type":"function_call"},` +
		`{"arguments":"{\"key\":\"b\"}","call_id":"c5","name":"lookup","type":"function_call"},` +
		`{"call_id":"c4","output":"Asked.","type":"function_call_output"},` +
		`{"call_id":"c5","output":"Error: no result was recorded for this call, so it may not have run.","type":"function_call_output"},` +
		`{"content":"the first","role":"user","type":"message"},` +
		`{"content":"and more","role":"user","type":"message"}]`
	if string(got) != want {
		t.Errorf("input\n%s\nwant\n%s", got, want)
	}

	// A conversation that ends with a reply whose calls have no results
	// yet still answers them.
	srv = responsesAPI.Start(t, respond(respUsage(10, 0, 2, 0), message("m", "ok")))
	m = newResponsesModel(t, srv.BaseURL())
	req = model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "goal"},
		{Role: model.RoleAssistant, Calls: []tool.Call{{ID: "c1", Name: "lookup", Arguments: `{}`}}}}}
	if _, err := m.Reply(wiretest.Context(t), req, nil); err != nil {
		t.Fatal(err)
	}
	in := inputOf(srv.Requests()[0])
	if len(in) != 3 || in[2]["type"] != "function_call_output" || in[2]["call_id"] != "c1" {
		t.Errorf("input %v", in)
	}
}

// TestResponsesCutCallBecomesOutputLimit mirrors the Chat Completions test:
// a reply stopped by max_output_tokens inside a call's arguments returns
// that call as Cut, and the run goes on with feedback that says so.
func TestResponsesCutCallBecomesOutputLimit(t *testing.T) {
	cutArgs := `{"key":"bbbbbbbb`
	turn1 := func() wiretest.Step {
		return wiretest.SSE(responseEvents(true, "incomplete", "max_output_tokens", respUsage(50, 0, 100, 60),
			reasoning("rs_1", "Two lookups."), message("msg_1", "Two lookups."),
			fcall("fc_1", "call_a", "lookup", `{"key":"alpha"}`), fcall("fc_2", "call_b", "lookup", cutArgs))...)
	}

	t.Run("reply", func(t *testing.T) {
		srv := responsesAPI.Start(t, turn1())
		r, err := newResponsesModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Reasoning = nil
		want := model.Reply{
			Text:  "Two lookups.",
			Calls: []tool.Call{{ID: "call_a", Name: "lookup", Arguments: `{"key":"alpha"}`}},
			Cut:   &tool.Call{ID: "call_b", Name: "lookup", Arguments: cutArgs},
			Stop:  model.StopOutputLimit, Usage: model.Usage{InputTokens: 50, OutputTokens: 100, ReasoningTokens: 60},
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("reply %+v\nwant  %+v", r, want)
		}
	})

	t.Run("run", func(t *testing.T) {
		srv := responsesAPI.Start(t, turn1(), respond(respUsage(80, 0, 5, 0), message("msg_2", "Done.")))
		out, _, _ := runAgent(t, newResponsesModel(t, srv.BaseURL()), "s", "go")
		if out.Status != runtime.StatusSucceeded {
			t.Fatalf("outcome %+v", out)
		}
		var got []string
		var cut map[string]any
		for _, it := range inputOf(srv.Requests()[1]) {
			switch it["type"] {
			case "function_call_output":
				got = append(got, it["call_id"].(string)+": "+it["output"].(string))
			case "function_call":
				if it["call_id"] == "call_b" {
					cut = it
				}
			}
		}
		want := []string{
			"call_a: Error: " + feedback.PeerNotExecuted,
			"call_b: Error: " + feedback.OutputLimit("lookup", cutArgs),
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("results\n%q\nwant\n%q", got, want)
		}
		if cut["arguments"] != "{}" {
			t.Errorf("the cut call in the history: %v", cut)
		}
	})
}

// TestResponsesReplyShapes checks replies that stream in less usual ways:
// a refusal, a message whose text did not stream, a call whose arguments
// came only whole, an incomplete reply cut while it reasoned.
func TestResponsesReplyShapes(t *testing.T) {
	t.Run("refusal and unstreamed text", func(t *testing.T) {
		srv := responsesAPI.Start(t, wiretest.SSE(
			event("response.output_item.added", `"output_index":0,"item":{"id":"m1","type":"message","content":[],"role":"assistant"}`),
			event("response.refusal.delta", `"output_index":0,"item_id":"m1","content_index":0,"delta":"I can't "`),
			event("response.refusal.delta", `"output_index":0,"item_id":"m1","content_index":0,"delta":"help."`),
			event("response.output_item.done", `"output_index":1,"item":{"id":"m2","type":"message","content":[{"type":"output_text","text":" Whole."}],"role":"assistant"}`),
			event("response.output_item.done", `"output_index":2,"item":{"id":"fc","type":"function_call","call_id":"c1","name":"lookup","arguments":"{\"key\":\"x\"}"}`),
			event("response.completed", `"response":{"status":"completed","usage":`+respUsage(5, 0, 5, 0)+`}`)))
		var deltas []string
		r, err := newResponsesModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "x"}}},
			func(d model.Delta) { deltas = append(deltas, d.Text) })
		if err != nil {
			t.Fatal(err)
		}
		if r.Text != "I can't help. Whole." || strings.Join(deltas, "") != r.Text || len(r.Calls) != 1 || r.Calls[0].Arguments != `{"key":"x"}` || r.Stop != model.StopToolCalls {
			t.Errorf("reply %+v, deltas %q", r, deltas)
		}
	})
	t.Run("cut while reasoning", func(t *testing.T) {
		srv := responsesAPI.Start(t, wiretest.SSE(responseEvents(true, "incomplete", "max_output_tokens", respUsage(5, 0, 50, 50), reasoning("rs_1", "Thinking hard"))...))
		r, err := newResponsesModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "x"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Stop != model.StopOutputLimit || r.Text != "" || r.Calls != nil || r.Cut != nil || len(r.Reasoning) != 1 || r.Reasoning[0].Text != "Thinking hard" {
			t.Errorf("reply %+v", r)
		}
	})
}
