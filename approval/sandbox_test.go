package approval

import (
	"context"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// shellCall is a run_shell call, in the sandbox or asking to leave it.
func shellCall(command string, sb *tool.Sandbox) runtime.CallInfo {
	args := `{"command":"` + command + `"}`
	touches := tool.Writes(tool.Paths(ws, "/tmp/agenttui-shell-1"))
	if sb != nil && sb.Escalated {
		args = `{"command":"` + command + `","sandbox":false}`
		touches = tool.Writes(tool.Anything())
	}
	c := info("run_shell", args, touches)
	c.Sandbox = sb
	return c
}

var (
	inSandbox  = &tool.Sandbox{Sandboxed: true, Mode: "workspace-write", Writable: []string{ws, "/tmp/agenttui-shell-1"}}
	outSandbox = &tool.Sandbox{Escalated: true, Why: "it asked to run unsandboxed (sandbox: false)"}
	noSandbox  = &tool.Sandbox{Why: "this kernel has no Landlock"}
)

// TestSandboxedShellAllow checks approval.sandboxed_shell: sandboxed calls
// run without asking, unsandboxed ones still follow the mode and the rules,
// and plan mode and deny or ask rules still win.
func TestSandboxedShellAllow(t *testing.T) {
	p := policy(t, ModeReads, rule("run_shell", Deny, "no-rm", "command", "rm *"), rule("run_shell", AskFirst, "ask-push", "command", "git push*"))
	p.SetSandboxedShell(true)
	cases := []struct {
		name string
		call runtime.CallInfo
		want string
	}{
		{"a sandboxed call runs", shellCall("make", inSandbox), "run by sandboxed_shell:allow"},
		{"a call with no sandbox follows the mode", shellCall("make", noSandbox), "ask by mode:reads"},
		{"a call leaving the sandbox asks", shellCall("make", outSandbox), "ask by sandbox:false"},
		{"a deny rule still denies", shellCall("rm -rf x", inSandbox), "skip by rule:no-rm"},
		{"an ask rule still asks", shellCall("git push", inSandbox), "ask by rule:ask-push"},
		{"other tools follow the mode", writeCall, "ask by mode:reads"},
	}
	for _, c := range cases {
		if got := decide(p, c.call); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	p.SetMode(ModePlan)
	if got := decide(p, shellCall("make", inSandbox)); got != "skip by mode:plan" {
		t.Errorf("plan mode: %s", got)
	}
	p.SetMode(ModeReads)
	p.SetSandboxedShell(false)
	if got := decide(p, shellCall("make", inSandbox)); got != "ask by mode:reads" {
		t.Errorf("without sandboxed_shell: %s", got)
	}
}

// TestLeavingTheSandboxAlwaysAsks checks that a call asking to run outside
// its sandbox asks the person whatever the mode and the grants; that a rule
// can allow it; and that headless it is skipped with a reason.
func TestLeavingTheSandboxAlwaysAsks(t *testing.T) {
	call := shellCall("curl example.com", outSandbox)
	for _, m := range []Mode{ModeAsk, ModeReads, ModeAuto} {
		p := policy(t, m)
		p.AddGrant(Grant{Tool: "run_shell"})
		p.SetSandboxedShell(true)
		f := p.Review(context.Background(), call)
		if !f.IsAsk() || f.By != "sandbox:false" || f.Reason != "run_shell asks to run outside its sandbox, which always needs the person's approval" {
			t.Errorf("mode %s: %s (%s)", m, decide(p, call), f.Reason)
		}
	}
	// The person is asked with the call's sandbox in the request, which the
	// console shows and builds its grant choices from; a grant given
	// meanwhile does not release it.
	requests, answers := make(chan Request, 1), make(chan Answer, 1)
	asking := NewPolicy(ModeAuto, ApproverFunc(func(ctx context.Context, req Request) Answer {
		requests <- req
		return <-answers
	}))
	f := asking.Review(context.Background(), call)
	done := make(chan runtime.Flow, 1)
	go func() {
		done <- f.Await(context.Background(), runtime.AskRequest{CallInfo: call, By: f.By, Reason: f.Reason})
	}()
	req := <-requests
	if req.Sandbox == nil || !req.Sandbox.Escalated || req.By != "sandbox:false" {
		t.Errorf("request %+v", req)
	}
	if n := asking.AddGrant(Grant{Tool: "run_shell"}); n != 0 {
		t.Errorf("a grant released %d calls leaving the sandbox", n)
	}
	answers <- Approve()
	if got := <-done; !got.IsContinue() || got.By != "user" {
		t.Errorf("approved: %+v", got)
	}

	if got := decide(policy(t, ModePlan), call); got != "skip by mode:plan" {
		t.Errorf("plan mode: %s", got)
	}
	allowed := policy(t, ModeReads, rule("run_shell", Allow, "curl-out", "command", "curl *", "sandbox", "false"))
	if got := decide(allowed, call); got != "run by rule:curl-out" {
		t.Errorf("an allow rule for it: %s", got)
	}
	if got := decide(allowed, shellCall("curl example.com", inSandbox)); got != "ask by mode:reads" {
		t.Errorf("a sandbox=false rule matched a sandboxed call: %s", got)
	}

	headless := NewPolicy(ModeAuto, nil)
	f = headless.Review(context.Background(), call)
	if !f.IsSkip() || f.By != "headless" || !strings.Contains(f.Reason, "asks to run outside its sandbox") ||
		!strings.Contains(f.Reason, "this run is headless, so nobody can give it") {
		t.Errorf("headless: %s (%s)", decide(headless, call), f.Reason)
	}
	headlessRule := NewPolicy(ModeAuto, nil)
	if err := headlessRule.SetRules([]NamedRule{rule("run_shell", Allow, "out-ok", "sandbox", "false")}); err != nil {
		t.Fatal(err)
	}
	if got := decide(headlessRule, call); got != "run by rule:out-ok" {
		t.Errorf("headless with a rule: %s", got)
	}
}

// TestSandboxGrants checks the grant a sandboxed call offers ("allow
// sandboxed run_shell commands for this session"), what it covers, and that
// a call leaving the sandbox offers none.
func TestSandboxGrants(t *testing.T) {
	p := policy(t, ModeReads)
	req := Request{Call: tool.Call{Name: "run_shell"}, Touches: shellCall("make", inSandbox).Touches, Sandbox: inSandbox}
	opts := p.GrantOptions(req)
	if len(opts) != 1 || !opts[0].Sandboxed || opts[0].Tool != "run_shell" {
		t.Fatalf("options %+v", opts)
	}
	if got := p.GrantLabel(opts[0]); got != "sandboxed run_shell commands" {
		t.Errorf("label %q", got)
	}
	p.AddGrant(opts[0])
	for _, c := range []struct {
		call runtime.CallInfo
		want string
	}{
		{shellCall("make", inSandbox), "run by grant:sandboxed run_shell commands"},
		{shellCall("make", noSandbox), "ask by mode:reads"},
		{shellCall("make", outSandbox), "ask by sandbox:false"},
	} {
		if got := decide(p, c.call); got != c.want {
			t.Errorf("%s (%+v): %s, want %s", c.call.Call.Arguments, c.call.Sandbox, got, c.want)
		}
	}
	if opts := p.GrantOptions(Request{Call: tool.Call{Name: "run_shell"}, Touches: tool.Writes(tool.Anything()), Sandbox: outSandbox}); opts != nil {
		t.Errorf("a call leaving the sandbox offers %+v", opts)
	}
	if opts := p.GrantOptions(Request{Call: tool.Call{Name: "run_shell"}, Touches: tool.Writes(tool.Anything()), Sandbox: noSandbox}); len(opts) != 1 || opts[0].Sandboxed {
		t.Errorf("a call with no sandbox offers %+v", opts)
	}
}
