package approval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

const ws = "/ws"

func info(name, args string, t tool.Touches) runtime.CallInfo {
	return runtime.CallInfo{Call: tool.Call{Name: name, Arguments: args}, Args: json.RawMessage(args), Touches: t}
}

var (
	readCall  = info("read_file", `{"path":"docs/a.md"}`, tool.Reads(tool.Paths(ws+"/docs/a.md")))
	writeCall = info("write_file", `{"path":"docs/a.md","content":"x"}`, tool.Writes(tool.Paths(ws+"/docs/a.md")))
)

// decide reviews c and reports the decision as "run by X", "ask by X" or
// "skip by X". Asking flows are not waited on.
func decide(p *Policy, c runtime.CallInfo) string {
	f := p.Review(context.Background(), c)
	switch {
	case f.IsAsk():
		return "ask by " + f.By
	case f.IsSkip():
		return "skip by " + f.By
	default:
		return "run by " + f.By
	}
}

func rule(tool string, d Decision, label string, args ...string) NamedRule {
	r := Rule{Tool: tool, Decision: d, Args: map[string]string{}}
	for i := 0; i+1 < len(args); i += 2 {
		r.Args[args[i]] = args[i+1]
	}
	return NamedRule{Rule: r, Label: label}
}

func policy(t *testing.T, m Mode, rules ...NamedRule) *Policy {
	t.Helper()
	p := NewPolicy(m, ApproverFunc(func(context.Context, Request) Answer { return Approve() }))
	p.SetWorkspace(ws)
	if err := p.SetRules(rules); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPrecedence(t *testing.T) {
	allowW := rule("write_file", Allow, "allow-w")
	askW := rule("write_file", AskFirst, "ask-w")
	denyW := rule("write_file", Deny, "deny-w")
	denyR := rule("read_file", Deny, "deny-r")
	allowR := rule("read_file", Allow, "allow-r")
	cases := []struct {
		name  string
		mode  Mode
		rules []NamedRule
		call  runtime.CallInfo
		want  string
	}{
		{"deny beats allow", ModeAuto, []NamedRule{allowW, denyW}, writeCall, "skip by rule:deny-w"},
		{"deny beats ask", ModeAuto, []NamedRule{askW, denyW}, writeCall, "skip by rule:deny-w"},
		{"ask beats allow", ModeAuto, []NamedRule{allowW, askW}, writeCall, "ask by rule:ask-w"},
		{"allow beats the reads mode", ModeReads, []NamedRule{allowW}, writeCall, "run by rule:allow-w"},
		{"allow beats the ask mode", ModeAsk, []NamedRule{allowW}, writeCall, "run by rule:allow-w"},
		{"ask beats the auto mode", ModeAuto, []NamedRule{askW}, writeCall, "ask by rule:ask-w"},
		{"deny beats the auto mode for reads too", ModeAuto, []NamedRule{denyR}, readCall, "skip by rule:deny-r"},
		{"plan skips writes whatever the rules say", ModePlan, []NamedRule{allowW}, writeCall, "skip by mode:plan"},
		{"plan runs reads", ModePlan, nil, readCall, "run by mode:plan"},
		{"plan still applies deny rules to reads", ModePlan, []NamedRule{denyR}, readCall, "skip by rule:deny-r"},
		{"plan applies allow rules to reads", ModePlan, []NamedRule{allowR}, readCall, "run by rule:allow-r"},
		{"reads mode runs reads", ModeReads, nil, readCall, "run by mode:reads"},
		{"reads mode asks for writes", ModeReads, nil, writeCall, "ask by mode:reads"},
		{"ask mode asks for reads", ModeAsk, nil, readCall, "ask by mode:ask"},
		{"auto mode runs writes", ModeAuto, nil, writeCall, "run by mode:auto"},
		{"rules for other tools do not apply", ModeReads, []NamedRule{allowR}, writeCall, "ask by mode:reads"},
		{"control tools never ask", ModeAsk, []NamedRule{rule("*", Deny, "all")}, info("finish", `{"summary":"x"}`, tool.Reads(tool.Paths("/mem"))), "run by runtime"},
	}
	for _, c := range cases {
		p := policy(t, c.mode, c.rules...)
		if got := decide(p, c.call); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestFirstMatchWinsWithinADecision(t *testing.T) {
	first := rule("write_file", Deny, "first")
	first.Reason = "first reason"
	second := rule("write_*", Deny, "second")
	second.Reason = "second reason"
	p := policy(t, ModeAuto, first, second)
	f := p.Review(context.Background(), writeCall)
	if f.By != "rule:first" || f.Reason != "first reason" {
		t.Errorf("got %s: %s", f.By, f.Reason)
	}
}

func TestDenyReasonIsWhatTheModelReads(t *testing.T) {
	r := rule("run_shell", Deny, "2", "command", "rm *")
	r.Reason = "Deleting files is not allowed in this project; move them to trash/ instead."
	p := policy(t, ModeAuto, r)
	f := p.Review(context.Background(), info("run_shell", `{"command":"rm -rf build"}`, tool.Writes(tool.Anything())))
	if !f.IsSkip() || f.Reason != r.Reason {
		t.Errorf("got %+v", f)
	}
	if decide(p, info("run_shell", `{"command":"ls"}`, tool.Writes(tool.Anything()))) != "run by mode:auto" {
		t.Error("the rule matched a command it does not name")
	}
}

func TestPathRulesResolveBeforeMatching(t *testing.T) {
	dir := t.TempDir()
	root, _ := filepath.EvalSymlinks(dir)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "secrets"), 0o755))
	// A symlink inside docs/ that points at secrets/.
	must(os.Symlink(filepath.Join(root, "secrets"), filepath.Join(root, "docs", "leak")))
	p := NewPolicy(ModeReads, ApproverFunc(func(context.Context, Request) Answer { return Approve() }))
	p.SetWorkspace(dir)
	must(p.SetRules([]NamedRule{rule("write_file", Allow, "docs", "path", "docs/**")}))
	cases := []struct {
		path string
		want string
	}{
		{"docs/a.md", "run by rule:docs"},
		{"docs/new/deep/b.md", "run by rule:docs"},
		{"./docs/a.md", "run by rule:docs"},
		{root + "/docs/a.md", "run by rule:docs"},
		{"docs/../secrets/x", "ask by mode:reads"},
		{"docs/leak/x", "ask by mode:reads"},
		{"../docs/a.md", "ask by mode:reads"},
		{"docsx/a.md", "ask by mode:reads"},
	}
	for _, c := range cases {
		got := decide(p, info("write_file", `{"path":"`+c.path+`","content":""}`, tool.Writes(tool.Anything())))
		if got != c.want {
			t.Errorf("path %q: got %q, want %q", c.path, got, c.want)
		}
	}
}

