// Package hooks runs the person's own hook commands at the points of a run
// where they may act: before and after each tool call, when the person
// submits a prompt, when the agent would stop, and when a session starts.
//
// The configuration has Claude Code's shape, so existing hook scripts work:
//
//	{"hooks": {"PreToolUse": [{"matcher": "run_shell|Bash",
//	  "hooks": [{"type": "command", "command": "~/bin/check", "timeout": 30}]}]}}
//
// A hook reads one JSON object on its standard input (Input) and answers by
// its exit status and, on status 0, an optional JSON object on its standard
// output (Output). Status 2 blocks, and its standard error is the reason;
// any other status is a hook error, which is reported and otherwise ignored
// unless the hook's entry says "on_error": "deny".
//
// The package runs commands and reads their answers; what a decision means
// for a call is for the runtime and the approval policy to say.
package hooks

import (
	"encoding/json"
	"regexp"
	"time"
)

// Event names a point of a run where hooks run, as Claude Code names it.
type Event string

// The events hooks may be attached to.
const (
	// PreToolUse runs before a call is reviewed by the approval policy.
	// Its hooks may allow, ask, deny or rewrite the call.
	PreToolUse Event = "PreToolUse"
	// PostToolUse runs after a call's body has returned. Its hooks may add
	// context to what the model reads, or mark the result as blocked.
	PostToolUse Event = "PostToolUse"
	// UserPromptSubmit runs when the person sends input, before the model
	// sees it. Its hooks may block the input or add context.
	UserPromptSubmit Event = "UserPromptSubmit"
	// Stop runs when the agent would end its run with an answer. Its hooks
	// may send the agent on with a reason.
	Stop Event = "Stop"
	// SessionStart runs when a session starts or is resumed. Its hooks may
	// add context.
	SessionStart Event = "SessionStart"
)

// Events lists the events in the order the documentation gives them.
func Events() []Event {
	return []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart}
}

// ToolEvent reports whether e is about one tool call, so that its groups'
// matchers are matched against the tool's name.
func (e Event) ToolEvent() bool { return e == PreToolUse || e == PostToolUse }

// Config is the "hooks" object of a configuration: for each event, the
// groups of commands attached to it, in the order they are written.
type Config map[Event][]Group

// Group is one entry of an event's list: a matcher and the commands it
// runs.
type Group struct {
	// Matcher is a regular expression matched against the whole tool name
	// (agenttui's, or Claude Code's name for the same tool); empty or "*"
	// matches every tool. Events that are not about a tool ignore it.
	Matcher string `json:"matcher,omitempty"`
	// Hooks are the commands to run.
	Hooks []Command `json:"hooks"`

	// re is Matcher compiled, anchored at both ends; nil matches all.
	re *regexp.Regexp
}

// Command is one hook command.
type Command struct {
	// Type is "command", the only kind agenttui runs.
	Type string `json:"type"`
	// Command is run by /bin/sh -c in the workspace.
	Command string `json:"command"`
	// Timeout is the command's time limit in seconds; zero means the
	// runner's default (60 seconds).
	Timeout float64 `json:"timeout,omitempty"`
	// OnError is "deny" to block the call (or the input, or the stop)
	// when the hook fails, times out, cannot start or is refused because
	// a file it runs changed since the person trusted it; empty or
	// "ignore" goes on as if there were no hook.
	OnError string `json:"on_error,omitempty"`
	// Workspace says the command comes from the workspace's own
	// configuration, which runs only once the person trusts it, and only
	// while it is as they trusted it (see Trust).
	Workspace bool `json:"-"`
}

// OnErrorDeny is the OnError value that blocks on a hook's failure.
const OnErrorDeny = "deny"

// DefaultTimeout is a hook command's time limit when neither its entry nor
// the runner sets one.
const DefaultTimeout = 60 * time.Second

// DefaultMaxOutput is how many bytes of each of a hook's output streams
// are kept; the rest is read and dropped.
const DefaultMaxOutput = 64 << 10

// MaxContext bounds the additional context all of one event's hooks give
// together, in bytes: more is cut, saying so.
const MaxContext = 10000

// Input is the JSON object a hook reads on its standard input. The names are
// Claude Code's; tool_input carries agenttui's own argument names.
type Input struct {
	// SessionID is the session's id.
	SessionID string `json:"session_id"`
	// TranscriptPath is the session's journal, one JSON event per line;
	// empty for a session that is not journaled.
	TranscriptPath string `json:"transcript_path"`
	// Cwd is the workspace.
	Cwd string `json:"cwd"`
	// HookEventName is the event.
	HookEventName Event `json:"hook_event_name"`
	// PermissionMode is the approval mode: ask, reads, auto or plan.
	PermissionMode string `json:"permission_mode,omitempty"`
	// ToolName is the tool's name in agenttui (run_shell, edit_file, …),
	// for PreToolUse and PostToolUse.
	ToolName string `json:"tool_name,omitempty"`
	// ToolInput is the call's arguments.
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	// ToolUseID is the call's id as the model sent it.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// ToolResponse is the call's result, for PostToolUse.
	ToolResponse *ToolResponse `json:"tool_response,omitempty"`
	// Prompt is the person's input, for UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// StopHookActive, for Stop, says the agent is already going on
	// because a Stop hook sent it on.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// Source, for SessionStart, is "startup" or "resume".
	Source string `json:"source,omitempty"`
	// Task is the path of the sub-agent's task that made the call, such as
	// ["2.1"]; absent for the session's own agent.
	Task []string `json:"task,omitempty"`
	// Agent names the sub-agent that made the call; absent for the
	// session's own agent.
	Agent string `json:"agent_type,omitempty"`
}

