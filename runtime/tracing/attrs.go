package tracing

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// Span names and the agent's name, as the GenAI conventions form them:
// "invoke_agent {agent}", "chat {model}", "execute_tool {tool}". A task's
// run is "invoke_agent {kind}", its kind of agent ("explore", "general",
// …). The wait for a person has no convention; it is ours.
const (
	AgentName             = "agenttui"
	SpanInvokeAgentPrefix = "invoke_agent "
	SpanInvokeAgent       = SpanInvokeAgentPrefix + AgentName
	SpanChatPrefix        = "chat "
	SpanExecutePrefix     = "execute_tool "
	SpanAwaitApproval     = "await_approval"
)

// Attributes of our own, for what the GenAI conventions do not name. Each
// is listed in the README's Traces section.
const (
	// On invoke_agent.
	AttrRunMode        = attribute.Key("agenttui.run.mode")
	AttrRunResumed     = attribute.Key("agenttui.run.resumed")
	AttrRunOutcome     = attribute.Key("agenttui.run.outcome")
	AttrRunFailingStep = attribute.Key("agenttui.run.failing_step")
	AttrRunAttempts    = attribute.Key("agenttui.run.attempts")

	// On a task's invoke_agent: the task's path, the ids (TaskID) of the
	// calls that run it from the session's own run in, as in the events'
	// "task".
	AttrTaskPath = attribute.Key("agenttui.task.path")

	// On chat and execute_tool: the turn (model reply) of the session.
	AttrTurn = attribute.Key("agenttui.turn")

	// On chat and invoke_agent: what the tokens cost in US dollars, when
	// the model's price is known.
	AttrCostUSD = attribute.Key("agenttui.usage.cost_usd")

	// On chat.
	AttrModelAttempt   = attribute.Key("agenttui.model.attempt")
	AttrReplyCalls     = attribute.Key("agenttui.reply.calls")
	AttrReplyInvalid   = attribute.Key("agenttui.reply.invalid")
	AttrCompaction     = attribute.Key("agenttui.compaction.reason")
	AttrCompactTokens  = attribute.Key("agenttui.compaction.tokens_before")
	AttrCompactAfter   = attribute.Key("agenttui.compaction.tokens_after")
	AttrCompactWindow  = attribute.Key("agenttui.compaction.window")
	AttrCompactMsgs    = attribute.Key("agenttui.compaction.messages")
	AttrCompactReplies = attribute.Key("agenttui.compaction.replies")

	// On the chat span's retry events.
	AttrRetryMax   = attribute.Key("agenttui.model.max_attempts")
	AttrRetryWhy   = attribute.Key("agenttui.model.retry.why")
	AttrRetryWait  = attribute.Key("agenttui.model.retry.wait_ms")
	AttrRetryError = attribute.Key("agenttui.model.retry.error")

	// On execute_tool.
	AttrCallIndex      = attribute.Key("agenttui.call.index")
	AttrCallKey        = attribute.Key("agenttui.call.key")
	AttrFootprintKind  = attribute.Key("agenttui.call.footprint.kind")
	AttrFootprintScope = attribute.Key("agenttui.call.footprint.scope")
	AttrCallBatch      = attribute.Key("agenttui.call.batch")
	AttrCallWaitsFor   = attribute.Key("agenttui.call.waits_for")
	AttrCallDecision   = attribute.Key("agenttui.call.decision")
	AttrCallDecisionBy = attribute.Key("agenttui.call.decision.by")
	// AttrCallProvenance lists where the call's arguments came from, as
	// "argument ← source" ("command ← web:evil.example").
	AttrCallProvenance  = attribute.Key("agenttui.call.provenance")
	AttrCallOutcome     = attribute.Key("agenttui.call.outcome")
	AttrCallAttempts    = attribute.Key("agenttui.call.attempts")
	AttrCallStarted     = attribute.Key("agenttui.call.started")
	AttrCallNotFinished = attribute.Key("agenttui.call.not_finished")
	AttrCallWhy         = attribute.Key("agenttui.call.why")
	AttrCallAdded       = attribute.Key("agenttui.call.lines_added")
	AttrCallRemoved     = attribute.Key("agenttui.call.lines_removed")
	AttrCallFailure     = attribute.Key("agenttui.call.failure")

	// On execute_tool's attempt and retry events.
	AttrAttempt     = attribute.Key("agenttui.call.attempt")
	AttrMaxAttempts = attribute.Key("agenttui.call.max_attempts")
	AttrBackoff     = attribute.Key("agenttui.call.backoff_ms")

	// On await_approval.
	AttrAskedBy        = attribute.Key("agenttui.approval.asked_by")
	AttrAskedWhy       = attribute.Key("agenttui.approval.asked_reason")
	AttrApprovalAnswer = attribute.Key("agenttui.approval.decision")
	AttrApprovalBy     = attribute.Key("agenttui.approval.by")
	AttrApprovalWait   = attribute.Key("agenttui.approval.wait_ms")
	AttrApprovalEdited = attribute.Key("agenttui.approval.edited")
	AttrApprovalReason = attribute.Key("agenttui.approval.reason")
)

