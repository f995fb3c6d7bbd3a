package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// noResult is the content of a result the conversation lacks.
const noResult = "No result was recorded for this call, so it may not have run."

// request is a Messages request as agenttui sends it: the fields it uses,
// ready to be written as JSON by encode.
type request struct {
	model       string
	plan        plan
	system      string
	systemCache bool // the system prompt is a cache breakpoint
	tools       []wireTool
	messages    []wireMessage
}

// wireTool is a tool definition.
type wireTool struct {
	name, description string
	schema            []byte // the input_schema, as JSON
	cache             bool
}

// wireMessage is a message: its role and content blocks.
type wireMessage struct {
	role   string // "user" or "assistant"
	blocks []wireBlock
}

// The kinds of content blocks agenttui sends.
const (
	blockText       = "text"
	blockThinking   = "thinking"
	blockRedacted   = "redacted_thinking"
	blockToolUse    = "tool_use"
	blockToolResult = "tool_result"
)

// wireBlock is a content block of one of the kinds above.
type wireBlock struct {
	kind string
	// text is a text block's text, a thinking block's thinking, and a
	// tool_result's content.
	text string
	// data is a thinking block's signature and a redacted block's data.
	data string
	// id is a tool_use's id and the tool_use_id of a tool_result.
	id, name string
	input    string // a tool_use's input: a JSON object
	isError  bool
	cache    bool // the block is a cache breakpoint
}

// body converts a request into the body of a Messages request, as JSON,
// and returns the request options it needs beside the body (a beta
// header). It returns an error, and nothing is to be sent, when the model
// refuses the reasoning effort asked of it whatever is sent.
func (m *Model) body(req model.Request) ([]byte, []option.RequestOption, error) {
	pl, err := planFor(m.srv.Model, req, m.maxTokens)
	if err != nil {
		return nil, nil, err
	}
	source := m.Name()
	if !req.Compact {
		// The summary request holds the history as text: no blocks.
		pl = pl.adjust(m.srv.Model, source, req.Messages)
	}
	r := request{model: m.srv.Model, plan: pl, system: req.System, messages: messages(req.Messages, source, pl.strip)}
	for _, d := range req.Tools {
		r.tools = append(r.tools, wireTool{name: d.Name, description: d.Description, schema: inputSchema(d.Parameters)})
	}
	if !req.Compact {
		// The summary request is made once and never read again, so a
		// breakpoint would only pay for writing the cache.
		markCache(&r)
	}
	var opts []option.RequestOption
	if pl.dropBlocks {
		opts = append(opts, option.WithHeaderAdd("anthropic-beta", BindingBeta))
	}
	return r.encode(), opts, nil
}

// inputSchema returns a tool's parameters as the API takes them: an object
// schema with its properties ({} when it declares none), the names it
// requires, and every other keyword as it is. The keys are written sorted,
// so that the tool list is the same bytes in every request of a session.
func inputSchema(raw json.RawMessage) []byte {
	var s map[string]any
	_ = json.Unmarshal(raw, &s)
	if s == nil {
		s = map[string]any{}
	}
	s["type"] = "object"
	if _, ok := s["properties"]; !ok {
		s["properties"] = map[string]any{}
	}
	if list, ok := s["required"].([]any); ok {
		names := []string{}
		for _, r := range list {
			if name, ok := r.(string); ok {
				names = append(names, name)
			}
		}
		s["required"] = names
	} else {
		delete(s, "required")
	}
	b, err := json.Marshal(s)
	if err != nil {
		return []byte(`{"properties":{},"type":"object"}`)
	}
	return b
}

// conversation builds the messages, merging consecutive content of one role
// into one message.
type conversation struct {
	out []wireMessage
	// pending are the ids of the last reply's calls still without a result,
	// in call order.
	pending []string
}

func (c *conversation) add(role string, blocks ...wireBlock) {
	if len(blocks) == 0 {
		return
	}
	if n := len(c.out); n > 0 && c.out[n-1].role == role {
		c.out[n-1].blocks = append(c.out[n-1].blocks, blocks...)
		return
	}
	c.out = append(c.out, wireMessage{role: role, blocks: blocks})
}

