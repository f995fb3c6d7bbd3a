// Package approval decides, call by call, whether a call runs, asks the
// person, or is skipped: the approval modes, and the Approver through which
// the console (or a headless run) answers.
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
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
	// Sandbox says how the call runs when its tool can confine it: in a
	// sandbox, or asking to leave it; nil otherwise.
	Sandbox *tool.Sandbox
	// WaitsFor lists the earlier calls of the reply this one depends on.
	WaitsFor []int
	// By says what asks, as Decider.String gives it (such as
	// "mode:reads"); Asker reads it back. Reason says why.
	By, Reason string
	// Preview is what the call would do, taken just before asking; nil
	// when its tool has no previews. Later previews arrive as events.
	Preview *tool.Preview
	// Task is the path of the task whose agent made the call (see
	// runtime.TaskEvent); nil for a call of the session's own run. Turn
	// and Index count within that task's run.
	Task []string
	// Provenance lists the parts of the call's arguments that came from
	// untrusted results earlier in the session; Tainted picks those that
	// reach an action.
	Provenance []tool.Origin
}

// Answer is the person's decision about one call.
type Answer struct {
	// Approve runs the call; otherwise it is skipped.
	Approve bool
	// Reason is the person's reason for a skip, which the model reads; it
	// may be empty.
	Reason string
	// By names who answered, as Decider.String gives it; empty means the
	// person.
	By string
	// Digest is the digest of the preview the person saw when approving.
	// The call then runs only if its preview still has this digest when
	// it starts; otherwise it asks again. Empty binds nothing.
	Digest string
	// Content, when set, is the person's own version of the file content
	// the call proposed: the call writes it instead, and the model reads
	// how it differs from its proposal.
	Content *string
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

// Policy is the approval hook of a session. For every call it applies, in
// order: plan mode (which skips every call that may change something,
// whatever the rules say), the deny rules, the ask rules, then for a call
// that asks to leave its sandbox the allow rules or else the person, the
// session's grants, the allow rules, sandboxed shell commands when they are
// allowed, and finally the mode. When the decision is to ask it asks its
// Approver; with no Approver (a headless run) such calls are skipped,
// because nobody can answer.
type Policy struct {
	mode atomic.Value // holds Mode; the console changes it while calls run
	// approver holds the Approver, or nil for a headless run; an MCP
	// client may change it between runs, while calls of a finishing run
	// still read it.
	approver  atomic.Pointer[Approver]
	workspace string
	rules     ruleSet
	// sandboxedShell lets calls that run in their tool's sandbox run
	// without asking.
	sandboxedShell bool

	mu      sync.Mutex // guards grants and pending
	grants  []Grant
	pending map[*pendingAsk]struct{}
}

// pendingAsk is a call waiting for the person, which a grant may release.
type pendingAsk struct {
	info    runtime.CallInfo
	release chan Grant
}

// NewPolicy returns a policy in mode m that asks approver; approver nil means
// a headless run.
func NewPolicy(m Mode, approver Approver) *Policy {
	p := &Policy{pending: map[*pendingAsk]struct{}{}}
	p.mode.Store(m)
	p.SetApprover(approver)
	return p
}

// SetApprover makes a the approver of the calls reviewed from now on; nil
// makes the policy headless, skipping the calls that would ask. agenttui's
// MCP server calls it before each run, since the client that continues a
// session may not be able to ask its user as the one that began it could.
func (p *Policy) SetApprover(a Approver) {
	if a == nil {
		p.approver.Store(nil)
		return
	}
	p.approver.Store(&a)
}

// SetWorkspace sets the folder path arguments are resolved against when rules
// match them. Call it before the first call is reviewed.
func (p *Policy) SetWorkspace(dir string) { p.workspace = workspaceRoot(dir) }

// SetRules compiles and installs rules. Call it before the first call is
// reviewed.
func (p *Policy) SetRules(rules []NamedRule) error {
	set, err := compileRules(rules)
	if err != nil {
		return err
	}
	p.rules = set
	return nil
}

// SetSandboxedShell lets calls that run in their tool's sandbox (run_shell's
// sandboxed commands) run without asking, unless plan mode or a deny or ask
// rule says otherwise. Call it before the first call is reviewed.
func (p *Policy) SetSandboxedShell(allow bool) { p.sandboxedShell = allow }

// Mode returns the current mode.
func (p *Policy) Mode() Mode { return p.mode.Load().(Mode) }

// SetMode changes the mode for calls reviewed from now on.
func (p *Policy) SetMode(m Mode) { p.mode.Store(m) }

// Review implements runtime.Hook.
func (p *Policy) Review(_ context.Context, c runtime.CallInfo) runtime.Flow {
	if runtime.IsControl(c.Call.Name) {
		return runtime.Continue(Runtime.String(), "a control tool of the runtime, which changes nothing outside the run")
	}
	mode := p.Mode()
	by := ModeDecider(mode).String()
	// A task whose agent only reads changes nothing itself: each call its
	// agent makes is reviewed here on its own, so plan and reads mode let
	// it run as they let a read run.
	readingTask := c.Decl.Annotations.Delegates && c.Touches.Access == tool.AccessIndependent
	if mode == ModePlan && !c.Touches.ReadsOnly() && !readingTask {
		return runtime.Skip(by, fmt.Sprintf("Skipped: the session is in plan mode, which is read-only, and %s may change things "+
			"(it %s), so it was not run. Describe the change you would make instead.", c.Call.Name, p.show(c.Touches)))
	}
	if r, ok := firstMatch(p.rules.deny, c, p.workspace); ok {
		reason := strings.TrimSpace(r.Reason)
		if reason == "" {
			reason = fmt.Sprintf("Skipped: a rule of this session does not allow this call to %s (rule %s); it was not run.", c.Call.Name, r.label)
		}
		return runtime.Skip(RuleDecider(r.label).String(), reason)
	}
	if f, ok := p.guardProvenance(c); ok {
		// Text from an untrusted result in an action asks whatever the
		// mode and the grants say: only a rule written for it lets it by.
		return f
	}
	if h := c.Hook; h != nil && h.Decision == hooks.Ask {
		// A hook that asks is an ask rule of the person's own: no mode,
		// grant or allow rule answers for the person.
		return p.ask(h.By, hookWhy(h))
	}
	if r, ok := firstMatch(p.rules.ask, c, p.workspace); ok {
		why := fmt.Sprintf("rule %s asks before this call", r.label)
		if r.Reason != "" {
			why += ": " + r.Reason
		}
		return p.ask(RuleDecider(r.label).String(), why)
	}
	if c.Sandbox != nil && c.Sandbox.Escalated {
		// Leaving the sandbox is the person's decision every time: no
		// mode and no grant stands in for it, only a rule written for it.
		if r, ok := firstMatch(p.rules.allow, c, p.workspace); ok {
			return runtime.Continue(RuleDecider(r.label).String(), "an allow rule matches this call outside the sandbox")
		}
		return p.ask(escalation.String(), fmt.Sprintf("%s asks to run outside its sandbox, which always needs the person's approval", c.Call.Name))
	}
	if h := c.Hook; h != nil && h.Decision == hooks.Allow {
		// Below plan mode, the deny and ask rules, provenance and the
		// sandbox's edge: a hook's allow stands in only for the mode.
		return runtime.Continue(h.By, hookWhy(h))
	}
	if g, ok := p.coveringGrant(c); ok {
		return runtime.Continue(GrantDecider(g.Label(p.workspace)).String(), grantAllowed)
	}
	if r, ok := firstMatch(p.rules.allow, c, p.workspace); ok {
		reason := "an allow rule matches"
		if r.Reason != "" {
			reason = r.Reason
		}
		return runtime.Continue(RuleDecider(r.label).String(), reason)
	}
	if p.sandboxedShell && c.Sandbox != nil && c.Sandbox.Sandboxed {
		return runtime.Continue(sandboxedShell.String(), fmt.Sprintf("sandboxed %s commands run without asking (approval.sandboxed_shell is allow)", c.Call.Name))
	}
	switch mode {
	case ModeAuto:
		return runtime.Continue(by, "auto mode runs every call")
	case ModePlan, ModeReads:
		if opensWorld(c) {
			return p.ask(by, fmt.Sprintf("%s mode asks before %s reaches a host it has not been granted (it %s)", mode, c.Call.Name, p.show(c.Touches)))
		}
		if c.Touches.ReadsOnly() {
			return runtime.Continue(by, string(mode)+" mode runs calls that only read")
		}
		if readingTask {
			return runtime.Continue(by, string(mode)+" mode runs a task whose agent only reads; each of its calls is reviewed on its own")
		}
		return p.ask(by, fmt.Sprintf("reads mode asks before a call that may change things (it %s)", p.show(c.Touches)))
	default:
		return p.ask(by, "ask mode asks before every call")
	}
}

// hookWhy says why a hook's decision was made, as the console and the
// event stream show it: the hook and its reason.
func hookWhy(h *runtime.HookDecision) string {
	verb := "allows"
	if h.Decision == hooks.Ask {
		verb = "asks before"
	}
	why := fmt.Sprintf("hook %s %s this call", strings.TrimPrefix(h.By, hookPrefix), verb)
	if r := strings.TrimSpace(h.Reason); r != "" {
		why += ": " + r
	}
	return why
}

// show describes a footprint with workspace paths made relative.
func (p *Policy) show(t tool.Touches) string {
	s := t.String()
	if p.workspace != "" {
		s = strings.ReplaceAll(s, p.workspace+"/", "")
		s = strings.ReplaceAll(s, p.workspace, "the workspace")
	}
	return s
}

func (p *Policy) ask(by, why string) runtime.Flow {
	approver := p.approver.Load()
	if approver == nil {
		return runtime.Skip(Headless.String(), fmt.Sprintf("Skipped: this call needs approval (%s) and this run is headless, "+
			"so nobody can give it; the call was not run.", why))
	}
	return runtime.Ask(by, why, func(ctx context.Context, req runtime.AskRequest) runtime.Flow {
		return p.wait(ctx, *approver, req)
	})
}

// wait asks the approver about one call, unless a grant added meanwhile
// covers it or releases it while the person decides.
func (p *Policy) wait(ctx context.Context, approver Approver, req runtime.AskRequest) runtime.Flow {
	pa := &pendingAsk{info: req.CallInfo, release: make(chan Grant, 1)}
	p.mu.Lock()
	if g, ok := p.coveringGrantLocked(req.CallInfo); ok {
		p.mu.Unlock()
		return runtime.Continue(GrantDecider(g.Label(p.workspace)).String(), grantAllowed)
	}
	p.pending[pa] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, pa)
		p.mu.Unlock()
	}()

	askCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan Answer, 1)
	go func() {
		answers <- approver.Approve(askCtx, Request{
			Turn: req.Turn, Index: req.Index, Call: req.Call, Args: req.Args, Touches: req.Touches,
			Sandbox: req.Sandbox, WaitsFor: req.WaitsFor, By: req.By, Reason: req.Reason, Preview: req.Preview,
			Task: req.Task, Provenance: req.Provenance,
		})
	}()
	select {
	case a := <-answers:
		return a.flow()
	case g := <-pa.release:
		// Cancelling the request withdraws it from the approver's screen.
		return runtime.Continue(GrantDecider(g.Label(p.workspace)).String(), grantReleased)
	case <-ctx.Done():
		return runtime.Skip(Person.String(), "Skipped: the turn ended before anyone answered; the call was not run.")
	}
}

