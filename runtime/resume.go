package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// RestartReason is what the model reads about calls whose fate a restart
// left unknown.
const RestartReason = "the session restarted"

// Interrupted is the reply a session was running when it stopped (a crash, a
// kill, a closed terminal), as the journal recorded it: which of its calls
// finished, with what result, and which had started.
type Interrupted struct {
	// Turn is the reply's turn.
	Turn int
	// Calls has one entry per call of the reply, in call order.
	Calls []InterruptedCall
}

// InterruptedCall is what the journal knows of one call of an interrupted
// reply.
type InterruptedCall struct {
	// Started says the call's intent was recorded: its body may have run.
	Started bool
	// Finished is the recorded result, when the call finished.
	Finished *FinishedCall
	// Partial, for a task that did not finish, says which calls its agent
	// had finished (feedback.TaskProgress), as the journal recorded them.
	Partial string
	// Rewritten, when a hook rewrote the call's arguments, is the rewrite
	// (what ran, or would have), RewrittenBy names the hook and
	// RewrittenByWorkspace says it is the workspace's.
	Rewritten            json.RawMessage
	RewrittenBy          string
	RewrittenByWorkspace bool
}

// FinishedCall is a result read back from the journal; the call is never
// performed again.
type FinishedCall struct {
	Outcome tool.Outcome
	Result  tool.Result
}

// Resume carries on a session that stopped. The session's messages end with
// the reply that was interrupted (intr, which may be nil when the session
// stopped between turns). Calls that finished keep their recorded results and
// are not performed again; a call that started but did not finish runs again
// only if it only reads, and otherwise the model reads that it may have
// partly run; calls that never started are reported as not run. Then the run
// goes on as Run would.
func (a *Agent) Resume(ctx context.Context, s *Session, intr *Interrupted) GoalOutcome {
	if s.Memory == nil {
		s.Memory = NewMemory()
	}
	mode := ""
	if a.Mode != nil {
		mode = a.Mode()
	}
	if note, _ := a.startHooks(ctx, s, "", true); note != "" {
		// The SessionStart hooks' context reaches the model with the
		// person's next input.
		s.Note = joinNotes(s.Note, note)
	}
	a.emit(RunStarted{Session: s.ID, Goal: s.Goal, Model: a.Model.Name(), Mode: mode, Resumed: true, At: Time{a.clock().Now()}})
	r := &run{agent: a, session: s, budgets: a.budgets(), started: a.clock().Now(), cat: a.catalog()}
	r.seedOrigins()
	out, ended := r.resume(ctx, intr)
	if !ended {
		out = r.loop(ctx)
	}
	a.emit(RunFinished{Outcome: out, At: Time{a.clock().Now()}})
	return out
}

func (r *run) resume(ctx context.Context, intr *Interrupted) (GoalOutcome, bool) {
	s := r.session
	if intr == nil {
		return lastReplyOutcome(s)
	}
	if len(s.Messages) == 0 || s.Messages[len(s.Messages)-1].Role != model.RoleAssistant {
		return Failed(s.Goal, fmt.Sprintf("turn %d: resume", intr.Turn),
			[]string{"the journal's conversation does not end with the interrupted reply"}), true
	}
	last := s.Messages[len(s.Messages)-1]
	reply := model.Reply{Text: last.Text, Calls: last.Calls, Cut: last.Cut}
	if len(reply.Calls) == 0 && reply.Cut == nil {
		// A reply of text alone ends the run; only its outcome was lost.
		r.agent.emit(TurnEnded{Turn: intr.Turn})
		return Succeeded(textSummary(reply.Text), mergeData(s.Memory.Snapshot(), nil)), true
	}
	if len(intr.Calls) != len(reply.Calls) {
		return Failed(s.Goal, fmt.Sprintf("turn %d: resume", intr.Turn),
			[]string{fmt.Sprintf("the journal holds %s for a reply of %d", plural.Of(len(intr.Calls), "call"), len(reply.Calls))}), true
	}

	prepared, refusals, anyRefused := r.prepareAll(reply.Calls)
	if anyRefused || reply.Cut != nil {
		r.answerInvalid(intr.Turn, reply, refusals)
		r.agent.emit(TurnEnded{Turn: intr.Turn})
		return GoalOutcome{}, false
	}

	for i, ic := range intr.Calls {
		if ic.RewrittenBy == "" {
			continue
		}
		// What runs again is what the hook made of the call, never
		// what the model first sent.
		q, err := r.cat.rewrite(prepared[i], ic.Rewritten)
		if err != nil {
			return Failed(s.Goal, fmt.Sprintf("turn %d: resume", intr.Turn),
				[]string{fmt.Sprintf("call %d's rewritten arguments no longer fit its tool: %v", i+1, err)}), true
		}
		q.rewrittenBy, q.rewrittenByWorkspace = ic.RewrittenBy, ic.RewrittenByWorkspace
		prepared[i] = q
	}
	rr := r.resumedReply(ctx, intr, prepared)
	rr.run(ctx)
	rr.settleCheckpoint(ctx)
	s.Messages = append(s.Messages, model.Message{Role: model.RoleTool, Results: rr.results()})
	r.agent.emit(TurnEnded{Turn: intr.Turn})
	if ctx.Err() != nil {
		return r.stopped(ctx, fmt.Sprintf("turn %d: the reply's calls", intr.Turn)), true
	}
	if rr.broken != nil {
		r.note(unrecorded(rr.broken))
		return r.fail(fmt.Sprintf("turn %d: the reply's calls", intr.Turn)), true
	}
	return r.controlOutcome(rr)
}

