package tui

import (
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
)

// TestBoardBatches shows a reply's calls grouped by batch, a waiting write
// behind the read it depends on, and the counts in the status bar.
func TestBoardBatches(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix it")
	h.feed(runtime.ReplyReceived{Turn: 4, Calls: []runtime.PlannedCall{
		pc(0, "read_file", `{"path":"pager.go"}`, reads("pager.go"), 1),
		pc(1, "edit_file", `{"path":"pager.go","old":"a","new":"b"}`, writes("pager.go"), 2, 0),
		pc(2, "read_file", `{"path":"README.md"}`, reads("README.md"), 1),
	}},
		decide(4, 0, "run", "mode:reads", "reads mode runs calls that only read"),
		decide(4, 1, "ask", "mode:reads", "reads mode asks before a call that may change things (writes /w/pager.go)"),
		decide(4, 2, "run", "mode:reads", "reads mode runs calls that only read"),
		started(4, 0, "read_file", t0), started(4, 2, "read_file", t0),
		request(7, 4, 1, "edit_file", t0),
	)
	screen := h.view()
	mustContain(t, screen,
		"batch 1 · 2 calls run together", "batch 2",
		"#1 read_file", "#3 read_file", "▶ running",
		"#2 edit_file", "? needs approval (then waits for #1) · mode:reads: reads",
		"running 2 · waiting 0", "? 1 call to approve")
	// The detail pane of the pending call says in full why it asks.
	h.key("down")
	h.key("down")
	mustContain(t, h.view(), "── #2 edit_file", "policy: asks the person, by mode:reads: reads mode asks before a call that may change things (writes pager.go)",
		"since 09:00:00", "depends on #1 (waiting for #1)")
	// Batch 1 is drawn before batch 2, whatever the call numbers.
	if strings.Index(screen, "#3 read_file") > strings.Index(screen, "#2 edit_file") {
		t.Fatalf("batch 2 drawn before batch 1:\n%s", screen)
	}
	h.feed(runtime.CallDecision{Turn: 4, Index: 1, Decision: "run", By: "user", Reason: "approved"})
	mustContain(t, h.view(), "⧗ waits for #1")
}
