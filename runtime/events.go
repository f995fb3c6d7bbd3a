package runtime

import (
	"encoding/json"
	"fmt"
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
	// Resumed says the run carries on a session that stopped, rather than
	// starting from new input.
	Resumed bool `json:"resumed,omitempty"`
	// Note is what agenttui told the model with the input, before it,
	// about a change the person made with an undo or a rewind.
	Note string `json:"note,omitempty"`
	// Blocked names the UserPromptSubmit hook that blocked the input, so
	// the model never saw it and the run ends at once; empty otherwise.
	Blocked string `json:"blocked,omitempty"`
	At      Time   `json:"at"`
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

// ThinkingDelta is a piece of the readable text of the model's reasoning as
// it streams in, before or between the pieces of its reply.
type ThinkingDelta struct {
	Turn int    `json:"turn"`
	Text string `json:"text"`
}

// PlannedCall is one call of a reply as the runtime planned it.
type PlannedCall struct {
	Index int             `json:"index"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Args  json.RawMessage `json:"args"`
	// Raw is the exact argument text the model sent, given when Args does
	// not read back as that text: arguments that are not a JSON object,
	// spacing or escapes that JSON re-encoding changes, or arguments a
	// hook rewrote. A resumed session sends the model this text.
	Raw string `json:"raw,omitempty"`
	// Touches is nil for a call that failed validation.
	Touches *tool.Touches `json:"touches,omitempty"`
	// Sandbox says how the call runs when its tool can confine it (a
	// shell command in or out of the sandbox); nil otherwise.
	Sandbox *tool.Sandbox `json:"sandbox,omitempty"`
	// WaitsFor lists the earlier calls this one depends on.
	WaitsFor []int `json:"waits_for"`
	// Batch is the call's level in the dependency graph, from 1: calls of
	// one batch can run together.
	Batch int `json:"batch"`
	// Provenance lists the parts of the call's arguments that came from
	// untrusted results earlier in the session; absent when none did.
	Provenance []tool.Origin `json:"provenance,omitempty"`
	// RewrittenBy names the hook that rewrote the call's arguments ("hook:"
	// and its command): Args are its rewrite, and Raw what the model sent.
	// RewrittenByWorkspace says the hook is one of the workspace's own,
	// not the person's.
	RewrittenBy          string `json:"rewritten_by,omitempty"`
	RewrittenByWorkspace bool   `json:"rewritten_by_workspace,omitempty"`
}

// CutCall is the call a reply was cut off in the middle of.
type CutCall struct {
	ID   string `json:"id,omitempty"`
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
	// Reasoning is what the model reasoned while it wrote the reply,
	// payloads included, so that a resumed session sends them back
	// exactly as they came.
	Reasoning []model.Reasoning `json:"reasoning,omitempty"`
	// Model names the model that wrote the reply.
	Model string `json:"model,omitempty"`
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
	// Digest is, for a person's approval, the digest of the preview the
	// person saw; the call runs only if its preview still has it when it
	// starts. Empty for decisions that showed nothing (modes, rules,
	// grants) and for calls without a preview.
	Digest string `json:"digest,omitempty"`
	// Edited says the person changed the call's proposed file content
	// before approving it.
	Edited bool `json:"edited,omitempty"`
	// Provenance lists the parts of the call's arguments that came from
	// untrusted results earlier in the session, which the decision took
	// into account; absent when none did.
	Provenance []tool.Origin `json:"provenance,omitempty"`
	// At is when the decision was made; from an ask to the answer is how
	// long the call waited for someone.
	At Time `json:"at"`
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
	// Key identifies the effect: a hash of the session, the call's position,
	// its tool and its canonical arguments.
	Key string `json:"key"`
	At  Time   `json:"at"`
}

// CallRetried says a failed attempt will be repeated after a backoff.
type CallRetried struct {
	Turn    int `json:"turn"`
	Index   int `json:"index"`
	Attempt int `json:"attempt"`
	// MaxAttempts is how many attempts the tool's retry policy allows in
	// all, so a person can see how many are left.
	MaxAttempts int    `json:"max_attempts"`
	Failure     string `json:"failure"`
	BackoffMS   int64  `json:"backoff_ms"`
	At          Time   `json:"at"`
}

// CallFinished says how a call ended and what the model reads about it.
type CallFinished struct {
	Turn  int    `json:"turn"`
	Index int    `json:"index"`
	Name  string `json:"name"`
	// Key identifies the effect, as in CallStarted.
	Key     string `json:"key"`
	Outcome string `json:"outcome"`
	// Kind is the failure kind of an error outcome, else nil.
	Kind *string `json:"kind"`
	// Code is the failure's machine-readable code, for an error outcome
	// whose tool gave one: how a shell command ended ("exit:3",
	// "signal:SIGKILL", "timeout:120s").
	Code string `json:"code,omitempty"`
	// Result is the exact text the model reads.
	Result string `json:"result"`
	// Started says whether the call's body began; false for skips and for
	// calls an early end caught before they started.
	Started bool `json:"started"`
	// NotFinished says the call was caught by an early end.
	NotFinished bool `json:"not_finished,omitempty"`
	// Why says, for a call caught by an early end, what ended it early: a
	// stop (with its reason), a restart, or a session record that failed.
	Why        string `json:"why,omitempty"`
	Attempts   int    `json:"attempts"`
	DurationMS int64  `json:"duration_ms"`
	// Diffstat counts the lines a successful file change added and
	// removed; nil for calls that change no file.
	Diffstat *Diffstat `json:"diffstat,omitempty"`
	// Whole is the size in bytes of the call's output when the model read
	// it cut to its start and end (see Agent.MaxResultBytes), or a summary
	// of it (a binary output); zero when it read it whole.
	Whole int `json:"whole,omitempty"`
	// Source is where the call's result came from (a web page's host, an
	// MCP tool, a workspace file), which says how far it is trusted when
	// a later call's arguments come from it; absent for a call whose
	// result is agenttui's own text.
	Source *tool.Source `json:"source,omitempty"`
	At     Time         `json:"at"`
	// Full is the complete outcome, for consumers in this process. It is not
	// part of the JSON form; DecodeEvent rebuilds it from Outcome, Kind and
	// Result.
	Full tool.Outcome `json:"-"`
}

// TurnEnded closes a turn: the reply's calls have all settled.
type TurnEnded struct {
	Turn int `json:"turn"`
}

// UsageReported carries token counts after a model reply, and their cost
// when the model's price is known.
type UsageReported struct {
	Turn int `json:"turn"`
	// Model names the model whose reply the usage is.
	Model string      `json:"model,omitempty"`
	Usage model.Usage `json:"usage"`
	// Total is the session's total so far.
	Total model.Usage `json:"total"`
	// Context is how much of the context window the conversation takes
	// after this reply; nil when the window is not known.
	Context *ContextUse `json:"context,omitempty"`
	// At is when the reply arrived: the end of the model request.
	At Time `json:"at"`
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
	// Usage is the session's tokens and cost so far, summaries
	// included.
	Usage *model.Usage `json:"usage,omitempty"`
	At    Time         `json:"at"`
}

// EventType implementations.

// EventType returns "run_started".
func (RunStarted) EventType() string { return "run_started" }

// EventType returns "turn_started".
func (TurnStarted) EventType() string { return "turn_started" }

// EventType returns "text_delta".
func (TextDelta) EventType() string { return "text_delta" }

// EventType returns "thinking_delta".
func (ThinkingDelta) EventType() string { return "thinking_delta" }

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

// DecodeEvent parses one event written by EncodeEvent, such as a line of the
// journal or of the headless JSON stream.
func DecodeEvent(line []byte) (Event, error) {
	var head struct {
		Type string   `json:"type"`
		Task []string `json:"task"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, err
	}
	if head.Task != nil {
		if len(head.Task) == 0 {
			return nil, fmt.Errorf("%q event: its task path is empty", head.Type)
		}
		e, err := decodeUntagged(head.Type, line)
		if err != nil {
			return nil, err
		}
		return TaskEvent{Task: head.Task, Event: e}, nil
	}
	return decodeUntagged(head.Type, line)
}

