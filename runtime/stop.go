package runtime

import (
	"context"
	"errors"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/tool"
)

// stop ends the reply early: running calls have had their context cancelled
// with ctx; each gets a short grace period to return. A call that returns a
// real result in that time keeps it; every other unsettled call gets the
// not-finished text for whether it started and what it touches.
func (r *replyRun) stop(ctx context.Context, first any) {
	why := StopReason(ctx)
	if first != nil {
		r.stopping(ctx, why, first)
	}
	grace := r.agent.clock().After(r.agent.stopGrace())
	for r.running > 0 {
		select {
		case msg := <-r.inbox:
			r.stopping(ctx, why, msg)
		case <-grace:
			r.running = 0
		}
	}
	for _, c := range r.calls {
		if !c.settled {
			r.notFinished(c, why, 0)
		}
	}
}

// stopping reads a message that arrived after an early end: a call that
// returned because it was cancelled is not finished; one that returned a
// real result keeps it. Answers to approvals no longer matter.
func (r *replyRun) stopping(ctx context.Context, why string, msg any) {
	if pd, ok := msg.(previewDone); ok {
		c := r.calls[pd.index]
		c.previewing = false
		if pd.purpose == previewStart || (c.verifying && c.nextPreview == previewStart) {
			// The check before a start held a slot; the call never
			// started, and now never will.
			r.running--
			c.verifying, c.nextPreview = false, previewNone
		}
		return
	}
	done, ok := msg.(callDone)
	if !ok {
		return
	}
	r.running--
	c := r.calls[done.index]
	out := done.ret.Outcome()
	if out.IsErrorKind(tool.KindCancelled) || (out.IsError() && errors.Is(ctx.Err(), context.Canceled)) {
		if c.p.Decl.Annotations.Delegates {
			// A task says what it had finished before it stopped.
			c.partial = feedback.OutputText(done.ret.Output)
		}
		r.notFinished(c, why, done.attempts)
		return
	}
	res := feedback.ResultOutput(c.p.Call, out, done.ret.Output)
	res.Content, c.whole = r.agent.bound(res.Content, c.p.Decl)
	c.source = sourceOf(c.p, done.ret, r.turn, c.index)
	r.settle(c, out, res, done.attempts)
	r.learn(c)
}

func (r *replyRun) notFinished(c *callRun, why string, attempts int) {
	text := feedback.NotFinished(c.p.Call.Name, c.started, c.p.Touches, why)
	if c.partial != "" && c.started {
		text += "\n" + c.partial
	}
	c.settled = true
	r.unsettled--
	c.result = feedback.ResultMessage(c.p.Call, text)
	if c.started {
		c.outcome = tool.Failed(tool.Cancelled(why))
	} else {
		c.outcome = tool.Skipped(text)
	}
	ev := r.finished(c, attempts, true)
	ev.Why = why
	r.emit(ev)
}
