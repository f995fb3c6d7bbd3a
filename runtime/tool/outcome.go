// Package tool holds the vocabulary of one tool call: what a tool declares,
// what a call may touch, and how a call ends.
//
// The types here are shared by every other package of agenttui. They carry no
// behaviour beyond their own semantics, so that the runtime, the approval
// policy, the journal and the console all agree on what a call is and how it
// ended.
package tool

import (
	"encoding/json"
	"fmt"
)

type outcomeKind uint8

const (
	outcomeSuccess outcomeKind = iota
	outcomeError
	outcomeSkipped
	outcomeDenied
)

var outcomeIDs = [...]string{"success", "error", "skipped", "denied"}

// Outcome is how one call ended: it succeeded, it failed with a Failure, the
// framework skipped it before its body ran, or the tool itself denied it.
//
// Skipped and Denied both mean the body did not do its work, but they come
// from opposite sides. Skipped is produced only by the runtime, when a hook
// (the approval policy, the person, plan mode) declined to run the call.
// Denied is produced only by a tool, through Deny, when its own check refused
// the call. A tool returns a Return, which has no skipped form, so a tool
// cannot claim it was skipped.
//
// The zero Outcome is a success.
type Outcome struct {
	kind    outcomeKind
	failure *Failure
	reason  string
}

// Succeeded returns the outcome of a call that ran and produced its output.
func Succeeded() Outcome { return Outcome{kind: outcomeSuccess} }

// Failed returns the outcome of a call that ran and failed with f.
func Failed(f Failure) Outcome { return Outcome{kind: outcomeError, failure: &f} }

// Skipped returns the outcome of a call whose body the framework did not run,
// with the reason the model reads. Only the runtime should produce it; tools
// refuse calls with Deny.
func Skipped(reason string) Outcome { return Outcome{kind: outcomeSkipped, reason: reason} }

// Denied returns the outcome of a call the tool itself refused, with its
// reason.
func Denied(reason string) Outcome { return Outcome{kind: outcomeDenied, reason: reason} }

// ID returns the stable identifier of the outcome: "success", "error",
// "skipped" or "denied".
func (o Outcome) ID() string { return outcomeIDs[o.kind] }

// String returns the same identifier as ID.
func (o Outcome) String() string { return o.ID() }

// IsSuccess reports whether the call ran and succeeded.
func (o Outcome) IsSuccess() bool { return o.kind == outcomeSuccess }

// IsError reports whether the call ran and failed.
func (o Outcome) IsError() bool { return o.kind == outcomeError }

// IsSkipped reports whether the framework skipped the call before its body
// ran.
func (o Outcome) IsSkipped() bool { return o.kind == outcomeSkipped }

// IsDenied reports whether the tool refused the call.
func (o Outcome) IsDenied() bool { return o.kind == outcomeDenied }

// Failure returns the failure of an error outcome, and nil for any other.
func (o Outcome) Failure() *Failure {
	if o.kind != outcomeError {
		return nil
	}
	f := *o.failure
	return &f
}

// ErrorKind returns the failure kind of an error outcome, and false for any
// other outcome.
func (o Outcome) ErrorKind() (FailureKind, bool) {
	if o.kind != outcomeError {
		return 0, false
	}
	return o.failure.Kind, true
}

// IsErrorKind reports whether the outcome is an error of exactly kind k.
func (o Outcome) IsErrorKind(k FailureKind) bool {
	kind, ok := o.ErrorKind()
	return ok && kind == k
}

// Reason returns the reason given for a skipped or denied outcome, and the
// failure message of an error outcome.
func (o Outcome) Reason() string {
	if o.kind == outcomeError {
		return o.failure.Message
	}
	return o.reason
}

// outcomeJSON is the wire form of an Outcome, used by the journal.
type outcomeJSON struct {
	Outcome string   `json:"outcome"`
	Failure *Failure `json:"failure,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

// MarshalJSON encodes the outcome as {"outcome": id, "failure"?, "reason"?}.
func (o Outcome) MarshalJSON() ([]byte, error) {
	return json.Marshal(outcomeJSON{Outcome: o.ID(), Failure: o.failure, Reason: o.reason})
}

// UnmarshalJSON decodes the form written by MarshalJSON.
func (o *Outcome) UnmarshalJSON(data []byte) error {
	var w outcomeJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	switch w.Outcome {
	case "success":
		*o = Succeeded()
	case "error":
		if w.Failure == nil {
			return fmt.Errorf("tool: error outcome without a failure")
		}
		*o = Failed(*w.Failure)
	case "skipped":
		*o = Skipped(w.Reason)
	case "denied":
		*o = Denied(w.Reason)
	default:
		return fmt.Errorf("tool: unknown outcome %q", w.Outcome)
	}
	return nil
}

// Return is what a tool's body hands back: its output and whether it
// succeeded, failed or refused. It has no skipped form; see Outcome.
type Return struct {
	// Output is what the model reads. A string is passed verbatim; any other
	// value is encoded as JSON.
	Output  any
	outcome Outcome
	// Source says where the output came from, for a tool that knows
	// better than its kind does (a web page's host, a file that was not in
	// the workspace when the session began); nil leaves it to the runtime.
	Source *Source
}

// From returns r with its output's source set to s.
func (r Return) From(s Source) Return {
	r.Source = &s
	return r
}

// Ok returns a successful result carrying output.
func Ok(output any) Return { return Return{Output: output} }

// Fail returns a failed result. The model reads output, the tool's own
// account of what went wrong; f classifies the failure for policies and logs.
// When output is nil the model reads the failure message.
func Fail(f Failure, output any) Return {
	if output == nil {
		output = f.Message
	}
	return Return{Output: output, outcome: Failed(f)}
}

// Deny returns the result of a call the tool refused after its own check; the
// model reads reason.
func Deny(reason string) Return {
	return Return{Output: reason, outcome: Denied(reason)}
}

// Outcome returns how the call ended: success, error or denied.
func (r Return) Outcome() Outcome { return r.outcome }
