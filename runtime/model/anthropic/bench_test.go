package anthropic_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/tool"
)

// conversation200 is a 200-turn tool loop with thinking: each reply has a
// thinking block (about 1 KB of text and a 400-byte signature), a redacted
// block, a line of text and two calls, and each call a result of about
// 1 KB.
func conversation200(source string) []model.Message {
	msgs := []model.Message{{Role: model.RoleUser, Text: "Refactor the parser and keep the tests passing."}}
	thought := strings.Repeat("The parser reads tokens one at a time; the change must keep that. ", 15)
	sig := "Eq" + strings.Repeat("QBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds", 8)
	result := strings.Repeat("func parse(tokens []Token) (Node, error) { /* … */ }\n", 20)
	for i := 0; i < 200; i++ {
		a, b := fmt.Sprintf("toolu_%03da", i), fmt.Sprintf("toolu_%03db", i)
		msgs = append(msgs,
			model.Message{Role: model.RoleAssistant, Text: fmt.Sprintf("Step %d: reading two files.", i),
				Calls: []tool.Call{{ID: a, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"parser/p%d.go"}`, i)},
					{ID: b, Name: "grep", Arguments: `{"pattern":"parse\\(","path":"."}`}},
				Reasoning: []model.Reasoning{{Source: source, Kind: model.ReasoningThinking, Text: thought, Data: sig},
					{Source: source, Kind: model.ReasoningRedacted, Data: sig, AfterText: true}}},
			model.Message{Role: model.RoleTool, Results: []tool.Result{{CallID: a, Name: "read_file", Content: result},
				{CallID: b, Name: "grep", Content: result}}})
	}
	return msgs
}

// BenchmarkRequest200TurnsThinking measures building the request of a
// 200-turn conversation with thinking and calls, as Reply builds it: the
// thinking plan, the messages, the cache breakpoints and the JSON of the
// body, whose buffer is given back once the request is sent.
func BenchmarkRequest200TurnsThinking(b *testing.B) {
	m, err := anthropic.New("claude-opus-5-5", anthropic.WithBaseURL("http://127.0.0.1:1"), anthropic.WithAPIKey(testKey))
	if err != nil {
		b.Fatal(err)
	}
	req := model.Request{System: longSystem, Messages: conversation200(m.Name()), Effort: model.EffortHigh,
		Tools: []tool.Declaration{wiretest.Lookup{}.Declaration()}}
	n, err := m.BuildBody(req)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		if _, err := m.BuildBody(req); err != nil {
			b.Fatal(err)
		}
	}
}
