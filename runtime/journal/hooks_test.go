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
