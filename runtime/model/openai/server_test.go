package openai_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// testKey is the API key the tests use; no message may contain it.
const testKey = "sk-test-secret-0123456789"

// chatAPI is the Chat Completions API as the fake server speaks it.
var chatAPI = wiretest.API{
	Base:      "/v1",
	Path:      "/v1/chat/completions",
	KeyHeader: "Authorization",
	Key:       testKey,
	NotFound: func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "404 page not found", http.StatusNotFound)
	},
}

// newServer starts a fake server of the Chat Completions API that answers
// each request with the next step.
func newServer(t *testing.T, steps ...wiretest.Step) *wiretest.Server {
	t.Helper()
	return chatAPI.Start(t, steps...)
}

// newModel returns a model at base.
func newModel(t *testing.T, base string, opts ...openai.Option) *openai.Model {
	t.Helper()
	all := append([]openai.Option{openai.WithBaseURL(base), openai.WithAPIKey(testKey)}, opts...)
	m, err := openai.New("test-model", all...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sse answers with the chunks as server-sent events, then [DONE].
func sse(chunks ...string) wiretest.Step {
	return wiretest.SSE(append(events(chunks), "data: [DONE]\n\n")...)
}

// events frames each chunk as a server-sent event.
func events(chunks []string) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = fmt.Sprintf("data: %s\n\n", c)
	}
	return out
}

// chunk builds one chat.completion.chunk with a delta for choice 0.
func chunk(delta string, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"test-model",`+
		`"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`, delta, fr)
}

func roleChunk() string { return chunk(`{"role":"assistant","content":""}`, "") }

func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return chunk(fmt.Sprintf(`{"content":%s}`, b), "")
}

// callStart opens call index with its id and name, and no arguments yet.
func callStart(index int, id, name string) string {
	return chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`,
		index, id, name), "")
}

// callArgs adds a piece of the arguments of call index.
func callArgs(index int, piece string) string {
	b, _ := json.Marshal(piece)
	return chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, index, b), "")
}

func finish(reason string) string { return chunk(`{}`, reason) }

// usage is the final chunk that stream_options.include_usage asks for.
func usage(in, out int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"test-model","choices":[],`+
		`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out)
}

// call streams a whole call, its arguments in pieces of about a third.
func call(index int, id, name, args string) []string {
	out := []string{callStart(index, id, name)}
	third := max(len(args)/3, 1)
	for i := 0; i < len(args); i += third {
		out = append(out, callArgs(index, args[i:min(i+third, len(args))]))
	}
	return out
}

// dropAfter sends the chunks and then closes the connection without ending
// the response.
func dropAfter(chunks ...string) wiretest.Step { return wiretest.DropAfter(events(chunks)...) }

// stallAfter sends the chunks and then sends nothing more until the client
// gives up.
func stallAfter(chunks ...string) wiretest.Step { return wiretest.StallAfter(events(chunks)...) }

// toolMessages returns the tool messages of a request as "id: content".
func toolMessages(req map[string]any) []string {
	var out []string
	for _, m := range wiretest.Messages(req) {
		if m["role"] == "tool" {
			out = append(out, fmt.Sprintf("%v: %v", m["tool_call_id"], m["content"]))
		}
	}
	return out
}
