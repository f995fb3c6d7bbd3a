package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace"
	"github.com/agenttui/agenttui/tui/board"
	"github.com/agenttui/agenttui/tui/transcript"
)

// grantRequest is an approval request for a write under docs/ in reads
// mode, asked by by.
func grantRequest(id uint64, index int, path, by string) approvalRequest {
	r := request(id, 1, index, "write_file", t0)
	r.Req.Touches = *writes(path)
	r.Req.By = by
	return r
}

// pendingWrites sets up a run whose two writes under docs/ wait for
// approval, with the board focused on the first and the grace period over.
// The console's policy is policy.
func pendingWrites(t *testing.T, by string) (*harness, *approval.Policy, []approvalRequest) {
	t.Helper()
	policy := approval.NewPolicy(approval.ModeReads, nil)
	policy.SetWorkspace(ws)
	h := newHarness(t, Options{Policy: policy})
	h.startRun("goal")
	reqs := []approvalRequest{grantRequest(1, 0, "docs/a.md", by), grantRequest(2, 1, "docs/sub/b.md", by)}
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "write_file", `{"path":"docs/a.md","content":"a"}`, writes("docs/a.md"), 1),
		pc(1, "write_file", `{"path":"docs/sub/b.md","content":"b"}`, writes("docs/sub/b.md"), 1),
	}}, decide(1, 0, "ask", by, "asks"), decide(1, 1, "ask", by, "asks"), reqs[0], reqs[1])
	h.clock.advance(DefaultGrace)
	return h, policy, reqs
}

func TestGrantChooserOffersToolAndFolder(t *testing.T) {
	h, policy, _ := pendingWrites(t, "mode:reads")
	mustContain(t, h.view(), "y approve · n skip · g grant")
	h.key("g")
	if !h.m.grant.Shown() {
		t.Fatalf("g did not open the grant chooser; note %q", h.m.note)
	}
	mustContain(t, h.view(), "Grant from #1 write_file", "1  allow write_file for this session", "2  allow write_file within docs/",
		"1–2 or ↑↓ enter give the grant · esc close")
	h.key("2")
	if h.m.grant.Shown() {
		t.Fatal("choosing a grant left the chooser open")
	}
	got := policy.Grants()
	if len(got) != 1 || got[0].Tool != "write_file" || policy.GrantLabel(got[0]) != "write_file within docs/" {
		t.Fatalf("grants = %+v", got)
	}
	mustContain(t, h.view(), "granted write_file within docs/ for the rest of the session")
	// The policy releases both calls; the runtime says so for each.
	h.feed(decide(1, 0, "run", "grant:write_file within docs/", "released by a grant of this session"),
		decide(1, 1, "run", "grant:write_file within docs/", "released by a grant of this session"),
		started(1, 0, "write_file", t0), started(1, 1, "write_file", t0),
		finished(1, 0, "write_file", "success", "", "Created docs/a.md", 3))
	s := h.view()
	mustContain(t, s, "✓ succeeded · cleared by grant: write_file within docs/", "Created docs/a.md",
		"▶ running", "· cleared by grant: write_file within docs/")
}

func TestGrantChooserArrowsEnterAndEsc(t *testing.T) {
	h, policy, _ := pendingWrites(t, "mode:reads")
	h.key("g")
	h.key("esc")
	if h.m.grant.Shown() || len(policy.Grants()) != 0 {
		t.Fatal("esc did not close the chooser without a grant")
	}
	if h.m.run.stopping {
		t.Fatal("esc in the chooser stopped the run")
	}
	h.key("g")
	h.key("down")
	h.key("up")
	h.key("enter")
	if g := policy.Grants(); len(g) != 1 || !g[0].Within.IsEmpty() {
		t.Fatalf("↓↑ enter gave %+v, want the tool for the session", g)
	}
}

