package runtime

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/tool"
)

// previewPurpose says why a call's preview is taken, which decides what the
// coordinator does with it.
type previewPurpose uint8

// The purposes, in rising priority: when a preview is asked for while one is
// being taken, the higher purpose is kept for the next.
const (
	previewNone previewPurpose = iota
	// previewShow publishes it, so the person sees the change as it is now.
	previewShow
	// previewAsk publishes it and then asks the person, so the request
	// carries what the call would do.
	previewAsk
	// previewStart checks it against the approval just before the call
	// starts: the call runs only if the person approved what it shows.
	previewStart
)

// previewDone is a preview taken off the coordinator goroutine.
type previewDone struct {
	index   int
	purpose previewPurpose
	pv      tool.Preview
	err     error
	// after lists the earlier calls that change what the call touches and
	// had not settled when the preview was asked for.
	after []int
}

// revision is a person's version of a call's file content, as it was
// applied: the model reads how it differs from what it proposed.
type revision struct {
	path, proposed, actual string
}

// requestPreview takes c's preview in its own goroutine for purpose. One
// preview per call is taken at a time; one asked for meanwhile is taken
// next, with the highest purpose asked for.
func (r *replyRun) requestPreview(c *callRun, purpose previewPurpose) {
	if c.previewing {
		c.nextPreview = max(c.nextPreview, purpose)
		return
	}
	c.previewing = true
	after := r.writersPending(c)
	pver, args, ctx, index := c.previewer, c.p.Args, r.ctx, c.index
	go func() {
		pv, err := pver.Preview(ctx, args)
		select {
		case r.inbox <- previewDone{index: index, purpose: purpose, pv: pv, err: err, after: after}:
		case <-r.done:
		}
	}()
}

// writersPending returns the earlier calls c depends on that may change
// what it touches and have not settled: while there are any, c's preview
// is provisional.
func (r *replyRun) writersPending(c *callRun) []int {
	var out []int
	for _, d := range c.deps {
		if dep := r.calls[d]; !dep.settled && !dep.p.Touches.ReadsOnly() {
			out = append(out, d)
		}
	}
	return out
}

// previewed acts on a preview taken for c.
func (r *replyRun) previewed(ctx context.Context, m previewDone) {
	c := r.calls[m.index]
	c.previewing = false
	next := c.nextPreview
	c.nextPreview = previewNone
	if m.purpose == previewStart {
		// The check held a worker slot; starting the body takes it again.
		r.running--
		c.verifying = false
	}
	if c.settled || c.started {
		if c.verifying && next == previewStart {
			// An early end settled the call while the check before its
			// start waited its turn: it never starts, so its slot is free.
			r.running--
			c.verifying = false
		}
		return
	}
	if m.err == nil {
		pv := m.pv
		c.preview = &pv
	}
	switch m.purpose {
	case previewShow:
		r.publishPreview(c, m.after)
	case previewAsk:
		r.publishPreview(c, m.after)
		r.launchAsk(c, c.flow.By, c.flow.Reason)
	case previewStart:
		r.check(ctx, c, m)
	}
	if next != previewNone && !c.settled && !c.started {
		r.requestPreview(c, next)
	}
}

// publishPreview publishes c's preview unless the same one, equally
// provisional, was published last.
func (r *replyRun) publishPreview(c *callRun, after []int) {
	if c.preview == nil {
		return
	}
	key := c.preview.Digest + fmt.Sprint(after)
	if key == c.published {
		return
	}
	c.published = key
	_, editable := tool.As[tool.Reviser](c.p.tool)
	r.emit(previewed(r.turn, c.index, *c.preview, after, editable))
}

// launchAsk asks the call's hook for its decision in its own goroutine,
// with the latest preview; by and reason say why it asks.
func (r *replyRun) launchAsk(c *callRun, by, reason string) {
	req := AskRequest{CallInfo: r.info(c), WaitsFor: c.deps, By: by, Reason: reason}
	if c.preview != nil {
		pv := *c.preview
		req.Preview = &pv
	}
	f := c.flow
	go func() {
		answer := f.Await(r.askCtx, req)
		r.inbox <- askDone{index: c.index, flow: answer}
	}()
}

