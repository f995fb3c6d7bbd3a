package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// handleReply validates and runs one reply. It reports whether the reply was
// invalid, and whether the run ended with it (and how).
func (r *run) handleReply(ctx context.Context, turn int, reply model.Reply) (out GoalOutcome, invalid, ended bool) {
	a, s := r.agent, r.session
	s.AppendReply(turn, model.Message{Role: model.RoleAssistant, Text: reply.Text, Calls: reply.Calls, Cut: reply.Cut,
		Reasoning: reply.Reasoning})

	prepared, refusals, anyRefused := r.prepareAll(reply.Calls)
	if anyRefused || reply.Cut != nil {
		a.emit(plannedReply(turn, reply, nil, replyPlan{}))
		r.answerInvalid(turn, reply, refusals)
		return GoalOutcome{}, true, false
	}

	if len(reply.Calls) == 0 && reply.Stop == model.StopOutputLimit {
		// Text cut off by the output limit is not a summary to end on: the
		// model is told, and tries again within the invalid-reply budget.
		a.emit(plannedReply(turn, reply, nil, replyPlan{}))
		r.note("the reply was cut off by the output limit")
		a.emit(InvalidReply{Turn: turn, Results: []string{feedback.TextCut}})
		s.Messages = append(s.Messages, model.Message{Role: model.RoleUser, Text: feedback.TextCut})
		return GoalOutcome{}, true, false
	}
	if len(reply.Calls) == 0 {
		a.emit(plannedReply(turn, reply, nil, replyPlan{}))
		return Succeeded(textSummary(reply.Text), mergeData(s.Memory.Snapshot(), nil)), false, true
	}

	rr := r.prepareReply(ctx, turn, prepared)
	final := make([]*Prepared, len(rr.calls))
	for i, c := range rr.calls {
		final[i] = c.p
	}
	a.emit(plannedReply(turn, reply, final, rr.plan))
	r.publishPre(turn, rr.preHooks)
	rr.run(ctx)
	rr.settleCheckpoint(ctx)
	// What the reply's tasks spent counts in the session's total, which
	// the next usage event and the run's end report.
	s.Usage = s.Usage.Add(rr.tasksSpent())
	r.waited += rr.personWait
	results := rr.results()
	s.Messages = append(s.Messages, model.Message{Role: model.RoleTool, Results: results})
	for _, c := range rr.calls {
		if f := c.outcome.Failure(); f != nil {
			r.note(fmt.Sprintf("%s (call %d of turn %d): %s", c.p.Call.Name, c.index+1, turn, f))
		}
	}
	if ctx.Err() != nil {
		return r.stopped(ctx, fmt.Sprintf("turn %d: the reply's calls", turn)), false, true
	}
	if rr.broken != nil {
		r.note(unrecorded(rr.broken))
		return r.fail(fmt.Sprintf("turn %d: the reply's calls", turn)), false, true
	}
	if out, ok := r.controlOutcome(rr); ok {
		return out, false, true
	}
	return GoalOutcome{}, false, false
}

// prepareAll checks every call of a reply against the turn's catalogue. For a
// call that cannot run, refusals holds what the model reads.
func (r *run) prepareAll(calls []tool.Call) (prepared []*Prepared, refusals []string, anyRefused bool) {
	prepared = make([]*Prepared, len(calls))
	refusals = make([]string, len(calls))
	for i, c := range calls {
		p, err := r.cat.Prepare(c)
		var refused *RefusedError
		switch {
		case errors.As(err, &refused):
			refusals[i], anyRefused = refused.Feedback, true
		case err != nil:
			refusals[i], anyRefused = err.Error(), true
		default:
			prepared[i] = p
		}
	}
	return prepared, refusals, anyRefused
}

// answerInvalid gives the model the results of a reply that cannot run and
// publishes them.
func (r *run) answerInvalid(turn int, reply model.Reply, refusals []string) {
	results := r.invalidResults(reply, refusals)
	texts := make([]string, len(results))
	for i, res := range results {
		texts[i] = res.Content
	}
	r.agent.emit(InvalidReply{Turn: turn, Results: texts})
	r.session.Messages = append(r.session.Messages, model.Message{Role: model.RoleTool, Results: results})
}

