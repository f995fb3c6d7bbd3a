package openai_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
	"github.com/agenttui/agenttui/runtime/tool"
)

// sent returns the request body the model sends for req.
func sent(t *testing.T, req model.Request, opts ...openai.Option) map[string]any {
	t.Helper()
	srv := newServer(t, sse(roleChunk(), textChunk("ok"), finish("stop")))
	if _, err := newModel(t, srv.BaseURL(), opts...).Reply(wiretest.Context(t), req, nil); err != nil {
		t.Fatal(err)
	}
	return srv.Requests()[0]
}

func TestConversationIsConvertedFaithfully(t *testing.T) {
	req := model.Request{
		System: "be brief",
		Messages: []model.Message{
			{Role: model.RoleUser, Text: "goal"},
			{Role: model.RoleAssistant, Text: "Trying.", Calls: []tool.Call{
				{ID: "c1", Name: "lookup", Arguments: `{"key":"a"}`},
				{ID: "c2", Name: "lookup", Arguments: `{"key": nope`},
			}, Cut: &tool.Call{ID: "c3", Name: "lookup", Arguments: `{"key":"aaa`}},
			{Role: model.RoleTool, Results: []tool.Result{
				{CallID: "c1", Name: "lookup", Content: "Not run: a peer was invalid.", IsError: true},
				{CallID: "c2", Name: "lookup", Content: "error: bad arguments", IsError: true},
				{CallID: "c3", Name: "lookup", Content: "cut off", IsError: true},
			}},
			{Role: model.RoleAssistant, Calls: []tool.Call{
				{ID: "c4", Name: "ask_user", Arguments: `{"question":"Which?"}`},
				{ID: "c5", Name: "lookup", Arguments: `{"key":"b"}`},
			}},
			{Role: model.RoleTool, Results: []tool.Result{{CallID: "c4", Name: "ask_user", Content: "Asked."}}},
			{Role: model.RoleUser, Text: "the first"},
			{Role: model.RoleAssistant}, // an empty reply says nothing
			{Role: model.RoleUser, Text: "and more"},
		},
	}
	got, _ := json.Marshal(wiretest.Messages(sent(t, req)))
	want := `[{"content":"be brief","role":"system"},` +
		`{"content":"goal","role":"user"},` +
		`{"content":"Trying.","role":"assistant","tool_calls":[` +
		`{"function":{"arguments":"{\"key\":\"a\"}","name":"lookup"},"id":"c1","type":"function"},` +
		`{"function":{"arguments":"{}","name":"lookup"},"id":"c2","type":"function"},` +
		`{"function":{"arguments":"{}","name":"lookup"},"id":"c3","type":"function"}]},` +
		`{"content":"Error: Not run: a peer was invalid.","role":"tool","tool_call_id":"c1"},` +
		`{"content":"error: bad arguments","role":"tool","tool_call_id":"c2"},` +
		`{"content":"Error: cut off","role":"tool","tool_call_id":"c3"},` +
		`{"role":"assistant","tool_calls":[` +
		`{"function":{"arguments":"{\"question\":\"Which?\"}","name":"ask_user"},"id":"c4","type":"function"},` +
		`{"function":{"arguments":"{\"key\":\"b\"}","name":"lookup"},"id":"c5","type":"function"}]},` +
		`{"content":"Asked.","role":"tool","tool_call_id":"c4"},` +
		`{"content":"Error: no result was recorded for this call, so it may not have run.","role":"tool","tool_call_id":"c5"},` +
		`{"content":"the first","role":"user"},` +
		`{"content":"and more","role":"user"}]`
	if string(got) != want {
		t.Errorf("messages\n%s\nwant\n%s", got, want)
	}
}

