package tracing

import (
	"context"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// callSpan is one call of the reply being run: its plan, and its spans once
// they are open.
//
// A call's execute_tool span covers the call from the first thing it waits
// for or does: the question to a person (so its await_approval span is a
// child that fits inside it), the start of its body, or the decision or
// early end that settles it without running. A call that runs without
// asking spans from its body's start, so calls that waited for one another
// do not overlap and calls that ran side by side do.
//
// Only a call that asks has its span opened while it goes on, because the
// approval's span needs it as a parent. Every other call's span is made
// when the call settles, dated from when it began, with all its attributes
// at once: that is most calls, and it costs the SDK half as much.
type callSpan struct {
	turn    int
	planned runtime.PlannedCall
	name    string

	ctx      context.Context // carries span
	span     trace.Span
	approval trace.Span
	askedAt  time.Time
	// opened is when the call's span begins, for a span not yet made;
	// pending holds the events it will carry.
	opened  time.Time
	pending []pendingEvent
	// decision and by are the last decision about the call and what made
	// it.
	decision, by string
	// origins are where the call's arguments came from, as
	// "argument ← source" (see runtime.CallDecision.Provenance).
	origins []string
	// key is the call's effect key, from its first start.
	key     string
	started bool
	ended   bool
	// task is the open run of the task the call runs, if any.
	task *runSpans
}

// pendingEvent is a span event of a call whose span is not made yet.
type pendingEvent struct {
	name  string
	at    time.Time
	attrs []attribute.KeyValue
}

// call returns the call index of the reply of turn. A reply the runtime
// carries on after a restart has no reply event in this process, so its
// calls are known only by what their own events say.
func (r *runSpans) call(turn, index int) *callSpan {
	if c, ok := r.calls[index]; ok && c.turn == turn {
		return c
	}
	c := &callSpan{turn: turn, planned: runtime.PlannedCall{Index: index}}
	r.calls[index] = c
	return c
}

// open notes when c's span begins, if it has no beginning yet.
func (c *callSpan) open(when time.Time) {
	if c.span == nil && c.opened.IsZero() {
		c.opened = when
	}
}

// startAttrs returns the attributes c's span has from its start, with room
// for extra more.
func (t *Tracer) startAttrs(c *callSpan, extra int) []attribute.KeyValue {
	p := c.planned
	attrs := make([]attribute.KeyValue, 0, 10+extra)
	attrs = append(attrs,
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(c.toolName()),
		AttrTurn.Int(c.turn),
		AttrCallIndex.Int(p.Index),
	)
	if p.ID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(p.ID))
	}
	if tc := p.Touches; tc != nil {
		attrs = append(attrs, AttrFootprintKind.String(tc.Access.String()))
		switch {
		case tc.Access == tool.AccessIndependent:
		case tc.Scope.IsAnything():
			attrs = append(attrs, AttrFootprintScope.StringSlice(anything))
		default:
			attrs = append(attrs, AttrFootprintScope.StringSlice(tc.Scope.PathList()))
		}
		attrs = append(attrs, AttrCallBatch.Int(p.Batch))
		if len(p.WaitsFor) > 0 {
			attrs = append(attrs, AttrCallWaitsFor.IntSlice(p.WaitsFor))
		}
		if t.opts.CaptureContent {
			attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(t.content(string(p.Args))))
		}
	}
	return attrs
}

func (c *callSpan) toolName() string {
	if c.name != "" {
		return c.name
	}
	return c.planned.Name
}

// links returns links to the spans of the calls c waited for; each has
// settled once c starts, so each has its span.
func (r *runSpans) links(c *callSpan) []trace.Link {
	var out []trace.Link
	for _, d := range c.planned.WaitsFor {
		if dep, ok := r.calls[d]; ok && dep.span != nil && dep.turn == c.turn {
			out = append(out, trace.Link{SpanContext: dep.span.SpanContext()})
		}
	}
	return out
}

