package callview

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// Task is what the console knows of a task: the run of a sub-agent that a
// call named task started. The board draws the task call's row from it (its
// agent, what it is for, how far it has got, its outcome) and, under that
// row, one row for each of the task's calls that waits for the person.
//
// Like the rest of this package, a Task is changed only on the console's
// event loop (by the console's task registry); everything else reads it.
// Its strings are clean.
type Task struct {
	// Path is the task's path, as runtime.TaskEvent gives it; Label names
	// the task after the call that runs it: "task #2".
	Path  []string
	Label string
	// Agent, Description and Writes are what the task call asked for:
	// the kind of agent, a few words on what it is for, and the
	// workspace paths it may change (none for a task that only reads);
	// all empty for a task whose call the console has not seen.
	Agent, Description string
	Writes             []string
	// Reply is the reply of the task's agent whose calls its board shows,
	// nil before the first. Lone are replies made up of one call each,
	// for approval requests that reached the console before (or without)
	// the events of the call they are about, so that they are shown and
	// can be answered all the same.
	Reply *Reply
	Lone  []*Reply
	// Turn is the task's turn; Replying says its model is being asked for
	// a reply; Started says its run has begun.
	Turn     int
	Replying bool
	Started  bool
	// Outcome is how the task's run ended, once it has; raw, cleaned
	// where it is drawn.
	Outcome *runtime.GoalOutcome
}

// NewTask returns the task with path, named after its last id.
func NewTask(path []string) *Task {
	t := &Task{Path: slices.Clone(path)}
	id := ""
	if len(path) > 0 {
		id = path[len(path)-1]
	}
	if _, index, ok := runtime.ParseTaskID(id); ok {
		t.Label = fmt.Sprintf("task #%d", index+1)
	} else {
		t.Label = "task " + text.CleanLine(id)
	}
	return t
}

// SetArgs takes the agent, description and writes from the task call's
// arguments; arguments that do not read as a task's change nothing.
func (t *Task) SetArgs(raw json.RawMessage) {
	var a struct {
		Description string   `json:"description"`
		Agent       string   `json:"agent"`
		Writes      []string `json:"writes"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return
	}
	t.Agent = text.Preview(a.Agent)
	if t.Agent == "" {
		t.Agent = runtime.DefaultTaskAgent
	}
	t.Description = text.Preview(a.Description)
	t.Writes = t.Writes[:0]
	for _, w := range a.Writes {
		if w = text.Preview(w); w != "" {
			t.Writes = append(t.Writes, w)
		}
	}
}

// Name names the task with its agent, when it is known: "task #2
// explore".
func (t *Task) Name() string {
	if t.Agent == "" {
		return t.Label
	}
	return t.Label + " " + t.Agent
}

// Words say what the task is: "explore · Survey the docs · writes docs/api".
func (t *Task) Words() string {
	s := t.Agent
	if t.Description != "" {
		if s != "" {
			s += " · "
		}
		s += t.Description
	}
	if len(t.Writes) > 0 {
		s += " · writes " + strings.Join(t.Writes, ", ")
	}
	return s
}

// Counts returns how many calls of the task's reply run, wait and need
// approval, as Reply.Counts does.
func (t *Task) Counts() (running, waiting, asking int) { return t.Reply.Counts() }

// Asking returns how many calls of the task itself need the person: those
// of its reply, and the lone requests still open. Tasks inside it count on
// their own.
func (t *Task) Asking() int {
	_, _, asking := t.Counts()
	for _, r := range t.Lone {
		asking += len(r.Pending(0))
	}
	return asking
}

// Progress says how far the task has got, for its row: "turn 3 · 2
// running · 1 waiting for you"; what it waits for is counted through the
// tasks inside it too.
func (t *Task) Progress() string {
	if t.Outcome != nil {
		s, _ := t.OutcomeText()
		return s
	}
	if !t.Started && t.Reply == nil {
		return "starting"
	}
	var parts []string
	if t.Turn > 0 {
		parts = append(parts, fmt.Sprintf("turn %d", t.Turn))
	}
	running, waiting, _ := t.Counts()
	if t.Replying {
		parts = append(parts, "model replying")
	}
	if running > 0 {
		parts = append(parts, fmt.Sprintf("%d running", running))
	}
	if waiting > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", waiting))
	}
	asking := len(t.Asks())
	if _, _, a := t.Counts(); a > asking {
		asking = a
	}
	if asking > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting for you", asking))
	}
	if len(parts) == 0 {
		return "started"
	}
	return strings.Join(parts, " · ")
}

// OutcomeText says how the task's run ended, and the tone to draw it in;
// empty before it has.
func (t *Task) OutcomeText() (string, text.Tone) {
	o := t.Outcome
	switch {
	case o == nil:
		return "", text.ToneDim
	case o.Status == runtime.StatusSucceeded:
		return text.SymOK + " succeeded: " + text.Preview(o.Summary), text.ToneOK
	case o.Status == runtime.StatusRefused:
		return text.SymAsk + " asks: " + text.Preview(o.Summary), text.ToneWarn
	}
	s := text.SymErr + " failed"
	if o.FailingStep != "" {
		s += " at " + text.Preview(o.FailingStep)
	}
	return s, text.ToneErr
}

// Ask is a call of a task that waits for the person, where the board shows
// it: the task whose agent made the call, and the reply the call is in.
type Ask struct {
	Task  *Task
	Reply *Reply
	Call  *Call
}

// Asks returns the task's calls that wait for the person, in display
// order, each followed by those of the tasks its calls run.
func (t *Task) Asks() []Ask {
	var out []Ask
	t.asks(&out, 0)
	return out
}

// maxTaskDepth bounds how deep Asks looks into tasks inside tasks, so a
// malformed path can never make it loop.
const maxTaskDepth = 16

func (t *Task) asks(out *[]Ask, depth int) {
	if t == nil || depth > maxTaskDepth {
		return
	}
	each := func(r *Reply) {
		if r == nil {
			return
		}
		for _, i := range r.Order {
			c := r.Calls[i]
			if c.Req != nil {
				*out = append(*out, Ask{Task: t, Reply: r, Call: c})
			}
			if c.Task != nil && c.Task != t {
				c.Task.asks(out, depth+1)
			}
		}
	}
	each(t.Reply)
	for _, r := range t.Lone {
		each(r)
	}
}

// LoneReply returns a reply made of the one call req asks about, built from
// the request alone, with req attached.
func LoneReply(req Request) *Reply {
	q := req.Req
	args := q.Args
	if len(args) == 0 {
		args = json.RawMessage(q.Call.Arguments)
	}
	touches := q.Touches
	c := &Call{
		Turn: q.Turn, Index: q.Index, Name: text.CleanLine(q.Call.Name), Args: args, Short: text.ShortArgs(args),
		Touches: &touches, Sandbox: q.Sandbox, WaitsFor: slices.Clone(q.WaitsFor), Batch: 1,
	}
	r := &Reply{Turn: q.Turn, Calls: []*Call{c}, Order: []int{0}}
	r.Attach(req)
	return r
}

// Title names a call on one line: "#1 edit_file", or for a call a task's
// agent made, "task #2 explore · #1 edit_file".
func (c *Call) Title() string {
	s := fmt.Sprintf("#%d %s", c.Index+1, c.Name)
	if c.In != nil {
		s = c.In.Name() + " · " + s
	}
	return s
}
