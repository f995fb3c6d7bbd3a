// Package eventtest builds the runtime events the console's tests feed it: a
// reply's planned calls with their footprints in the workspace WS, the
// decisions, starts and ends of those calls, a reply's reasoning and the
// usage of a session. Only tests import it.
package eventtest

import (
	"encoding/json"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// WS is the workspace the footprints are in.
const WS = "/w"

// T0 is the start of the tests' fake clocks.
var T0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// Call builds a planned call of batch that waits for the calls waitsFor.
func Call(index int, name, args string, touches *tool.Touches, batch int, waitsFor ...int) runtime.PlannedCall {
	if waitsFor == nil {
		waitsFor = []int{}
	}
	return runtime.PlannedCall{Index: index, ID: "c" + name, Name: name, Args: json.RawMessage(args), Touches: touches, WaitsFor: waitsFor, Batch: batch}
}

// Reads is a footprint that reads p, relative to WS.
func Reads(p string) *tool.Touches {
	t := tool.Reads(tool.Paths(WS + "/" + p))
	return &t
}

// Writes is a footprint that writes p, relative to WS.
func Writes(p string) *tool.Touches {
	t := tool.Writes(tool.Paths(WS + "/" + p))
	return &t
}

// WritesAnything is the footprint of a call that may change anything.
func WritesAnything() *tool.Touches {
	t := tool.Writes(tool.Anything())
	return &t
}

// Decide is a hook's decision about a call.
func Decide(turn, index int, what, by, reason string) runtime.CallDecision {
	return runtime.CallDecision{Turn: turn, Index: index, Decision: what, By: by, Reason: reason}
}

// Started says a call's first attempt started at at.
func Started(turn, index int, name string, at time.Time) runtime.CallStarted {
	return runtime.CallStarted{Turn: turn, Index: index, Name: name, Attempt: 1, At: runtime.Time{Time: at}}
}

// Finished says a call ended with outcome (and the failure kind, for an
// error) after ms, the model reading result.
func Finished(turn, index int, name, outcome, kind, result string, ms int64) runtime.CallFinished {
	ev := runtime.CallFinished{Turn: turn, Index: index, Name: name, Outcome: outcome, Result: result, Started: outcome != "skipped",
		Attempts: 1, DurationMS: ms}
	if kind != "" {
		ev.Kind = &kind
	}
	return ev
}

// Thought is a reasoning part a person can read, text, that took tokens
// (zero: the provider did not say), signed as an Anthropic thinking block.
func Thought(text string, tokens int) model.Reasoning {
	return model.Reasoning{Source: "anthropic:test", Kind: model.ReasoningThinking, Text: text, Data: "sig", Tokens: tokens}
}

// HiddenThought is a reasoning part the provider hid: a payload and no
// text.
func HiddenThought() model.Reasoning {
	return model.Reasoning{Source: "anthropic:test", Kind: model.ReasoningRedacted, Data: "EncryptedPayload=="}
}

// Used is a usage of in input tokens, cached of them read from the prompt
// cache, and out output tokens, costing usd dollars; a negative usd leaves
// the cost unknown.
func Used(in, cached, out int, usd float64) model.Usage {
	u := model.Usage{InputTokens: in, CacheReadTokens: cached, OutputTokens: out}
	if usd >= 0 {
		u.CostUSD = &usd
	}
	return u
}
