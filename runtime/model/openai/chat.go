package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wire"
	"github.com/agenttui/agenttui/runtime/tool"
)

// replyChat answers req over Chat Completions. A server that refuses the
// request because a tool-calling turn lacks its reasoning_content is asked
// again at once with it, and from then on always gets it.
func (m *Model) replyChat(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	effort, _, err := reasoningFor(m.srv.Model, req.Effort, req.Compact)
	if err != nil {
		return model.Reply{}, err
	}
	if m.srv.Custom && req.Effort == model.EffortDefault {
		// A compatible server is sent an effort only when the person chose
		// one: what it takes is not known.
		effort = ""
	}
	echo := m.echo.Load()
	r, err := m.chatAttempt(ctx, req, effort, echo, onDelta)
	if err != nil && !echo && wantsReasoningBack(err) {
		// Nothing streamed: the server refused the request before
		// answering, so there is nothing for the caller to void.
		m.echo.Store(true)
		return m.chatAttempt(ctx, req, effort, true, onDelta)
	}
	return r, err
}

// chatAttempt makes one request over Chat Completions.
func (m *Model) chatAttempt(ctx context.Context, req model.Request, effort string, echo bool, onDelta func(model.Delta)) (model.Reply, error) {
	params := m.params(req, effort, echo)
	var acc chatAccumulator
	err := wire.Receive(ctx, m.srv, func(w *wire.Watch) wire.Stream[sdk.ChatCompletionChunk] {
		return m.client.Chat.Completions.NewStreaming(w.Context(), params, option.WithMiddleware(middleware(w)))
	}, func(chunk sdk.ChatCompletionChunk) { acc.add(chunk, onDelta) })
	if err != nil {
		return model.Reply{}, err
	}
	return acc.reply(m)
}

// wantsReasoningBack recognises DeepSeek's refusal of a request whose
// tool-calling turn lacks its reasoning_content: "The `reasoning_content` in
// the thinking mode must be passed back to the API." and the older
// "Missing `reasoning_content` field in the assistant message at message
// index 2" (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls).
func wantsReasoningBack(err error) bool {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		return false
	}
	msg := strings.ToLower(apiErr.Message)
	return strings.Contains(msg, "reasoning_content") &&
		(strings.Contains(msg, "passed back") || strings.Contains(msg, "missing"))
}

// chatAccumulator assembles a streamed Chat Completions reply.
type chatAccumulator struct {
	text   strings.Builder
	calls  []*partialCall
	byIdx  map[int64]*partialCall
	finish string
	usage  model.Usage
	// thinking is the reasoning text a compatible server streamed, and
	// thinkCalls and thinkAfterText where it began.
	thinking       strings.Builder
	thinkCalls     int
	thinkAfterText bool
}

// partialCall is a call whose pieces are still arriving.
type partialCall struct {
	id, name string
	args     strings.Builder
}

func (a *chatAccumulator) add(chunk sdk.ChatCompletionChunk, onDelta func(model.Delta)) {
	if chunk.JSON.Usage.Valid() {
		a.usage = chatUsage(chunk.Usage)
	}
	for _, choice := range chunk.Choices {
		// Only one choice is asked for; a server that sends more gets the
		// first one heard.
		if choice.Index != 0 {
			continue
		}
		if piece := reasoningPiece(choice.Delta.JSON.ExtraFields); piece != "" {
			if a.thinking.Len() == 0 {
				a.thinkCalls, a.thinkAfterText = len(a.calls), a.text.Len() > 0
			}
			a.thinking.WriteString(piece)
			if onDelta != nil {
				onDelta(model.Delta{Thinking: piece})
			}
		}
		for _, piece := range []string{choice.Delta.Content, choice.Delta.Refusal} {
			if piece == "" {
				continue
			}
			a.text.WriteString(piece)
			if onDelta != nil {
				onDelta(model.Delta{Text: piece})
			}
		}
		for _, tc := range choice.Delta.ToolCalls {
			a.addCall(tc)
		}
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
		}
	}
}

