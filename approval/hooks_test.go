package approval

import (
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/tool"
)

// hooked returns c as the person's PreToolUse hook decided about it.
func hooked(c runtime.CallInfo, d hooks.Decision, reason string) runtime.CallInfo {
	c.Hook = &runtime.HookDecision{Decision: d, By: "hook:~/bin/check", Reason: reason}
	return c
}

func TestHookDecisionsTakeTheirPlaceAmongRules(t *testing.T) {
	askW := rule("write_file", AskFirst, "ask-w")
	denyW := rule("write_file", Deny, "deny-w")
	allowW := rule("write_file", Allow, "allow-w")
	tainted := hooked(writeCall, hooks.Allow, "")
	tainted.Provenance = []tool.Origin{{Argument: "content", Start: 0, End: 1, Tool: "web_fetch", Source: "web:x"}}
	cases := []struct {
		name  string
		mode  Mode
		rules []NamedRule
		call  runtime.CallInfo
		want  string
	}{
		{"allow stands in for the mode", ModeAsk, nil, hooked(writeCall, hooks.Allow, "formatted"), "run by hook:~/bin/check"},
		{"allow is not over an ask rule", ModeAuto, []NamedRule{askW}, hooked(writeCall, hooks.Allow, ""), "ask by rule:ask-w"},
		{"allow is not over a deny rule", ModeAuto, []NamedRule{denyW}, hooked(writeCall, hooks.Allow, ""), "skip by rule:deny-w"},
		{"allow is not over plan mode", ModePlan, nil, hooked(writeCall, hooks.Allow, ""), "skip by mode:plan"},
		{"allow is not over provenance", ModeAuto, nil, tainted, "ask by provenance"},
		{"ask is over auto mode", ModeAuto, nil, hooked(writeCall, hooks.Ask, "look first"), "ask by hook:~/bin/check"},
		{"ask is over an allow rule", ModeAuto, []NamedRule{allowW}, hooked(writeCall, hooks.Ask, ""), "ask by hook:~/bin/check"},
		{"ask is not over a deny rule", ModeAuto, []NamedRule{denyW}, hooked(writeCall, hooks.Ask, ""), "skip by rule:deny-w"},
		{"ask on a read in reads mode", ModeReads, nil, hooked(readCall, hooks.Ask, ""), "ask by hook:~/bin/check"},
	}
	for _, c := range cases {
		if got := decide(policy(t, c.mode, c.rules...), c.call); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestHookAskSaysWhoAsksAndWhyAndNoGrantCoversIt(t *testing.T) {
	p := policy(t, ModeAuto)
	f := p.Review(t.Context(), hooked(writeCall, hooks.Ask, "network commands need a look"))
	if !f.IsAsk() || f.Reason != "hook ~/bin/check asks before this call: network commands need a look" {
		t.Errorf("the ask says %q", f.Reason)
	}
	if d := ParseDecider(f.By); d.Who != WhoHook || d.Label != "~/bin/check" || d.String() != f.By {
		t.Errorf("the decider reads back as %+v", d)
	}
	g := Grant{Tool: "write_file"}
	if g.Covers(hooked(writeCall, hooks.Ask, "")) {
		t.Error("a grant covers a call the person's hook asks about")
	}
	if !g.Covers(writeCall) {
		t.Error("the grant does not cover the same call without the hook")
	}
	headless := NewPolicy(ModeAuto, nil)
	if f := headless.Review(t.Context(), hooked(writeCall, hooks.Ask, "network commands need a look")); !f.IsSkip() || f.By != "headless" {
		t.Errorf("headless: %+v", f)
	}
}
