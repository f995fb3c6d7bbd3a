package tracing_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/tracing"
)

// stepClock is a runtime.Clock whose every reading is a millisecond after
// the last, so events are strictly ordered in time and a test can move time
// on (advance) as a person taking a while would.
type stepClock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func newStepClock() *stepClock {
	return &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *stepClock) Now() time.Time { return c.advance(time.Millisecond) }

func (c *stepClock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// After fires at once, having moved the clock on by d.
func (c *stepClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.advance(d)
	return ch
}

// pathTool is a tool over a workspace at /w that takes {"path": …} and
// reads or writes that path, doing nothing else.
type pathTool struct {
	name   string
	writes bool
}

func (p pathTool) Declaration() tool.Declaration {
	return tool.Declaration{Name: p.name, Description: p.name + " a path", Parameters: json.RawMessage(
		`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}
}

func (p pathTool) Footprint(args json.RawMessage) (tool.Touches, error) {
	var a struct{ Path string }
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Touches{}, err
	}
	s := tool.Paths("/w/" + a.Path)
	if p.writes {
		return tool.Writes(s), nil
	}
	return tool.Reads(s), nil
}

func (p pathTool) Call(context.Context, json.RawMessage) tool.Return { return tool.Ok("done") }

// recorder returns a tracer provider that keeps every ended span, with the
// session trace ids of IDs.
func recorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr), sdktrace.WithIDGenerator(tracing.IDs{}))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, sr
}

// spans indexes recorded spans for assertions.
type spans []sdktrace.ReadOnlySpan

// named returns the spans whose name is name, in the order they ended.
func (s spans) named(name string) spans {
	var out spans
	for _, sp := range s {
		if sp.Name() == name {
			out = append(out, sp)
		}
	}
	return out
}

// prefixed returns the spans whose name starts with prefix.
func (s spans) prefixed(prefix string) spans {
	var out spans
	for _, sp := range s {
		if strings.HasPrefix(sp.Name(), prefix) {
			out = append(out, sp)
		}
	}
	return out
}

// call returns the execute_tool span of call index of turn.
func (s spans) call(t *testing.T, turn, index int) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, sp := range s.prefixed(tracing.SpanExecutePrefix) {
		if attr(sp, tracing.AttrTurn).AsInt64() == int64(turn) && attr(sp, tracing.AttrCallIndex).AsInt64() == int64(index) {
			return sp
		}
	}
	t.Fatalf("no execute_tool span for call %d of turn %d", index, turn)
	return nil
}

// childrenOf returns the spans whose parent is p.
func (s spans) childrenOf(p sdktrace.ReadOnlySpan) spans {
	var out spans
	for _, sp := range s {
		if sp.Parent().SpanID() == p.SpanContext().SpanID() {
			out = append(out, sp)
		}
	}
	return out
}

// attr returns the value of key on sp, or an invalid value.
func attr(sp sdktrace.ReadOnlySpan, key attribute.Key) attribute.Value {
	for _, kv := range sp.Attributes() {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// has reports whether sp has the attribute key.
func has(sp sdktrace.ReadOnlySpan, key attribute.Key) bool {
	return attr(sp, key).Type() != attribute.INVALID
}

// overlap reports whether a and b were open at a common moment.
func overlap(a, b sdktrace.ReadOnlySpan) bool {
	return a.StartTime().Before(b.EndTime()) && b.StartTime().Before(a.EndTime())
}
