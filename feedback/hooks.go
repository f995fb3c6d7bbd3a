package feedback

import (
	"fmt"
	"strings"
)

// MaxStopContinues is how many times in a row the person's Stop hooks may
// send the agent on before the run is allowed to end anyway, so that a hook
// that always objects cannot keep a run going until its budgets run out.
const MaxStopContinues = 3

// Hook is a hook command as the texts the model reads name it: its event,
// the command as written, and whose it is. The model is told whose hook
// acted, since a hook from the workspace's own configuration (which the
// person trusted to run) and one of the person's speak for different
// people.
type Hook struct {
	// Event is the hook's event, such as "PreToolUse".
	Event string
	// Command is the command as written.
	Command string
	// Workspace says the command comes from the workspace's own
	// configuration; otherwise it is the person's own.
	Workspace bool
}

// name is how the texts name the hook: whose, its event, and the command
// as written, cut to EchoedChars characters, in backquotes: "the
// workspace's PreToolUse hook `./hooks/pre.sh`".
func (h Hook) name() string {
	return HookOwners{Person: !h.Workspace, Workspace: h.Workspace}.whose() + " " + h.Event + " hook " +
		"`" + echo(strings.TrimSpace(h.Command)) + "`"
}

// HookOwners says whose hooks gave something together, such as context:
// the person's, the workspace's, or both.
type HookOwners struct{ Person, Workspace bool }

// whose names the owners: "the person's", "the workspace's", or both.
func (o HookOwners) whose() string {
	switch {
	case o.Person && o.Workspace:
		return "the person's and the workspace's"
	case o.Workspace:
		return "the workspace's"
	}
	return "the person's"
}

// reasonOr returns the reason, or the fallback when the hook gave none.
func reasonOr(reason, fallback string) string {
	if r := strings.TrimSpace(reason); r != "" {
		return r
	}
	return fallback
}

// HookDenied is what the model reads for a call a PreToolUse hook did not
// let run: which hook and whose, that the call did not run, and the hook's
// reason as it gave it.
func HookDenied(h Hook, reason string) string {
	return fmt.Sprintf("Skipped: %s did not allow this call, so it was not run. The hook's reason: %s",
		h.name(), reasonOr(reason, "none given"))
}

// HookRewriteUnfit is what the model reads when a PreToolUse hook rewrote a
// call's arguments into ones the tool's schema refuses: the call did not
// run, and why the new arguments do not fit.
func HookRewriteUnfit(h Hook, problem string) string {
	return fmt.Sprintf("Skipped: %s rewrote the arguments of this call and the new ones do not fit, "+
		"so it was not run: %s", h.name(), problem)
}

// HookRewritten is what the model reads after the result of a call whose
// arguments a PreToolUse hook rewrote, so that it knows the call that ran
// is not exactly the one it sent.
func HookRewritten(h Hook, args string) string {
	return fmt.Sprintf("Note: %s rewrote this call's arguments before it ran; it ran with %s.", h.name(), echo(args))
}

// HookContext is what the model reads of the additional context the hooks
// of event gave: said to come from them and whose they are, then the
// context.
func HookContext(owners HookOwners, event, context string) string {
	return fmt.Sprintf("Context from %s %s hooks:\n%s", owners.whose(), event, strings.TrimSpace(context))
}

// HookBlockedResult is what the model reads after a call's output when a
// PostToolUse hook marked the result as blocked: which hook, and its
// reason.
func HookBlockedResult(h Hook, reason string) string {
	return fmt.Sprintf("%s blocked this result: %s", capitalised(h.name()), reasonOr(reason, "it gave no reason"))
}

// StopHookGoOn is the message the model reads when a Stop hook did not let
// the run end: which hook, its reason, and to go on.
func StopHookGoOn(h Hook, reason string) string {
	return fmt.Sprintf("%s did not let the run end yet: %s\n"+
		"Go on with the work, and finish when it is done.", capitalised(h.name()), reasonOr(reason, "it gave no reason"))
}

// PromptBlocked is the attempt a run's failure report carries when a
// UserPromptSubmit hook blocked the input: the model never saw it.
func PromptBlocked(h Hook, reason string) string {
	return fmt.Sprintf("%s blocked the input, so the model never saw it: %s", h.name(), reasonOr(reason, "it gave no reason"))
}

// capitalised returns s with its first letter, an ASCII one, in upper
// case, to begin a sentence.
func capitalised(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
