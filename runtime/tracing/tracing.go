// Package tracing turns a run's events into OpenTelemetry spans that follow
// the GenAI semantic conventions: invoke_agent for each run, chat for each
// model request, execute_tool for each call, and await_approval for each
// time a call waited for a person. A task's run (a sub-agent's) is an
// invoke_agent span too, a child of the execute_tool span of the call that
// runs it, with its own chat and execute_tool spans under it.
//
// It is a subscriber: the runtime publishes events and knows nothing of
// traces, and this package makes spans from them through the OpenTelemetry
// API alone. Which SDK, exporter and processor receive the spans is the
// command's business. Spans take their start and end times from the
// events' own times, so a trace shows when things really happened, and
// calls that ran side by side overlap.
//
// Nothing a model, a tool or a person wrote (the goal, replies, arguments,
// results, reasons, failure messages) is recorded unless
// Options.CaptureContent is set, and then only redacted.
package tracing

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/agenttui/agenttui/runtime/tracing"

// Options configure a Tracer.
type Options struct {
	// TraceID is the session's trace: every run's span belongs to it when
	// the tracer provider makes ids with IDs. The zero value gives each run
	// a trace of its own.
	TraceID trace.TraceID
	// CaptureContent records what the model, the tools and the person wrote:
	// the run's input, the replies, the calls' arguments and results, skip
	// reasons and failure messages. Each is redacted first.
	CaptureContent bool
	// Redact removes secrets from recorded content and from the model's
	// error messages; nil means redact.FromEnv().
	Redact *redact.Redactor
}

// Tracer makes spans from a session's events. Its Event method is a
// runtime.Sink; give it every event of every run of one session, in order,
// and Close it before shutting the tracer provider down.
//
// Event only queues the event: the spans are made by the Tracer's own
// goroutine, which owns the open spans, so the run is not held back while
// they are made and the work can use another core. The events' own times
// date the spans, so the delay changes nothing in the trace.
type Tracer struct {
	tracer trace.Tracer
	opts   Options

	// queue carries events and flush requests to the goroutine; done is
	// closed when it has handled the last.
	queue chan any
	done  chan struct{}
	// sendMu guards closed: sends hold it shared, Close exclusively, so
	// nothing is sent on the closed queue.
	sendMu sync.RWMutex
	closed bool

	// Owned by the goroutine.
	run   *runSpans
	tasks map[string]*runSpans // the open runs of tasks, by taskKey of their path
	names map[string]string    // execute_tool span names, by tool
}

// queueSize is how many events may wait for the goroutine before Event
// blocks: enough for a burst of calls, and bounded so a tracer that falls
// behind slows the run rather than growing without end.
const queueSize = 4096

// flushRequest asks the goroutine to say when it has handled every event
// queued before it.
type flushRequest chan struct{}

// runSpans is the open span of one run and what it holds open: the
// session's own run, or a task's.
type runSpans struct {
	ctx      context.Context // carries the invoke_agent span
	span     trace.Span
	session  string
	provider string
	model    string
	usage    model.Usage
	chat     *chatSpan
	calls    map[int]*callSpan // the calls of the reply being run

	// For a task's run: its key in Tracer.tasks, and the call that runs
	// it, whose execute_tool span is its parent.
	task   string
	parent *callSpan
}

// chatSpan is an open model request: a turn's or a compaction's.
type chatSpan struct {
	span    trace.Span
	attempt int
	// replied is when the reply arrived; the span ends then, once the
	// reply's event has said how it ended.
	replied    time.Time
	compaction bool
}

// New returns a Tracer that makes spans with tp's tracer.
func New(tp trace.TracerProvider, opts Options) *Tracer {
	if opts.Redact == nil {
		opts.Redact = redact.FromEnv()
	}
	t := &Tracer{tracer: tp.Tracer(ScopeName), opts: opts, names: map[string]string{}, tasks: map[string]*runSpans{},
		queue: make(chan any, queueSize), done: make(chan struct{})}
	go t.loop()
	return t
}

