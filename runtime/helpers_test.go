package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// fakeTool is a test tool whose footprint and body are functions.
type fakeTool struct {
	decl tool.Declaration
	foot func(args map[string]any) tool.Touches
	body func(ctx context.Context, args map[string]any) tool.Return

	mu    sync.Mutex // guards calls
	calls int
}

func (f *fakeTool) Declaration() tool.Declaration { return f.decl }

func (f *fakeTool) Footprint(raw json.RawMessage) (tool.Touches, error) {
	if f.foot == nil {
		return f.decl.DefaultTouches(), nil
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return tool.Touches{}, err
	}
	return f.foot(args), nil
}

func (f *fakeTool) Call(ctx context.Context, raw json.RawMessage) tool.Return {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	return f.body(ctx, args)
}

func (f *fakeTool) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

const pathSchema = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`

// pathTool returns a tool over /w/<path> whose body is given.
func pathTool(name string, write bool, body func(ctx context.Context, args map[string]any) tool.Return) *fakeTool {
	return &fakeTool{
		decl: tool.Declaration{Name: name, Parameters: json.RawMessage(pathSchema), Annotations: tool.Annotations{ReadOnly: !write}},
		foot: func(args map[string]any) tool.Touches {
			p, _ := args["path"].(string)
			s := tool.Paths(path.Join("/w", p))
			if write {
				return tool.Writes(s)
			}
			return tool.Reads(s)
		},
		body: body,
	}
}

func okBody(text string) func(context.Context, map[string]any) tool.Return {
	return func(context.Context, map[string]any) tool.Return { return tool.Ok(text) }
}

// gate lets a test hold a call inside its body until released, and learn
// when it has entered.
type gate struct {
	entered chan string
	release map[string]chan struct{}
}

func newGate(keys ...string) *gate {
	g := &gate{entered: make(chan string, 64), release: map[string]chan struct{}{}}
	for _, k := range keys {
		g.release[k] = make(chan struct{})
	}
	return g
}

// body blocks on the release channel of the key named by the call's path.
func (g *gate) body(prefix string) func(ctx context.Context, args map[string]any) tool.Return {
	return func(ctx context.Context, args map[string]any) tool.Return {
		key := prefix + args["path"].(string)
		g.entered <- key
		ch, ok := g.release[key]
		if ok {
			select {
			case <-ch:
			case <-ctx.Done():
				return tool.Fail(tool.Cancelled("stopped"), "stopped")
			}
		}
		return tool.Ok("done " + key)
	}
}

func (g *gate) open(key string) { close(g.release[key]) }

// awaitEntered waits until the named calls have entered their bodies, in any
// order, and returns them.
func (g *gate) awaitEntered(t *testing.T, n int) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case k := <-g.entered:
			got[k] = true
		case <-timeout:
			t.Fatalf("only %v entered their bodies; wanted %d calls running at once", got, n)
		}
	}
	return got
}

// recorder collects events and lets a test wait for one.
type recorder struct {
	mu     sync.Mutex // guards events
	events []Event
	notify chan struct{}
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1)} }

func (r *recorder) sink(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *recorder) snapshot() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// await waits until an event satisfies match.
func (r *recorder) await(t *testing.T, what string, match func(Event) bool) Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		for _, e := range r.snapshot() {
			if match(e) {
				return e
			}
		}
		select {
		case <-r.notify:
		case <-timeout:
			t.Fatalf("timed out waiting for %s; events: %s", what, describe(r.snapshot()))
		}
	}
}

func describe(events []Event) string {
	s := ""
	for _, e := range events {
		b, _ := EncodeEvent(e)
		s += "\n  " + string(b)
	}
	return s
}

func finishedOf(events []Event, index int) (CallFinished, bool) {
	for _, e := range events {
		if f, ok := e.(CallFinished); ok && f.Index == index {
			return f, true
		}
	}
	return CallFinished{}, false
}

func startedOf(events []Event, index int) bool {
	for _, e := range events {
		if s, ok := e.(CallStarted); ok && s.Index == index {
			return true
		}
	}
	return false
}

// script builds a scripted model from steps.
func script(t *testing.T, steps ...model.Step) model.Model {
	t.Helper()
	return model.NewScripted("test", &model.Scenario{Name: "test", Steps: steps}).WithoutDelays()
}

func call(name, args string) model.ScriptedCall {
	return model.ScriptedCall{Name: name, Args: json.RawMessage(args)}
}

func rawCall(name, raw string) model.ScriptedCall {
	return model.ScriptedCall{Name: name, RawArgs: &raw}
}

func finishStep(summary string) model.Step {
	return model.Step{Calls: []model.ScriptedCall{call("finish", fmt.Sprintf(`{"summary":%q}`, summary))}}
}

func newAgent(t *testing.T, m model.Model, rec *recorder, tools ...tool.Tool) *Agent {
	t.Helper()
	cat, err := NewCatalog(tools...)
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{Model: m, Catalog: cat}
	if rec != nil {
		a.Sink = rec.sink
	}
	return a
}

// runAsync starts a run and returns a channel with its outcome.
func runAsync(ctx context.Context, a *Agent, s *Session, goal string) <-chan GoalOutcome {
	ch := make(chan GoalOutcome, 1)
	go func() { ch <- a.Run(ctx, s, goal) }()
	return ch
}

func awaitOutcome(t *testing.T, ch <-chan GoalOutcome) GoalOutcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
		return GoalOutcome{}
	}
}

// resultsOf returns the results the model read for the reply of a turn.
func resultsOf(t *testing.T, s *Session, turn int) []tool.Result {
	t.Helper()
	n := 0
	for i, m := range s.Messages {
		if m.Role == model.RoleAssistant {
			n++
			if n == turn {
				if i+1 >= len(s.Messages) || s.Messages[i+1].Role != model.RoleTool {
					t.Fatalf("turn %d has no results", turn)
				}
				return s.Messages[i+1].Results
			}
		}
	}
	t.Fatalf("no turn %d", turn)
	return nil
}

// fixedClock always tells the same time and never makes anyone wait.
type fixedClock struct {
	mu     sync.Mutex // guards waits
	now    time.Time
	waits  []time.Duration
	closed chan time.Time
}

func newFixedClock() *fixedClock {
	c := &fixedClock{now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), closed: make(chan time.Time)}
	close(c.closed)
	return c
}

func (c *fixedClock) Now() time.Time { return c.now }

func (c *fixedClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return c.closed
}