// settle answers the calls still without a result.
func (c *conversation) settle() {
	for _, id := range c.pending {
		c.add("user", result(id, noResult, true))
	}
	c.pending = nil
}

// messages converts the conversation, answering any call left without a
// result so that the request is one the API accepts. The reasoning of an
// assistant message is sent back when source (the model's Name) made it,
// in the place it had in the reply, except in the messages from index
// strip on (none when strip is negative).
func messages(msgs []model.Message, source string, strip int) []wireMessage {
	c := conversation{out: make([]wireMessage, 0, len(msgs))}
	for i, msg := range msgs {
		switch msg.Role {
		case model.RoleUser:
			c.settle()
			if strings.TrimSpace(msg.Text) != "" {
				c.add("user", wireBlock{kind: blockText, text: msg.Text})
			}
		case model.RoleAssistant:
			c.settle()
			var parts []model.Reasoning
			if strip < 0 || i < strip {
				parts = sendable(msg.Reasoning, source)
			}
			calls := msg.Calls
			if msg.Cut != nil {
				calls = append(calls[:len(calls):len(calls)], *msg.Cut)
			}
			c.add("assistant", assistantBlocks(msg.Text, calls, parts, &c)...)
		case model.RoleTool:
			for _, r := range msg.Results {
				id := toolID(r.CallID)
				c.add("user", result(id, r.Content, r.IsError))
				c.pending = remove(c.pending, id)
			}
		}
	}
	c.settle()
	return c.out
}

// assistantBlocks returns the blocks of an assistant reply: its text, its
// calls and its reasoning parts, each part where it was in the reply. The
// reply's reasoning parts say how many calls and whether text came before
// each; the reply's text was one block (its text blocks are kept as one),
// so the order is: the parts before any text or call, the text, the parts
// after the text and before any call, then each call followed by the parts
// that came after it. The calls are recorded in c as waiting for results.
func assistantBlocks(text string, calls []tool.Call, parts []model.Reasoning, c *conversation) []wireBlock {
	blocks := make([]wireBlock, 0, len(parts)+len(calls)+1)
	beforeCalls := func(afterText bool) {
		for _, p := range parts {
			if p.Calls == 0 && p.AfterText == afterText {
				blocks = append(blocks, reasoningBlock(p))
			}
		}
	}
	beforeCalls(false)
	// The API rejects text blocks that are empty or only white space.
	if strings.TrimSpace(text) != "" {
		blocks = append(blocks, wireBlock{kind: blockText, text: text})
	}
	beforeCalls(true)
	for i, call := range calls {
		id := toolID(call.ID)
		blocks = append(blocks, wireBlock{kind: blockToolUse, id: id, name: call.Name, input: historyInput(call)})
		c.pending = append(c.pending, id)
		for _, p := range parts {
			if p.Calls == i+1 {
				blocks = append(blocks, reasoningBlock(p))
			}
		}
	}
	// A part recorded after more calls than the message holds has nowhere
	// better to go than the end; it is kept, since dropping one block of a
	// turn is itself a change the API refuses.
	for _, p := range parts {
		if p.Calls > len(calls) {
			blocks = append(blocks, reasoningBlock(p))
		}
	}
	return blocks
}

// reasoningBlock returns a reasoning part as the block it came as, byte for
// byte.
func reasoningBlock(p model.Reasoning) wireBlock {
	if p.Kind == model.ReasoningRedacted {
		return wireBlock{kind: blockRedacted, data: p.Data}
	}
	return wireBlock{kind: blockThinking, text: p.Text, data: p.Data}
}

// result returns a tool_result block. Empty content is left out, because the
// API rejects an empty text block.
func result(id, content string, isError bool) wireBlock {
	return wireBlock{kind: blockToolResult, id: id, text: content, isError: isError}
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
func historyInput(c tool.Call) string {
	args := strings.TrimLeft(c.Arguments, " \t\r\n")
	if strings.HasPrefix(args, "{") && json.Valid([]byte(c.Arguments)) {
		return c.Arguments
	}
	return "{}"
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
