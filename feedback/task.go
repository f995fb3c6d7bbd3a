package feedback

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MaxTaskCallsListed bounds how many of a task's finished calls TaskProgress
// names; the rest are counted.
const MaxTaskCallsListed = 20

// TaskSucceeded is what the model reads when the agent it handed a task to
// finished: the agent's summary, and the data it extracted as JSON when
// there is any.
func TaskSucceeded(agent, description, summary string, data json.RawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The %s agent finished the task %q.\nIts summary: %s", agent, description, strings.TrimSpace(summary))
	if d := strings.TrimSpace(string(data)); d != "" && d != "null" {
		b.WriteString("\nThe data it extracted (JSON): ")
		b.WriteString(d)
	}
	return b.String()
}

// TaskFailed is what the model reads when the agent it handed a task to
// failed: where it failed and its last errors, oldest first. What the agent
// changed before it failed stays changed.
func TaskFailed(agent, description, step string, attempts []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The %s agent failed the task %q at %s.", agent, description, step)
	if len(attempts) > 0 {
		b.WriteString(" What went wrong, oldest first:")
		for _, a := range attempts {
			b.WriteString("\n- ")
			b.WriteString(a)
		}
	}
	b.WriteString("\nAnything it changed before it failed is still changed; check before handing the task out again.")
	return b.String()
}

// TaskAsked is what the model reads when the agent it handed a task to
// stopped to ask a question: the question, and how to go on.
func TaskAsked(agent, description, question string) string {
	return fmt.Sprintf("The %s agent stopped the task %q to ask a question: %s\n"+
		"Answer it yourself by calling task again with the answer in its prompt, or put the question to the person with ask_user.",
		agent, description, strings.TrimSpace(question))
}

// TaskNotStarted is what the model reads when a task could not start, such
// as when the model its agent names cannot be had.
func TaskNotStarted(agent, description, why string) string {
	return fmt.Sprintf("The task %q did not start: %s. Nothing was done.", description, strings.TrimRight(strings.TrimSpace(why), "."))
}

// TaskProgress says which calls a task had finished when it stopped without
// ending (the person stopped it, or the session restarted), so the model
// can tell what it may have done. Each entry of calls is one finished call
// as TaskCallLine gives it.
func TaskProgress(calls []string) string {
	if len(calls) == 0 {
		return "Before it stopped, the task had finished no call."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Before it stopped, the task had finished %d call", len(calls))
	if len(calls) != 1 {
		b.WriteString("s")
	}
	b.WriteString(":")
	for i, c := range calls {
		if i == MaxTaskCallsListed {
			fmt.Fprintf(&b, "\n- and %d more", len(calls)-i)
			break
		}
		b.WriteString("\n- ")
		b.WriteString(c)
	}
	return b.String()
}

// TaskCallLine names one finished call of a task for TaskProgress: its tool,
// its arguments (cut to EchoedChars) and its outcome.
func TaskCallLine(tool string, args json.RawMessage, outcome string) string {
	return fmt.Sprintf("%s %s: %s", tool, echo(string(args)), outcome)
}

// TaskWriteOutside is what the model reads when a call inside a task would
// change something beyond the paths the task may write (writes, relative to
// the workspace): the tool refused it. what says what the call would change.
func TaskWriteOutside(tool string, writes []string, what string) string {
	allowed := "nothing (the task declared no writes)"
	if len(writes) > 0 {
		allowed = "only " + strings.Join(writes, ", ")
	}
	return fmt.Sprintf("Denied: this task may change %s, and this call to %s would change %s; it was not run. "+
		"Finish with what you have and say what else needs changing.", allowed, tool, what)
}
