package runtime

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// callRun is the state of one call of a reply. It is owned by the reply's
// coordinator goroutine (replyRun.run); call goroutines only send messages.
type callRun struct {
	index  int
	p      *Prepared
	flow   Flow
	deps   []int
	batch  int
	unmet  int // dependencies not yet settled
	asking bool
	// cleared is set once the hooks let the call run.
	cleared   bool
	started   bool
	settled   bool
	startedAt time.Time
	outcome   tool.Outcome
	result    tool.Result
	key       string

	// previewer is the call's tool as a tool.Previewer, nil when it has
	// no previews. preview is the last preview taken, and published
	// identifies the last one published.
	previewer tool.Previewer
	preview   *tool.Preview
	published string
	// previewing says a preview is being taken; nextPreview is the
	// purpose of one asked for meanwhile. verifying says the call is
	// cleared and its start waits for the preview that checks it.
	previewing  bool
	nextPreview previewPurpose
	verifying   bool
	// approved is the digest of the preview the person approved, which the
	// call must still show when it starts; edited is the person's own
	// version of its content. pendingAtApproval lists the calls it waited
	// for when it was approved, to say what changed it if it did.
	approved          string
	edited            *string
	pendingAtApproval []int
	// revision is the person's version as it was applied.
	revision *revision
	// whole is the size of the call's result when the model read it cut;
	// zero when it read it whole.
	whole int
	// partial is what a task that did not finish had done, which the
	// model reads after the not-finished text.
	partial string
	// source is where the call's result came from, once it ran.
	source *tool.Source
}

type askDone struct {
	index int
	flow  Flow
}

type callDone struct {
	index    int
	ret      tool.Return
	attempts int
	// post is what the model reads after the output from the call's
	// PostToolUse hooks.
	post string
}

// replyRun executes the calls of one valid reply.
type replyRun struct {
	// preHooks are the verdicts of the calls' PreToolUse hooks, nil for
	// a call none matched; nil when no call had any.
	preHooks []*hooks.Verdict
	agent    *Agent
	turn     int
	session  string
	calls    []*callRun
	plan     replyPlan
	mem      *Memory
	emit     func(Event)
	inbox    chan any
	ready    readyQueue
	// cat checks the arguments of a call the person edited.
	cat *Catalog
	// ctx is the reply's context, for the previews taken while it runs;
	// done is closed when run returns, so a preview that arrives later is
	// dropped rather than sent to a coordinator that is gone.
	ctx  context.Context
	done chan struct{}

	running, asking int
	unsettled       int

	// lateMu guards closed: call goroutines may try to publish after an
	// early end has settled their call, and those events must not follow the
	// end of the reply.
	lateMu sync.Mutex
	closed bool
	// idleSince is when the reply last had calls waiting for a person and
	// none running; personWait sums those spans.
	idleSince  time.Time
	personWait time.Duration
	// broken is the error that stopped the run's record; once it is set no
	// call starts. cancelAsks withdraws the approvals still open then.
	broken     error
	cancelAsks context.CancelFunc
	askCtx     context.Context

	// store is the session's checkpoint store, nil when it keeps none;
	// sess is the session the checkpoint is recorded in. checkpointed says
	// the reply's checkpoint was tried, and checkpoint is it, once taken.
	store        *CheckpointStore
	sess         *Session
	checkpointed bool
	checkpoint   *CheckpointTaken

	// usageMu guards taskUsage: what the reply's tasks spent on their
	// models, which the session's total takes in once the reply settles.
	usageMu   sync.Mutex
	taskUsage model.Usage
}

// addTaskUsage adds what a task of the reply spent; tasks call it from
// their own goroutines.
func (r *replyRun) addTaskUsage(u model.Usage) {
	r.usageMu.Lock()
	defer r.usageMu.Unlock()
	r.taskUsage = r.taskUsage.Add(u)
}

// tasksSpent returns what the reply's tasks spent.
func (r *replyRun) tasksSpent() model.Usage {
	r.usageMu.Lock()
	defer r.usageMu.Unlock()
	return r.taskUsage
}

// readyQueue holds the indices of calls that may start, lowest first, so
// calls start in call order when slots are scarce.
type readyQueue []int