func TestParseRule(t *testing.T) {
	r, err := ParseRule(`write_file(path=docs/**)`, Allow)
	if err != nil || r.Tool != "write_file" || r.Args["path"] != "docs/**" || r.Decision != Allow {
		t.Errorf("got %+v, %v", r, err)
	}
	r, err = ParseRule(`run_shell(command="git commit -m x, y")`, Deny)
	if err != nil || r.Args["command"] != "git commit -m x, y" {
		t.Errorf("quoted value: %+v, %v", r, err)
	}
	r, err = ParseRule(`fs__*`, Allow)
	if err != nil || r.Tool != "fs__*" || len(r.Args) != 0 {
		t.Errorf("bare tool: %+v, %v", r, err)
	}
	for _, bad := range []string{"", "write_file(path=docs/**", "(path=x)", "write_file(path)", "write_file(path=[abc)", `x(a="b)`} {
		if _, err := ParseRule(bad, Allow); err == nil {
			t.Errorf("%q should be refused", bad)
		}
	}
}

// recordingApprover holds every request until the test answers it.
type recordingApprover struct {
	requests chan Request
}

func (a *recordingApprover) Approve(ctx context.Context, req Request) Answer {
	a.requests <- req
	<-ctx.Done()
	return SkipWith("withdrawn")
}