// makeSpan makes c's execute_tool span, begun at start, with attrs and
// links.
func (t *Tracer) makeSpan(r *runSpans, c *callSpan, start time.Time, attrs []attribute.KeyValue, links []trace.Link) {
	opts := []trace.SpanStartOption{trace.WithTimestamp(start), trace.WithAttributes(attrs...)}
	if len(links) > 0 {
		opts = append(opts, trace.WithLinks(links...))
	}
	// Internal, the default kind.
	c.ctx, c.span = t.tracer.Start(r.ctx, t.spanName(c.toolName()), opts...)
	for _, e := range c.pending {
		c.span.AddEvent(e.name, trace.WithTimestamp(e.at), trace.WithAttributes(e.attrs...))
	}
	c.pending = nil
}

// spanName returns the execute_tool span name of tool name; the names are
// kept, since a session calls few tools many times.
func (t *Tracer) spanName(name string) string {
	n, ok := t.names[name]
	if !ok {
		n = SpanExecutePrefix + name
		if len(t.names) < maxNames {
			t.names[name] = n
		}
	}
	return n
}

// maxNames bounds the kept span names: a model can make up tool names.
const maxNames = 256

// anything is the scope of a footprint on anything.
var anything = []string{"anything"}

// event adds a span event to c's span, or keeps it for the span to come.
func (c *callSpan) event(name string, when time.Time, attrs ...attribute.KeyValue) {
	if c.span != nil {
		c.span.AddEvent(name, trace.WithTimestamp(when), trace.WithAttributes(attrs...))
		return
	}
	c.pending = append(c.pending, pendingEvent{name: name, at: when, attrs: attrs})
}

func (t *Tracer) callDecision(r *runSpans, ev runtime.CallDecision) {
	c := r.call(ev.Turn, ev.Index)
	if c.ended {
		return
	}
	when := at(ev.At)
	if ev.Decision == runtime.DecisionAsk {
		if c.span == nil {
			c.open(when)
			t.makeSpan(r, c, c.opened, t.startAttrs(c, 0), nil)
		}
		c.endApproval(when, answerNone, "", false)
		_, c.approval = t.tracer.Start(c.ctx, SpanAwaitApproval, trace.WithTimestamp(when),
			trace.WithAttributes(AttrAskedBy.String(ev.By), AttrAskedWhy.String(ev.Reason)))
		c.askedAt = when
		return
	}
	c.decision, c.by = ev.Decision, ev.By
	c.origins = c.origins[:0]
	for _, o := range ev.Provenance {
		if s := o.Argument + " ← " + o.Source; !slices.Contains(c.origins, s) {
			c.origins = append(c.origins, s)
		}
	}
	if c.approval != nil {
		if t.opts.CaptureContent && ev.Reason != "" && ev.Decision == runtime.DecisionSkip {
			c.approval.SetAttributes(AttrApprovalReason.String(t.content(ev.Reason)))
		}
		c.endApproval(when, ev.Decision, ev.By, ev.Edited)
	}
	if ev.Decision == runtime.DecisionSkip {
		c.open(when)
	}
}

// endApproval ends c's open await_approval span, if any, with the answer
// and who gave it.
func (c *callSpan) endApproval(end time.Time, answer, by string, edited bool) {
	if c.approval == nil {
		return
	}
	attrs := []attribute.KeyValue{
		AttrApprovalAnswer.String(answer),
		AttrApprovalWait.Int64(end.Sub(c.askedAt).Milliseconds()),
	}
	if by != "" {
		attrs = append(attrs, AttrApprovalBy.String(by))
	}
	if edited {
		attrs = append(attrs, AttrApprovalEdited.Bool(true))
	}
	c.approval.SetAttributes(attrs...)
	c.approval.End(trace.WithTimestamp(end))
	c.approval = nil
}