// check runs c if its preview, taken just now, shows what the person
// approved; otherwise the approval is withdrawn and c asks again.
func (r *replyRun) check(ctx context.Context, c *callRun, m previewDone) {
	if m.err != nil {
		if c.approved != "" {
			r.stale(c, "", "its preview could not be taken again ("+m.err.Error()+")")
			return
		}
		r.begin(ctx, c, c.p)
		return
	}
	r.publishPreview(c, nil)
	if c.approved != "" && m.pv.Digest != c.approved {
		r.stale(c, m.pv.Digest, r.staleWhy(c, m.pv))
		return
	}
	p := c.p
	if c.edited != nil {
		q, err := r.revise(c, m.pv)
		if err != nil {
			r.stale(c, m.pv.Digest, "the person's version could not be applied: "+err.Error())
			return
		}
		p = q
	}
	r.begin(ctx, c, p)
}

// revise applies the person's version of c's content: the tool turns it
// into arguments, which are checked like a hook's rewrite and must touch
// what the call was planned to touch.
func (r *replyRun) revise(c *callRun, shown tool.Preview) (*Prepared, error) {
	rv, ok := tool.As[tool.Reviser](c.p.tool)
	if !ok {
		return nil, fmt.Errorf("%s does not take an edited version", c.p.Call.Name)
	}
	args, pv, err := rv.Revise(c.p.Args, shown, *c.edited)
	if err != nil {
		return nil, err
	}
	q, err := r.cat.rewrite(c.p, args)
	if err != nil {
		return nil, err
	}
	if q.Touches.String() != c.p.Touches.String() {
		return nil, fmt.Errorf("it would touch %s instead of %s", q.Touches, c.p.Touches)
	}
	c.preview = &pv
	c.revision = &revision{path: shown.Path, proposed: shown.New, actual: *c.edited}
	return q, nil
}

// stale withdraws the person's approval of c, whose preview no longer has
// the digest approved, and asks again with the new preview. A call that
// was approved without being asked (by a hook that cannot ask again) is
// skipped instead.
func (r *replyRun) stale(c *callRun, digest, why string) {
	r.emit(PreviewStale{Turn: r.turn, Index: c.index, Approved: c.approved, Digest: digest, Why: why})
	c.approved, c.edited, c.cleared = "", nil, false
	if !c.flow.IsAsk() {
		reason := fmt.Sprintf("Skipped: what this call would do changed after it was approved (%s), so it was not run.", why)
		r.emitDecision(c, DecisionSkip, Skip(c.flow.By, reason))
		r.settle(c, tool.Skipped(reason), feedback.ResultMessage(c.p.Call, reason), 0)
		return
	}
	reason := "what it would do changed since it was approved (" + why + "), so it asks again"
	r.emit(CallDecision{Turn: r.turn, Index: c.index, Decision: DecisionAsk, By: c.flow.By, Reason: reason,
		At: Time{r.agent.clock().Now()}})
	c.asking = true
	r.asking++
	r.launchAsk(c, c.flow.By, reason)
}

// staleWhy says what changed c's preview since the approval: an earlier
// call of the reply that ran and may have changed it, or, failing that,
// something outside the reply.
func (r *replyRun) staleWhy(c *callRun, now tool.Preview) string {
	var culprits []string
	for _, d := range c.deps {
		dep := r.calls[d]
		if dep.started && !dep.p.Touches.ReadsOnly() && slices.Contains(c.pendingAtApproval, d) {
			culprits = append(culprits, fmt.Sprintf("#%d %s", d+1, dep.p.Call.Name))
		}
	}
	if len(culprits) > 0 {
		return strings.Join(culprits, " and ") + " ran first and changed it"
	}
	if now.Kind == tool.PreviewFile && now.Path != "" {
		return now.Path + " changed since the approval"
	}
	return "it changed since the approval"
}

// refreshDependents takes again the previews of the calls that wait for c,
// now that c, which may have changed what they touch, has settled.
func (r *replyRun) refreshDependents(c *callRun) {
	if !c.started || c.p.Touches.ReadsOnly() {
		return
	}
	for _, j := range r.plan.dependents[c.index] {
		d := r.calls[j]
		if d.previewer == nil || d.settled || d.started || d.verifying {
			continue
		}
		if d.cleared && d.unmet == 0 {
			// It starts now, and its start takes a fresh preview.
			continue
		}
		r.requestPreview(d, previewShow)
	}
}

// diffstat returns the lines a successful file change added and removed.
func diffstat(c *callRun) *Diffstat {
	pv := c.preview
	if pv == nil || !c.outcome.IsSuccess() || pv.Kind != tool.PreviewFile || pv.Problem != "" || pv.Binary || pv.TooLarge {
		return nil
	}
	return &Diffstat{Added: pv.Added, Removed: pv.Removed}
}
