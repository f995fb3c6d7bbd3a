// Package feedback holds every text the model reads about its tool calls: a
// tool's result, the error result of a call that never ran, what a call that
// did not finish says, and why arguments do not fit a tool.
//
// The functions are pure. Their wording is pinned by tests because the model
// acts on it: each text says whether the call ran and what to do next.
package feedback

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agenttui/agenttui/runtime/tool"
)

// EchoedChars is how many characters of a call's raw arguments any feedback
// echoes; longer input is cut and marked with an ellipsis.
const EchoedChars = 200

// PeerNotExecuted is the result every other call of a reply gets when one of
// its calls was invalid: none of the reply's calls ran.
const PeerNotExecuted = "Not run: another call in the same reply was invalid, so none of that reply's calls ran. " +
	"Fix the invalid call and send this call again if it is still needed."

// echo returns raw cut to EchoedChars characters, with an ellipsis when cut.
func echo(raw string) string {
	if utf8.RuneCountInString(raw) <= EchoedChars {
		return raw
	}
	runes := []rune(raw)
	return string(runes[:EchoedChars]) + "…"
}

// InvalidArguments is what the model reads when its call to toolName sent raw,
// which is not a JSON object: the tool never ran, and the model should call it
// again with a JSON object.
func InvalidArguments(toolName, raw string) string {
	return fmt.Sprintf("The call to %s did not run: its arguments must be a JSON object, but they were: %s\n"+
		"Call %s again with the arguments as a JSON object.", toolName, quoteRaw(raw), toolName)
}

// quoteRaw shows raw arguments bounded and unambiguous, including when empty.
func quoteRaw(raw string) string {
	if raw == "" {
		return "(nothing)"
	}
	return "`" + echo(raw) + "`"
}

// Unreachable is what the model reads when it named a tool the catalogue does
// not have. It lists the tools that are available.
func Unreachable(name string, available []string) string {
	list := "none"
	if len(available) > 0 {
		list = strings.Join(available, ", ")
	}
	return fmt.Sprintf("There is no tool named %q, so nothing ran. Available tools: %s.", name, list)
}

// InvalidCall returns the results answering a reply in which the call at
// invalidIndex was invalid, in call order: text for the invalid call and
// PeerNotExecuted for every other. It returns nil when there are no calls.
func InvalidCall(calls []tool.Call, invalidIndex int, text string) []tool.Result {
	if len(calls) == 0 {
		return nil
	}
	out := make([]tool.Result, len(calls))
	for i, c := range calls {
		if i == invalidIndex {
			out[i] = ResultMessage(c, text)
		} else {
			out[i] = NotExecuted(c)
		}
	}
	return out
}

// NotExecuted returns the result of a call that did not run because a call
// beside it in the same reply was invalid.
func NotExecuted(call tool.Call) tool.Result { return ResultMessage(call, PeerNotExecuted) }

// NotFinished is what the model reads of a call that did not finish because
// the run stopped early (the person stopped the turn, a hook or a failure
// ended it, or the session restarted). What it says depends on whether the
// call started and on its footprint: one never started was not run; one that
// started and only reads is safe to run again; any other may have partly run
// and should be checked before it is repeated. why is said as given, without
// a final period.
func NotFinished(toolName string, started bool, touches tool.Touches, why string) string {
	why = strings.TrimRight(strings.TrimSpace(why), ".")
	switch {
	case !started:
		return fmt.Sprintf("The call to %s was not run: %s. Nothing was done; call it again if it is still needed.", toolName, why)
	case touches.ReadsOnly():
		return fmt.Sprintf("The call to %s started but did not finish: %s. It only reads, so it is safe to run again.", toolName, why)
	default:
		return fmt.Sprintf("The call to %s started but did not finish: %s. It may have partly run; "+
			"check what it changed before running it again.", toolName, why)
	}
}

// OutputLimit is what the model reads for its call to toolName that its reply
// was cut off in the middle of, having sent raw of the arguments when the
// output limit was reached: the tool never ran, and sending as much again
// would be cut off again, so the work should be split.
func OutputLimit(toolName, raw string) string {
	return fmt.Sprintf("The call to %s did not run: your reply reached the output limit while sending its arguments, "+
		"which were cut off after: %s\nSending the same amount again would be cut off again. "+
		"Split the work into smaller calls (for example, write a large file in several parts).", toolName, quoteRaw(raw))
}

// ResultMessage returns the error result of a call that never ran, with text
// verbatim, such as a skip reason or recovery feedback. Text that looks like
// JSON is not reinterpreted.
func ResultMessage(call tool.Call, text string) tool.Result {
	return tool.Result{CallID: call.ID, Name: call.Name, Content: text, IsError: true}
}

// ResultOutput shapes the output of a call that ran as the result the model
// reads: a string verbatim, anything else as JSON. Anything but a success is
// an error result.
func ResultOutput(call tool.Call, outcome tool.Outcome, output any) tool.Result {
	return tool.Result{CallID: call.ID, Name: call.Name, Content: OutputText(output), IsError: !outcome.IsSuccess()}
}

// OutputText returns the text of a tool's output: a string verbatim, raw JSON
// as it is, anything else encoded as JSON.
func OutputText(output any) string {
	switch v := output.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.RawMessage:
		return string(v)
	case []byte:
		return string(v)
	}
	b, err := json.Marshal(output)
	if err != nil {
		return fmt.Sprintf("(the tool's output could not be encoded as JSON: %v)", err)
	}
	return string(b)
}

// TextCut is what the model reads when its reply, with no calls, was cut off
// by the output limit: the reply did not end the run, and a shorter one is
// needed.
const TextCut = "Your last reply was cut off by the output limit before it was complete, so it did not end the run. " +
	"Reply again more briefly; when the goal is reached, call finish with a short summary."
