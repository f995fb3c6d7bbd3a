package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// TaskEvent is an event of a sub-agent's run, tagged with the task that runs
// it. The sub-agent publishes its events (run started, replies, decisions,
// calls, run finished) on the parent's Sink, each wrapped in a TaskEvent, so
// the console, the headless stream, the journal and traces see them in order
// with the parent's own and can tell them apart.
//
// Its JSON form is the wrapped event's with one more field, "task", right
// after "type": `{"type":"call_started","task":["2.1"],"turn":1,…}`.
type TaskEvent struct {
	// Task is the path of task ids from the outermost task in: a task
	// started by a call of the session's own run has a path of one id, a
	// task started inside that task two, and so on. An id is TaskID of the
	// call that runs the task.
	Task []string
	// Event is the sub-agent's event.
	Event Event
}

// EventType returns the wrapped event's type.
func (e TaskEvent) EventType() string { return e.Event.EventType() }

// MarshalJSON encodes the wrapped event with the task path added.
func (e TaskEvent) MarshalJSON() ([]byte, error) {
	body, err := json.Marshal(e.Event)
	if err != nil {
		return nil, err
	}
	path, err := json.Marshal(e.Task)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("task event: %s does not encode as an object", e.Event.EventType())
	}
	out := make([]byte, 0, len(body)+len(path)+10)
	out = append(out, `{"task":`...)
	out = append(out, path...)
	if rest := bytes.TrimSpace(body[1:]); len(rest) > 1 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

// TaskID names the task that call index (from 0) of the given turn runs:
// "<turn>.<index>", as in the event stream's "turn" and "index".
func TaskID(turn, index int) string { return fmt.Sprintf("%d.%d", turn, index) }

// ParseTaskID reads a task id back into its turn and call index.
func ParseTaskID(id string) (turn, index int, ok bool) {
	if _, err := fmt.Sscanf(id, "%d.%d", &turn, &index); err != nil || TaskID(turn, index) != id {
		return 0, 0, false
	}
	return turn, index, true
}

// Tag wraps e as an event of the task id: an event already tagged (a task
// inside that task) gets id in front of its path.
func Tag(id string, e Event) TaskEvent {
	if t, ok := e.(TaskEvent); ok {
		return TaskEvent{Task: append([]string{id}, t.Task...), Event: t.Event}
	}
	return TaskEvent{Task: []string{id}, Event: e}
}

// Untag returns the event inside any task tags, and the task path (nil for
// an event of the session's own run).
func Untag(e Event) (Event, []string) {
	if t, ok := e.(TaskEvent); ok {
		return t.Event, slices.Clone(t.Task)
	}
	return e, nil
}