// resumedReply rebuilds the interrupted reply's state: recorded results are
// settled as they were, unknown outcomes are settled as not finished, and
// only-reading calls that were caught running are cleared to run again.
func (r *run) resumedReply(ctx context.Context, intr *Interrupted, prepared []*Prepared) *replyRun {
	rr := &replyRun{agent: r.agent, turn: intr.Turn, session: r.session.ID, mem: r.session.Memory, emit: r.agent.emit, cat: r.cat,
		inbox: make(chan any, 3*len(prepared)), store: r.session.Checkpoints, sess: r.session}
	touches := make([]tool.Touches, len(prepared))
	for i, p := range prepared {
		touches[i] = p.Touches
	}
	rr.plan = planCalls(touches)
	rr.unsettled = len(prepared)
	for i, p := range prepared {
		c := &callRun{index: i, p: p, deps: rr.plan.deps[i], batch: rr.plan.batch[i],
			key: EffectKey(r.session.ID, intr.Turn, i, p.Call.Name, p.Args)}
		rr.calls = append(rr.calls, c)
	}
	// Only the first finish or ask_user of a reply takes effect, as in a
	// reply that was not interrupted.
	ender := -1
	for i, c := range rr.calls {
		ic := intr.Calls[i]
		name := c.p.Call.Name
		if endsRun(name) && ender < 0 && (ic.Finished == nil || ic.Finished.Outcome.IsSuccess()) {
			ender = i
		}
		switch {
		case ic.Finished != nil:
			c.settled, c.started = true, ic.Started
			c.outcome, c.result = ic.Finished.Outcome, ic.Finished.Result
			rr.unsettled--
			if c.p.Call.Name == Remember && c.outcome.IsSuccess() {
				applyRemember(r.session.Memory, c.p.Args)
			}
		case ender == i || name == Remember:
			// A control call acts only on the session held in memory, which the
			// restart lost, so it is taken again: nothing outside happens twice.
			c.flow = Continue("resume", "a control call changes nothing outside the session, so it runs again after the restart")
		case endsRun(name) && ender >= 0:
			c.flow = secondEnder(rr.calls[ender].p.Call.Name)
		case ic.Started && c.p.Touches.ReadsOnly():
			c.flow = Continue("resume", "it only reads, so it runs again after the restart")
		default:
			c.started = ic.Started
			if c.p.Decl.Annotations.Delegates {
				c.partial = ic.Partial
			}
			rr.notFinished(c, RestartReason, 0)
		}
	}
	for _, c := range rr.calls {
		for _, d := range c.deps {
			if !rr.calls[d].settled {
				c.unmet++
			}
		}
	}
	return rr
}

// applyRemember replays a finished remember call into the memory.
func applyRemember(m *Memory, args json.RawMessage) {
	var a struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(args, &a) == nil && a.Key != "" {
		m.Set(a.Key, a.Value)
	}
}

// lastReplyOutcome returns the outcome the session's last reply gave, when a
// successful finish or ask_user ended it before the outcome was recorded.
func lastReplyOutcome(s *Session) (GoalOutcome, bool) {
	n := len(s.Messages)
	if n < 2 || s.Messages[n-1].Role != model.RoleTool || s.Messages[n-2].Role != model.RoleAssistant {
		return GoalOutcome{}, false
	}
	calls, results := s.Messages[n-2].Calls, s.Messages[n-1].Results
	for i, c := range calls {
		if i >= len(results) || results[i].IsError {
			continue
		}
		switch c.Name {
		case AskUser:
			var args struct {
				Question string `json:"question"`
			}
			if json.Unmarshal([]byte(c.Arguments), &args) == nil {
				return Refused(args.Question), true
			}
		case Finish:
			var args struct {
				Summary string          `json:"summary"`
				Data    json.RawMessage `json:"data"`
			}
			if json.Unmarshal([]byte(c.Arguments), &args) == nil {
				return Succeeded(args.Summary, mergeData(s.Memory.Snapshot(), args.Data)), true
			}
		}
	}
	return GoalOutcome{}, false
}

// ReplayRemember applies a finished remember call with args to the session's
// memory, as a journal rebuilding a session does.
func (s *Session) ReplayRemember(args json.RawMessage) {
	if s.Memory == nil {
		s.Memory = NewMemory()
	}
	applyRemember(s.Memory, args)
}