// reasoningPiece returns the reasoning text of a delta, which compatible
// servers send in a field the SDK does not know: reasoning_content
// (DeepSeek, LM Studio, older vLLM) or reasoning (OpenRouter, Ollama, newer
// vLLM). A server that sends both sends the same text twice, so only one is
// taken.
func reasoningPiece(extra map[string]respjson.Field) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// chatUsage reads a Chat Completions usage: OpenAI's prompt and completion
// token details, and DeepSeek's prompt_cache_hit_tokens where OpenAI's
// cached_tokens is missing.
func chatUsage(u sdk.CompletionUsage) model.Usage {
	out := model.Usage{
		InputTokens:      int(u.PromptTokens),
		OutputTokens:     int(u.CompletionTokens),
		CacheReadTokens:  int(u.PromptTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.PromptTokensDetails.CacheWriteTokens),
		ReasoningTokens:  int(u.CompletionTokensDetails.ReasoningTokens),
	}
	if f, ok := u.JSON.ExtraFields["prompt_cache_hit_tokens"]; ok && out.CacheReadTokens == 0 {
		var n int
		if json.Unmarshal([]byte(f.Raw()), &n) == nil && n > 0 && n <= out.InputTokens {
			out.CacheReadTokens = n
		}
	}
	return out
}

// addCall adds a piece of a call. The id and name come in the first piece of
// each index and the arguments in pieces after it. Some compatible servers
// send every call whole under the same index; a new id at a known index is
// taken as a new call so that such calls are not run together.
func (a *chatAccumulator) addCall(tc sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	if a.byIdx == nil {
		a.byIdx = map[int64]*partialCall{}
	}
	c, ok := a.byIdx[tc.Index]
	if !ok || (tc.ID != "" && c.id != "" && tc.ID != c.id) {
		c = &partialCall{}
		a.byIdx[tc.Index] = c
		a.calls = append(a.calls, c)
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(tc.Function.Arguments)
}

// reply returns the assembled reply, or an error for a stream that ended
// without saying why.
func (a *chatAccumulator) reply(m *Model) (model.Reply, error) {
	r := model.Reply{Text: mend(a.text.String()), Usage: a.usage}
	if a.thinking.Len() > 0 {
		r.Reasoning = []model.Reasoning{{
			Source: m.Name(), Kind: model.ReasoningText, Text: mend(a.thinking.String()),
			Calls: a.thinkCalls, AfterText: a.thinkAfterText, Tokens: a.usage.ReasoningTokens,
		}}
	}
	for i, c := range a.calls {
		id := c.id
		if id == "" {
			// The runtime and the next request need an id to match the
			// result to the call; a server that sends none gets one made up.
			id = fmt.Sprintf("call_%d_%d", time.Now().UnixNano(), i)
		}
		if c.name == "" {
			// A call must name its tool for the runtime to check it, and
			// for the console and the next request to say what it was.
			return model.Reply{}, m.srv.Malformed("a tool call with no name")
		}
		r.Calls = append(r.Calls, tool.Call{ID: id, Name: c.name, Arguments: mend(c.args.String())})
	}
	switch a.finish {
	case "":
		return model.Reply{}, m.srv.Truncated("no finish reason")
	case "content_filter":
		return model.Reply{}, m.srv.Fail(nil, "%s stopped the reply with its content filter", m.srv.Who)
	case "length":
		return ended(r, true), nil
	}
	return ended(r, false), nil
}

// ended returns the reply r with its stop reason: the output limit when
// limited, which cuts the call being written off (see cutLast), else the
// end of the reply or a stop for its calls to run.
func ended(r model.Reply, limited bool) model.Reply {
	switch {
	case limited:
		r.Stop = model.StopOutputLimit
		r.Calls, r.Cut = cutLast(r.Calls)
	case len(r.Calls) > 0:
		r.Stop = model.StopToolCalls
	default:
		r.Stop = model.StopEnd
	}
	if len(r.Calls) == 0 {
		r.Calls = nil
	}
	return r
}

// cutLast splits off the call the output limit stopped in the middle of.
// Only the call being written when the limit struck can be cut: it is the
// last one, and its arguments are not yet whole JSON.
func cutLast(calls []tool.Call) ([]tool.Call, *tool.Call) {
	n := len(calls)
	if n == 0 || json.Valid([]byte(calls[n-1].Arguments)) {
		return calls, nil
	}
	cut := calls[n-1]
	return calls[:n-1], &cut
}