func (t *Tracer) callStarted(r *runSpans, ev runtime.CallStarted) {
	c := r.call(ev.Turn, ev.Index)
	if c.ended {
		return
	}
	if c.name == "" {
		c.name = ev.Name
	}
	when := at(ev.At)
	if c.span != nil || ev.Attempt > 1 {
		// The span opened earlier (the call asked first), or this is a
		// retry: mark when the body began.
		c.event(EventCallStarted, when, AttrAttempt.Int(ev.Attempt))
	}
	c.open(when)
	if c.started {
		return
	}
	c.started = true
	c.key = ev.Key
	if c.span != nil {
		// Link the calls it waited for, so a trace viewer can follow what
		// held it back; a span made later gets them when it is made.
		for _, l := range r.links(c) {
			c.span.AddLink(l)
		}
	}
}

func (t *Tracer) callRetried(r *runSpans, ev runtime.CallRetried) {
	c := r.call(ev.Turn, ev.Index)
	if c.ended || (c.span == nil && c.opened.IsZero()) {
		return
	}
	attrs := []attribute.KeyValue{AttrAttempt.Int(ev.Attempt), AttrMaxAttempts.Int(ev.MaxAttempts), AttrBackoff.Int64(ev.BackoffMS)}
	if t.opts.CaptureContent {
		attrs = append(attrs, AttrCallFailure.String(t.content(ev.Failure)))
	}
	c.event(EventCallRetry, at(ev.At), attrs...)
}

func (t *Tracer) callFinished(r *runSpans, ev runtime.CallFinished) {
	c := r.call(ev.Turn, ev.Index)
	if c.ended {
		return
	}
	if c.name == "" {
		c.name = ev.Name
	}
	end := at(ev.At)
	c.endApproval(end, answerNone, "", false)
	if c.task != nil {
		// The task's run never said it ended; its spans end with the call.
		t.endRun(c.task, end, "the task's call ended before its run did")
	}
	var attrs []attribute.KeyValue
	if c.span == nil {
		attrs = t.startAttrs(c, 10)
	} else {
		attrs = make([]attribute.KeyValue, 0, 10)
	}
	attrs = append(attrs,
		AttrCallOutcome.String(ev.Outcome),
		AttrCallAttempts.Int(ev.Attempts),
	)
	if c.key != "" {
		attrs = append(attrs, AttrCallKey.String(c.key))
	}
	if c.decision != "" {
		attrs = append(attrs, AttrCallDecision.String(c.decision), AttrCallDecisionBy.String(c.by))
		if len(c.origins) > 0 {
			attrs = append(attrs, AttrCallProvenance.StringSlice(c.origins))
		}
	}
	if ev.NotFinished {
		// Whether it began is what tells the model's two readings apart.
		attrs = append(attrs, AttrCallNotFinished.Bool(true), AttrCallStarted.Bool(ev.Started), AttrCallWhy.String(ev.Why))
	}
	if d := ev.Diffstat; d != nil {
		attrs = append(attrs, AttrCallAdded.Int(d.Added), AttrCallRemoved.Int(d.Removed))
	}
	if t.opts.CaptureContent {
		attrs = append(attrs, semconv.GenAIToolCallResultKey.String(t.content(ev.Result)))
	}
	if ev.Kind != nil {
		attrs = append(attrs, semconv.ErrorTypeKey.String(*ev.Kind))
	}
	if c.span == nil {
		c.open(end)
		t.makeSpan(r, c, c.opened, attrs, r.links(c))
	} else {
		c.span.SetAttributes(attrs...)
	}
	if ev.Kind != nil {
		desc := *ev.Kind
		if t.opts.CaptureContent {
			desc = t.content(ev.Result)
		}
		c.span.SetStatus(codes.Error, desc)
	}
	c.span.End(trace.WithTimestamp(end))
	c.ended = true
}

// abandon ends c's spans when its run ended before the call settled.
func (t *Tracer) abandon(r *runSpans, c *callSpan, end time.Time, why string) {
	c.endApproval(end, answerNone, "", false)
	if c.task != nil {
		t.endRun(c.task, end, why)
	}
	if c.ended || (c.span == nil && c.opened.IsZero()) {
		return
	}
	if c.span == nil {
		t.makeSpan(r, c, c.opened, t.startAttrs(c, 0), r.links(c))
	}
	c.span.SetStatus(codes.Error, why)
	c.span.End(trace.WithTimestamp(end))
	c.ended = true
}