func TestToolsAndMaxTokens(t *testing.T) {
	req := model.Request{
		Messages:        []model.Message{{Role: model.RoleUser, Text: "hi"}},
		Tools:           []tool.Declaration{{Name: "bare", Description: "No schema."}, wiretest.Lookup{}.Declaration()},
		MaxOutputTokens: 1000,
	}
	body := sent(t, req)
	if body["max_tokens"] != 1000.0 || body["max_completion_tokens"] != nil {
		t.Errorf("a compatible server gets max_tokens: %v %v", body["max_tokens"], body["max_completion_tokens"])
	}
	tools, _ := json.Marshal(body["tools"])
	want := `[{"function":{"description":"No schema.","name":"bare","parameters":{"properties":{},"type":"object"}},"type":"function"},` +
		`{"function":{"description":"Looks up a key.","name":"lookup","parameters":{"additionalProperties":false,"properties":{"key":{"type":"string"}},"required":["key"],"type":"object"}},"type":"function"}]`
	if string(tools) != want {
		t.Errorf("tools\n%s\nwant\n%s", tools, want)
	}
	body = sent(t, req, openai.WithMaxTokensField(true))
	if body["max_completion_tokens"] != 1000.0 || body["max_tokens"] != nil {
		t.Errorf("max_completion_tokens: %v %v", body["max_completion_tokens"], body["max_tokens"])
	}
	req.MaxOutputTokens = 0
	body = sent(t, req)
	if _, ok := body["max_tokens"]; ok {
		t.Errorf("max_tokens sent without a limit: %v", body["max_tokens"])
	}
}

func TestCallsSentWholeUnderOneIndex(t *testing.T) {
	// Some compatible servers send each call whole, all under index 0.
	srv := newServer(t, sse(roleChunk(),
		chunk(`{"tool_calls":[{"index":0,"id":"x1","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"a\"}"}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"id":"x2","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"b\"}"}}]}`, ""),
		finish("tool_calls")))
	r, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []tool.Call{{ID: "x1", Name: "lookup", Arguments: `{"key":"a"}`}, {ID: "x2", Name: "lookup", Arguments: `{"key":"b"}`}}
	if !reflect.DeepEqual(r.Calls, want) || r.Stop != model.StopToolCalls {
		t.Errorf("reply %+v", r)
	}
}

func TestKeyAndBaseURL(t *testing.T) {
	t.Setenv(openai.EnvAPIKey, "")
	t.Setenv(openai.EnvBaseURL, "")
	if _, err := openai.New("gpt-4o"); !errors.Is(err, openai.ErrMissingAPIKey) {
		t.Errorf("no key: %v", err)
	}
	if _, err := openai.New(" "); err == nil {
		t.Error("an empty model name was accepted")
	}
	if _, err := openai.New("m", openai.WithBaseURL("localhost:11434")); err == nil || err.Error() != `OPENAI_BASE_URL "localhost:11434" is not an http or https URL` {
		t.Errorf("bad base URL: %v", err)
	}

	// A local server needs no key, and none is sent.
	srv := newServer(t, sse(roleChunk(), textChunk("hi"), finish("stop")))
	t.Setenv(openai.EnvBaseURL, srv.BaseURL())
	m, err := openai.New("llama3.2")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "openai:llama3.2" {
		t.Errorf("name %q", m.Name())
	}
	if _, err := m.Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if srv.Keys()[0] != "" {
		t.Errorf("authorization %q sent without a key", srv.Keys()[0])
	}

	// The key in the environment is used.
	srv = newServer(t, sse(roleChunk(), textChunk("hi"), finish("stop")))
	t.Setenv(openai.EnvBaseURL, srv.BaseURL())
	t.Setenv(openai.EnvAPIKey, testKey)
	m, _ = openai.New("llama3.2")
	if _, err := m.Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if srv.Keys()[0] != "Bearer "+testKey {
		t.Errorf("authorization %q", srv.Keys()[0])
	}
}

// Ollama answers an unknown model with its own error shape.
func TestOllamaUnknownModel(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"model \"test-model\" not found, try pulling it first"}`))
	})
	_, err := newModel(t, srv.BaseURL()).Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	want := `the server at ` + srv.BaseURL() + ` does not know the model "test-model" (404 Not Found: model "test-model" not found, try pulling it first): check the name after openai:`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}
