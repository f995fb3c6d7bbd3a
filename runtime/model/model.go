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

// Usage counts the tokens of one turn.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens}
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
	// Usage counts the turn's tokens.
	Usage Usage
}

// Delta is what a model reports while its reply streams: the next piece of
// the reply's text, or, when Retry is set, that the attempt streaming so far
// failed and the request is being made again.
type Delta struct {
	// Text is the next piece of the reply's text.
	Text string
	// Retry, when set, voids every piece of text reported since the request
	// began or since the last Retry: the attempt that streamed them failed,
	// and nothing of it reaches the returned Reply.
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