// flow turns the answer into the hook's decision, with the text the model
// reads for a skip: who skipped it, why, and that it did not run.
func (a Answer) flow() runtime.Flow {
	by := a.By
	if by == "" {
		by = Person.String()
	}
	switch {
	case a.Approve && a.Content != nil:
		return runtime.ApprovedEdited(by, "approved with the person's own version of the content", a.Digest, *a.Content)
	case a.Approve:
		return runtime.Approved(by, "approved", a.Digest)
	}
	who := "the person"
	if by != Person.String() {
		who = by
	}
	reason := strings.TrimRight(strings.TrimSpace(a.Reason), ".")
	if reason == "" {
		return runtime.Skip(by, fmt.Sprintf(noReasonSkip, who))
	}
	return runtime.Skip(by, fmt.Sprintf(reasonSkip, who, reason))
}

// What the model reads about a skip that someone answered: who, and why.
const (
	noReasonSkip = "Skipped by %s, who gave no reason; the call was not run."
	reasonSkip   = "Skipped by %s: %s. The call was not run."
)

// PersonsSkipReason reads back the reason a person gave for skipping a
// call from what the model read about it (a CallDecision's reason, by
// "user"): "" for a skip without a reason. ok is false when the text is
// not a person's skip, such as a skip because the turn ended before anyone
// answered.
func PersonsSkipReason(text string) (reason string, ok bool) {
	if text == fmt.Sprintf(noReasonSkip, "the person") {
		return "", true
	}
	prefix, suffix, _ := strings.Cut(reasonSkip, "%s: %s")
	prefix += "the person: "
	if strings.HasPrefix(text, prefix) && strings.HasSuffix(text, suffix) && len(text) > len(prefix)+len(suffix) {
		return text[len(prefix) : len(text)-len(suffix)], true
	}
	return "", false
}

// opensWorld reports whether c is a local tool that reaches outside the
// machine (web_fetch): though it only reads, it asks once per host in reads
// and plan mode, since a page is outside content and its address can carry
// data out.
func opensWorld(c runtime.CallInfo) bool {
	return c.Decl.Annotations.OpenWorld && !c.Decl.Untrusted && c.Touches.ReadsOnly() && netScope(c.Touches.Scope)
}

// netScope reports whether every path of s is a network resource
// (/net/<host>).
func netScope(s tool.Scope) bool {
	paths := s.PathList()
	if len(paths) == 0 {
		return false
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/net/") {
			return false
		}
	}
	return true
}