func TestGrantKeySafety(t *testing.T) {
	t.Run("several runes in one message never act", func(t *testing.T) {
		h, policy, _ := pendingWrites(t, "mode:reads")
		h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g2")})
		if h.m.grant.Shown() {
			t.Fatal(`"g2" in one message opened the chooser`)
		}
		// Text holds the grant key back too, until the person stops typing.
		h.key("g")
		if h.m.grant.Shown() {
			t.Fatal(`g right after typing "g2" opened the chooser`)
		}
		h.clock.advance(board.TypingPause)
		h.key("g")
		h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("21")})
		h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2"), Paste: true})
		if len(policy.Grants()) != 0 {
			t.Fatal("typed or pasted text gave a grant")
		}
		mustContain(t, h.view(), "typed text is ignored while choosing a grant")
	})
	t.Run("the grace period holds g and the choice", func(t *testing.T) {
		policy := approval.NewPolicy(approval.ModeReads, nil)
		policy.SetWorkspace(ws)
		h := newHarness(t, Options{Policy: policy})
		h.startRun("goal")
		h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
			pc(0, "write_file", `{"path":"docs/a.md","content":"a"}`, writes("docs/a.md"), 1),
			pc(1, "write_file", `{"path":"docs/b.md","content":"b"}`, writes("docs/b.md"), 1),
		}}, decide(1, 0, "ask", "mode:reads", "asks"), decide(1, 1, "ask", "mode:reads", "asks"),
			grantRequest(1, 0, "docs/a.md", "mode:reads"))
		h.key("g")
		if h.m.grant.Shown() {
			t.Fatal("g within the grace period opened the chooser")
		}
		h.clock.advance(DefaultGrace)
		h.key("g")
		if !h.m.grant.Shown() {
			t.Fatal("g after the grace period did not open the chooser")
		}
		// Another approval arrives while the person chooses.
		h.feed(grantRequest(2, 1, "docs/b.md", "mode:reads"))
		h.key("1")
		if len(policy.Grants()) != 0 {
			t.Fatal("1 right after the approvals changed gave a grant")
		}
		mustContain(t, h.view(), "grant keys paused ½ s")
		h.clock.advance(DefaultGrace)
		h.key("1")
		if len(policy.Grants()) != 1 {
			t.Fatal("1 after the grace period gave no grant")
		}
	})
	t.Run("g in the input is text", func(t *testing.T) {
		h, policy, _ := pendingWrites(t, "mode:reads")
		h.key("tab")
		h.key("tab")
		h.typeText("g1")
		if h.m.grant.Shown() || len(policy.Grants()) != 0 || h.m.input.Value() != "g1" {
			t.Fatalf("typing g1 in the input acted: chooser %v, grants %v, input %q", h.m.grant.Shown(), policy.Grants(), h.m.input.Value())
		}
	})
	t.Run("a call that stops waiting closes the chooser", func(t *testing.T) {
		h, policy, reqs := pendingWrites(t, "mode:reads")
		h.key("g")
		h.feed(approvalGone{id: reqs[0].ID})
		if h.m.grant.Shown() {
			t.Fatal("the chooser stayed open for a call that no longer waits")
		}
		mustContain(t, h.view(), "no longer waiting for approval")
		h.key("1")
		if len(policy.Grants()) != 0 {
			t.Fatal("a grant was given for a call that no longer waits")
		}
	})
	t.Run("a call that does not ask offers nothing", func(t *testing.T) {
		h, _, reqs := pendingWrites(t, "mode:reads")
		h.feed(approvalGone{id: reqs[0].ID}, decide(1, 0, "skip", "user", "no"))
		h.key("g")
		if h.m.grant.Shown() {
			t.Fatal("g opened the chooser for a call that is not waiting")
		}
	})
}

func TestGrantCannotOverrideAskRule(t *testing.T) {
	h, policy, _ := pendingWrites(t, "rule:ask-docs")
	h.key("g")
	if h.m.grant.Shown() {
		t.Fatal("g offered grants for a call an ask rule asks about")
	}
	mustContain(t, h.view(), "a grant cannot override an ask rule: rule ask-docs asks")
	h.key("1")
	if len(policy.Grants()) != 0 {
		t.Fatal("a grant was given")
	}
}

