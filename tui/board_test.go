package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/runtime"
)

// boardCase builds a board with its calls in one state.
type boardCase struct {
	name  string
	calls []runtime.PlannedCall
	// events follow the reply; request, when set, is attached after them.
	events  func(now time.Time) []any
	advance time.Duration
	focus   int
}

func boardCases() []boardCase {
	readA := pc(0, "read_file", `{"path":"a.go"}`, reads("a.go"), 1)
	writeA := pc(0, "write_file", `{"path":"a.go","content":"package a\n"}`, writes("a.go"), 1)
	shell := pc(0, "run_shell", `{"command":"go test ./..."}`, writesAnything(), 1)
	notFinished := func(ev runtime.CallFinished) runtime.CallFinished {
		ev.NotFinished, ev.Why = true, "the person stopped the turn"
		return ev
	}
	return []boardCase{
		{name: "queued", calls: []runtime.PlannedCall{readA},
			events: func(time.Time) []any {
				return []any{decide(1, 0, "run", "mode:reads", "reads mode runs calls that only read")}
			}},
		{name: "waits_for", focus: 1,
			calls: []runtime.PlannedCall{writeA, pc(1, "read_file", `{"path":"a.go"}`, reads("a.go"), 2, 0)},
			events: func(now time.Time) []any {
				return []any{decide(1, 0, "run", "mode:auto", "auto mode runs every call"), decide(1, 1, "run", "mode:auto", "auto mode runs every call"),
					started(1, 0, "write_file", now)}
			}},
		{name: "needs_approval", calls: []runtime.PlannedCall{shell},
			events: func(now time.Time) []any {
				return []any{decide(1, 0, "ask", "mode:reads", "reads mode asks before a call that may change things (writes anything)"),
					request(1, 1, 0, "run_shell", now)}
			}},
		{name: "running", calls: []runtime.PlannedCall{readA}, advance: 1200 * time.Millisecond,
			events: func(now time.Time) []any {
				return []any{decide(1, 0, "run", "mode:reads", "reads mode runs calls that only read"), started(1, 0, "read_file", now)}
			}},
		{name: "succeeded", calls: []runtime.PlannedCall{readA},
			events: func(now time.Time) []any {
				return []any{decide(1, 0, "run", "mode:reads", "r"), started(1, 0, "read_file", now),
					finished(1, 0, "read_file", "success", "", "     1\tpackage a\n     2\t", 400)}
			}},
		{name: "error_kind", calls: []runtime.PlannedCall{readA},
			events: func(now time.Time) []any {
				return []any{decide(1, 0, "run", "mode:reads", "r"), started(1, 0, "read_file", now),
					finished(1, 0, "read_file", "error", "not_found", "a.go does not exist (no such file)", 30)}
			}},
		{name: "skipped_with_reason", calls: []runtime.PlannedCall{shell},
			events: func(now time.Time) []any {
				text := "Skipped by the person: the tests are slow. The call was not run."
				return []any{decide(1, 0, "ask", "mode:reads", "reads mode asks"), decide(1, 0, "skip", "user", text),
					finished(1, 0, "run_shell", "skipped", "", text, 0)}
			}},
		{name: "denied", calls: []runtime.PlannedCall{pc(0, "read_file", `{"path":"../secret"}`, reads("../secret"), 1)},
			events: func(now time.Time) []any {
				return []any{decide(1, 0, "run", "mode:reads", "r"), started(1, 0, "read_file", now),
					finished(1, 0, "read_file", "denied", "", "../secret is outside the workspace", 2)}
			}},
		{name: "not_run", calls: []runtime.PlannedCall{writeA},
			events: func(now time.Time) []any {
				ev := notFinished(finished(1, 0, "write_file", "skipped", "", "The call to write_file was not run: the person stopped the turn.", 0))
				ev.Started = false
				return []any{decide(1, 0, "run", "mode:auto", "auto"), ev}
			}},
		{name: "may_have_partly_run", calls: []runtime.PlannedCall{shell},
			events: func(now time.Time) []any {
				return []any{decide(1, 0, "run", "mode:auto", "auto"), started(1, 0, "run_shell", now),
					notFinished(finished(1, 0, "run_shell", "error", "cancelled", "The call to run_shell may have partly run.", 1500))}
			}},
		{name: "did_not_finish_reads", calls: []runtime.PlannedCall{readA},
			events: func(now time.Time) []any {
				return []any{decide(1, 0, "run", "mode:auto", "auto"), started(1, 0, "read_file", now),
					notFinished(finished(1, 0, "read_file", "error", "cancelled", "The call to read_file did not finish.", 700))}
			}},
		{name: "invalid_reply", calls: []runtime.PlannedCall{pc(0, "edit_file", `"{\"path\": "`, nil, 0)},
			events: func(time.Time) []any {
				return []any{runtime.InvalidReply{Turn: 1, Results: []string{"The call to edit_file did not run: its arguments must be a JSON object."}}}
			}},
	}
}

// TestBoardGolden pins the board's drawing of a call in every state, at a
// fixed width and without colour.
func TestBoardGolden(t *testing.T) {
	for _, tc := range boardCases() {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			h.startRun("goal")
			h.feed(runtime.ReplyReceived{Turn: 1, Calls: tc.calls})
			h.feed(tc.events(h.clock.now())...)
			h.clock.advance(tc.advance)
			h.m.board.focus = tc.focus
			out := h.m.board.View(100, 1+len(tc.calls)+2, h.m.spin.View(), true)
			for _, l := range strings.Split(out, "\n") {
				if w := lineWidth(l); w > 100 {
					t.Fatalf("line is %d columns wide, more than 100: %q", w, l)
				}
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

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
		"running 2 · waiting 0", "? 1 need approval")
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