// Span events of our own.
const (
	EventModelRetry  = "agenttui.model.retry"
	EventCallStarted = "agenttui.call.started"
	EventCallRetry   = "agenttui.call.retry"
	// EventHook is one of the person's hook commands that ran: on the
	// call's span for PreToolUse and PostToolUse, else on the run's.
	EventHook = "agenttui.hook"
)

// The attributes of a hook event.
const (
	AttrHookEvent    = attribute.Key("agenttui.hook.event")
	AttrHookCommand  = attribute.Key("agenttui.hook.command")
	AttrHookDecision = attribute.Key("agenttui.hook.decision")
	AttrHookExit     = attribute.Key("agenttui.hook.exit")
	AttrHookError    = attribute.Key("agenttui.hook.error")
	AttrHookDuration = attribute.Key("agenttui.hook.duration_ms")
)

// The answers an await_approval span can end with besides the runtime's
// run and skip: nobody answered before the call was settled.
const answerNone = "unanswered"

// Providers for scripted models, which the conventions do not list.
const providerScripted = "agenttui.scripted"

// maxContent bounds one recorded content attribute, so a large file read
// does not make a span too big to export; longer text is cut with an
// ellipsis.
const maxContent = 16 << 10

// modelParts splits a model name as the runtime gives it ("openai:gpt-4o",
// "anthropic:claude-…", "scenario:name", "demo") into the provider, as the
// conventions name it, and the model.
func modelParts(name string) (provider, model string) {
	prefix, rest, ok := strings.Cut(name, ":")
	switch {
	case !ok:
		return providerScripted, name
	case prefix == "openai":
		return semconv.GenAIProviderNameOpenAI.Value.AsString(), rest
	case prefix == "anthropic":
		return semconv.GenAIProviderNameAnthropic.Value.AsString(), rest
	case prefix == "scenario":
		return providerScripted, rest
	default:
		return prefix, rest
	}
}

// finishReason maps the runtime's stop reasons to the values the
// conventions use.
func finishReason(stop string) string {
	switch stop {
	case "end":
		return "stop"
	case "tool_calls":
		return "tool_call"
	case "output_limit":
		return "length"
	default:
		return stop
	}
}

// clip bounds recorded content to maxContent bytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= maxContent {
		return s
	}
	cut := maxContent
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// part is one part of a message in the conventions' JSON form of
// gen_ai.input.messages and gen_ai.output.messages.
type part struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// message is one message in the conventions' JSON form.
type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// messagesJSON encodes messages as the conventions' JSON string.
func messagesJSON(msgs ...message) string {
	b, err := json.Marshal(msgs)
	if err != nil {
		return ""
	}
	return string(b)
}
