package anthropic_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
)

// testKey is the API key the tests use; no message may contain it.
const testKey = "sk-ant-test-secret-0123456789"

// messagesAPI is the Messages API as the fake server speaks it.
var messagesAPI = wiretest.API{
	Path:      "/v1/messages",
	KeyHeader: "X-Api-Key",
	Key:       testKey,
	NotFound:  wiretest.Fail(404, `{"type":"error","error":{"type":"not_found_error","message":"Not found"}}`),
	Check: func(t *testing.T, n int, r *http.Request) {
		if r.Header.Get("Anthropic-Version") == "" {
			t.Errorf("request %d has no anthropic-version header", n)
		}
	},
}

// newServer starts a fake server of the Messages API that answers each
// request with the next step.
func newServer(t *testing.T, steps ...wiretest.Step) *wiretest.Server {
	t.Helper()
	return messagesAPI.Start(t, steps...)
}

func newModel(t *testing.T, base string, opts ...anthropic.Option) *anthropic.Model {
	t.Helper()
	m, err := anthropic.New("test-model", append([]anthropic.Option{anthropic.WithBaseURL(base), anthropic.WithAPIKey(testKey)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// event is one server-sent event with its type and JSON data.
func event(typ, data string) string { return fmt.Sprintf("event: %s\ndata: %s\n\n", typ, data) }

func start(in int) string {
	return event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",`+
		`"content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, in))
}

func ping() string { return event("ping", `{"type":"ping"}`) }

// text is a whole text block streamed in the pieces.
func text(index int, pieces ...string) []string {
	out := []string{event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index))}
	for _, p := range pieces {
		b, _ := json.Marshal(p)
		out = append(out, event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, b)))
	}
	return append(out, blockStop(index))
}

// toolOpen starts a tool_use block and streams its input in the pieces,
// leaving it open.
func toolOpen(index int, id, name string, pieces ...string) []string {
	out := []string{event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, index, id, name))}
	for _, p := range pieces {
		b, _ := json.Marshal(p)
		out = append(out, event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, b)))
	}
	return out
}

// toolUse is a whole tool_use block, its input in pieces of about a third.
func toolUse(index int, id, name, input string) []string {
	var pieces []string
	third := max(len(input)/3, 1)
	for i := 0; i < len(input); i += third {
		pieces = append(pieces, input[i:min(i+third, len(input))])
	}
	return append(toolOpen(index, id, name, pieces...), blockStop(index))
}

func blockStop(index int) string {
	return event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

// end is the message_delta with the stop reason and the output count, and
// message_stop.
func end(stop string, out int) []string {
	return []string{
		event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, out)),
		event("message_stop", `{"type":"message_stop"}`),
	}
}

func join(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

func apiError(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}

// results returns the tool_result blocks of a request's last message as
// "id: content" with " (error)" for is_error.
func results(req map[string]any) []string {
	msgs := wiretest.Messages(req)
	var out []string
	for _, b := range msgs[len(msgs)-1]["content"].([]any) {
		block := b.(map[string]any)
		if block["type"] != "tool_result" {
			continue
		}
		var text []string
		content, _ := block["content"].([]any)
		for _, c := range content {
			text = append(text, c.(map[string]any)["text"].(string))
		}
		s := fmt.Sprintf("%v: %s", block["tool_use_id"], strings.Join(text, ""))
		if block["is_error"] == true {
			s += " (error)"
		}
		out = append(out, s)
	}
	return out
}
