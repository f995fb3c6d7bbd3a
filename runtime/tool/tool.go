package tool

import (
	"context"
	"encoding/json"
	"time"
)

// Annotations describe a tool's behaviour. Whether they can be trusted depends
// on where they come from; see Declaration.Untrusted.
type Annotations struct {
	// Title is a human-readable name for the tool.
	Title string `json:"title,omitempty"`
	// ReadOnly says the tool changes nothing.
	ReadOnly bool `json:"read_only,omitempty"`
	// Destructive says the tool may destroy data; meaningful only when it is
	// not read-only.
	Destructive bool `json:"destructive,omitempty"`
	// Idempotent says calling the tool twice with the same arguments has the
	// same effect as calling it once.
	Idempotent bool `json:"idempotent,omitempty"`
	// OpenWorld says the tool talks to things outside the workspace.
	OpenWorld bool `json:"open_world,omitempty"`
	// Delegates says the tool hands work to another agent, whose own calls
	// are each reviewed as the caller's are; the task tool does.
	Delegates bool `json:"delegates,omitempty"`
}

// RetryPolicy says how often and how far apart a failed call may be repeated.
// The runtime repeats a call only when its failure is retryable and the call
// is ReadsOnly or its tool is idempotent by its own local declaration.
type RetryPolicy struct {
	// Attempts is the total number of attempts, the first included; values
	// below 2 mean no retry.
	Attempts int
	// InitialBackoff is the wait before the second attempt.
	InitialBackoff time.Duration
	// MaxBackoff caps the wait between attempts.
	MaxBackoff time.Duration
	// Multiplier grows the wait after each attempt; values below 1 mean 2.
	Multiplier float64
}

// Backoff returns the wait before attempt n, counting the first attempt as 1,
// so Backoff(2) is the wait after the first failure.
func (p RetryPolicy) Backoff(n int) time.Duration {
	m := p.Multiplier
	if m < 1 {
		m = 2
	}
	d := float64(p.InitialBackoff)
	limit := float64(p.MaxBackoff)
	for i := 2; i < n && (limit == 0 || d < limit); i++ {
		d *= m
	}
	if limit > 0 && d > limit {
		d = limit
	}
	return time.Duration(d)
}

// Declaration is what a tool tells the model and the runtime about itself.
type Declaration struct {
	// Name is the exact name the model calls; MCP tools are <server>__<tool>.
	Name string
	// Description is shown to the model.
	Description string
	// Parameters is the JSON Schema of the arguments, which must be an object.
	Parameters json.RawMessage
	// Annotations describe the tool's behaviour.
	Annotations Annotations
	// Untrusted says the annotations came from outside this process (an MCP
	// server) and are hints only: they set the footprint through FromHints and
	// never enable retries.
	Untrusted bool
	// Source is where the tool comes from, such as tool://server/name for an
	// MCP tool; empty for built-in tools.
	Source string
	// Retry is the tool's retry policy; nil means no retries.
	Retry *RetryPolicy
	// More says how to get the rest of a result too long for the model to
	// read whole, which the runtime cuts to its start and end: "read the
	// rest with read_file's offset". Empty says nothing more.
	More string
}

// DefaultTouches returns the footprint a call gets when its tool does not
// compute one from the arguments: FromHints for untrusted annotations, else
// FromAnnotations.
func (d Declaration) DefaultTouches() Touches {
	if d.Untrusted {
		return FromHints(d.Annotations)
	}
	return FromAnnotations(d.Annotations)
}

// Idempotent reports whether the tool's own code declares it idempotent;
// hints from elsewhere never count.
func (d Declaration) Idempotent() bool { return d.Annotations.Idempotent && !d.Untrusted }

// Tool is something the model can call.
type Tool interface {
	// Declaration describes the tool. It is read once, when the catalogue is
	// built.
	Declaration() Declaration
	// Call runs the tool with arguments that have already been checked
	// against the schema. It must return when ctx is done.
	Call(ctx context.Context, args json.RawMessage) Return
}

// Footprinter is implemented by tools that compute a precise footprint for
// each call from its arguments, such as read_file{path} → Reads(/ws/path).
// Precise footprints are what let calls run side by side.
type Footprinter interface {
	// Footprint returns what a call with args touches. An error means the
	// arguments cannot be footprinted; the call then touches Writes(Anything).
	Footprint(args json.RawMessage) (Touches, error)
}

// Call is one call as the model sent it.
type Call struct {
	// ID is the provider's identifier for the call, echoed in its result.
	ID string `json:"id"`
	// Name is the tool the model named.
	Name string `json:"name"`
	// Arguments is the exact argument text the model sent, which may not be
	// valid JSON.
	Arguments string `json:"arguments"`
}

// Result is what the model reads about one call.
type Result struct {
	// CallID is the ID of the call this result answers.
	CallID string `json:"call_id"`
	// Name is the tool the call named.
	Name string `json:"name"`
	// Content is the exact text the model reads.
	Content string `json:"content"`
	// IsError marks the result as an error result for the provider.
	IsError bool `json:"is_error,omitempty"`
}

// Wrapper is implemented by a tool that wraps another to change how its
// calls run (pace them, trace them, bound their output) while keeping what
// the wrapped tool says about them: the runtime looks for the optional
// interfaces (Footprinter, Previewer, Reviser) on the wrapped tool when the
// wrapper does not implement them itself. A wrapper need then implement
// only Declaration, Call and Unwrap, whatever the tool it wraps offers.
type Wrapper interface {
	Unwrap() Tool
}

// As returns the first tool in t's chain of wrapped tools (t, then what
// Unwrap returns, and so on) that implements T.
func As[T any](t Tool) (T, bool) {
	for t != nil {
		if v, ok := t.(T); ok {
			return v, true
		}
		w, ok := t.(Wrapper)
		if !ok {
			break
		}
		t = w.Unwrap()
	}
	var zero T
	return zero, false
}
