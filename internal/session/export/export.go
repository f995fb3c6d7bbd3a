// Package export turns a journaled session into a scenario that plays it
// again (agenttui sessions export): the model's replies with their exact
// arguments and timing, and the person's inputs and decisions, so that
// --autopilot can replay a whole session as a demo or a reproduction.
package export

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Result is a session made into a scenario, with what the person should
// know about it: what it carries of the person, and what it could not carry
// as it happened.
type Result struct {
	// Scenario plays the session again.
	Scenario *model.Scenario
	// session is the id of the session exported.
	session string
	// mode is the approval mode of the session's first run; modes lists
	// every mode its runs had, in order.
	mode  string
	modes []string
	// inputs, approvals, skips and grants count what the scenario
	// carries of the person.
	inputs, approvals, skips, grants int
	// notes are what the scenario could not carry as it happened.
	notes []string
}

// FromJournal turns a session's journal into a scenario: a step for each of
// the model's replies, with the input the person sent before it, its text,
// its calls with their exact argument text, and how long the model took; and
// each call's decision, when the person made one. Its name is the session's,
// which the caller may change before encoding it.
func FromJournal(rp *journal.Replay) *Result {
	ex := &Result{Scenario: &model.Scenario{
		Name:        "session-" + rp.Header.Session,
		Description: "Session " + rp.Header.Session + ": " + journal.FirstLine(rp.Header.Goal),
	}, session: rp.Header.Session}
	policy := approval.NewPolicy(approval.ModeReads, nil)
	policy.SetWorkspace(rp.Header.Workspace)
	turnStart := map[int]runtime.Time{}
	replied := map[int]runtime.Time{}
	stepOf := map[int]int{}
	planned := map[callRef]runtime.PlannedCall{}
	// released are the calls each grant released as it was given, by
	// turn and label: the person gave it from one of them.
	released := map[grantKey][]int{}
	var grantOrder []grantKey
	// settleGrants records the grants given so far. It runs before each
	// reply, since the turn numbers that key them come again once the
	// conversation was rewound: a later reply of the same turn is another
	// step, with other calls.
	settleGrants := func() {
		for _, k := range grantOrder {
			ex.grant(k, released[k], stepOf, planned, policy)
		}
		clear(released)
		grantOrder = grantOrder[:0]
	}
	input := ""
	for _, e := range rp.Events {
		switch ev := e.(type) {
		case runtime.RunStarted:
			if len(ex.modes) == 0 || ex.modes[len(ex.modes)-1] != ev.Mode {
				ex.modes = append(ex.modes, ev.Mode)
			}
			if ev.Resumed {
				continue
			}
			if input != "" {
				ex.note("the input %q got no reply from the model, so the scenario keeps only the input after it", short(journal.FirstLine(input), 40))
			}
			input = ev.Input
		case runtime.TurnStarted:
			turnStart[ev.Turn] = ev.At
		case runtime.UsageReported:
			replied[ev.Turn] = ev.At
		case runtime.ReplyReceived:
			settleGrants()
			st := model.Step{Input: strings.TrimSpace(input), Text: ev.Text}
			if st.Input != "" {
				ex.inputs++
			}
			input = ""
			if s, r := turnStart[ev.Turn], replied[ev.Turn]; !s.IsZero() && r.After(s.Time) {
				st.DelayMS = int(r.Sub(s.Time).Milliseconds())
			}
			for _, pc := range ev.Calls {
				planned[callRef{ev.Turn, pc.Index}] = pc
				st.Calls = append(st.Calls, scriptedCall(pc.Name, pc.Args, pc.Raw))
			}
			if c := ev.Cut; c != nil {
				raw := c.Raw
				st.Cut = &model.ScriptedCall{Name: c.Name, RawArgs: &raw}
			}
			if st.Text == "" && len(st.Calls) == 0 && st.Cut == nil {
				ex.note("turn %d: the model replied with nothing, which a scenario cannot hold; it is left out", ev.Turn)
				continue
			}
			stepOf[ev.Turn] = len(ex.Scenario.Steps)
			ex.Scenario.Steps = append(ex.Scenario.Steps, st)
		case runtime.CallDecision:
			step, ok := stepOf[ev.Turn]
			if !ok || ev.Index < 0 || ev.Index >= len(ex.Scenario.Steps[step].Calls) {
				continue
			}
			if label, ok := releasedBy(ev); ok {
				k := grantKey{ev.Turn, label}
				if released[k] == nil {
					grantOrder = append(grantOrder, k)
				}
				released[k] = append(released[k], ev.Index)
				continue
			}
			c := &ex.Scenario.Steps[step].Calls[ev.Index]
			if d := ex.decision(ev, planned[callRef{ev.Turn, ev.Index}]); d != nil && c.Decision == nil {
				c.Decision = d
			}
		case runtime.RunFinished:
			if ev.Outcome.Status == runtime.StatusFailed && strings.Contains(strings.Join(ev.Outcome.Attempts, " "), "stopped: the person") {
				ex.note("a run was stopped with esc (%s); a scenario cannot carry a stop, so the autopilot will not stop it", ev.Outcome.FailingStep)
			}
		}
	}
	settleGrants()
	if len(ex.modes) > 0 {
		ex.mode = ex.modes[0]
	}
	if len(ex.modes) > 1 {
		ex.note("the approval mode changed during the session (%s); a scenario plays in one mode", strings.Join(ex.modes, " → "))
	}
	return ex
}