// loop makes the spans of the queued events, in order, until Close.
func (t *Tracer) loop() {
	defer close(t.done)
	for item := range t.queue {
		switch v := item.(type) {
		case flushRequest:
			close(v)
		case runtime.Event:
			t.handle(v)
		}
	}
}

// Event queues one event; it is a runtime.Sink. Events after Close are
// dropped.
func (t *Tracer) Event(e runtime.Event) {
	t.sendMu.RLock()
	defer t.sendMu.RUnlock()
	if !t.closed {
		t.queue <- e
	}
}

// Flush returns once the spans of every event queued so far are made and
// handed to the tracer provider (ended spans) or still open.
func (t *Tracer) Flush() {
	t.sendMu.RLock()
	if t.closed {
		t.sendMu.RUnlock()
		return
	}
	done := make(flushRequest)
	t.queue <- done
	t.sendMu.RUnlock()
	<-done
}

// Close handles the events queued so far and stops the Tracer. Spans of a
// run still going stay open, as a process that dies leaves them.
func (t *Tracer) Close() {
	t.sendMu.Lock()
	if !t.closed {
		t.closed = true
		close(t.queue)
	}
	t.sendMu.Unlock()
	<-t.done
}

// TraceID returns the session's trace id, as given in Options.
func (t *Tracer) TraceID() trace.TraceID { return t.opts.TraceID }

// handle makes or ends spans for one event.
func (t *Tracer) handle(e runtime.Event) {
	if te, ok := e.(runtime.TaskEvent); ok {
		t.taskEvent(te)
		return
	}
	if ev, ok := e.(runtime.RunStarted); ok {
		t.runStarted(ev)
		return
	}
	r := t.run
	if r == nil {
		// Notices between runs, or events of a run that started before
		// the tracer was attached: nothing to hang them on.
		return
	}
	t.runEvent(r, e)
}

// runEvent makes or ends spans for one event of run r, the session's own
// or a task's, other than its start.
func (t *Tracer) runEvent(r *runSpans, e runtime.Event) {
	switch ev := e.(type) {
	case runtime.TurnStarted:
		r.endChat(at(ev.At), "the request was not answered")
		r.chat = &chatSpan{span: t.startChat(r, at(ev.At), AttrTurn.Int(ev.Turn)), attempt: 1}
	case runtime.ModelRetry:
		t.modelRetry(r, ev)
	case runtime.UsageReported:
		if c := r.chat; c != nil && !c.compaction {
			c.span.SetAttributes(usageAttributes(ev.Usage)...)
			c.replied = at(ev.At)
		}
		r.usage = r.usage.Add(ev.Usage)
	case runtime.ReplyReceived:
		t.replyReceived(r, ev)
	case runtime.CallDecision:
		t.callDecision(r, ev)
	case runtime.CallStarted:
		t.callStarted(r, ev)
	case runtime.CallRetried:
		t.callRetried(r, ev)
	case runtime.CallFinished:
		t.callFinished(r, ev)
	case runtime.CompactionStarted:
		t.compactionStarted(r, ev)
	case runtime.Compacted:
		if c := r.chat; c != nil && c.compaction {
			c.span.SetAttributes(usageAttributes(ev.Usage)...)
			c.span.SetAttributes(AttrCompactAfter.Int(ev.TokensAfter), AttrCompactReplies.Int(ev.Replies))
			if t.opts.CaptureContent {
				c.span.SetAttributes(semconv.GenAIOutputMessagesKey.String(t.content(messagesJSON(
					message{Role: "assistant", Parts: []part{{Type: "text", Content: clip(ev.Summary)}}, FinishReason: "stop"}))))
			}
			c.span.End(trace.WithTimestamp(at(ev.At)))
			r.chat = nil
		}
		r.usage = r.usage.Add(ev.Usage)
	case runtime.CompactionFailed:
		if c := r.chat; c != nil && c.compaction {
			c.span.SetAttributes(semconv.ErrorTypeOther)
			c.span.SetStatus(codes.Error, t.opts.Redact.String(ev.Error))
			c.span.End(trace.WithTimestamp(at(ev.At)))
			r.chat = nil
		}
	case runtime.RunFinished:
		t.runFinished(r, ev)
	case runtime.HookRan:
		t.hookRan(r, ev)
	}
}

