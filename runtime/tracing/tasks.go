package tracing

import (
	"encoding/json"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttui/agenttui/runtime"
)

// A task's run (a sub-agent's) reaches the Tracer as TaskEvents: its own
// events, each tagged with the task's path. Its spans are a run's spans,
// invoke_agent with chat and execute_tool under it, and its invoke_agent
// span is a child of the execute_tool span of the call that runs it, in
// the session's run or in an enclosing task's. Several tasks run side by
// side, so their events interleave; each task's open spans are kept apart,
// by its whole path.
//
// A task's run ends when its RunFinished says so, or else when the call
// that runs it ends, or the session's run: nothing of it is left open.

// unknownAgent names the agent of a task whose call's arguments are not
// known, as for a call carried on after a restart.
const unknownAgent = runtime.Task

// taskKey is the key of the task at path in Tracer.tasks.
func taskKey(path []string) string { return strings.Join(path, "/") }

// taskEvent makes or ends spans for one event of a task's run. An event of
// a task whose call is not known, such as one that began before the tracer
// was attached, or that comes after its run ended, is dropped.
func (t *Tracer) taskEvent(te runtime.TaskEvent) {
	e, path := te.Event, te.Task
	for {
		// The runtime folds a task inside a task into one path; an event
		// wrapped twice means the same.
		inner, ok := e.(runtime.TaskEvent)
		if !ok {
			break
		}
		path = append(slices.Clip(path), inner.Task...)
		e = inner.Event
	}
	if len(path) == 0 || e == nil {
		return
	}
	key := taskKey(path)
	if ev, ok := e.(runtime.RunStarted); ok {
		t.taskStarted(path, key, ev)
		return
	}
	if r := t.tasks[key]; r != nil {
		t.runEvent(r, e)
	}
}

// taskStarted starts the invoke_agent span of the task at path, under the
// execute_tool span of the call that runs it, making that span now if it
// was to be made when the call settled.
func (t *Tracer) taskStarted(path []string, key string, ev runtime.RunStarted) {
	pr, c := t.taskCall(path)
	if c == nil {
		return
	}
	start := at(ev.At)
	if old := c.task; old != nil {
		// The call's task started again (the call was retried) without
		// its last run saying it ended.
		t.endRun(old, start, "the run ended without saying so")
	}
	if old := t.tasks[key]; old != nil {
		t.endRun(old, start, "the run ended without saying so")
	}
	if c.span == nil {
		c.open(start)
		var links []trace.Link
		if c.started {
			links = pr.links(c)
		}
		t.makeSpan(pr, c, c.opened, t.startAttrs(c, 0), links)
	}
	agent, description := taskArgs(c.planned.Args)
	extra := []attribute.KeyValue{AttrTaskPath.StringSlice(path)}
	if t.opts.CaptureContent && description != "" {
		extra = append(extra, semconv.GenAIAgentDescription(t.content(description)))
	}
	r := t.startRun(c.ctx, ev, agent, extra)
	r.task, r.parent = key, c
	c.task = r
	t.tasks[key] = r
}

// taskCall returns the call that runs the task at path, and the run it is
// a call of: the session's own run for a path of one id, else the run of
// the enclosing task. It returns nil for a call that is not known or has
// ended.
func (t *Tracer) taskCall(path []string) (*runSpans, *callSpan) {
	r := t.run
	if len(path) > 1 {
		r = t.tasks[taskKey(path[:len(path)-1])]
	}
	if r == nil {
		return nil, nil
	}
	turn, index, ok := runtime.ParseTaskID(path[len(path)-1])
	if !ok {
		return nil, nil
	}
	c, ok := r.calls[index]
	if !ok || c.turn != turn || c.ended {
		return nil, nil
	}
	return r, c
}

// taskArgs reads the kind of agent and the description from a task call's
// arguments: the kind is runtime.DefaultTaskAgent when they name none, and
// unknownAgent when they are not known.
func taskArgs(raw json.RawMessage) (agent, description string) {
	if len(raw) == 0 {
		return unknownAgent, ""
	}
	var a struct {
		Agent       string `json:"agent"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return unknownAgent, ""
	}
	if a.Agent == "" {
		a.Agent = runtime.DefaultTaskAgent
	}
	return clipName(a.Agent), a.Description
}

// clipName bounds an agent's name, which names a span, to what a name
// needs: the runtime runs only agents it knows, whose names are short.
func clipName(s string) string {
	const maxName = 64
	if len(s) <= maxName {
		return s
	}
	return strings.ToValidUTF8(s[:maxName], "")
}