// callRef names a call of a session: its turn and index.
type callRef struct{ turn, index int }

// scriptedCall returns a scenario call whose arguments are the exact text
// the model sent: args when they read back as it, else raw.
func scriptedCall(name string, args []byte, raw string) model.ScriptedCall {
	c := model.ScriptedCall{Name: name}
	switch {
	case raw != "":
		c.RawArgs = &raw
	case len(args) > 0:
		c.Args = append([]byte(nil), args...)
	}
	return c
}

// decision returns the person's decision that ev records, or nil when ev is
// not one (a mode, a rule, a call a grant covered without asking).
func (ex *Result) decision(ev runtime.CallDecision, pc runtime.PlannedCall) *model.Decision {
	if approval.ProvenanceOf(ev).Who != approval.WhoPerson {
		return nil
	}
	switch {
	case ev.Decision == runtime.DecisionRun:
		ex.approvals++
		if ev.Edited {
			ex.note("turn %d: the person approved #%d %s with their own version of its content, which the journal does not keep; "+
				"the scenario approves the model's version", ev.Turn, ev.Index+1, pc.Name)
		}
		return &model.Decision{Kind: model.DecisionApprove}
	case ev.Decision == runtime.DecisionSkip:
		reason, ok := approval.PersonsSkipReason(ev.Reason)
		if !ok {
			// Skipped because the turn ended first: nobody decided.
			return nil
		}
		ex.skips++
		return &model.Decision{Kind: model.DecisionSkip, Reason: reason}
	}
	return nil
}

// grantKey names a grant given during a turn.
type grantKey struct {
	turn  int
	label string
}

// releasedBy returns the label of the grant that released ev's call as
// the person gave it; ok is false for any other decision, a call a grant
// given earlier covered included.
func releasedBy(ev runtime.CallDecision) (label string, ok bool) {
	p := approval.ProvenanceOf(ev)
	return p.Label, p.Released
}

// grant records the grant k as the decision of the first of the calls it
// released (by their index) that offers it: the person gave it from one
// of them, and it releases the others again when the scenario is played.
func (ex *Result) grant(k grantKey, indexes []int, stepOf map[int]int, planned map[callRef]runtime.PlannedCall, policy *approval.Policy) {
	slices.Sort(indexes)
	for _, i := range indexes {
		pc := planned[callRef{k.turn, i}]
		if pc.Touches == nil {
			continue
		}
		req := approval.Request{Call: pcCall(pc), Touches: *pc.Touches, Sandbox: pc.Sandbox}
		for _, g := range policy.GrantOptions(req) {
			if policy.GrantLabel(g) != k.label {
				continue
			}
			kind := model.GrantTool
			switch {
			case g.Sandboxed:
				kind = model.GrantSandboxed
			case !g.Within.IsEmpty():
				kind = model.GrantFolder
			}
			ex.Scenario.Steps[stepOf[k.turn]].Calls[i].Decision = &model.Decision{Kind: model.DecisionGrant, Grant: kind}
			ex.grants++
			return
		}
	}
	ex.note("turn %d: the grant %q was given, and none of the calls it released offers it here, so the scenario does not carry it", k.turn, k.label)
}

// note adds what the person should know about the export.
func (ex *Result) note(format string, args ...any) {
	ex.notes = append(ex.notes, fmt.Sprintf(format, args...))
}

// PlayFlags returns the flags the scenario should be played with to meet
// the approvals the session met: its mode, when not the default; empty, or
// starting with a space.
func (ex *Result) PlayFlags() string {
	if ex.mode != "" && ex.mode != string(approval.ModeReads) {
		return " --mode " + ex.mode
	}
	return ""
}

// Report says what was exported to where and what the scenario could not
// carry, a line each: the first counts what the scenario holds, each of the
// others starts with "note: ".
func (ex *Result) Report(where string) []string {
	lines := []string{fmt.Sprintf("exported session %s to %s: %d step(s), %d input(s), %d approval(s), %d skip(s), %d grant(s)",
		ex.session, where, len(ex.Scenario.Steps), ex.inputs, ex.approvals, ex.skips, ex.grants)}
	notes := ex.notes
	if ex.mode != "" && ex.mode != string(approval.ModeReads) {
		notes = append(slices.Clip(notes), fmt.Sprintf("the session ran in %s mode: play it with --mode %s, "+
			"or calls that ran without asking will ask, and the autopilot will wait for you", ex.mode, ex.mode))
	}
	for _, n := range notes {
		lines = append(lines, "note: "+n)
	}
	return lines
}

// pcCall returns the call a planned call was made from, as the policy sees
// it.
func pcCall(pc runtime.PlannedCall) tool.Call {
	return tool.Call{ID: pc.ID, Name: pc.Name, Arguments: string(pc.Args)}
}

// short cuts s to n runes with an ellipsis.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
