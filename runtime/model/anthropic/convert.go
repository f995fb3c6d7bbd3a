package anthropic

import (
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// noResult is the content of a result the conversation lacks.
const noResult = "No result was recorded for this call, so it may not have run."

// params converts a request into the Messages request body.
func (m *Model) params(req model.Request) sdk.MessageNewParams {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(m.srv.Model),
		MaxTokens: int64(m.maxTokens),
		Messages:  messages(req.Messages),
	}
	if req.MaxOutputTokens > 0 {
		p.MaxTokens = int64(req.MaxOutputTokens)
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, d := range req.Tools {
		t := sdk.ToolParam{Name: d.Name, InputSchema: inputSchema(d.Parameters)}
		if d.Description != "" {
			t.Description = param.NewOpt(d.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &t})
	}
	return p
}

// inputSchema returns a tool's parameters as the API takes them: properties
// and required in their fields, every other keyword alongside.
func inputSchema(raw json.RawMessage) sdk.ToolInputSchemaParam {
	var s map[string]any
	_ = json.Unmarshal(raw, &s)
	out := sdk.ToolInputSchemaParam{Properties: map[string]any{}}
	for k, v := range s {
		switch k {
		case "type":
			// Always "object", which the SDK writes itself.
		case "properties":
			out.Properties = v
		case "required":
			if list, ok := v.([]any); ok {
				for _, r := range list {
					if name, ok := r.(string); ok {
						out.Required = append(out.Required, name)
					}
				}
			}
		default:
			if out.ExtraFields == nil {
				out.ExtraFields = map[string]any{}
			}
			out.ExtraFields[k] = v
		}
	}
	return out
}

// conversation builds the messages, merging consecutive content of one role
// into one message.
type conversation struct {
	out []sdk.MessageParam
	// pending are the ids of the last reply's calls still without a result,
	// in call order.
	pending []string
}

func (c *conversation) add(role sdk.MessageParamRole, blocks ...sdk.ContentBlockParamUnion) {
	if len(blocks) == 0 {
		return
	}
	if n := len(c.out); n > 0 && c.out[n-1].Role == role {
		c.out[n-1].Content = append(c.out[n-1].Content, blocks...)
		return
	}
	c.out = append(c.out, sdk.MessageParam{Role: role, Content: blocks})
}

// settle answers the calls still without a result.
func (c *conversation) settle() {
	for _, id := range c.pending {
		c.add(sdk.MessageParamRoleUser, result(id, noResult, true))
	}
	c.pending = nil
}

// messages converts the conversation, answering any call left without a
// result so that the request is one the API accepts.
func messages(msgs []model.Message) []sdk.MessageParam {
	var c conversation
	for _, msg := range msgs {
		switch msg.Role {
		case model.RoleUser:
			c.settle()
			if strings.TrimSpace(msg.Text) != "" {
				c.add(sdk.MessageParamRoleUser, sdk.NewTextBlock(msg.Text))
			}
		case model.RoleAssistant:
			c.settle()
			var blocks []sdk.ContentBlockParamUnion
			// The API rejects text blocks that are empty or only white
			// space.
			if strings.TrimSpace(msg.Text) != "" {
				blocks = append(blocks, sdk.NewTextBlock(msg.Text))
			}
			calls := msg.Calls
			if msg.Cut != nil {
				calls = append(calls[:len(calls):len(calls)], *msg.Cut)
			}
			for _, call := range calls {
				id := toolID(call.ID)
				blocks = append(blocks, sdk.NewToolUseBlock(id, historyInput(call), call.Name))
				c.pending = append(c.pending, id)
			}
			c.add(sdk.MessageParamRoleAssistant, blocks...)
		case model.RoleTool:
			for _, r := range msg.Results {
				id := toolID(r.CallID)
				c.add(sdk.MessageParamRoleUser, result(id, r.Content, r.IsError))
				c.pending = remove(c.pending, id)
			}
		}
	}
	c.settle()
	return c.out
}

// result returns a tool_result block. Empty content is left out, because the
// API rejects an empty text block.
func result(id, content string, isError bool) sdk.ContentBlockParamUnion {
	r := sdk.ToolResultBlockParam{ToolUseID: id}
	if content != "" {
		r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: content}}}
	}
	if isError {
		r.IsError = param.NewOpt(true)
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &r}
}

// remove returns ids without the first occurrence of id.
func remove(ids []string, id string) []string {
	for i, x := range ids {
		if x == id {
			return append(ids[:i:i], ids[i+1:]...)
		}
	}
	return ids
}

// historyInput returns the input of an earlier call as it is sent back: the
// arguments the model wrote when they are a JSON object, else {}.
func historyInput(c tool.Call) json.RawMessage {
	var v map[string]json.RawMessage
	if json.Unmarshal([]byte(c.Arguments), &v) == nil && v != nil {
		return json.RawMessage(c.Arguments)
	}
	return json.RawMessage("{}")
}

// toolID returns id with the characters the API does not accept in an id
// replaced by "_".
func toolID(id string) string {
	if id == "" {
		return "call"
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, id)
}
