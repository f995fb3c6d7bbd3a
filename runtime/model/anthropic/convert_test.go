package anthropic_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/tool"
)

// sent returns the request body the model sends for req.
func sent(t *testing.T, req model.Request, opts ...anthropic.Option) map[string]any {
	t.Helper()
	srv := newServer(t, wiretest.SSE(join(start(1), text(0, "ok"), end("end_turn", 1))...))
	if _, err := newModel(t, srv.BaseURL(), opts...).Reply(wiretest.Context(t), req, nil); err != nil {
		t.Fatal(err)
	}
	return srv.Requests()[0]
}

// TestConversationIsConvertedFaithfully pins the conversion of a whole
// conversation; the cache breakpoints on the last blocks of the last two
// user messages are those of TestCacheBreakpoints.
func TestConversationIsConvertedFaithfully(t *testing.T) {
	req := model.Request{
		Messages: []model.Message{
			{Role: model.RoleUser, Text: "goal"},
			{Role: model.RoleAssistant, Text: "Trying.", Calls: []tool.Call{
				{ID: "c1", Name: "lookup", Arguments: `{"key":"a"}`},
				{ID: "call.2", Name: "lookup", Arguments: `{"key": nope`},
			}, Cut: &tool.Call{ID: "c3", Name: "lookup", Arguments: `{"key":"aaa`}},
			{Role: model.RoleTool, Results: []tool.Result{
				{CallID: "c1", Name: "lookup", Content: "Not run.", IsError: true},
				{CallID: "call.2", Name: "lookup", Content: "Bad arguments.", IsError: true},
				{CallID: "c3", Name: "lookup", Content: "Cut off.", IsError: true},
			}},
			{Role: model.RoleAssistant, Text: " ", Calls: []tool.Call{
				{ID: "c4", Name: "ask_user", Arguments: `{"question":"Which?"}`},
				{ID: "c5", Name: "lookup", Arguments: `{"key":"b"}`},
			}},
			{Role: model.RoleTool, Results: []tool.Result{{CallID: "c4", Name: "ask_user", Content: ""}}},
			{Role: model.RoleUser, Text: "the first"},
			{Role: model.RoleAssistant}, // an empty reply says nothing
			{Role: model.RoleUser, Text: "and more"},
		},
	}
	got, _ := json.Marshal(wiretest.Messages(sent(t, req)))
	want := `[{"content":[{"text":"goal","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"Trying.","type":"text"},` +
		`{"id":"c1","input":{"key":"a"},"name":"lookup","type":"tool_use"},` +
		`{"id":"call_2","input":{},"name":"lookup","type":"tool_use"},` +
		`{"id":"c3","input":{},"name":"lookup","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":[{"text":"Not run.","type":"text"}],"is_error":true,"tool_use_id":"c1","type":"tool_result"},` +
		`{"content":[{"text":"Bad arguments.","type":"text"}],"is_error":true,"tool_use_id":"call_2","type":"tool_result"},` +
		`{"cache_control":{"type":"ephemeral"},"content":[{"text":"Cut off.","type":"text"}],"is_error":true,"tool_use_id":"c3","type":"tool_result"}],"role":"user"},` +
		`{"content":[{"id":"c4","input":{"question":"Which?"},"name":"ask_user","type":"tool_use"},` +
		`{"id":"c5","input":{"key":"b"},"name":"lookup","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"tool_use_id":"c4","type":"tool_result"},` +
		`{"content":[{"text":"No result was recorded for this call, so it may not have run.","type":"text"}],"is_error":true,"tool_use_id":"c5","type":"tool_result"},` +
		`{"text":"the first","type":"text"},{"cache_control":{"type":"ephemeral"},"text":"and more","type":"text"}],"role":"user"}]`
	if string(got) != want {
		t.Errorf("messages\n%s\nwant\n%s", got, want)
	}
}

func TestToolsAndMaxTokens(t *testing.T) {
	req := model.Request{
		System:          "be brief",
		Messages:        []model.Message{{Role: model.RoleUser, Text: "hi"}},
		Tools:           []tool.Declaration{{Name: "bare"}, wiretest.Lookup{}.Declaration()},
		MaxOutputTokens: 1000,
	}
	body := sent(t, req)
	if body["max_tokens"] != 1000.0 {
		t.Errorf("max_tokens %v", body["max_tokens"])
	}
	tools, _ := json.Marshal(body["tools"])
	want := `[{"input_schema":{"properties":{},"type":"object"},"name":"bare"},` +
		`{"cache_control":{"type":"ephemeral"},"description":"Looks up a key.","input_schema":{"additionalProperties":false,"properties":{"key":{"type":"string"}},"required":["key"],"type":"object"},"name":"lookup"}]`
	if string(tools) != want {
		t.Errorf("tools\n%s\nwant\n%s", tools, want)
	}
	req.MaxOutputTokens = 0
	if body := sent(t, req, anthropic.WithDefaultMaxTokens(4096)); body["max_tokens"] != 4096.0 {
		t.Errorf("default max_tokens %v", body["max_tokens"])
	}
}

func TestEmptyToolInput(t *testing.T) {
	srv := newServer(t, wiretest.SSE(join(start(1), toolUse(0, "toolu_1", "lookup", ""), end("tool_use", 1))...))
	r, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []tool.Call{{ID: "toolu_1", Name: "lookup", Arguments: "{}"}}; !reflect.DeepEqual(r.Calls, want) || r.Stop != model.StopToolCalls {
		t.Errorf("reply %+v", r)
	}
}

func TestKeyAndBaseURL(t *testing.T) {
	t.Setenv(anthropic.EnvAPIKey, "")
	t.Setenv(anthropic.EnvBaseURL, "")
	if _, err := anthropic.New("claude-sonnet-4-5"); !errors.Is(err, anthropic.ErrMissingAPIKey) {
		t.Errorf("no key: %v", err)
	}
	if _, err := anthropic.New(""); err == nil {
		t.Error("an empty model name was accepted")
	}
	if _, err := anthropic.New("m", anthropic.WithBaseURL("ftp://user:pw@host")); err == nil ||
		err.Error() != `ANTHROPIC_BASE_URL "ftp://user:xxxxx@host" is not an http or https URL` {
		t.Errorf("bad base URL: %v", err)
	}

	srv := newServer(t, wiretest.SSE(join(start(1), text(0, "hi"), end("end_turn", 1))...))
	t.Setenv(anthropic.EnvBaseURL, srv.BaseURL())
	t.Setenv(anthropic.EnvAPIKey, testKey)
	m, err := anthropic.New("claude-x")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "anthropic:claude-x" {
		t.Errorf("name %q", m.Name())
	}
	if _, err := m.Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if srv.Keys()[0] != testKey {
		t.Errorf("x-api-key %q", srv.Keys()[0])
	}
}