// invalidResults answers a reply that cannot run: each refused call gets its
// own feedback, every other call the peer notice, and a cut call the output
// limit feedback.
func (r *run) invalidResults(reply model.Reply, refusals []string) []tool.Result {
	first := -1
	for i, text := range refusals {
		if text != "" {
			first = i
			break
		}
	}
	var results []tool.Result
	if first >= 0 {
		results = feedback.InvalidCall(reply.Calls, first, refusals[first])
		for i, text := range refusals {
			if text != "" {
				results[i] = feedback.ResultMessage(reply.Calls[i], text)
				r.note(text)
			}
		}
	} else {
		for _, c := range reply.Calls {
			results = append(results, feedback.NotExecuted(c))
		}
	}
	if reply.Cut != nil {
		text := feedback.OutputLimit(reply.Cut.Name, reply.Cut.Arguments)
		r.note(text)
		results = append(results, feedback.ResultMessage(*reply.Cut, text))
	}
	return results
}

// prepareReply runs the hooks over every call, settles which control call
// takes effect, and plans the dependencies.
func (r *run) prepareReply(ctx context.Context, turn int, prepared []*Prepared) *replyRun {
	a := r.agent
	rr := &replyRun{agent: a, turn: turn, session: r.session.ID, mem: r.session.Memory, emit: a.emit, cat: r.cat,
		inbox: make(chan any, 3*len(prepared)), store: r.session.Checkpoints, sess: r.session}
	rr.calls = make([]*callRun, len(prepared))
	ender := ""
	rr.preHooks = r.preCallHooks(ctx, turn, prepared)
	for i, p := range prepared {
		p.origins, p.sources = r.session.trace(p.Call.Name, p.Args)
		c := &callRun{index: i, p: p}
		var settled *Flow
		if rr.preHooks != nil {
			p, settled = r.applyPreHook(p, rr.preHooks[i])
		}
		if settled != nil {
			c.p, c.flow = p, *settled
		} else {
			c.p, c.flow = r.review(ctx, turn, i, p)
		}
		if endsRun(p.Call.Name) && !c.flow.IsSkip() {
			if ender == "" {
				ender = p.Call.Name
			} else {
				c.flow = secondEnder(ender)
			}
		}
		rr.calls[i] = c
	}
	touches := make([]tool.Touches, len(rr.calls))
	for i, c := range rr.calls {
		touches[i] = c.p.Touches
	}
	rr.plan = planCalls(touches)
	for i, c := range rr.calls {
		c.deps = rr.plan.deps[i]
		c.batch = rr.plan.batch[i]
		c.unmet = len(c.deps)
		c.key = EffectKey(r.session.ID, turn, i, c.p.Call.Name, c.p.Args)
	}
	rr.unsettled = len(rr.calls)
	return rr
}

// secondEnder skips a finish or ask_user call that follows the call of the
// same reply (named ender) that already ends the run.
func secondEnder(ender string) Flow {
	return Skip("runtime", fmt.Sprintf("Not used: the %s call before this one in the same reply already ends the run, "+
		"so this call was not run.", ender))
}

// review passes a call through the hooks in order. A rewrite is checked
// against the schema and gives the call a new footprint; a rewrite that does
// not fit skips the call with the schema's feedback.
func (r *run) review(ctx context.Context, turn, index int, p *Prepared) (*Prepared, Flow) {
	flow := Continue("default", "no hook reviewed this call")
	for _, h := range r.agent.Hooks {
		info := CallInfo{Turn: turn, Index: index, Call: p.Call, Args: p.Args, Touches: p.Touches, Decl: p.Decl, Sandbox: p.Sandbox,
			Task: r.agent.task, Provenance: p.origins, Sources: p.sources, Hook: p.hook}
		f := h.Review(ctx, info)
		switch f.action {
		case flowContinue:
			flow = f
		case flowRewrite:
			q, err := r.cat.rewrite(p, f.args)
			if err != nil {
				return p, Skip(f.By, "Skipped: a hook rewrote the arguments of this call and the new ones do not fit: "+err.Error())
			}
			p = q
			p.origins, p.sources = r.session.trace(p.Call.Name, p.Args)
			flow = Continue(f.By, "arguments rewritten")
		default:
			return p, f
		}
	}
	return p, flow
}

