package tracing

import (
	"context"
	"encoding/binary"
	"math/rand/v2"

	"go.opentelemetry.io/otel/trace"
)

// sessionTrace is the context key under which the Tracer hands the
// session's trace id to IDs when it starts a run's span.
type sessionTrace struct{}

// IDs makes span and trace ids for the SDK (pass it to the tracer provider
// with sdktrace.WithIDGenerator). It is the SDK's own random generator with
// one difference: a run's span, which has no parent, takes the session's
// trace id, so all the runs of a session, in every process that carries it
// on, make one trace, the one named in its journal. Without it each run
// gets a trace of its own.
type IDs struct{}

// NewIDs returns the ids of a span without a parent: the session's trace id
// when ctx carries one, else a new random one, and a new span id.
func (IDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if id, ok := ctx.Value(sessionTrace{}).(trace.TraceID); ok && id.IsValid() {
		return id, newSpanID()
	}
	return NewTraceID(), newSpanID()
}

// NewSpanID returns a new random span id.
func (IDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return newSpanID() }

// NewTraceID returns a new random, valid trace id: the trace of a new
// session, to be written in its journal.
func NewTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:8], rand.Uint64())
		binary.BigEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}
