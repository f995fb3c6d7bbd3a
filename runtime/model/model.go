// Package model defines the provider-neutral interface between the agent
// loop and a language model, the conversation it reads, and a scripted model
// that plays a scenario file.
package model

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agenttui/agenttui/runtime/tool"
)

// Role says who a message is from.
type Role string

// The roles of a conversation.
const (
	// RoleUser is a message the person typed: a goal, an answer to a
	// clarification, a follow-up.
	RoleUser Role = "user"
	// RoleAssistant is a model reply: text and calls.
	RoleAssistant Role = "assistant"
	// RoleTool carries the results of the previous reply's calls, in call
	// order.
	RoleTool Role = "tool"
)

// Message is one entry of a conversation.
type Message struct {
	Role Role `json:"role"`
	// Text is the user's text or the model's reply text.
	Text string `json:"text,omitempty"`
	// Calls are the complete calls of an assistant reply, in call order.
	Calls []tool.Call `json:"calls,omitempty"`
	// Cut is the call an assistant reply was cut off in the middle of by the
	// output limit; its Arguments hold what was sent.
	Cut *tool.Call `json:"cut,omitempty"`
	// Results answer the previous assistant reply: one per call, in call
	// order, then one for its cut call if it had one.
	Results []tool.Result `json:"results,omitempty"`
	// Summarizes, on the user message that replaced the older part of a
	// compacted conversation, is how many model replies that part held,
	// so that a scripted model still knows how far it has played.
	Summarizes int `json:"summarizes,omitempty"`
	// Reasoning is what the model reasoned while it wrote an assistant
	// reply, in the order it came; see Reasoning.
	Reasoning []Reasoning `json:"reasoning,omitempty"`
}

// Request is one turn's question to the model.
type Request struct {
	// System is the system prompt.
	System string
	// Messages is the conversation so far.
	Messages []Message
	// Tools are the tools the model may call.
	Tools []tool.Declaration
	// MaxOutputTokens bounds the reply; zero means the provider's default.
	MaxOutputTokens int
	// Compact says the request asks for a summary of the conversation,
	// which will replace its older part; it offers no tools, and its one
	// message holds the history as text.
	Compact bool
	// Effort is how hard the model is asked to reason before it replies;
	// EffortDefault leaves it to the model.
	Effort Effort
	// CacheKey names the conversation for a provider's prompt cache, so
	// that requests which share a prefix are routed to the same cache; it
	// is the session's id, and empty sends none.
	CacheKey string
}

// StopReason says why the model stopped replying.
type StopReason string

// The stop reasons.
const (
	// StopEnd means the model finished its reply.
	StopEnd StopReason = "end"
	// StopToolCalls means the model stopped to let its calls run.
	StopToolCalls StopReason = "tool_calls"
	// StopOutputLimit means the reply reached the output token limit.
	StopOutputLimit StopReason = "output_limit"
)

// Usage counts the tokens of one turn, or of several added up, and what
// they cost.
type Usage struct {
	// InputTokens is every token of input, those read from or written to
	// a prompt cache included.
	InputTokens int `json:"input_tokens"`
	// OutputTokens is every token of output, reasoning included.
	OutputTokens int `json:"output_tokens"`
	// CacheReadTokens is the part of InputTokens read from the provider's
	// prompt cache, which costs a fraction of fresh input.
	CacheReadTokens int `json:"cache_read_tokens,omitempty"`
	// CacheWriteTokens is the part of InputTokens written to the prompt
	// cache, which costs more than fresh input.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// ReasoningTokens is the part of OutputTokens the model spent
	// reasoning, when the provider says.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CostUSD is what the tokens cost in US dollars, from the price of
	// the model that used them; nil when any of them was used by a model
	// whose price is not known, since a figure that leaves some out would
	// mislead.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// Tokens returns the input and output tokens together.
func (u Usage) Tokens() int { return u.InputTokens + u.OutputTokens }

// FreshInputTokens returns the input that was neither read from nor written
// to the prompt cache.
func (u Usage) FreshInputTokens() int {
	return max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
}

// Add returns the sum of two usages. The cost is the sum of both costs; it
// is unknown when either usage counts tokens of unknown cost.
func (u Usage) Add(o Usage) Usage {
	sum := Usage{
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + o.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + o.ReasoningTokens,
	}
	switch {
	case u.Tokens() == 0 && u.CostUSD == nil:
		sum.CostUSD = o.CostUSD
	case o.Tokens() == 0 && o.CostUSD == nil:
		sum.CostUSD = u.CostUSD
	case u.CostUSD != nil && o.CostUSD != nil:
		c := *u.CostUSD + *o.CostUSD
		sum.CostUSD = &c
	}
	return sum
}

// Reply is the model's answer to one request.
type Reply struct {
	// Text is the reply text.
	Text string
	// Calls are the complete calls, each with the raw argument text the
	// model sent.
	Calls []tool.Call
	// Cut is the call the output limit stopped in the middle of, if any.
	Cut *tool.Call
	// Stop says why the reply ended.
	Stop StopReason
	// Usage counts the turn's tokens; providers leave its cost to the
	// runtime, which prices it.
	Usage Usage
	// Reasoning is what the model reasoned while it wrote the reply, in
	// the order it came.
	Reasoning []Reasoning
	// Model names the model that wrote the reply, as its Name says, when
	// it may differ from the Model asked (a Switchable fills it in).
	Model string
}

// Delta is what a model reports while its reply streams: the next piece of
// the reply's text or of its reasoning, or, when Retry is set, that the
// attempt streaming so far failed and the request is being made again.
type Delta struct {
	// Text is the next piece of the reply's text.
	Text string
	// Thinking is the next piece of the reasoning's readable text.
	Thinking string
	// Retry, when set, voids every piece of text and reasoning reported
	// since the request began or since the last Retry: the attempt that
	// streamed them failed, and nothing of it reaches the returned Reply.
	Retry *Retry
}

// Model is a language model that can call tools.
type Model interface {
	// Name identifies the model, such as "openai:gpt-4o" or "demo".
	Name() string
	// Reply answers req. What streams in is passed to onDelta as it
	// arrives (onDelta may be nil); the returned Reply holds the whole
	// text again, of the attempt that succeeded. Reply must return when
	// ctx is done.
	Reply(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error)
}

// ErrScriptEnded is wrapped by the errors a scripted model returns when its
// scenario cannot go on: it ran out of steps, or an expected text was
// missing. The agent loop ends such a run as failed.
var ErrScriptEnded = errors.New("the scenario cannot go on")

// ArgumentsJSON returns a call's arguments as JSON when they are valid JSON,
// and otherwise the raw text encoded as a JSON string, so that a value can
// always be written where JSON is expected.
func ArgumentsJSON(c tool.Call) json.RawMessage {
	if json.Valid([]byte(c.Arguments)) {
		return json.RawMessage(c.Arguments)
	}
	b, _ := json.Marshal(c.Arguments)
	return b
}
