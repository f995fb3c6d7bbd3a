package anthropic

import (
	"encoding/json"
	"testing"
)

// TestBodyIsValidJSON checks that the body of a request holding every kind
// of block is JSON that reads back to what was put in it.
func TestBodyIsValidJSON(t *testing.T) {
	r := request{model: "claude-opus-5-5", system: "sys \"x\"", systemCache: true,
		plan:  plan{mode: modeAdaptive, display: "summarized", effort: "high", maxTokens: 100, dropBlocks: true},
		tools: []wireTool{{name: "t", description: "d\n", schema: inputSchema(json.RawMessage(`{"type":"object","required":["a",1]}`)), cache: true}},
		messages: []wireMessage{
			{role: "user", blocks: []wireBlock{{kind: blockText, text: "hi\u2028"}}},
			{role: "assistant", blocks: []wireBlock{{kind: blockThinking, text: "t\xff", data: "sig"}, {kind: blockRedacted, data: "d"},
				{kind: blockToolUse, id: "i", name: "n", input: "{ \"a\" : [1, 2] }"}}},
			{role: "user", blocks: []wireBlock{{kind: blockToolResult, id: "i", text: "out", isError: true, cache: true},
				{kind: blockToolResult, id: "j"}}},
		}}
	var v map[string]any
	if err := json.Unmarshal(r.encode(), &v); err != nil {
		t.Fatalf("%v: %s", err, r.encode())
	}
	got, _ := json.Marshal(v)
	want := `{"max_tokens":100,"messages":[{"content":[{"text":"hi\u2028","type":"text"}],"role":"user"},` +
		`{"content":[{"signature":"sig","thinking":"t` + "\ufffd" + `","type":"thinking"},{"data":"d","type":"redacted_thinking"},` +
		`{"id":"i","input":{"a":[1,2]},"name":"n","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"cache_control":{"type":"ephemeral"},"content":[{"text":"out","type":"text"}],"is_error":true,"tool_use_id":"i","type":"tool_result"},` +
		`{"tool_use_id":"j","type":"tool_result"}],"role":"user"}],"model":"claude-opus-5-5",` +
		`"output_config":{"effort":"high"},"stream":true,"system":[{"cache_control":{"type":"ephemeral"},"text":"sys \"x\"","type":"text"}],` +
		`"thinking":{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"display":"summarized","type":"adaptive"},` +
		`"tools":[{"cache_control":{"type":"ephemeral"},"description":"d\n","input_schema":{"properties":{},"required":["a"],"type":"object"},"name":"t"}]}`
	if string(got) != want {
		t.Errorf("body reads back as\n%s\nwant\n%s", got, want)
	}
}
