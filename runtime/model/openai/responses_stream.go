package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wire"
	"github.com/agenttui/agenttui/runtime/tool"
)

// replyResponses answers req over the Responses API in one attempt.
func (m *Model) replyResponses(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	effort, reasons, err := reasoningFor(m.srv.Model, req.Effort, req.Compact)
	if err != nil {
		return model.Reply{}, err
	}
	body := m.responsesBody(req, effort, reasons)
	var acc respAccumulator
	err = wire.Receive(ctx, m.srv, func(w *wire.Watch) wire.Stream[respEvent] {
		var res *http.Response
		err := m.client.Post(w.Context(), "responses", body, &res,
			option.WithHeader("Accept", "text/event-stream"), option.WithMiddleware(middleware(w)))
		return &eventStream{s: ssestream.NewStream[respEvent](ssestream.NewDecoder(res), err)}
	}, func(ev respEvent) { acc.add(ev, onDelta) })
	if err != nil {
		return model.Reply{}, err
	}
	return acc.reply(m)
}

// respEvent is a streamed event of the Responses API, with the fields of
// every kind agenttui reads. The fields whose shape differs from event to
// event are kept raw and read by the events that carry them.
type respEvent struct {
	Type         string          `json:"type"`
	OutputIndex  int             `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Delta        json.RawMessage `json:"delta"`
	Item         json.RawMessage `json:"item"`
	Arguments    json.RawMessage `json:"arguments"`
	Response     json.RawMessage `json:"response"`
	Code         json.RawMessage `json:"code"`
	Message      json.RawMessage `json:"message"`
}

// respItem is an output item, as output_item.added and output_item.done
// carry it.
type respItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
}

// respResponse is the response of a terminal event.
type respResponse struct {
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens        int `json:"input_tokens"`
		OutputTokens       int `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens     int `json:"cached_tokens"`
			CacheWriteTokens int `json:"cache_write_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// text reads a raw field that should hold a string; anything else is read
// as nothing.
func text(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// eventStream is the stream of events of one attempt. An error event and a
// response.failed event end it with an eventError, which wire explains, and
// a terminal event (response.completed, response.incomplete) is the last
// one read, so that a server that keeps the connection open after it does
// not hold the reply back.
type eventStream struct {
	s    *ssestream.Stream[respEvent]
	cur  respEvent
	err  error
	done bool
}

func (e *eventStream) Next() bool {
	if e.done || e.err != nil || !e.s.Next() {
		return false
	}
	ev := e.s.Current()
	switch ev.Type {
	case "error":
		e.err = &eventError{code: text(ev.Code), message: text(ev.Message)}
		return false
	case "response.failed":
		var r respResponse
		_ = json.Unmarshal(ev.Response, &r)
		e.err = &eventError{message: "the response failed"}
		if r.Error != nil && r.Error.Message != "" {
			e.err = &eventError{code: r.Error.Code, message: r.Error.Message}
		}
		return false
	case "response.completed", "response.incomplete":
		e.done = true
	}
	e.cur = ev
	return true
}

func (e *eventStream) Current() respEvent { return e.cur }

func (e *eventStream) Err() error {
	if e.err != nil {
		return e.err
	}
	return e.s.Err()
}

func (e *eventStream) Close() error { return e.s.Close() }

// respAccumulator assembles a streamed Responses API reply. Output items are
// known by their output_index, which every event about an item carries.
type respAccumulator struct {
	text strings.Builder
	// texted are the output items whose text arrived as deltas.
	texted    map[int]bool
	calls     []*respCall
	callAt    map[int]*respCall
	reasoning []*respReasoning
	reasonAt  map[int]*respReasoning
	// status is the terminal event's: "completed", "incomplete", or "" while
	// none has come.
	status     string
	incomplete string
	usage      model.Usage
}

// respCall is a function call whose pieces are still arriving.
type respCall struct {
	itemID, callID, name string
	args                 strings.Builder
	// final is the whole arguments, once an event has given them.
	final *string
}

// respReasoning is a reasoning item as it arrives.
type respReasoning struct {
	calls     int
	afterText bool
	// summary is the summary streamed so far, and lastSummary the index of
	// its last part.
	summary     strings.Builder
	lastSummary int
	// text and data are the summary and the item, from output_item.done.
	text string
	data string
	done bool
}

func (a *respAccumulator) add(ev respEvent, onDelta func(model.Delta)) {
	emit := func(d model.Delta) {
		if onDelta != nil {
			onDelta(d)
		}
	}
	switch ev.Type {
	case "response.output_item.added":
		var it respItem
		if json.Unmarshal(ev.Item, &it) != nil {
			return
		}
		switch it.Type {
		case "function_call":
			a.call(ev.OutputIndex, it)
		case "reasoning":
			a.reason(ev.OutputIndex)
		}
	case "response.output_item.done":
		a.itemDone(ev, emit)
	case "response.output_text.delta", "response.refusal.delta":
		if d := text(ev.Delta); d != "" {
			a.text.WriteString(d)
			a.textedAt(ev.OutputIndex)
			emit(model.Delta{Text: d})
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		d := text(ev.Delta)
		if d == "" {
			return
		}
		r := a.reason(ev.OutputIndex)
		if ev.SummaryIndex != r.lastSummary && r.summary.Len() > 0 {
			// A new part of the summary reads as a new paragraph.
			r.summary.WriteString("\n\n")
			emit(model.Delta{Thinking: "\n\n"})
		}
		r.lastSummary = ev.SummaryIndex
		r.summary.WriteString(d)
		emit(model.Delta{Thinking: d})
	case "response.function_call_arguments.delta":
		if c := a.callAt[ev.OutputIndex]; c != nil {
			c.args.WriteString(text(ev.Delta))
		}
	case "response.function_call_arguments.done":
		if c := a.callAt[ev.OutputIndex]; c != nil && len(ev.Arguments) > 0 {
			s := text(ev.Arguments)
			c.final = &s
		}
	case "response.completed", "response.incomplete":
		var r respResponse
		_ = json.Unmarshal(ev.Response, &r)
		a.status = strings.TrimPrefix(ev.Type, "response.")
		if r.IncompleteDetails != nil {
			a.incomplete = r.IncompleteDetails.Reason
		}
		if u := r.Usage; u != nil {
			a.usage = model.Usage{
				InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CacheReadTokens:  u.InputTokensDetails.CachedTokens,
				CacheWriteTokens: u.InputTokensDetails.CacheWriteTokens,
				ReasoningTokens:  u.OutputTokensDetails.ReasoningTokens,
			}
		}
	}
}

// call returns the call at output index i, starting it from it when it is
// new.
func (a *respAccumulator) call(i int, it respItem) *respCall {
	if c := a.callAt[i]; c != nil {
		return c
	}
	if a.callAt == nil {
		a.callAt = map[int]*respCall{}
	}
	c := &respCall{itemID: it.ID, callID: it.CallID, name: it.Name}
	c.args.WriteString(it.Arguments)
	a.callAt[i] = c
	a.calls = append(a.calls, c)
	return c
}

// reason returns the reasoning item at output index i, starting it where
// the reply is now when it is new.
func (a *respAccumulator) reason(i int) *respReasoning {
	if r := a.reasonAt[i]; r != nil {
		return r
	}
	if a.reasonAt == nil {
		a.reasonAt = map[int]*respReasoning{}
	}
	r := &respReasoning{calls: len(a.calls), afterText: a.text.Len() > 0, lastSummary: -1}
	a.reasonAt[i] = r
	a.reasoning = append(a.reasoning, r)
	return r
}

// textedAt notes that the text of output item i arrived as deltas.
func (a *respAccumulator) textedAt(i int) {
	if a.texted == nil {
		a.texted = map[int]bool{}
	}
	a.texted[i] = true
}

// itemDone takes an output item whole. A reasoning item is kept exactly as
// it came, to be sent back: its encrypted content is complete only here
// (output_item.added may carry it incomplete). A message whose text did not
// stream is taken from the item.
func (a *respAccumulator) itemDone(ev respEvent, emit func(model.Delta)) {
	var it respItem
	if json.Unmarshal(ev.Item, &it) != nil {
		return
	}
	switch it.Type {
	case "function_call":
		c := a.call(ev.OutputIndex, it)
		if c.callID == "" {
			c.callID = it.CallID
		}
		if c.name == "" {
			c.name = it.Name
		}
		if it.Arguments != "" || c.final == nil {
			s := it.Arguments
			c.final = &s
		}
	case "reasoning":
		r := a.reason(ev.OutputIndex)
		summaries := make([]string, len(it.Summary))
		for i, s := range it.Summary {
			summaries[i] = s.Text
		}
		r.text = mend(strings.Join(summaries, "\n\n"))
		if r.text == "" {
			r.text = mend(r.summary.String())
		}
		// The item is checked whole once, here, so that building a request
		// need not check it again; bytes that are not UTF-8 are mended as
		// the journal would mend them.
		data := mend(string(ev.Item))
		if json.Valid([]byte(data)) {
			r.data = strings.TrimSpace(data)
		}
		r.done = true
	case "message":
		if a.texted[ev.OutputIndex] {
			return
		}
		for _, c := range it.Content {
			piece := c.Text
			if c.Type == "refusal" {
				piece = c.Refusal
			}
			if piece != "" {
				a.text.WriteString(piece)
				emit(model.Delta{Text: piece})
			}
		}
	}
}

// reply returns the assembled reply, or an error for a stream that ended
// without saying how.
func (a *respAccumulator) reply(m *Model) (model.Reply, error) {
	r := model.Reply{Text: mend(a.text.String()), Usage: a.usage}
	for _, p := range a.reasoning {
		text := p.text
		if !p.done {
			text = mend(p.summary.String())
		}
		if text == "" && p.data == "" {
			continue
		}
		r.Reasoning = append(r.Reasoning, model.Reasoning{
			Source: m.Name(), Kind: model.ReasoningItem, Text: text, Data: p.data,
			Calls: p.calls, AfterText: p.afterText,
		})
	}
	if len(r.Reasoning) == 1 {
		r.Reasoning[0].Tokens = a.usage.ReasoningTokens
	}
	for i, c := range a.calls {
		id := c.callID
		if id == "" {
			id = c.itemID
		}
		if id == "" {
			// The runtime and the next request need an id to match the
			// result to the call; a server that sends none gets one made up.
			id = fmt.Sprintf("call_%d_%d", time.Now().UnixNano(), i)
		}
		if c.name == "" {
			return model.Reply{}, m.srv.Malformed("a function call with no name")
		}
		args := c.args.String()
		if c.final != nil {
			args = *c.final
		}
		r.Calls = append(r.Calls, tool.Call{ID: id, Name: c.name, Arguments: mend(args)})
	}
	switch {
	case a.status == "":
		return model.Reply{}, m.srv.Truncated("no response.completed event")
	case a.status == "incomplete" && a.incomplete == "content_filter":
		return model.Reply{}, m.srv.Fail(nil, "%s stopped the reply with its content filter", m.srv.Who)
	case a.status == "incomplete":
		return ended(r, true), nil
	}
	return ended(r, false), nil
}