// controlOutcome returns the outcome a successful finish or ask_user call
// gives the run, if the reply had one.
func (r *run) controlOutcome(rr *replyRun) (GoalOutcome, bool) {
	for _, c := range rr.calls {
		if !c.outcome.IsSuccess() {
			continue
		}
		switch c.p.Call.Name {
		case AskUser:
			var args struct {
				Question string `json:"question"`
			}
			_ = json.Unmarshal(c.p.Args, &args)
			return Refused(args.Question), true
		case Finish:
			var args struct {
				Summary string          `json:"summary"`
				Data    json.RawMessage `json:"data"`
			}
			_ = json.Unmarshal(c.p.Args, &args)
			return Succeeded(args.Summary, mergeData(r.session.Memory.Snapshot(), args.Data)), true
		}
	}
	return GoalOutcome{}, false
}

// mergeData lays data over the remembered values: when data is an object its
// keys override remembered keys of the same name; any other non-null data
// replaces the memory. With nothing remembered and no data it is nil.
func mergeData(memory map[string]json.RawMessage, data json.RawMessage) json.RawMessage {
	trimmed := strings.TrimSpace(string(data))
	if trimmed != "" && trimmed != "null" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return data
		}
		for k, v := range obj {
			memory[k] = v
		}
	}
	if len(memory) == 0 {
		return nil
	}
	b, err := json.Marshal(memory)
	if err != nil {
		return nil
	}
	return b
}

// plannedReply builds the reply event. prepared is nil for a reply that will
// not run, whose calls then carry no footprint.
func plannedReply(turn int, reply model.Reply, prepared []*Prepared, plan replyPlan) ReplyReceived {
	ev := ReplyReceived{Turn: turn, Text: reply.Text, Stop: string(reply.Stop), Calls: make([]PlannedCall, len(reply.Calls)),
		Reasoning: reply.Reasoning, Model: reply.Model}
	for i, c := range reply.Calls {
		pc := PlannedCall{Index: i, ID: c.ID, Name: c.Name, Args: model.ArgumentsJSON(c), WaitsFor: []int{}}
		if prepared != nil {
			p := prepared[i]
			t := p.Touches
			pc.Args = p.Args
			pc.Touches = &t
			pc.Sandbox = p.Sandbox.Clone()
			pc.WaitsFor = append(pc.WaitsFor, plan.deps[i]...)
			pc.Batch = plan.batch[i]
			pc.Provenance = p.origins
			pc.RewrittenBy, pc.RewrittenByWorkspace = p.rewrittenBy, p.rewrittenByWorkspace
		}
		if !isObject(c.Arguments) || !encodesAs(pc.Args, c.Arguments) {
			// The exact text the model sent, so that a resumed session
			// sends the model its own bytes back: args is re-encoded
			// (spacing, escapes) and may be a hook's rewrite.
			pc.Raw = c.Arguments
		}
		ev.Calls[i] = pc
	}
	if reply.Cut != nil {
		ev.Cut = &CutCall{ID: reply.Cut.ID, Name: reply.Cut.Name, Raw: reply.Cut.Arguments}
	}
	return ev
}

// encodesAs reports whether args, written in an event, reads back as text
// exactly.
func encodesAs(args json.RawMessage, text string) bool {
	b, err := json.Marshal(args)
	return err == nil && string(b) == text
}

// isObject reports whether raw is one JSON object, so that its compact form
// in an event says the same as the text the model sent.
func isObject(raw string) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(raw), &obj) == nil && obj != nil
}

// EffectKey identifies a call's effect: a hash of the session, the call's
// position in the session (turn and index), its tool and its canonical
// arguments (keys sorted, no spaces). The journal records it with the call's
// intent and result, so a resumed session can tell the effects apart.
func EffectKey(session string, turn, index int, name string, args json.RawMessage) string {
	canonical := args
	var v any
	if err := json.Unmarshal(args, &v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			canonical = b
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00", session, turn, index, name)
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// textSummary is the summary of a run that a reply of text alone ended.
func textSummary(text string) string {
	if summary := strings.TrimSpace(text); summary != "" {
		return summary
	}
	return "The model ended its turn without a summary."
}

// bound returns what the model reads of a call's output text: a summary of
// a binary output, and a text longer than the bound cut to its start and
// end with the tool's advice on getting the rest. whole is the output's size
// when it was summarised or cut, else zero.
func (a *Agent) bound(text string, d tool.Declaration) (out string, whole int) {
	if tool.IsBinary(text) {
		return tool.DescribeBinary(text, int64(len(text))), len(text)
	}
	limit := a.MaxResultBytes
	if limit == 0 {
		limit = feedback.DefaultMaxResultBytes
	}
	if cut, ok := feedback.Bound(text, limit, d.More); ok {
		return cut, len(text)
	}
	return text, 0
}
