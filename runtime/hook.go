package runtime

import (
	"context"
	"encoding/json"

	"github.com/agenttui/agenttui/runtime/tool"
)

type flowAction uint8

const (
	flowContinue flowAction = iota
	flowSkip
	flowRewrite
	flowAsk
)

// Flow is a hook's decision about one call: let it run, skip it, rewrite its
// arguments, or ask someone and decide later. Every decision names what made
// it (By, such as "mode:reads", "rule:2", "grant:…", "user" or "headless")
// so that the event stream can say why a call ran or did not.
type Flow struct {
	action flowAction
	// By names what made the decision.
	By string
	// Reason explains the decision. For a skip it is the exact text the
	// model reads as the call's result.
	Reason string
	args   json.RawMessage
	wait   func(ctx context.Context, req AskRequest) Flow
	// shown is the digest of the preview a person approved; content is
	// the person's own version of the call's file content.
	shown   string
	content *string
}

// Continue lets the call go on to the next hook, and to run after the last.
func Continue(by, reason string) Flow { return Flow{action: flowContinue, By: by, Reason: reason} }

// Skip stops the call before its body runs. The outcome is Skipped and the
// model reads reason verbatim. A skip does not end the turn: the reply's
// other calls go on, and the calls that depend on this one are released.
func Skip(by, reason string) Flow { return Flow{action: flowSkip, By: by, Reason: reason} }

// RewriteArgs replaces the call's arguments. The new arguments are checked
// against the tool's schema again and the footprint is recomputed; arguments
// that do not fit skip the call with the schema's feedback.
func RewriteArgs(by string, args json.RawMessage) Flow {
	return Flow{action: flowRewrite, By: by, args: args}
}

// Ask defers the decision: the runtime announces that the call waits for
// approval (By and Reason say why it asks) and runs wait in its own
// goroutine, so that waiting blocks only this call and the calls that depend
// on it. wait returns Continue or Skip; it must return when ctx is done.
func Ask(by, reason string, wait func(ctx context.Context, req AskRequest) Flow) Flow {
	return Flow{action: flowAsk, By: by, Reason: reason, wait: wait}
}

// Approved lets the call run because a person approved it after seeing
// the preview whose digest is shown. The approval is bound to that
// preview: just before the call starts, the runtime takes its preview
// again, and when the digest differs the call does not run but asks
// again, showing what changed. An empty digest binds nothing.
func Approved(by, reason, shown string) Flow {
	return Flow{action: flowContinue, By: by, Reason: reason, shown: shown}
}

// ApprovedEdited lets the call run with content, the person's own version
// of the file content the call proposed (see tool.Reviser), once the
// preview the person edited (digest shown) still holds when the call
// starts. The model reads that the person changed its edit, and how.
func ApprovedEdited(by, reason, shown, content string) Flow {
	return Flow{action: flowContinue, By: by, Reason: reason, shown: shown, content: &content}
}

// Shown returns the digest of the preview an approval is bound to, or "".
func (f Flow) Shown() string { return f.shown }

// Edited returns the person's version of the call's content, if the
// person edited it before approving.
func (f Flow) Edited() (string, bool) {
	if f.content == nil {
		return "", false
	}
	return *f.content, true
}

// IsSkip reports whether the flow skips the call.
func (f Flow) IsSkip() bool { return f.action == flowSkip }

// IsAsk reports whether the flow defers the decision to someone.
func (f Flow) IsAsk() bool { return f.action == flowAsk }

// IsContinue reports whether the flow lets the call go on.
func (f Flow) IsContinue() bool { return f.action == flowContinue }

// CallInfo describes a call to a hook.
type CallInfo struct {
	// Turn is the reply's turn number in the session, from 1.
	Turn int
	// Index is the call's position in its reply, from 0.
	Index int
	// Call is the call as the model sent it.
	Call tool.Call
	// Args are the checked arguments.
	Args json.RawMessage
	// Touches is the call's normalized footprint.
	Touches tool.Touches
	// Decl is the tool's declaration.
	Decl tool.Declaration
	// Sandbox says how the call runs when its tool can confine it, as
	// run_shell does; nil otherwise.
	Sandbox *tool.Sandbox
	// Task is the path of the task whose agent made the call (see
	// TaskEvent); nil for a call of the session's own run.
	Task []string
	// Provenance lists the parts of the call's arguments that came from
	// untrusted results earlier in the session, and from where.
	Provenance []tool.Origin
	// Sources gives, for a top-level string argument, the kinds of source
	// its substantial parts were found in (tool.Source kinds, and "model"
	// for text found nowhere): what a protected-argument rule checks. ok
	// is false when the call has no such argument; nil for a call that
	// was not traced.
	Sources func(argument string) (kinds []string, ok bool)
	// Hook is what the person's PreToolUse hook commands decided about the
	// call, allow or ask; nil when none decided either.
	Hook *HookDecision
}

// AskRequest is what an asking hook's wait function learns about the call
// once the reply is planned.
type AskRequest struct {
	CallInfo
	// WaitsFor lists the earlier calls of the reply this call depends on.
	WaitsFor []int
	// By and Reason say why the call asks.
	By     string
	Reason string
	// Preview is what the call would do, taken just before asking; nil
	// for a tool without previews. It may be provisional (see
	// CallPreviewed): later previews arrive as events.
	Preview *tool.Preview
}

// Hook reviews every call of a reply when the reply arrives, before any call
// runs. Review must be quick; a decision that takes time (a person) is
// returned as Ask.
type Hook interface {
	Review(ctx context.Context, call CallInfo) Flow
}

// HookFunc adapts a function to the Hook interface.
type HookFunc func(ctx context.Context, call CallInfo) Flow

// Review calls f.
func (f HookFunc) Review(ctx context.Context, call CallInfo) Flow { return f(ctx, call) }

// Await runs the wait function of an Ask flow and returns its decision; any
// other flow is returned as it is. The runtime calls it in its own goroutine;
// tests of hooks call it directly.
func (f Flow) Await(ctx context.Context, req AskRequest) Flow {
	if f.action != flowAsk {
		return f
	}
	return f.wait(ctx, req)
}
