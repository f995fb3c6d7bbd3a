package tracing

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttui/agenttui/runtime"
)

// callSpan is one call of the reply being run: its plan, and its spans once
// they are open.
//
// A call's execute_tool span opens at the first thing the call waits for or
// does: the question to a person (so its await_approval span is a child
// that fits inside it), the start of its body, or the decision or early end
// that settles it without running. A call that runs without asking opens
// its span when its body starts, so calls that waited for one another do
// not overlap and calls that ran side by side do.
type callSpan struct {
	turn    int
	planned runtime.PlannedCall
	name    string

	ctx      context.Context // carries span
	span     trace.Span
	approval trace.Span
	askedAt  time.Time
	// decision and by are the last decision about the call and what made
	// it.
	decision, by string
	started      bool
	ended        bool
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

// startCall opens c's execute_tool span at start.
func (t *Tracer) startCall(r *runSpans, c *callSpan, start time.Time) {
	name := c.name
	if name == "" {
		name = c.planned.Name
	}
	attrs := make([]attribute.KeyValue, 0, 12)
	attrs = append(attrs,
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(name),
		AttrTurn.Int(c.turn),
		AttrCallIndex.Int(c.planned.Index),
	)
	if c.planned.ID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(c.planned.ID))
	}
	if p := c.planned; p.Touches != nil {
		attrs = append(attrs, footprint(*p.Touches)...)
		attrs = append(attrs, AttrCallBatch.Int(p.Batch), AttrCallWaitsFor.IntSlice(p.WaitsFor))
		if t.opts.CaptureContent {
			attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(t.content(string(p.Args))))
		}
	}
	c.ctx, c.span = t.tracer.Start(r.ctx, SpanExecutePrefix+name, trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

func (t *Tracer) callDecision(r *runSpans, ev runtime.CallDecision) {
	c := r.call(ev.Turn, ev.Index)
	if c.ended {
		return
	}
	when := at(ev.At)
	if ev.Decision == runtime.DecisionAsk {
		if c.span == nil {
			t.startCall(r, c, when)
		}
		c.endApproval(when, answerNone, "", false)
		_, c.approval = t.tracer.Start(c.ctx, SpanAwaitApproval, trace.WithTimestamp(when),
			trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(AttrAskedBy.String(ev.By), AttrAskedWhy.String(ev.Reason)))
		c.askedAt = when
		return
	}
	c.decision, c.by = ev.Decision, ev.By
	if c.approval != nil {
		if t.opts.CaptureContent && ev.Reason != "" && ev.Decision == runtime.DecisionSkip {
			c.approval.SetAttributes(AttrApprovalReason.String(t.content(ev.Reason)))
		}
		c.endApproval(when, ev.Decision, ev.By, ev.Edited)
	}
	if ev.Decision == runtime.DecisionSkip && c.span == nil {
		t.startCall(r, c, when)
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
	opened := c.span == nil
	if opened {
		t.startCall(r, c, when)
	}
	if !opened || ev.Attempt > 1 {
		// The span opened earlier (the call asked first), or this is a
		// retry: mark when the body began.
		c.span.AddEvent(EventCallStarted, trace.WithTimestamp(when), trace.WithAttributes(AttrAttempt.Int(ev.Attempt)))
	}
	if c.started {
		return
	}
	c.started = true
	c.span.SetAttributes(AttrCallKey.String(ev.Key))
	// Every call it waited for has settled, so each has its span: link
	// them, so a trace viewer can follow what held the call back.
	for _, d := range c.planned.WaitsFor {
		if dep, ok := r.calls[d]; ok && dep.span != nil && dep.turn == c.turn {
			c.span.AddLink(trace.Link{SpanContext: dep.span.SpanContext()})
		}
	}
}

func (t *Tracer) callRetried(r *runSpans, ev runtime.CallRetried) {
	c := r.call(ev.Turn, ev.Index)
	if c.span == nil || c.ended {
		return
	}
	attrs := []attribute.KeyValue{AttrAttempt.Int(ev.Attempt), AttrMaxAttempts.Int(ev.MaxAttempts), AttrBackoff.Int64(ev.BackoffMS)}
	if t.opts.CaptureContent {
		attrs = append(attrs, AttrCallFailure.String(t.content(ev.Failure)))
	}
	c.span.AddEvent(EventCallRetry, trace.WithTimestamp(at(ev.At)), trace.WithAttributes(attrs...))
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
	if c.span == nil {
		t.startCall(r, c, end)
	}
	c.endApproval(end, answerNone, "", false)
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs,
		AttrCallOutcome.String(ev.Outcome),
		AttrCallAttempts.Int(ev.Attempts),
		AttrCallStarted.Bool(ev.Started),
	)
	if c.decision != "" {
		attrs = append(attrs, AttrCallDecision.String(c.decision), AttrCallDecisionBy.String(c.by))
	}
	if ev.NotFinished {
		attrs = append(attrs, AttrCallNotFinished.Bool(true), AttrCallWhy.String(ev.Why))
	}
	if d := ev.Diffstat; d != nil {
		attrs = append(attrs, AttrCallAdded.Int(d.Added), AttrCallRemoved.Int(d.Removed))
	}
	if t.opts.CaptureContent {
		attrs = append(attrs, semconv.GenAIToolCallResultKey.String(t.content(ev.Result)))
	}
	if ev.Kind != nil {
		attrs = append(attrs, semconv.ErrorTypeKey.String(*ev.Kind))
		desc := *ev.Kind
		if t.opts.CaptureContent {
			desc = t.content(ev.Result)
		}
		c.span.SetStatus(codes.Error, desc)
	}
	c.span.SetAttributes(attrs...)
	c.span.End(trace.WithTimestamp(end))
	c.ended = true
}

// abandon ends c's spans when its run ended before the call settled.
func (c *callSpan) abandon(end time.Time, why string) {
	c.endApproval(end, answerNone, "", false)
	if c.span == nil || c.ended {
		return
	}
	c.span.SetStatus(codes.Error, why)
	c.span.End(trace.WithTimestamp(end))
	c.ended = true
}
