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

// params converts a request into the Chat Completions request body. effort
// is the reasoning_effort to send, if any; echo says assistant messages
// carry their reasoning_content back.
func (m *Model) params(req model.Request, effort string, echo bool) sdk.ChatCompletionNewParams {
	source := ""
	if echo {
		source = m.Name()
	}
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(m.srv.Model),
		Messages:      messages(req, source),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	if effort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(effort)
	}
	if req.CacheKey != "" && !m.srv.Custom {
		// Only OpenAI is known to take it; a compatible server may refuse
		// a field it does not know.
		p.PromptCacheKey = param.NewOpt(req.CacheKey)
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
// result so that the request is one the API accepts. When echo names a
// model, the reasoning text that model streamed goes back as
// reasoning_content on each of its replies that called tools, as DeepSeek's
// thinking mode requires; otherwise no reasoning is sent.
func messages(req model.Request, echo string) []sdk.ChatCompletionMessageParamUnion {
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
			if text := echoed(msg, echo); text != "" {
				a.SetExtraFields(map[string]any{"reasoning_content": text})
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

// echoed returns the reasoning text source streamed for msg when msg called
// tools, which is what is sent back as its reasoning_content.
func echoed(msg model.Message, source string) string {
	if source == "" || (len(msg.Calls) == 0 && msg.Cut == nil) {
		return ""
	}
	var b strings.Builder
	for _, p := range model.ReasoningFor(msg.Reasoning, source) {
		if p.Kind == model.ReasoningText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
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

// isObject reports whether s is a JSON object. It is checked on every
// request for every earlier call, so it validates rather than decodes.
func isObject(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return t != "" && t[0] == '{' && json.Valid([]byte(t))
}

// resultContent marks an error result, which the API has no flag for.
func resultContent(r tool.Result) string {
	if !r.IsError || strings.HasPrefix(strings.ToLower(strings.TrimSpace(r.Content)), "error") {
		return r.Content
	}
	return "Error: " + r.Content
}
