package approval

import (
	"context"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// TestDeciderForms pins the form each decider takes in the event stream and
// the journal, and that ParseDecider reads each back as the same value.
func TestDeciderForms(t *testing.T) {
	for _, tc := range []struct {
		d    Decider
		form string
	}{
		{ModeDecider(ModeReads), "mode:reads"},
		{ModeDecider(ModePlan), "mode:plan"},
		{RuleDecider("2"), "rule:2"},
		{RuleDecider("--allow write_file(path=docs/**)"), "rule:--allow write_file(path=docs/**)"},
		{GrantDecider("write_file within docs/"), "grant:write_file within docs/"},
		{Person, "user"},
		{Headless, "headless"},
		{Runtime, "runtime"},
		{escalation, "sandbox:false"},
		{sandboxedShell, "sandboxed_shell:allow"},
	} {
		if got := tc.d.String(); got != tc.form {
			t.Errorf("%+v.String() = %q, want %q", tc.d, got, tc.form)
		}
		if got := ParseDecider(tc.form); got != tc.d {
			t.Errorf("ParseDecider(%q) = %+v, want %+v", tc.form, got, tc.d)
		}
	}
	if got := ParseDecider("my-hook"); got.Who != WhoUnknown || got.String() != "my-hook" {
		t.Errorf("an unknown form reads back as %+v (%q)", got, got.String())
	}
}

// TestProvenanceOfGrants tells a call a grant released as the person gave it
// from one a grant given earlier covered, as the journal records both.
func TestProvenanceOfGrants(t *testing.T) {
	appr := &recordingApprover{requests: make(chan Request, 1)}
	p := NewPolicy(ModeReads, appr)
	p.SetWorkspace("/w")
	call := runtime.CallInfo{Call: tool.Call{Name: "write_file"}, Touches: tool.Writes(tool.Paths("/w/docs/a.md"))}
	f := p.Review(context.Background(), call)
	if !f.IsAsk() {
		t.Fatalf("reads mode does not ask before a write: %s", f.By)
	}
	done := make(chan runtime.Flow, 1)
	go func() {
		done <- f.Await(context.Background(), runtime.AskRequest{CallInfo: call, By: f.By, Reason: f.Reason})
	}()
	// The request reaches the approver once the call waits, so the grant
	// given now releases it.
	req := <-appr.requests
	if got := req.Asker(); got != ModeDecider(ModeReads) {
		t.Fatalf("the asker is %+v", got)
	}
	if n := p.AddGrant(Grant{Tool: "write_file", Within: tool.Paths("/w/docs")}); n != 1 {
		t.Fatalf("the grant released %d calls, want 1", n)
	}
	released := <-done
	ev := runtime.CallDecision{Decision: runtime.DecisionRun, By: released.By, Reason: released.Reason}
	if got := ProvenanceOf(ev); got.Who != WhoGrant || got.Label != "write_file within docs/" || !got.Released {
		t.Fatalf("the released call's provenance is %+v", got)
	}
	covered := p.Review(context.Background(), call)
	ev = runtime.CallDecision{Decision: runtime.DecisionRun, By: covered.By, Reason: covered.Reason}
	if got := ProvenanceOf(ev); got.Who != WhoGrant || got.Released {
		t.Fatalf("a call the grant covered from the start reads as %+v", got)
	}
	person := runtime.CallDecision{Decision: runtime.DecisionSkip, By: "user", Reason: "Skipped by the person, who gave no reason; the call was not run."}
	if got := ProvenanceOf(person); got.Who != WhoPerson || got.Released {
		t.Fatalf("a person's skip reads as %+v", got)
	}
}