// decodeUntagged parses an event of the given type, ignoring any task path.
func decodeUntagged(typ string, line []byte) (Event, error) {
	head := struct{ Type string }{typ}
	var e Event
	var err error
	switch head.Type {
	case "run_started":
		e, err = decodeAs[RunStarted](line)
	case "turn_started":
		e, err = decodeAs[TurnStarted](line)
	case "text_delta":
		e, err = decodeAs[TextDelta](line)
	case "thinking_delta":
		e, err = decodeAs[ThinkingDelta](line)
	case "reply":
		e, err = decodeAs[ReplyReceived](line)
	case "invalid_reply":
		e, err = decodeAs[InvalidReply](line)
	case "call_decision":
		e, err = decodeAs[CallDecision](line)
	case "call_started":
		e, err = decodeAs[CallStarted](line)
	case "call_retried":
		e, err = decodeAs[CallRetried](line)
	case "call_finished":
		var f CallFinished
		if f, err = decodeAs[CallFinished](line); err == nil {
			f.Full, err = rebuildOutcome(f)
		}
		e = f
	case "turn_ended":
		e, err = decodeAs[TurnEnded](line)
	case "compaction_started":
		e, err = decodeAs[CompactionStarted](line)
	case "compacted":
		e, err = decodeAs[Compacted](line)
	case "compaction_failed":
		e, err = decodeAs[CompactionFailed](line)
	case "call_preview":
		e, err = decodeAs[CallPreviewed](line)
	case "preview_stale":
		e, err = decodeAs[PreviewStale](line)
	case "usage":
		e, err = decodeAs[UsageReported](line)
	case "notice":
		e, err = decodeAs[Notice](line)
	case "run_finished":
		e, err = decodeAs[RunFinished](line)
	case "model_retry":
		e, err = decodeAs[ModelRetry](line)
	case "checkpoint":
		e, err = decodeAs[CheckpointTaken](line)
	case "checkpoint_changes":
		e, err = decodeAs[CheckpointChanges](line)
	case "restore_started":
		e, err = decodeAs[RestoreStarted](line)
	case "restore_finished":
		e, err = decodeAs[RestoreFinished](line)
	case "hooks_running":
		e, err = decodeAs[HooksRunning](line)
	case "hook":
		e, err = decodeAs[HookRan](line)
	case "run_continued":
		e, err = decodeAs[RunContinued](line)
	default:
		return nil, fmt.Errorf("unknown event type %q", head.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s event: %w", head.Type, err)
	}
	return e, nil
}

func decodeAs[T Event](line []byte) (T, error) {
	var v T
	err := json.Unmarshal(line, &v)
	return v, err
}

// rebuildOutcome restores a call's outcome from its JSON form; the failure
// message and reasons become the text the model read.
func rebuildOutcome(f CallFinished) (tool.Outcome, error) {
	switch f.Outcome {
	case "success":
		return tool.Succeeded(), nil
	case "skipped":
		return tool.Skipped(f.Result), nil
	case "denied":
		return tool.Denied(f.Result), nil
	case "error":
		kind := tool.KindOther
		if f.Kind != nil {
			k, err := tool.ParseFailureKind(*f.Kind)
			if err != nil {
				return tool.Outcome{}, err
			}
			kind = k
		}
		return tool.Failed(tool.Failure{Kind: kind, Message: f.Result, Code: f.Code}), nil
	default:
		return tool.Outcome{}, fmt.Errorf("unknown outcome %q", f.Outcome)
	}
}

// UnmarshalJSON decodes a time written by MarshalJSON.
func (t *Time) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = parsed
	return nil
}

// ModelRetry says an attempt at a model request failed in a way that may
// pass, and the request is made again after a wait. The text the failed
// attempt streamed (its turn's text deltas since the turn started or since
// the last ModelRetry) is void: the model's history holds only the attempt
// that succeeds. The journal keeps it as the record of the failed attempt;
// resuming a session ignores it.
type ModelRetry struct {
	Turn int `json:"turn"`
	// Attempt is the attempt about to be made: 2 after the first failed.
	Attempt int `json:"attempt"`
	// Max is how many attempts the request may get in all.
	Max int `json:"max"`
	// Why says in a few words what went wrong, such as "the connection
	// dropped".
	Why string `json:"why"`
	// Error is the failed attempt's whole error message.
	Error string `json:"error"`
	// WaitMS is how long until the next attempt, in milliseconds.
	WaitMS int64 `json:"wait_ms"`
	At     Time  `json:"at"`
}

// EventType returns "model_retry".
func (ModelRetry) EventType() string { return "model_retry" }