// ToolResponse is what PostToolUse hooks learn of a call's result.
type ToolResponse struct {
	// Outcome is success, error or denied.
	Outcome string `json:"outcome"`
	// Kind is the failure's kind for an error, such as "timeout".
	Kind string `json:"kind,omitempty"`
	// Output is the tool's output text, bounded.
	Output string `json:"output"`
}

// Output is the JSON object a hook may print on its standard output when it
// exits with status 0. The names are Claude Code's.
type Output struct {
	// Continue false blocks, like decision "block", with StopReason as the
	// reason. For Stop it means what it means in Claude Code, that the
	// agent stops whatever else the answer says: it never sends the agent
	// on, and StopReason is shown to the person. SessionStart ignores it.
	Continue   *bool  `json:"continue,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// SystemMessage is shown to the person.
	SystemMessage string `json:"systemMessage,omitempty"`
	// SuppressOutput is accepted and has no effect: agenttui does not show
	// a hook's output in the transcript.
	SuppressOutput bool `json:"suppressOutput,omitempty"`
	// Decision is "block" (with Reason) for PostToolUse, UserPromptSubmit
	// and Stop; for PreToolUse Claude Code's older "approve" and "block"
	// mean allow and deny.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// HookSpecificOutput carries the event's own fields.
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput is an Output's event-specific part.
type SpecificOutput struct {
	HookEventName string `json:"hookEventName,omitempty"`
	// PermissionDecision is "allow", "deny" or "ask", for PreToolUse.
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// UpdatedInput replaces the call's arguments, for PreToolUse.
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	// AdditionalContext is added to what the model reads.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// Decision is what an event's hooks decided together.
type Decision string

// The decisions, from weakest to strongest: when hooks disagree, the
// strongest wins (a deny or block over an ask, an ask over an allow).
const (
	// None: no hook decided anything; the run goes on as without hooks.
	None Decision = ""
	// Allow: a PreToolUse hook lets the call run without asking, unless
	// a rule, the mode or the call's provenance says otherwise.
	Allow Decision = "allow"
	// Ask: a PreToolUse hook wants the person to approve the call.
	Ask Decision = "ask"
	// Deny: a PreToolUse hook does not let the call run.
	Deny Decision = "deny"
	// Block: a PostToolUse hook marks the result as blocked, a
	// UserPromptSubmit hook blocks the input, or a Stop hook sends the
	// agent on.
	Block Decision = "block"
)

// Verdict is what the hooks of one event decided about one call, input or
// stop, together.
type Verdict struct {
	// Decision is the strongest decision any hook gave.
	Decision Decision
	// By names the command whose answer is the Decision, as "hook:" and
	// the command as written; ByWorkspace says it is one of the
	// workspace's own commands (Command.Workspace), not the person's.
	By          string
	ByWorkspace bool
	// Reason is that command's reason.
	Reason string
	// UpdatedInput, for PreToolUse, is the first rewrite of the call's
	// arguments a hook gave (in the configuration's order); UpdatedBy
	// names its command like By, and UpdatedByWorkspace says whose it is
	// like ByWorkspace.
	UpdatedInput       json.RawMessage
	UpdatedBy          string
	UpdatedByWorkspace bool
	// Context is the additional context of every hook, joined in the
	// configuration's order and bounded by MaxContext.
	Context string
	// Runs are the commands that ran, in the configuration's order.
	Runs []Run
}

// Run is one command's run and its answer.
type Run struct {
	// Command is the command as written; Workspace says it is one of the
	// workspace's own commands (Command.Workspace), not the person's.
	Command   string
	Workspace bool
	// Exit is its exit status; -1 when it did not exit by itself (it
	// could not start, or was killed at its time limit).
	Exit int
	// Duration is how long it ran.
	Duration time.Duration
	// Decision and Reason are its answer.
	Decision Decision
	Reason   string
	// Context is its additional context.
	Context string
	// Message is its systemMessage, for the person.
	Message string
	// Error says what went wrong, in one line, or is empty: the command
	// could not start, exited with a status other than 0 or 2, printed
	// JSON that does not parse, or ran past its limit and was killed.
	Error string
	// TimedOut says it ran past its limit and was killed.
	TimedOut bool
	// Refused says the command, the workspace's own, was not run: the
	// person's trust in the workspace's hooks does not hold for it (see
	// Trust). Error says why.
	Refused bool

	// updated is the rewrite of the call's arguments the command gave, a
	// JSON object, or empty. It is a string, not a json.RawMessage, so
	// that Run stays comparable with ==.
	updated string
}

// By returns the form a decision's "by" takes for a command: "hook:" and
// the command as written.
func By(command string) string { return "hook:" + command }
