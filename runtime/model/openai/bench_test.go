package openai_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
	"github.com/agenttui/agenttui/runtime/tool"
)

// longSession is a conversation of n turns in which every reply reasons
// (a reasoning item of about 3 KB, encrypted content included, as a
// medium effort's reasoning comes back), says a line and makes a call,
// whose result is half a kilobyte.
func longSession(source string, n int) model.Request {
	tools, _ := runtime.NewCatalog(wiretest.Lookup{})
	req := model.Request{System: runtime.DefaultSystemPrompt, Tools: tools.Declarations(), CacheKey: "bench",
		Effort: model.EffortHigh, Messages: []model.Message{{Role: model.RoleUser, Text: "work through the list"}}}
	enc := strings.Repeat("gAAAAABpF0xQ3Zm9vYmFyYmF6cXV4", 100)[:2800]
	for i := range n {
		item, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("rs_%04d", i), "type": "reasoning",
			"summary":           []any{map[string]any{"type": "summary_text", "text": "**Next item**\n\nLook up the next key and compare it with the last one."}},
			"encrypted_content": enc})
		id := fmt.Sprintf("call_%04d", i)
		req.Messages = append(req.Messages,
			model.Message{Role: model.RoleAssistant, Text: "Looking up the next key.",
				Calls:     []tool.Call{{ID: id, Name: "lookup", Arguments: fmt.Sprintf(`{"key":"item-%d"}`, i)}},
				Reasoning: []model.Reasoning{{Source: source, Kind: model.ReasoningItem, Text: "Next item", Data: string(item)}}},
			model.Message{Role: model.RoleTool, Results: []tool.Result{{CallID: id, Name: "lookup", Content: strings.Repeat("value line\n", 45)}}})
	}
	return req
}

// BenchmarkResponsesRequest200Turns builds the Responses API request body
// of a 200-turn conversation whose every reply carries a reasoning item:
// the work each turn does before it sends anything (target: 2 ms).
func BenchmarkResponsesRequest200Turns(b *testing.B) {
	m, err := openai.New("gpt-6.2-sol", openai.WithAPIKey(testKey))
	if err != nil {
		b.Fatal(err)
	}
	req := longSession(m.Name(), 200)
	body, err := m.ResponsesBody(req)
	if err != nil || !json.Valid(body) {
		b.Fatalf("the body is not JSON: %v", err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.ResponsesBody(req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLongSessionBody checks the body the benchmark builds: every reasoning
// item goes back in place, and the body is the size the benchmark reports.
func TestLongSessionBody(t *testing.T) {
	m, err := openai.New("gpt-6.2-sol", openai.WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	body, err := m.ResponsesBody(longSession(m.Name(), 200))
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		Reasoning map[string]string `json:"reasoning"`
		Input     []map[string]any  `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Input) != 1+4*200 || req.Reasoning["effort"] != "high" {
		t.Fatalf("%d input items, reasoning %v", len(req.Input), req.Reasoning)
	}
	for i := range 200 {
		at := 1 + 4*i
		if req.Input[at]["type"] != "reasoning" || req.Input[at]["id"] != fmt.Sprintf("rs_%04d", i) || req.Input[at+1]["role"] != "assistant" {
			t.Fatalf("turn %d: %v then %v", i, req.Input[at], req.Input[at+1])
		}
	}
	t.Logf("the body of 200 turns is %d KB", len(body)/1024)
}

// BenchmarkChatRequest200Turns builds the Chat Completions request body of
// the same conversation, whose reasoning that wire never sends, as the SDK
// encodes it: the figure to set beside the Responses API's.
func BenchmarkChatRequest200Turns(b *testing.B) {
	m, err := openai.New("gpt-6.2-sol", openai.WithAPIKey(testKey), openai.WithAPI(openai.APIChat))
	if err != nil {
		b.Fatal(err)
	}
	req := longSession(m.Name(), 200)
	body, err := m.ChatBody(req)
	if err != nil || !json.Valid(body) {
		b.Fatalf("the body is not JSON: %v", err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.ChatBody(req); err != nil {
			b.Fatal(err)
		}
	}
}