func TestGrantReleasesWaitingCallsAndCoversLaterOnes(t *testing.T) {
	appr := &recordingApprover{requests: make(chan Request, 8)}
	p := NewPolicy(ModeReads, appr)
	p.SetWorkspace(ws)
	docsA := info("write_file", `{"path":"docs/a.md"}`, tool.Writes(tool.Paths(ws+"/docs/a.md")))
	docsB := info("write_file", `{"path":"docs/sub/b.md"}`, tool.Writes(tool.Paths(ws+"/docs/sub/b.md")))
	other := info("write_file", `{"path":"src/c.go"}`, tool.Writes(tool.Paths(ws+"/src/c.go")))
	results := make(chan runtime.Flow, 3)
	for _, c := range []runtime.CallInfo{docsA, docsB, other} {
		f := p.Review(context.Background(), c)
		if !f.IsAsk() {
			t.Fatalf("%s should ask", c.Call.Arguments)
		}
		go func() {
			results <- f.Await(context.Background(), runtime.AskRequest{CallInfo: c, By: f.By, Reason: f.Reason})
		}()
	}
	var first Request
	for range 3 {
		req := <-appr.requests
		if strings.Contains(req.Call.Arguments, "docs/a.md") {
			first = req
		}
	}
	opts := p.GrantOptions(first)
	if len(opts) != 2 || p.GrantLabel(opts[0]) != "write_file" || p.GrantLabel(opts[1]) != "write_file within docs/" {
		t.Fatalf("grant options: %v / %v", p.GrantLabel(opts[0]), opts)
	}
	if n := p.AddGrant(opts[1]); n != 2 {
		t.Fatalf("the grant released %d calls, want 2", n)
	}
	for range 2 {
		select {
		case f := <-results:
			if !f.IsContinue() || f.By != "grant:write_file within docs/" {
				t.Errorf("released with %+v", f)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the grant did not release the waiting calls")
		}
	}
	select {
	case f := <-results:
		t.Fatalf("the call outside docs/ was released too: %+v", f)
	default:
	}
	if got := decide(p, docsA); got != "run by grant:write_file within docs/" {
		t.Errorf("a later call under docs/: %s", got)
	}
	if got := decide(p, other); got != "ask by mode:reads" {
		t.Errorf("a later call outside docs/: %s", got)
	}
	// A new session starts without the grants of the one before.
	p.ClearGrants()
	if got := decide(p, docsA); got != "ask by mode:reads" || len(p.Grants()) != 0 {
		t.Errorf("after ClearGrants, a call under docs/: %s (grants %v)", got, p.Grants())
	}
	p.AddGrant(opts[1])
	deny := rule("write_file", AskFirst, "careful")
	if err := p.SetRules([]NamedRule{deny}); err != nil {
		t.Fatal(err)
	}
	if got := decide(p, docsA); got != "ask by rule:careful" {
		t.Errorf("a grant must not override an ask rule: %s", got)
	}
}

func TestHeadlessSkipsWhatWouldAsk(t *testing.T) {
	p := NewPolicy(ModeReads, nil)
	f := p.Review(context.Background(), writeCall)
	if !f.IsSkip() || f.By != "headless" || !strings.Contains(f.Reason, "headless") || !strings.Contains(f.Reason, "needs approval") {
		t.Errorf("got %+v", f)
	}
}

// TestSetApproverSwitchesBetweenAskingAndHeadless checks that an MCP
// client that can ask its user gets the calls that need approval, and that
// one that cannot gets the headless policy, in the same session.
func TestSetApproverSwitchesBetweenAskingAndHeadless(t *testing.T) {
	asked := 0
	p := NewPolicy(ModeReads, nil)
	if got := decide(p, writeCall); got != "skip by headless" {
		t.Fatalf("without an approver: %s", got)
	}
	p.SetApprover(ApproverFunc(func(context.Context, Request) Answer { asked++; return Approve() }))
	f := p.Review(context.Background(), writeCall)
	if !f.IsAsk() {
		t.Fatalf("with an approver the call should ask: %+v", f)
	}
	if f = f.Await(context.Background(), runtime.AskRequest{CallInfo: writeCall}); !f.IsContinue() || asked != 1 {
		t.Errorf("the approver was not asked: %+v, asked %d times", f, asked)
	}
	p.SetApprover(nil)
	if got := decide(p, writeCall); got != "skip by headless" {
		t.Errorf("after SetApprover(nil): %s", got)
	}
}

func TestAnswerTexts(t *testing.T) {
	if got := SkipWith("use the staging copy.").flow(); got.Reason != "Skipped by the person: use the staging copy. The call was not run." || got.By != "user" {
		t.Errorf("got %+v", got)
	}
	if got := SkipWith("").flow(); got.Reason != "Skipped by the person, who gave no reason; the call was not run." {
		t.Errorf("got %+v", got)
	}
}

// TestAnswerCarriesWhatThePersonSaw checks that an approval passes on the
// digest of the preview the person saw and their own version of the
// content, and that the request carries the preview.
func TestAnswerCarriesWhatThePersonSaw(t *testing.T) {
	pv := &tool.Preview{Kind: tool.PreviewFile, Path: "a.txt", Digest: "sha256:abc"}
	mine := "my version\n"
	var got Request
	p := NewPolicy(ModeAsk, ApproverFunc(func(_ context.Context, req Request) Answer {
		got = req
		return Answer{Approve: true, Digest: req.Preview.Digest, Content: &mine}
	}))
	c := info("write_file", `{"path":"a.txt","content":"x"}`, tool.Writes(tool.Paths(ws+"/a.txt")))
	f := p.Review(context.Background(), c).Await(context.Background(), runtime.AskRequest{CallInfo: c, Preview: pv})
	if got.Preview != pv {
		t.Errorf("the request lost the preview: %+v", got.Preview)
	}
	content, edited := f.Edited()
	if !f.IsContinue() || f.Shown() != "sha256:abc" || !edited || content != mine || f.By != "user" {
		t.Errorf("flow %+v shown %q edited %v %q", f, f.Shown(), edited, content)
	}
	plain := Answer{Approve: true, Digest: "sha256:def"}.flow()
	if _, edited := plain.Edited(); plain.Shown() != "sha256:def" || edited {
		t.Errorf("plain approval %+v", plain)
	}
}

// TestPersonsSkipReasonReadsBackTheReason checks the reason a person gave
// survives the text the model reads, so an exported session replays it.
func TestPersonsSkipReasonReadsBackTheReason(t *testing.T) {
	for _, reason := range []string{"", "keep the build folder", "not now: the tests. Run them later", "ünïcode"} {
		f := Answer{Reason: reason}.flow()
		got, ok := PersonsSkipReason(f.Reason)
		if !ok || got != reason {
			t.Errorf("%q: read back %q, %v from %q", reason, got, ok, f.Reason)
		}
	}
	for _, text := range []string{"Skipped: the turn ended before anyone answered; the call was not run.",
		"Skipped by grant: x. The call was not run.", "Skipped by the person: . The call was not run."} {
		if got, ok := PersonsSkipReason(text); ok {
			t.Errorf("%q read as a person's skip with reason %q", text, got)
		}
	}
}
