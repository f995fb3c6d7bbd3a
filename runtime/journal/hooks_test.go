package journal

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/model"
)

// scriptedHooks answers every hook event the same way, once per event for
// Stop.
type scriptedHooks struct {
	mu      sync.Mutex // guards stopped
	stopped bool
}

func (h *scriptedHooks) Has(hooks.Event, string) bool { return true }

func (h *scriptedHooks) Run(_ context.Context, in hooks.Input) hooks.Verdict {
	run := func(v hooks.Verdict) hooks.Verdict {
		v.Runs = []hooks.Run{{Command: "./h.sh", Decision: v.Decision, Reason: v.Reason, Context: v.Context}}
		return v
	}
	switch in.HookEventName {
	case hooks.SessionStart:
		return run(hooks.Verdict{Context: "the branch is main"})
	case hooks.UserPromptSubmit:
		if strings.Contains(in.Prompt, "secret") {
			return run(hooks.Verdict{Decision: hooks.Block, By: "hook:./h.sh", Reason: "no secrets"})
		}
		return run(hooks.Verdict{Context: "it is Tuesday"})
	case hooks.PreToolUse:
		if strings.Contains(string(in.ToolInput), "one") {
			return run(hooks.Verdict{UpdatedInput: json.RawMessage(`{"text":"ONE"}`), UpdatedBy: "hook:./h.sh"})
		}
	case hooks.PostToolUse:
		return run(hooks.Verdict{Context: "checked"})
	case hooks.Stop:
		h.mu.Lock()
		defer h.mu.Unlock()
		if !h.stopped {
			h.stopped = true
			return run(hooks.Verdict{Decision: hooks.Block, By: "hook:./h.sh", Reason: "not yet"})
		}
	}
	return hooks.Verdict{}
}

func TestJournalRebuildsWhatHooksAdded(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, header("h1"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	sc := &model.Scenario{Name: "h", Steps: []model.Step{
		{Calls: []model.ScriptedCall{call("echo", `{"text":"one"}`)}},
		{Expect: []string{"ONE", "checked"}, Text: "done"},
		{Expect: []string{"not yet"}, Text: "really done"},
	}}
	a := &runtime.Agent{Model: model.NewScripted("h", sc), Catalog: cat, Sink: w.Event, HookCommands: &scriptedHooks{}}
	s := runtime.NewSession("h1")
	if out := a.Run(context.Background(), s, "a secret"); out.Status != runtime.StatusFailed {
		t.Fatalf("the blocked input gave %+v", out)
	}
	if out := a.Run(context.Background(), s, "echo one"); out.Status != runtime.StatusSucceeded || out.Summary != "really done" {
		t.Fatalf("the run gave %+v", out)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rp := loadRebuilt(t, dir, s)
	if rp.Session.Goal != "echo one" {
		t.Errorf("the goal is %q: the blocked input became the goal", rp.Session.Goal)
	}
	first := rp.Session.Messages[0].Text
	if !strings.Contains(first, "the branch is main") || !strings.Contains(first, "it is Tuesday") || strings.Contains(first, "secret") {
		t.Errorf("the first message is %q", first)
	}
	if got := rp.Session.Messages[1].Calls[0].Arguments; got != `{"text":"one"}` {
		t.Errorf("the model's own call is sent back as %s, not as it sent it", got)
	}
}

// workspaceRewrite is a workspace's PreToolUse hook that rewrites every
// call's arguments.
type workspaceRewrite struct{}

func (workspaceRewrite) Has(ev hooks.Event, _ string) bool { return ev == hooks.PreToolUse }

func (workspaceRewrite) Run(_ context.Context, in hooks.Input) hooks.Verdict {
	return hooks.Verdict{UpdatedInput: json.RawMessage(`{"text":"ONE"}`), UpdatedBy: "hook:./hooks/pre.sh", UpdatedByWorkspace: true,
		Runs: []hooks.Run{{Command: "./hooks/pre.sh", Workspace: true}}}
}

// TestResumedRewriteStaysTheWorkspaces resumes a session that stopped while
// a call a workspace's hook rewrote was running: the call, which only
// reads, runs again as rewritten, and the model reads that the workspace's
// hook rewrote it, as it would have without the stop.
func TestResumedRewriteStaysTheWorkspaces(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, header("h2"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	sc := &model.Scenario{Name: "h", Steps: []model.Step{
		{Calls: []model.ScriptedCall{call("echo", `{"text":"one"}`)}},
		{Text: "done"},
	}}
	// The process dies once the call has started: nothing after that
	// reaches the journal.
	dead := false
	a := &runtime.Agent{Model: model.NewScripted("h", sc), Catalog: cat, HookCommands: workspaceRewrite{}, Sink: func(e runtime.Event) {
		if dead {
			return
		}
		w.Event(e)
		_, dead = e.(runtime.CallStarted)
	}}
	a.Run(context.Background(), runtime.NewSession("h2"), "echo one")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rp, err := Load(Path(dir, "h2"))
	if err != nil {
		t.Fatal(err)
	}
	if rp.Interrupted == nil || len(rp.Interrupted.Calls) != 1 || !rp.Interrupted.Calls[0].RewrittenByWorkspace {
		t.Fatalf("the interrupted reply %+v does not say the workspace's hook rewrote its call", rp.Interrupted)
	}
	b := &runtime.Agent{Model: model.NewScripted("h", &model.Scenario{Name: "h", Steps: sc.Steps[1:]}), Catalog: cat}
	b.Resume(context.Background(), rp.Session, rp.Interrupted)
	var got string
	for _, m := range rp.Session.Messages {
		for _, r := range m.Results {
			got = r.Content
		}
	}
	want := "ONE\n\nNote: the workspace's PreToolUse hook `./hooks/pre.sh` rewrote this call's arguments before it ran; it ran with {\"text\":\"ONE\"}."
	if got != want {
		t.Fatalf("after the resume the model reads\n%q\nwant\n%q", got, want)
	}
}
