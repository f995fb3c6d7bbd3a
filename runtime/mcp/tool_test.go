package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttui/agenttui/runtime/tool"
)

func TestResultText(t *testing.T) {
	cases := []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"text joined", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "one"}, &sdk.TextContent{Text: "two"}}}, "one\ntwo"},
		{"structured only", &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, `{"n":1}`},
		{"structured repeated as text is read once", &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: `{"n":1}`}},
			StructuredContent: map[string]any{"n": 1},
		}, `{"n":1}`},
		{"image and structured", &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: []byte("1234")}},
			StructuredContent: []int{1, 2},
		}, "[an image (image/png, 4 bytes) that cannot be shown here]\n[1,2]"},
		{"audio", &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("12")}}},
			"[audio (audio/wav, 2 bytes) that cannot be played here]"},
		{"resource link", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///a", Name: "a"}}},
			"[a link to the resource file:///a (a)]"},
		{"embedded text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a", Text: "inside"}}}},
			"inside"},
		{"embedded blob", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{
			Resource: &sdk.ResourceContents{URI: "file:///b", MIMEType: "application/zip", Blob: []byte("xyz")}}}},
			"[the resource file:///b (application/zip, 3 bytes) that cannot be shown here]"},
		{"nothing", &sdk.CallToolResult{}, ""},
	}
	for _, c := range cases {
		if got := resultText(c.res); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestResultOutcomes(t *testing.T) {
	s := &server{cfg: ServerConfig{Name: "srv", Transport: TransportHTTP}}
	ret := s.result("t", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "bad input\nmore detail"}}})
	if !ret.Outcome().IsErrorKind(tool.KindOther) || ret.Output != "bad input\nmore detail" {
		t.Errorf("isError: %v %q", ret.Outcome(), ret.Output)
	}
	if msg := ret.Outcome().Failure().Message; msg != "MCP server srv: t reported an error: bad input …" {
		t.Errorf("failure message %q", msg)
	}
	ret = s.result("t", &sdk.CallToolResult{IsError: true})
	if ret.Output != "The tool reported an error without saying what went wrong." {
		t.Errorf("empty isError: %q", ret.Output)
	}
	ret = s.result("t", &sdk.CallToolResult{})
	if !ret.Outcome().IsSuccess() || ret.Output != "The tool returned no content." {
		t.Errorf("empty result: %v %q", ret.Outcome(), ret.Output)
	}
	if f := s.fail(tool.Other, "gone").Outcome(); !f.IsErrorKind(tool.KindNetwork) {
		t.Errorf("an HTTP server's failure has kind %v", f)
	}
}

func TestToolNames(t *testing.T) {
	cases := map[string]string{
		"read_file":     "fs__read_file",
		"get.weather":   "fs__get_weather",
		"a/b c":         "fs__a_b_c",
		"déjà-vu":       "fs__d_j_-vu",
		"Already-Fine1": "fs__Already-Fine1",
	}
	for in, want := range cases {
		if got := ToolName("fs", in); got != want {
			t.Errorf("ToolName(fs, %q) = %q, want %q", in, got, want)
		}
	}

	s := &server{cfg: ServerConfig{Name: "fs"}}
	tools, left := s.declare([]*sdk.Tool{
		{Name: "b.x"}, {Name: "b_x"}, {Name: strings.Repeat("x", 61)}, {Name: strings.Repeat("y", 60)}, {Name: ""},
		{Name: "ro", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, Title: "Read only"}},
	})
	var got []string
	for _, tl := range tools {
		got = append(got, tl.decl.Name)
	}
	if strings.Join(got, " ") != "fs__b_x fs__ro fs__"+strings.Repeat("y", 60) {
		t.Errorf("declared %v", got)
	}
	if len(left) != 3 || !strings.Contains(strings.Join(left, "\n"), `tool "b_x" was left out: its name becomes fs__b_x, like that of tool "b.x"`) {
		t.Errorf("left out: %q", left)
	}
	ro := tools[1].decl
	if !ro.Annotations.ReadOnly || ro.Annotations.Destructive || ro.Annotations.Title != "Read only" || !ro.Annotations.OpenWorld ||
		string(ro.Parameters) != `{"type":"object"}` || ro.DefaultTouches().String() != "independent" {
		t.Errorf("ro: %+v", ro)
	}
	if w := tools[0].decl; !w.Annotations.Destructive || w.DefaultTouches().String() != "writes anything" {
		t.Errorf("a tool without hints: %+v", w)
	}
}

func TestFirstLine(t *testing.T) {
	if got := firstLine("  one\ntwo", 50); got != "one …" {
		t.Errorf("%q", got)
	}
	if got := firstLine("ééééé", 5); got != "éé…" {
		t.Errorf("%q", got)
	}
}
