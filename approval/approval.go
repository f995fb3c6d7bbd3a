// Package approval decides, call by call, whether a call runs, asks the
// person, or is skipped: the approval modes, and the Approver through which
// the console (or a headless run) answers.
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Mode is how much the person wants to be asked.
type Mode string

// The approval modes.
const (
	// ModeAsk asks for every call.
	ModeAsk Mode = "ask"
	// ModeReads runs calls that only read and asks for the rest; the
	// default.
	ModeReads Mode = "reads"
	// ModeAuto runs every call unless a rule denies it.
	ModeAuto Mode = "auto"
	// ModePlan runs calls that only read and skips the rest: the session
	// is read-only.
	ModePlan Mode = "plan"
)

// Modes lists the modes in the order the console cycles through them.
var Modes = []Mode{ModeAsk, ModeReads, ModeAuto, ModePlan}

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown mode %q: use ask, reads, auto or plan", s)
}

// Next returns the mode after m in the cycle ask → reads → auto → plan.
func (m Mode) Next() Mode {
	for i, x := range Modes {
		if x == m {
			return Modes[(i+1)%len(Modes)]
		}
	}
	return ModeReads
}

// Request asks the person about one call.
type Request struct {
	// Turn and Index identify the call.
	Turn, Index int
	// Call is the call as the model sent it.
	Call tool.Call
	// Args are the checked arguments.
	Args json.RawMessage
	// Touches is the call's footprint.
	Touches tool.Touches
	// WaitsFor lists the earlier calls of the reply this one depends on.
	WaitsFor []int
	// By says what asks (such as "mode:reads"), Reason why.
	By, Reason string
}

// Answer is the person's decision about one call.
type Answer struct {
	// Approve runs the call; otherwise it is skipped.
	Approve bool
	// Reason is the person's reason for a skip, which the model reads; it
	// may be empty.
	Reason string
	// By names who answered; empty means "user".
	By string
}

// Approve returns an answer that lets the call run.
func Approve() Answer { return Answer{Approve: true} }

// SkipWith returns an answer that skips the call for reason.
func SkipWith(reason string) Answer { return Answer{Reason: reason} }

// Approver answers approval requests. Approve blocks until the person
// decides or ctx ends; when ctx ends it must return promptly (its answer is
// then ignored). It is called from several goroutines at once, one for each
// waiting call.
type Approver interface {
	Approve(ctx context.Context, req Request) Answer
}

// ApproverFunc adapts a function to the Approver interface.
type ApproverFunc func(ctx context.Context, req Request) Answer

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req Request) Answer { return f(ctx, req) }

// Policy is the approval hook of a session: it applies the mode to every call
// and asks its Approver when the mode says to ask. With no Approver (a
// headless run) calls that would ask are skipped, because nobody can answer.
type Policy struct {
	mode     atomic.Value // holds Mode; the console changes it while calls run
	approver Approver
}

// NewPolicy returns a policy in mode m that asks approver; approver nil means
// a headless run.
func NewPolicy(m Mode, approver Approver) *Policy {
	p := &Policy{approver: approver}
	p.mode.Store(m)
	return p
}

// Mode returns the current mode.
func (p *Policy) Mode() Mode { return p.mode.Load().(Mode) }

// SetMode changes the mode for calls reviewed from now on.
func (p *Policy) SetMode(m Mode) { p.mode.Store(m) }

// Review implements runtime.Hook.
func (p *Policy) Review(_ context.Context, c runtime.CallInfo) runtime.Flow {
	if runtime.IsControl(c.Call.Name) {
		return runtime.Continue("runtime", "a control tool of the runtime, which changes nothing outside the run")
	}
	mode := p.Mode()
	by := "mode:" + string(mode)
	switch mode {
	case ModeAuto:
		return runtime.Continue(by, "auto mode runs every call")
	case ModePlan:
		if c.Touches.ReadsOnly() {
			return runtime.Continue(by, "plan mode runs calls that only read")
		}
		return runtime.Skip(by, fmt.Sprintf("Skipped: the session is in plan mode, which is read-only, and %s may change things "+
			"(it %s), so it was not run. Describe the change you would make instead.", c.Call.Name, c.Touches))
	case ModeReads:
		if c.Touches.ReadsOnly() {
			return runtime.Continue(by, "reads mode runs calls that only read")
		}
		return p.ask(by, fmt.Sprintf("reads mode asks before a call that may change things (%s)", c.Touches))
	default:
		return p.ask(by, "ask mode asks before every call")
	}
}

func (p *Policy) ask(by, why string) runtime.Flow {
	if p.approver == nil {
		return runtime.Skip("headless", fmt.Sprintf("Skipped: this call needs approval (%s) and this run is headless, "+
			"so nobody can give it; the call was not run.", why))
	}
	return runtime.Ask(by, why, func(ctx context.Context, req runtime.AskRequest) runtime.Flow {
		answer := p.approver.Approve(ctx, Request{
			Turn: req.Turn, Index: req.Index, Call: req.Call, Args: req.Args, Touches: req.Touches,
			WaitsFor: req.WaitsFor, By: req.By, Reason: req.Reason,
		})
		return answer.flow()
	})
}

// flow turns the answer into the hook's decision, with the text the model
// reads for a skip: who skipped it, why, and that it did not run.
func (a Answer) flow() runtime.Flow {
	by := a.By
	if by == "" {
		by = "user"
	}
	if a.Approve {
		return runtime.Continue(by, "approved")
	}
	who := "the person"
	if by != "user" {
		who = by
	}
	reason := strings.TrimRight(strings.TrimSpace(a.Reason), ".")
	if reason == "" {
		return runtime.Skip(by, fmt.Sprintf("Skipped by %s, who gave no reason; the call was not run.", who))
	}
	return runtime.Skip(by, fmt.Sprintf("Skipped by %s: %s. The call was not run.", who, reason))
}
