package openai

import (
	"encoding/json"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// noResult is the content of a result the conversation lacks.
const noResult = "Error: no result was recorded for this call, so it may not have run."

// params converts a request into the Chat Completions request body.
func (m *Model) params(req model.Request) sdk.ChatCompletionNewParams {
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(m.srv.Model),
		Messages:      messages(req),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	for _, d := range req.Tools {
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        d.Name,
			Description: param.NewOpt(d.Description),
			Parameters:  schema(d.Parameters),
		}))
	}
	if n := int64(req.MaxOutputTokens); n > 0 {
		if m.maxCompletionTokens {
			p.MaxCompletionTokens = param.NewOpt(n)
		} else {
			p.MaxTokens = param.NewOpt(n)
		}
	}
	return p
}

// schema returns a tool's parameters as the API takes them; a tool without
// a schema takes an empty object.
func schema(raw json.RawMessage) shared.FunctionParameters {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil || s == nil {
		s = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return s
}

// messages converts the conversation, answering any call left without a
// result so that the request is one the API accepts.
func messages(req model.Request) []sdk.ChatCompletionMessageParamUnion {
	var out []sdk.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, sdk.SystemMessage(req.System))
	}
	// pending are the ids of the last reply's calls still without a result,
	// in call order.
	var pending []string
	settle := func() {
		for _, id := range pending {
			out = append(out, sdk.ToolMessage(noResult, id))
		}
		pending = nil
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case model.RoleUser:
			settle()
			out = append(out, sdk.UserMessage(msg.Text))
		case model.RoleAssistant:
			settle()
			if msg.Text == "" && len(msg.Calls) == 0 && msg.Cut == nil {
				// An empty reply says nothing, and some servers reject an
				// assistant message without content.
				continue
			}
			a := sdk.ChatCompletionAssistantMessageParam{}
			if msg.Text != "" {
				a.Content.OfString = param.NewOpt(msg.Text)
			}
			calls := msg.Calls
			if msg.Cut != nil {
				calls = append(calls[:len(calls):len(calls)], *msg.Cut)
			}
			for _, c := range calls {
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: historyArguments(c)},
					},
				})
				pending = append(pending, c.ID)
			}
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case model.RoleTool:
			for _, r := range msg.Results {
				out = append(out, sdk.ToolMessage(resultContent(r), r.CallID))
				pending = remove(pending, r.CallID)
			}
		}
	}
	settle()
	return out
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

// historyArguments returns the arguments of an earlier call as they are sent
// back: as the model wrote them when they are a JSON object, else {}.
func historyArguments(c tool.Call) string {
	if isObject(c.Arguments) {
		return c.Arguments
	}
	return "{}"
}

// isObject reports whether s is a JSON object.
func isObject(s string) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &v) == nil && v != nil
}

// resultContent marks an error result, which the API has no flag for.
func resultContent(r tool.Result) string {
	if !r.IsError || strings.HasPrefix(strings.ToLower(strings.TrimSpace(r.Content)), "error") {
		return r.Content
	}
	return "Error: " + r.Content
}