func (q readyQueue) Len() int           { return len(q) }
func (q readyQueue) Less(i, j int) bool { return q[i] < q[j] }
func (q readyQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)        { *q = append(*q, x.(int)) }
func (q *readyQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// run executes the reply and returns once every call has settled, or has
// been settled as not finished because ctx ended.
func (r *replyRun) run(ctx context.Context) {
	r.askCtx, r.cancelAsks = context.WithCancel(ctx)
	defer r.cancelAsks()
	r.ctx, r.done = ctx, make(chan struct{})
	defer close(r.done)
	for _, c := range r.calls {
		if pv, ok := tool.As[tool.Previewer](c.p.tool); ok && !c.settled {
			c.previewer = pv
		}
	}
	for _, c := range r.calls {
		if !c.settled {
			r.decide(ctx, c)
		}
	}
	r.fillSlots(ctx)
	defer r.close()
	for r.unsettled > 0 {
		select {
		case msg := <-r.inbox:
			if ctx.Err() != nil {
				// The turn was stopped while this message was on its way,
				// and both were ready at once: it is read as the stop reads
				// it, so a call the stop cancelled is not finished rather
				// than failed, and it releases nothing to start.
				r.stop(ctx, msg)
				return
			}
			r.handle(ctx, msg)
		case <-ctx.Done():
			r.stop(ctx, nil)
			return
		}
		r.fillSlots(ctx)
	}
	r.noteIdle()
}

// close stops call goroutines from publishing any further event.
func (r *replyRun) close() {
	r.lateMu.Lock()
	defer r.lateMu.Unlock()
	r.closed = true
}

// emitFromCall publishes an event from a call goroutine, unless the reply
// has already ended.
func (r *replyRun) emitFromCall(e Event) {
	r.lateMu.Lock()
	defer r.lateMu.Unlock()
	if !r.closed {
		r.emit(e)
	}
}

// decide announces the hooks' decision for c and acts on it.
func (r *replyRun) decide(ctx context.Context, c *callRun) {
	f := c.flow
	switch f.action {
	case flowSkip:
		r.emitDecision(c, DecisionSkip, f)
		r.settle(c, tool.Skipped(f.Reason), feedback.ResultMessage(c.p.Call, f.Reason), 0)
	case flowAsk:
		r.emitDecision(c, DecisionAsk, f)
		c.asking = true
		r.asking++
		if c.previewer != nil {
			// The person is asked once the preview is there, so the
			// request shows the change from the start.
			r.requestPreview(c, previewAsk)
		} else {
			r.launchAsk(c, f.By, f.Reason)
		}
	default:
		r.emitDecision(c, DecisionRun, f)
		r.approve(c, f)
		if c.previewer != nil && c.unmet > 0 {
			// It waits for earlier calls: show what it would do meanwhile.
			r.requestPreview(c, previewShow)
		}
		r.clear(c)
	}
	r.noteIdle()
}

func (r *replyRun) info(c *callRun) CallInfo {
	return CallInfo{Turn: r.turn, Index: c.index, Call: c.p.Call, Args: c.p.Args, Touches: c.p.Touches, Decl: c.p.Decl, Sandbox: c.p.Sandbox,
		Task: r.agent.task, Provenance: c.p.origins, Sources: c.p.sources, Hook: c.p.hook}
}

func (r *replyRun) emitDecision(c *callRun, decision string, f Flow) {
	r.emit(CallDecision{Turn: r.turn, Index: c.index, Decision: decision, By: f.By, Reason: f.Reason,
		Digest: f.shown, Edited: f.content != nil, Provenance: c.p.origins, At: Time{r.agent.clock().Now()}})
}

// approve records what a decision to run binds the call to: the preview the
// person approved and the person's own version of its content, if any.
func (r *replyRun) approve(c *callRun, f Flow) {
	c.approved, c.edited = f.shown, f.content
	c.pendingAtApproval = r.pendingDeps(c)
}

// pendingDeps returns the calls c depends on that have not settled.
func (r *replyRun) pendingDeps(c *callRun) []int {
	var out []int
	for _, d := range c.deps {
		if !r.calls[d].settled {
			out = append(out, d)
		}
	}
	return out
}

func (r *replyRun) clear(c *callRun) {
	c.cleared = true
	if c.unmet == 0 {
		heap.Push(&r.ready, c.index)
	}
}

func (r *replyRun) handle(ctx context.Context, msg any) {
	switch m := msg.(type) {
	case askDone:
		c := r.calls[m.index]
		c.asking = false
		r.asking--
		if c.settled {
			return
		}
		switch {
		case m.flow.IsSkip():
			r.emitDecision(c, DecisionSkip, m.flow)
			r.settle(c, tool.Skipped(m.flow.Reason), feedback.ResultMessage(c.p.Call, m.flow.Reason), 0)
		case m.flow.IsContinue():
			r.emitDecision(c, DecisionRun, m.flow)
			r.approve(c, m.flow)
			r.clear(c)
		default:
			// An asking hook may only answer run or skip; anything else is
			// a defect in the hook, and the safe reading of it is a skip.
			reason := fmt.Sprintf("Skipped: the approval for this call gave no clear answer (%s), so it was not run.", m.flow.By)
			r.emitDecision(c, DecisionSkip, Skip(m.flow.By, reason))
			r.settle(c, tool.Skipped(reason), feedback.ResultMessage(c.p.Call, reason), 0)
		}
	case callDone:
		c := r.calls[m.index]
		r.running--
		out := m.ret.Outcome()
		res := feedback.ResultOutput(c.p.Call, out, m.ret.Output)
		res.Content, c.whole = r.agent.bound(res.Content, c.p.Decl)
		if rv := c.revision; rv != nil && out.IsSuccess() {
			res.Content += "\n\n" + feedback.PersonEdited(rv.path, rv.proposed, rv.actual)
		}
		if m.post != "" {
			res.Content += "\n\n" + m.post
		}
		c.source = sourceOf(c.p, m.ret, r.turn, c.index)
		r.settle(c, out, res, m.attempts)
		r.learn(c)
		if err := r.agent.durable(); err != nil {
			r.breakOff(err)
		}
	case previewDone:
		r.previewed(ctx, m)
	}
	r.noteIdle()
}

// fillSlots starts ready calls, lowest index first, while slots are free.
func (r *replyRun) fillSlots(ctx context.Context) {
	if ctx.Err() != nil {
		// A stop is on its way to the coordinator: nothing new starts.
		return
	}
	limit := r.agent.maxParallel()
	for r.ready.Len() > 0 && r.running < limit {
		i := heap.Pop(&r.ready).(int)
		r.start(ctx, r.calls[i])
	}
	r.noteIdle()
}

func (r *replyRun) start(ctx context.Context, c *callRun) {
	if c.settled {
		return
	}
	if c.previewer != nil {
		// The preview is taken once more, just before the start: the call
		// runs only if it shows what was approved. The check holds a
		// worker slot, so it counts against the limit like a running call.
		r.running++
		c.verifying = true
		r.requestPreview(c, previewStart)
		return
	}
	r.begin(ctx, c, c.p)
}

// begin runs c's body with the prepared call p (c's own, or the person's
// version of it): its intent is published, and so journaled, first.
func (r *replyRun) begin(ctx context.Context, c *callRun, p *Prepared) {
	if r.store != nil && !r.checkpointed {
		if roots, notCovered := r.store.reach(p); len(roots) > 0 || len(notCovered) > 0 {
			// The first call that may change the workspace: what the
			// whole reply may change is recorded before it starts.
			r.takeCheckpoint(ctx)
		}
	}
	if err := r.agent.durable(); err != nil {
		r.breakOff(err)
		return
	}
	c.started = true
	c.startedAt = r.agent.clock().Now()
	// The intent is published, and so journaled, before the body runs.
	r.emit(CallStarted{Turn: r.turn, Index: c.index, Name: c.p.Call.Name, Attempt: 1, Key: c.key, At: Time{c.startedAt}})
	if err := r.agent.durable(); err != nil {
		// The intent may not be on disk, so the body must not run.
		c.started = false
		r.breakOff(err)
		return
	}
	r.running++
	go r.perform(ctx, c.index, p, c.key)
}

// breakOff stops the reply from performing anything more once the run's
// record failed: every call not yet started is settled as not run, and open
// approvals are withdrawn. Calls already running finish as they would.
func (r *replyRun) breakOff(err error) {
	if r.broken == nil {
		r.broken = err
	}
	r.cancelAsks()
	r.ready = r.ready[:0]
	why := unrecorded(r.broken)
	for _, c := range r.calls {
		if !c.settled && !c.started {
			r.notFinished(c, why, 0)
		}
	}
}

// perform runs one call's body, repeating it as its retry policy allows, and
// reports the result to the coordinator.
func (r *replyRun) perform(ctx context.Context, index int, p *Prepared, key string) {
	clock := r.agent.clock()
	callCtx := withMemory(ctx, r.mem)
	callCtx = withCallSite(callCtx, &callSite{agent: r.agent, session: r.session, turn: r.turn, index: index,
		emit: r.emitFromCall, spent: r.addTaskUsage, sess: r.sess})
	attempt := 1
	for {
		ret := r.attempt(callCtx, p)
		f := ret.Outcome().Failure()
		if f == nil || ctx.Err() != nil || !mayRetry(p, *f, attempt) {
			post := r.postCallHook(ctx, index, p, ret)
			r.inbox <- callDone{index: index, ret: ret, attempts: attempt, post: post}
			return
		}
		backoff := p.Decl.Retry.Backoff(attempt + 1)
		r.emitFromCall(CallRetried{Turn: r.turn, Index: index, Attempt: attempt + 1, MaxAttempts: p.Decl.Retry.Attempts,
			Failure: f.String(), BackoffMS: backoff.Milliseconds(), At: Time{clock.Now()}})
		select {
		case <-clock.After(backoff):
		case <-ctx.Done():
			r.inbox <- callDone{index: index, ret: ret, attempts: attempt}
			return
		}
		attempt++
		r.emitFromCall(CallStarted{Turn: r.turn, Index: index, Name: p.Call.Name, Attempt: attempt, Key: key, At: Time{clock.Now()}})
		if r.agent.durable() != nil {
			// The retry's intent may not be on disk: the call ends with the
			// failure it has, and the coordinator stops the reply.
			r.inbox <- callDone{index: index, ret: ret, attempts: attempt - 1}
			return
		}
	}
}

// mayRetry says whether a failed attempt may be repeated: the failure must be
// retryable, the policy must allow another attempt, and the call must only
// read or its tool must declare itself idempotent in local code. Hints from
// elsewhere never enable a retry.
func mayRetry(p *Prepared, f tool.Failure, attempt int) bool {
	pol := p.Decl.Retry
	if pol == nil || attempt >= pol.Attempts || !f.IsRetryable() {
		return false
	}
	return p.Touches.ReadsOnly() || p.Decl.Idempotent()
}

// attempt runs the body once under the per-call time limit, turning a panic
// or an overrun into a failure the model can read.
func (r *replyRun) attempt(ctx context.Context, p *Prepared) (ret tool.Return) {
	limit := r.agent.budgets().CallTimeout
	if p.Decl.Annotations.Delegates {
		// A task is a run of its own, bounded by its own budgets: the
		// run's time, not one call's.
		limit = r.agent.budgets().MaxTime
	}
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			ret = tool.Fail(tool.Other(fmt.Sprintf("the tool panicked: %v", v)),
				fmt.Sprintf("The call to %s failed inside the tool (an internal error: %v).", p.Call.Name, v))
		}
	}()
	if refused, ok := r.agent.confine.refusal(p.Call.Name, p.Touches); ok {
		// Inside a task, the tool refuses what the task may not change.
		return refused
	}
	ret = p.tool.Call(actx, p.Args)
	if errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil && !ret.Outcome().IsErrorKind(tool.KindTimeout) {
		msg := fmt.Sprintf("the call ran past its time limit of %s", limit)
		out := feedback.OutputText(ret.Output)
		if out != "" {
			out += "\n"
		}
		ret = tool.Fail(tool.Timeout(msg), out+"The call was stopped: "+msg+".")
	}
	return ret
}