// TestGrantReleasesWaitingCalls runs the console over a real agent and
// policy: two writes under docs/ wait for approval in reads mode, one grant
// "within docs/" releases both at once, and the board says which grant
// cleared each.
func TestGrantReleasesWaitingCalls(t *testing.T) {
	dir := t.TempDir()
	sc, err := model.ParseScenario([]byte(`{"name": "grant", "steps": [
	  {"calls": [{"name": "write_file", "args": {"path": "docs/a.md", "content": "a"}},
	             {"name": "write_file", "args": {"path": "docs/sub/b.md", "content": "b"}}]},
	  {"text": "Both written."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := workspace.Tools(dir)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(tools...)
	if err != nil {
		t.Fatal(err)
	}
	bridge := NewBridge(nil)
	defer bridge.Close()
	policy := approval.NewPolicy(approval.ModeReads, bridge)
	policy.SetWorkspace(dir)
	agent := &runtime.Agent{Model: model.NewScripted("scenario:grant", sc).WithoutDelays(), Catalog: cat,
		Hooks: []runtime.Hook{policy}, Sink: bridge.Sink, Mode: func() string { return string(policy.Mode()) }}
	session := runtime.NewSession("grant")
	m := New(Options{
		Run:    func(ctx context.Context, input string) runtime.GoalOutcome { return agent.Run(ctx, session, input) },
		Bridge: bridge, Policy: policy, Model: "scenario:grant", Workspace: dir, Goal: "write the docs", Grace: -1,
	})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 40))
	wait := func(what string, ok func([]byte) bool) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), ok, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	has := func(s string) func([]byte) bool { return func(b []byte) bool { return bytes.Contains(b, []byte(s)) } }
	// The board counts a call as needing approval from its decision on;
	// the request that g answers comes after its preview. The hint offers
	// g once the focused call's request is there.
	wait("both writes asking", has("2 need(s) approval"))
	// Focus stays in the input the goal came from: tab goes to the board.
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	wait("the board's approval keys", has("y approve · n skip · g grant"))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")})
	wait("the chooser", has("allow write_file within docs/"))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	wait("the outcome", has("Both written."))
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	for _, p := range []string{"docs/a.md", "docs/sub/b.md"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s was not written: %v", p, err)
		}
	}
	// The finished reply is in the transcript: each call says what cleared it.
	var group transcript.Group
	for _, it := range final.transcript.Items() {
		if g, ok := it.(transcript.Group); ok {
			group = g
		}
	}
	if len(group.Rows) != 2 {
		t.Fatalf("the transcript holds no group of two calls: %+v", group)
	}
	for _, r := range group.Rows {
		if !bytes.Contains([]byte(r.Text), []byte("cleared by grant: write_file within docs/")) {
			t.Errorf("a call does not say which grant cleared it: %q", r.Text)
		}
	}
	if g := policy.Grants(); len(g) != 1 {
		t.Errorf("grants = %+v", g)
	}

}

// TestGrantChooserOffersWebHost offers, for a web_fetch that reads mode asks
// about, its tool and its host, worded as the policy words them.
func TestGrantChooserOffersWebHost(t *testing.T) {
	policy := approval.NewPolicy(approval.ModeReads, nil)
	policy.SetWorkspace(ws)
	h := newHarness(t, Options{Policy: policy})
	h.startRun("goal")
	host := tool.Reads(tool.Paths("/net/example.com"))
	req := request(1, 1, 0, "web_fetch", t0)
	req.Req.Touches = host
	req.Req.Reason = "reads mode asks before web_fetch reaches a host it has not been granted"
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "web_fetch", `{"url":"https://example.com/docs"}`, &host, 1),
	}}, decide(1, 0, "ask", "mode:reads", req.Req.Reason), req)
	h.clock.advance(DefaultGrace)
	h.key("g")
	if !h.m.grant.Shown() {
		t.Fatalf("g did not open the grant chooser; note %q", h.m.note)
	}
	mustContain(t, h.view(), "Grant from #1 web_fetch", "1  allow web_fetch for this session", "2  allow web_fetch for example.com")
	h.key("2")
	got := policy.Grants()
	if len(got) != 1 || policy.GrantLabel(got[0]) != "web_fetch for example.com" {
		t.Fatalf("grants = %+v", got)
	}
	mustContain(t, h.view(), "granted web_fetch for example.com for the rest of the session")
}
