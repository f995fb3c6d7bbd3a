package openai

import (
	"slices"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/jsonw"
	"github.com/agenttui/agenttui/runtime/tool"
)

// emptySchema is the parameters of a tool that declares none.
const emptySchema = `{"type":"object","properties":{}}`

// responsesBody returns the Responses API request body for req. effort is
// the reasoning.effort to send, if any, and reasons says the model may be
// asked for a summary of its reasoning (see reasoningFor). The fields that
// do not change during a session come first and are written the same way
// every time, so that every request begins with the previous one's prefix.
func (m *Model) responsesBody(req model.Request, effort string, reasons bool) []byte {
	b := make([]byte, 0, bodySize(req))
	b = append(b, `{"model":`...)
	b = jsonw.AppendString(b, m.srv.Model)
	if req.System != "" {
		b = append(b, `,"instructions":`...)
		b = jsonw.AppendString(b, req.System)
	}
	if len(req.Tools) > 0 {
		b = append(b, `,"tools":[`...)
		for i, d := range req.Tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"function","name":`...)
			b = jsonw.AppendString(b, d.Name)
			if d.Description != "" {
				b = append(b, `,"description":`...)
				b = jsonw.AppendString(b, d.Description)
			}
			b = append(b, `,"parameters":`...)
			b = appendObject(b, d.Parameters, emptySchema)
			// Strict mode asks every schema for what few tools declare
			// (every property required, additionalProperties false), and
			// the API refuses a tool whose schema lacks it.
			b = append(b, `,"strict":false}`...)
		}
		b = append(b, `],"parallel_tool_calls":true`...)
	}
	if reasons {
		b = append(b, `,"reasoning":{`...)
		if effort != "" {
			b = append(b, `"effort":`...)
			b = jsonw.AppendString(b, effort)
			b = append(b, ',')
		}
		b = append(b, `"summary":"auto"}`...)
	}
	if req.MaxOutputTokens > 0 {
		b = append(b, `,"max_output_tokens":`...)
		b = appendInt(b, req.MaxOutputTokens)
	}
	b = append(b, `,"store":false,"include":["reasoning.encrypted_content"]`...)
	if req.CacheKey != "" {
		b = append(b, `,"prompt_cache_key":`...)
		b = jsonw.AppendString(b, req.CacheKey)
	}
	b = append(b, `,"stream":true,"input":[`...)
	b = m.appendInput(b, req.Messages)
	return append(b, "]}"...)
}

// bodySize estimates the size of req's request body, so that it is written
// into one allocation.
func bodySize(req model.Request) int {
	n := 512 + len(req.System)
	for _, d := range req.Tools {
		n += 64 + len(d.Name) + len(d.Description) + len(d.Parameters)
	}
	for _, msg := range req.Messages {
		n += 64 + len(msg.Text)
		for _, c := range msg.Calls {
			n += 96 + len(c.ID) + len(c.Name) + len(c.Arguments)
		}
		for _, r := range msg.Results {
			n += 96 + len(r.CallID) + len(r.Content)
		}
		for _, p := range msg.Reasoning {
			n += len(p.Data)
		}
	}
	return n + n/8
}

// appendInput appends the conversation as input items, answering any call
// left without a result so that the request is one the API accepts.
func (m *Model) appendInput(b []byte, msgs []model.Message) []byte {
	first := true
	item := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	// pending are the ids of the last reply's calls still without a result,
	// in call order.
	var pending []string
	settle := func() {
		for _, id := range pending {
			item()
			b = appendOutput(b, id, noResult)
		}
		pending = pending[:0]
	}
	source := m.Name()
	// l is reused from reply to reply, so that a long conversation is laid
	// out without allocating for each reply.
	var l layouter
	for _, msg := range msgs {
		switch msg.Role {
		case model.RoleUser:
			settle()
			item()
			b = append(b, `{"type":"message","role":"user","content":`...)
			b = jsonw.AppendString(b, msg.Text)
			b = append(b, '}')
		case model.RoleAssistant:
			settle()
			for _, it := range l.layout(msg, source) {
				item()
				switch {
				case it.part != nil:
					b = append(b, it.part.Data...)
				case it.call != nil:
					b = append(b, `{"type":"function_call","call_id":`...)
					b = jsonw.AppendString(b, it.call.ID)
					b = append(b, `,"name":`...)
					b = jsonw.AppendString(b, it.call.Name)
					b = append(b, `,"arguments":`...)
					b = jsonw.AppendString(b, historyArguments(*it.call))
					b = append(b, '}')
					pending = append(pending, it.call.ID)
				default:
					b = append(b, `{"type":"message","role":"assistant","content":`...)
					b = jsonw.AppendString(b, msg.Text)
					b = append(b, '}')
				}
			}
		case model.RoleTool:
			for _, r := range msg.Results {
				// An output whose call is not in the conversation is refused
				// ("No tool call found for function call output"); none
				// should be, but one is left out rather than fail the turn.
				i := slices.Index(pending, r.CallID)
				if i < 0 {
					continue
				}
				item()
				b = appendOutput(b, r.CallID, resultContent(r))
				pending = slices.Delete(pending, i, i+1)
			}
		}
	}
	settle()
	return b
}

// appendOutput appends a function_call_output item.
func appendOutput(b []byte, callID, output string) []byte {
	b = append(b, `{"type":"function_call_output","call_id":`...)
	b = jsonw.AppendString(b, callID)
	b = append(b, `,"output":`...)
	b = jsonw.AppendString(b, output)
	return append(b, '}')
}

// replyItem is one input item of an earlier reply: a reasoning item (part),
// a call, or, when both are nil, the reply's text.
type replyItem struct {
	part *model.Reasoning
	call *tool.Call
}

// keyedItem is a replyItem with where it goes: its slot (how many of the
// reply's calls come before it) and its order within the slot.
type keyedItem struct {
	slot, order int
	item        replyItem
}

// layouter lays out earlier replies, reusing its buffers.
type layouter struct {
	items []replyItem
	keyed []keyedItem
	calls []tool.Call
}

// layout returns the input items of an earlier reply in the order its output
// items came: its reasoning items (those source made, with a payload), its
// text, and its calls, the cut call last. A reasoning item goes back where
// it was: after the calls and, when AfterText says so, the text that came
// before it. The text, kept as one piece, goes after every reasoning item
// that came before any text and before every one that came after some. A
// reasoning item that nothing of the reply followed (the output limit struck
// while the model reasoned) is left out, because the API refuses a reasoning
// item without the item that followed it. The items are valid until the
// next call.
func (l *layouter) layout(msg model.Message, source string) []replyItem {
	calls := msg.Calls
	if msg.Cut != nil {
		l.calls = append(append(l.calls[:0], msg.Calls...), *msg.Cut)
		calls = l.calls
	}
	items, keyed := l.items[:0], l.keyed[:0]
	textAt := 0
	for i := range msg.Reasoning {
		p := &msg.Reasoning[i]
		if p.Source != source || p.Kind != model.ReasoningItem || !isObjectText(p.Data) {
			continue
		}
		order := 0
		if p.AfterText {
			order = 2
		} else if p.Calls > textAt {
			textAt = p.Calls
		}
		keyed = append(keyed, keyedItem{min(p.Calls, len(calls)), order, replyItem{part: p}})
	}
	if len(keyed) == 0 {
		// The usual case, and the one of a reply from another model: the
		// text, then the calls.
		if msg.Text != "" {
			items = append(items, replyItem{})
		}
		for i := range calls {
			items = append(items, replyItem{call: &calls[i]})
		}
		l.items = items
		return items
	}
	if msg.Text != "" {
		keyed = append(keyed, keyedItem{min(textAt, len(calls)), 1, replyItem{}})
	}
	for i := range calls {
		keyed = append(keyed, keyedItem{i, 3, replyItem{call: &calls[i]}})
	}
	slices.SortStableFunc(keyed, func(a, b keyedItem) int {
		if a.slot != b.slot {
			return a.slot - b.slot
		}
		return a.order - b.order
	})
	for len(keyed) > 0 && keyed[len(keyed)-1].item.part != nil {
		keyed = keyed[:len(keyed)-1]
	}
	for _, k := range keyed {
		items = append(items, k.item)
	}
	l.items, l.keyed = items, keyed
	return items
}