// settle records how c ended, publishes it, and releases its dependents.
func (r *replyRun) settle(c *callRun, out tool.Outcome, res tool.Result, attempts int) {
	c.settled = true
	r.unsettled--
	if notes := hookNotes(c.p); notes != "" {
		res.Content += "\n\n" + notes
	}
	c.outcome = out
	c.result = res
	r.emit(r.finished(c, attempts, false))
	for _, j := range r.plan.dependents[c.index] {
		d := r.calls[j]
		d.unmet--
		if d.unmet == 0 && d.cleared && !d.started && !d.settled {
			heap.Push(&r.ready, j)
		}
	}
	r.refreshDependents(c)
}

func (r *replyRun) finished(c *callRun, attempts int, notFinished bool) CallFinished {
	now := r.agent.clock().Now()
	ev := CallFinished{
		Turn: r.turn, Index: c.index, Name: c.p.Call.Name, Key: c.key, Outcome: c.outcome.ID(), Result: c.result.Content,
		Started: c.started, NotFinished: notFinished, Attempts: attempts, At: Time{now}, Full: c.outcome,
		Diffstat: diffstat(c), Whole: c.whole, Source: c.source,
	}
	if k, ok := c.outcome.ErrorKind(); ok {
		s := k.String()
		ev.Kind = &s
		ev.Code = c.outcome.Failure().Code
	}
	if c.started && !c.startedAt.IsZero() {
		// A call caught running by a restart has no start time here.
		ev.DurationMS = now.Sub(c.startedAt).Milliseconds()
	}
	return ev
}

// noteIdle tracks the spans in which the reply only waits for a person, so
// that time does not count against the run's time budget.
func (r *replyRun) noteIdle() {
	waiting := r.asking > 0 && r.running == 0 && r.ready.Len() == 0
	now := r.agent.clock().Now()
	switch {
	case waiting && r.idleSince.IsZero():
		r.idleSince = now
	case !waiting && !r.idleSince.IsZero():
		r.personWait += now.Sub(r.idleSince)
		r.idleSince = time.Time{}
	}
}

// results returns what the model reads, in call order.
func (r *replyRun) results() []tool.Result {
	out := make([]tool.Result, len(r.calls))
	for i, c := range r.calls {
		out[i] = c.result
	}
	return out
}
