package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttui/agenttui/runtime/tool"
)

// MaxToolNameLen is the longest tool name the model providers accept.
const MaxToolNameLen = 64

// Tool is one tool of a server as the runtime sees it. It deliberately has
// no Footprint method: its footprint comes from the server's hints through
// tool.FromHints.
type Tool struct {
	s    *server
	name string // the server's own name for the tool
	decl tool.Declaration
}

// Declaration returns the tool's declaration: <server>__<tool>, the
// server's description and input schema, and its hints as untrusted
// annotations.
func (t *Tool) Declaration() tool.Declaration { return t.decl }

// Call runs the tool on its server. A server that stopped is started again
// first (once per session); see the package documentation.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) tool.Return {
	return t.s.call(ctx, t.name, args)
}

// ToolName returns the catalogue name of the server's tool: <server>__<tool>,
// with every character a provider would refuse replaced by '_'.
func ToolName(server, name string) string {
	var b strings.Builder
	b.WriteString(server)
	b.WriteString("__")
	for _, r := range name {
		if validNameRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// declare turns a tool listing into tools, leaving out those whose names
// cannot be used; it returns why each was left out.
func (s *server) declare(listed []*sdk.Tool) ([]*Tool, []string) {
	listed = slices.Clone(listed)
	slices.SortFunc(listed, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
	var tools []*Tool
	var left []string
	taken := map[string]string{}
	for _, lt := range listed {
		name := ToolName(s.cfg.Name, lt.Name)
		switch {
		case lt.Name == "":
			left = append(left, "a tool without a name was left out")
			continue
		case len(name) > MaxToolNameLen:
			left = append(left, fmt.Sprintf("tool %q was left out: its name %s is longer than the %d characters model providers allow",
				lt.Name, name, MaxToolNameLen))
			continue
		case taken[name] != "":
			left = append(left, fmt.Sprintf("tool %q was left out: its name becomes %s, like that of tool %q", lt.Name, name, taken[name]))
			continue
		}
		taken[name] = lt.Name
		tools = append(tools, &Tool{s: s, name: lt.Name, decl: declaration(s.cfg.Name, name, lt)})
	}
	return tools, left
}

func declaration(server, name string, lt *sdk.Tool) tool.Declaration {
	params := json.RawMessage(`{"type":"object"}`)
	if lt.InputSchema != nil {
		if b, err := json.Marshal(lt.InputSchema); err == nil {
			params = b
		}
	}
	a := tool.Annotations{Title: lt.Title, Destructive: true, OpenWorld: true}
	if h := lt.Annotations; h != nil {
		if a.Title == "" {
			a.Title = h.Title
		}
		a.ReadOnly = h.ReadOnlyHint
		if h.DestructiveHint != nil {
			a.Destructive = *h.DestructiveHint
		}
		a.Idempotent = h.IdempotentHint
		if h.OpenWorldHint != nil {
			a.OpenWorld = *h.OpenWorldHint
		}
	}
	if a.ReadOnly {
		// The destructive hint means something only for a tool that writes.
		a.Destructive = false
	}
	return tool.Declaration{
		Name:        name,
		Description: lt.Description,
		Parameters:  params,
		Annotations: a,
		Untrusted:   true,
		Source:      "tool://" + server + "/" + lt.Name,
		More:        "to see the rest, ask the tool for less: narrower arguments, or a page at a time if it offers paging",
	}
}

// sameTools reports whether two listings declare the same tools.
func sameTools(a, b []*Tool) bool {
	return slices.EqualFunc(a, b, func(x, y *Tool) bool {
		dx, dy := x.decl, y.decl
		return x.name == y.name && dx.Name == dy.Name && dx.Description == dy.Description &&
			bytes.Equal(dx.Parameters, dy.Parameters) && dx.Annotations == dy.Annotations
	})
}

// result turns a call's result into what the model reads.
func (s *server) result(name string, res *sdk.CallToolResult) tool.Return {
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = "The tool reported an error without saying what went wrong."
		}
		return tool.Fail(tool.Other(fmt.Sprintf("MCP server %s: %s reported an error: %s", s.cfg.Name, name, firstLine(text, 200))), text)
	}
	if text == "" {
		text = "The tool returned no content."
	}
	return tool.Ok(text)
}

// resultText joins the text of a result's content. Structured content is
// used only when there is no text: servers are asked to repeat it as text,
// and the model should not read it twice.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch v := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, v.Text)
			hasText = true
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[an image (%s, %d bytes) that cannot be shown here]", v.MIMEType, len(v.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s, %d bytes) that cannot be played here]", v.MIMEType, len(v.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[a link to the resource %s (%s)]", v.URI, v.Name))
		case *sdk.EmbeddedResource:
			switch r := v.Resource; {
			case r == nil:
			case r.Text != "" || len(r.Blob) == 0:
				parts = append(parts, r.Text)
				hasText = true
			default:
				parts = append(parts, fmt.Sprintf("[the resource %s (%s, %d bytes) that cannot be shown here]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			parts = append(parts, fmt.Sprintf("[content of type %T that cannot be shown here]", c))
		}
	}
	text := strings.Join(parts, "\n")
	if !hasText && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && string(b) != "null" {
			text = strings.TrimPrefix(text+"\n"+string(b), "\n")
		}
	}
	return text
}

// firstLine returns the first line of s, cut to at most n bytes on a rune
// boundary with an ellipsis.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