// hookRan records one of the person's hook commands as a span event: on
// its call's span for a call's hooks, else on the run's span.
func (t *Tracer) hookRan(r *runSpans, ev runtime.HookRan) {
	attrs := []attribute.KeyValue{AttrHookEvent.String(ev.Event), AttrHookCommand.String(t.opts.Redact.String(clip(ev.Command))),
		AttrHookExit.Int(ev.Exit), AttrHookDuration.Int64(ev.DurationMS)}
	if ev.Decision != "" {
		attrs = append(attrs, AttrHookDecision.String(ev.Decision))
	}
	if ev.Error != "" {
		attrs = append(attrs, AttrHookError.String(t.opts.Redact.String(clip(ev.Error))))
	}
	if ev.Index != nil {
		r.call(ev.Turn, *ev.Index).event(EventHook, at(ev.At), attrs...)
		return
	}
	if r.span != nil {
		r.span.AddEvent(EventHook, trace.WithTimestamp(at(ev.At)), trace.WithAttributes(attrs...))
	}
}

// at returns an event's time, or now for an event that has none.
func at(t runtime.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t.Time
}

// content returns text a model, tool or person wrote, redacted, for a
// span; callers record it only when CaptureContent is set.
func (t *Tracer) content(s string) string { return t.opts.Redact.String(clip(s)) }

func (t *Tracer) runStarted(ev runtime.RunStarted) {
	start := at(ev.At)
	if t.run != nil {
		// The previous run never said it ended.
		t.endRun(t.run, start, "the run ended without saying so")
	}
	ctx := context.Background()
	if t.opts.TraceID.IsValid() {
		ctx = context.WithValue(ctx, sessionTrace{}, t.opts.TraceID)
	}
	t.run = t.startRun(ctx, ev, AgentName, nil, trace.WithNewRoot())
}

// startRun starts the invoke_agent span of a run of the agent named agent,
// under parent's span (none for the session's own run), with extra
// attributes, and returns its open spans.
func (t *Tracer) startRun(parent context.Context, ev runtime.RunStarted, agent string, extra []attribute.KeyValue, opts ...trace.SpanStartOption) *runSpans {
	provider, name := modelParts(ev.Model)
	attrs := append([]attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIAgentName(agent),
		semconv.GenAIConversationID(ev.Session),
		semconv.GenAIProviderNameKey.String(provider),
		semconv.GenAIRequestModel(name),
		AttrRunMode.String(ev.Mode),
		AttrRunResumed.Bool(ev.Resumed),
	}, extra...)
	if t.opts.CaptureContent && !ev.Resumed {
		attrs = append(attrs, semconv.GenAIInputMessagesKey.String(t.content(messagesJSON(
			message{Role: "user", Parts: []part{{Type: "text", Content: clip(ev.Input)}}}))))
	}
	opts = append(opts, trace.WithTimestamp(at(ev.At)), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	ctx, span := t.tracer.Start(parent, SpanInvokeAgentPrefix+agent, opts...)
	return &runSpans{ctx: ctx, span: span, session: ev.Session, provider: provider, model: name, calls: map[int]*callSpan{}}
}

