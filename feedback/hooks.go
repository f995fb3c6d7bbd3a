package feedback

import (
	"fmt"
	"strings"
)

// MaxStopContinues is how many times in a row the person's Stop hooks may
// send the agent on before the run is allowed to end anyway, so that a hook
// that always objects cannot keep a run going until its budgets run out.
const MaxStopContinues = 3

// hookName is how the texts name a hook command: as written, cut to
// EchoedChars characters, in backquotes.
func hookName(command string) string {
	return "`" + echo(strings.TrimSpace(command)) + "`"
}

// reasonOr returns the reason, or the fallback when the hook gave none.
func reasonOr(reason, fallback string) string {
	if r := strings.TrimSpace(reason); r != "" {
		return r
	}
	return fallback
}

// HookDenied is what the model reads for a call a PreToolUse hook of the
// person's did not let run: which hook, that the call did not run, and the
// hook's reason as it gave it.
func HookDenied(command, reason string) string {
	return fmt.Sprintf("Skipped: the person's hook %s did not allow this call, so it was not run. The hook's reason: %s",
		hookName(command), reasonOr(reason, "none given"))
}

// HookRewriteUnfit is what the model reads when a PreToolUse hook rewrote a
// call's arguments into ones the tool's schema refuses: the call did not
// run, and why the new arguments do not fit.
func HookRewriteUnfit(command, problem string) string {
	return fmt.Sprintf("Skipped: the person's hook %s rewrote the arguments of this call and the new ones do not fit, "+
		"so it was not run: %s", hookName(command), problem)
}

// HookRewritten is what the model reads after the result of a call whose
// arguments a PreToolUse hook rewrote, so that it knows the call that ran
// is not exactly the one it sent.
func HookRewritten(command, args string) string {
	return fmt.Sprintf("Note: the person's hook %s rewrote this call's arguments before it ran; it ran with %s.",
		hookName(command), echo(args))
}

// HookContext is what the model reads of the additional context the
// person's hooks of event gave: said to come from them, then the context.
func HookContext(event, context string) string {
	return fmt.Sprintf("Context from the person's %s hooks:\n%s", event, strings.TrimSpace(context))
}

// HookBlockedResult is what the model reads after a call's output when a
// PostToolUse hook of the person's marked the result as blocked: which
// hook, and its reason.
func HookBlockedResult(command, reason string) string {
	return fmt.Sprintf("The person's PostToolUse hook %s blocked this result: %s", hookName(command),
		reasonOr(reason, "it gave no reason"))
}

// StopHookGoOn is the message the model reads when a Stop hook of the
// person's did not let the run end: which hook, its reason, and to go on.
func StopHookGoOn(command, reason string) string {
	return fmt.Sprintf("The person's Stop hook %s did not let the run end yet: %s\n"+
		"Go on with the work, and finish when it is done.", hookName(command), reasonOr(reason, "it gave no reason"))
}

// PromptBlocked is the attempt a run's failure report carries when a
// UserPromptSubmit hook of the person's blocked the input: the model never
// saw it.
func PromptBlocked(command, reason string) string {
	return fmt.Sprintf("the person's UserPromptSubmit hook %s blocked the input, so the model never saw it: %s",
		hookName(command), reasonOr(reason, "it gave no reason"))
}
