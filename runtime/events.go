package runtime

import (
	"encoding/json"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Event is one thing the run did. The run publishes events in order to one
// Sink; the console, the headless JSON stream and the journal all consume
// the same events. Each event type's JSON form is part of the public event
// stream (see the README) and is produced by EncodeEvent.
type Event interface {
	// EventType returns the "type" of the event in the JSON stream.
	EventType() string
}

// Sink receives the run's events. The runtime calls it from several
// goroutines but never concurrently, in the order the events happened; a
// Sink that blocks holds the run back, which is what lets the journal sync
// an intent before the effect is performed.
type Sink func(Event)

// EncodeEvent returns the event as one JSON object with its "type" first.
func EncodeEvent(e Event) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	typ, _ := json.Marshal(e.EventType())
	out := make([]byte, 0, len(body)+len(typ)+10)
	out = append(out, `{"type":`...)
	out = append(out, typ...)
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// RunStarted opens a run: a goal, a clarification answer or a follow-up.
type RunStarted struct {
	Session string `json:"session"`
	Goal    string `json:"goal"`
	// Input is what the person typed to start this run; it equals Goal for
	// the first run of a session.
	Input string `json:"input"`
	Model string `json:"model"`
	Mode  string `json:"mode"`
	At    Time   `json:"at"`
}

// TurnStarted says the model is being asked for its next reply; it is the
// intent of the model request.
type TurnStarted struct {
	Turn int  `json:"turn"`
	At   Time `json:"at"`
}

// TextDelta is a piece of the model's reply text as it streams in.
type TextDelta struct {
	Turn int    `json:"turn"`
	Text string `json:"text"`
}

// PlannedCall is one call of a reply as the runtime planned it.
type PlannedCall struct {
	Index int             `json:"index"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Args  json.RawMessage `json:"args"`
	// Touches is nil for a call that failed validation.
	Touches *tool.Touches `json:"touches,omitempty"`
	// WaitsFor lists the earlier calls this one depends on.
	WaitsFor []int `json:"waits_for"`
	// Batch is the call's level in the dependency graph, from 1: calls of
	// one batch can run together.
	Batch int `json:"batch"`
}

// CutCall is the call a reply was cut off in the middle of.
type CutCall struct {
	Name string `json:"name"`
	Raw  string `json:"raw"`
}

// ReplyReceived carries a model reply and the plan for its calls.
type ReplyReceived struct {
	Turn  int           `json:"turn"`
	Text  string        `json:"text"`
	Calls []PlannedCall `json:"calls"`
	Cut   *CutCall      `json:"cut,omitempty"`
	Stop  string        `json:"stop"`
}

// InvalidReply says a reply had an invalid call, so none of its calls ran;
// Results are what the model reads, in call order (the cut call last).
type InvalidReply struct {
	Turn    int      `json:"turn"`
	Results []string `json:"results"`
}

// CallDecision is a hook's decision about a call: run, ask or skip, and what
// made it.
type CallDecision struct {
	Turn     int    `json:"turn"`
	Index    int    `json:"index"`
	Decision string `json:"decision"`
	By       string `json:"by"`
	Reason   string `json:"reason"`
}

// The decisions of a CallDecision.
const (
	DecisionRun  = "run"
	DecisionAsk  = "ask"
	DecisionSkip = "skip"
)

// CallStarted says a call's body is about to run; it is the intent of the
// call's effect.
type CallStarted struct {
	Turn    int    `json:"turn"`
	Index   int    `json:"index"`
	Name    string `json:"name"`
	Attempt int    `json:"attempt"`
	At      Time   `json:"at"`
}

// CallRetried says a failed attempt will be repeated after a backoff.
type CallRetried struct {
	Turn      int    `json:"turn"`
	Index     int    `json:"index"`
	Attempt   int    `json:"attempt"`
	Failure   string `json:"failure"`
	BackoffMS int64  `json:"backoff_ms"`
}

// CallFinished says how a call ended and what the model reads about it.
type CallFinished struct {
	Turn    int    `json:"turn"`
	Index   int    `json:"index"`
	Name    string `json:"name"`
	Outcome string `json:"outcome"`
	// Kind is the failure kind of an error outcome, else nil.
	Kind *string `json:"kind"`
	// Result is the exact text the model reads.
	Result string `json:"result"`
	// Started says whether the call's body began; false for skips and for
	// calls an early end caught before they started.
	Started bool `json:"started"`
	// NotFinished says the call was caught by an early end.
	NotFinished bool  `json:"not_finished,omitempty"`
	Attempts    int   `json:"attempts"`
	DurationMS  int64 `json:"duration_ms"`
	At          Time  `json:"at"`
	// Full is the complete outcome, for consumers such as the journal.
	Full tool.Outcome `json:"-"`
}

// TurnEnded closes a turn: the reply's calls have all settled.
type TurnEnded struct {
	Turn int `json:"turn"`
}

// UsageReported carries token counts after a model reply.
type UsageReported struct {
	Turn  int         `json:"turn"`
	Usage model.Usage `json:"usage"`
	// Total is the session's total so far.
	Total model.Usage `json:"total"`
}

// Notice is something the person should know that is not part of a call,
// such as a tool server that did not start.
type Notice struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

// RunFinished ends a run with its outcome; it is always the last event of a
// run.
type RunFinished struct {
	Outcome GoalOutcome `json:"outcome"`
}

// EventType implementations.

// EventType returns "run_started".
func (RunStarted) EventType() string { return "run_started" }

// EventType returns "turn_started".
func (TurnStarted) EventType() string { return "turn_started" }

// EventType returns "text_delta".
func (TextDelta) EventType() string { return "text_delta" }

// EventType returns "reply".
func (ReplyReceived) EventType() string { return "reply" }

// EventType returns "invalid_reply".
func (InvalidReply) EventType() string { return "invalid_reply" }

// EventType returns "call_decision".
func (CallDecision) EventType() string { return "call_decision" }

// EventType returns "call_started".
func (CallStarted) EventType() string { return "call_started" }

// EventType returns "call_retried".
func (CallRetried) EventType() string { return "call_retried" }

// EventType returns "call_finished".
func (CallFinished) EventType() string { return "call_finished" }

// EventType returns "turn_ended".
func (TurnEnded) EventType() string { return "turn_ended" }

// EventType returns "usage".
func (UsageReported) EventType() string { return "usage" }

// EventType returns "notice".
func (Notice) EventType() string { return "notice" }

// EventType returns "run_finished".
func (RunFinished) EventType() string { return "run_finished" }

// Time is a time.Time that encodes as RFC 3339 with nanoseconds in UTC.
type Time struct{ time.Time }

// MarshalJSON encodes the time as RFC 3339 with nanoseconds in UTC.
func (t Time) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.UTC().Format(time.RFC3339Nano))
}