// startChat starts a model request's span.
func (t *Tracer) startChat(r *runSpans, start time.Time, extra ...attribute.KeyValue) trace.Span {
	attrs := append([]attribute.KeyValue{
		semconv.GenAIOperationNameChat,
		semconv.GenAIProviderNameKey.String(r.provider),
		semconv.GenAIRequestModel(r.model),
		semconv.GenAIConversationID(r.session),
	}, extra...)
	_, span := t.tracer.Start(r.ctx, SpanChatPrefix+r.model, trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return span
}

func (t *Tracer) modelRetry(r *runSpans, ev runtime.ModelRetry) {
	c := r.chat
	if c == nil {
		return
	}
	c.attempt = ev.Attempt
	c.span.AddEvent(EventModelRetry, trace.WithTimestamp(at(ev.At)), trace.WithAttributes(
		AttrModelAttempt.Int(ev.Attempt), AttrRetryMax.Int(ev.Max), AttrRetryWhy.String(ev.Why),
		AttrRetryWait.Int64(ev.WaitMS), AttrRetryError.String(t.opts.Redact.String(ev.Error))))
}

// replyReceived ends the turn's model request, now that its reply says how
// it ended, and readies the reply's calls.
func (t *Tracer) replyReceived(r *runSpans, ev runtime.ReplyReceived) {
	if c := r.chat; c != nil && !c.compaction {
		invalid := ev.Cut != nil
		for _, pc := range ev.Calls {
			invalid = invalid || pc.Touches == nil
		}
		reason := finishReason(ev.Stop)
		c.span.SetAttributes(
			semconv.GenAIResponseModel(r.model),
			semconv.GenAIResponseFinishReasons(reason),
			AttrModelAttempt.Int(c.attempt),
			AttrReplyCalls.Int(len(ev.Calls)),
			AttrReplyInvalid.Bool(invalid),
		)
		if t.opts.CaptureContent {
			c.span.SetAttributes(semconv.GenAIOutputMessagesKey.String(t.content(messagesJSON(replyMessage(ev, reason)))))
		}
		end := c.replied
		if end.IsZero() {
			end = time.Now()
		}
		c.span.End(trace.WithTimestamp(end))
		r.chat = nil
	}
	r.calls = make(map[int]*callSpan, len(ev.Calls))
	for _, pc := range ev.Calls {
		if pc.Touches != nil {
			r.calls[pc.Index] = &callSpan{turn: ev.Turn, planned: pc, name: pc.Name}
		}
	}
}

// replyMessage is a reply in the conventions' JSON form, each part's text
// cut to the content bound.
func replyMessage(ev runtime.ReplyReceived, reason string) message {
	m := message{Role: "assistant", FinishReason: reason}
	if ev.Text != "" {
		m.Parts = append(m.Parts, part{Type: "text", Content: clip(ev.Text)})
	}
	for _, pc := range ev.Calls {
		p := part{Type: "tool_call", ID: pc.ID, Name: pc.Name, Arguments: pc.Args}
		if len(pc.Args) > maxContent {
			p.Arguments = nil
			p.Content = clip(string(pc.Args))
		}
		m.Parts = append(m.Parts, p)
	}
	if m.Parts == nil {
		m.Parts = []part{}
	}
	return m
}

func (t *Tracer) compactionStarted(r *runSpans, ev runtime.CompactionStarted) {
	start := at(ev.At)
	if c := r.chat; c != nil && !c.compaction {
		// The provider refused the turn's request as too long, which is
		// what this compaction answers.
		c.span.SetAttributes(semconv.ErrorTypeKey.String("context_overflow"), AttrModelAttempt.Int(c.attempt))
		c.span.SetStatus(codes.Error, "the request was longer than the model's context window")
		c.span.End(trace.WithTimestamp(start))
	} else {
		r.endChat(start, "the request was not answered")
	}
	span := t.startChat(r, start, AttrTurn.Int(ev.Turn),
		AttrCompaction.String(ev.Reason), AttrCompactTokens.Int(ev.Tokens),
		AttrCompactWindow.Int(ev.Window), AttrCompactMsgs.Int(ev.Messages))
	r.chat = &chatSpan{span: span, attempt: 1, compaction: true}
}

func (t *Tracer) runFinished(r *runSpans, ev runtime.RunFinished) {
	end := at(ev.At)
	out := ev.Outcome
	why := "the run ended first"
	if out.Status == runtime.StatusFailed && len(out.Attempts) > 0 {
		// The last attempt is what ended the run: the model's error for a
		// request that failed.
		why = t.opts.Redact.String(out.Attempts[len(out.Attempts)-1])
	}
	t.endAll(r, end, why)
	attrs := append([]attribute.KeyValue{AttrRunOutcome.String(string(out.Status))}, usageAttributes(r.usage)...)
	switch out.Status {
	case runtime.StatusFailed:
		attrs = append(attrs, AttrRunFailingStep.String(out.FailingStep))
		r.span.SetStatus(codes.Error, "failed at "+out.FailingStep)
		if t.opts.CaptureContent {
			atts := make([]string, len(out.Attempts))
			for i, a := range out.Attempts {
				atts[i] = t.content(a)
			}
			attrs = append(attrs, AttrRunAttempts.StringSlice(atts))
		}
	case runtime.StatusSucceeded, runtime.StatusRefused:
		if t.opts.CaptureContent {
			attrs = append(attrs, semconv.GenAIOutputMessagesKey.String(t.content(messagesJSON(
				message{Role: "assistant", Parts: []part{{Type: "text", Content: clip(out.Summary)}}, FinishReason: "stop"}))))
		}
	}
	r.span.SetAttributes(attrs...)
	r.span.End(trace.WithTimestamp(end))
	t.forget(r, end)
}

// endRun ends a run that never said it ended, and every span it left open,
// saying why.
func (t *Tracer) endRun(r *runSpans, end time.Time, why string) {
	t.endAll(r, end, why)
	r.span.SetAttributes(usageAttributes(r.usage)...)
	r.span.SetStatus(codes.Error, why)
	r.span.End(trace.WithTimestamp(end))
	t.forget(r, end)
}

// forget drops ended run r: a task's from the tasks, or the session's own,
// with the runs of any tasks still open, which cannot outlive it.
func (t *Tracer) forget(r *runSpans, end time.Time) {
	if r.parent != nil {
		delete(t.tasks, r.task)
		if r.parent.task == r {
			r.parent.task = nil
		}
		return
	}
	if t.run == r {
		t.run = nil
	}
	for _, tr := range t.tasks {
		// Ending a task ends its own tasks as well; the map may lose
		// entries on the way, which ranging over it allows.
		t.endRun(tr, end, "the session's run ended first")
	}
}

// endChat ends an open model request that its run left behind.
func (r *runSpans) endChat(end time.Time, why string) {
	c := r.chat
	if c == nil {
		return
	}
	c.span.SetAttributes(semconv.ErrorTypeOther, AttrModelAttempt.Int(c.attempt))
	c.span.SetStatus(codes.Error, why)
	c.span.End(trace.WithTimestamp(end))
	r.chat = nil
}

// endAll ends every span the run left open, saying why.
func (t *Tracer) endAll(r *runSpans, end time.Time, why string) {
	r.endChat(end, why)
	for _, c := range r.calls {
		t.abandon(r, c, end, why)
	}
}

// usageAttributes are the GenAI conventions' usage attributes of u, with
// the cache and reasoning counts when there are any, and its cost in
// dollars when it is known.
func usageAttributes(u model.Usage) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.GenAIUsageInputTokens(u.InputTokens), semconv.GenAIUsageOutputTokens(u.OutputTokens)}
	if u.CacheReadTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageCacheReadInputTokens(u.CacheReadTokens))
	}
	if u.CacheWriteTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageCacheCreationInputTokens(u.CacheWriteTokens))
	}
	if u.ReasoningTokens > 0 {
		attrs = append(attrs, semconv.GenAIUsageReasoningOutputTokens(u.ReasoningTokens))
	}
	if u.CostUSD != nil {
		attrs = append(attrs, AttrCostUSD.Float64(*u.CostUSD))
	}
	return attrs
}
