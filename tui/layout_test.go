package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/board"
)

// busyRun feeds a run with a reply of several calls in several states and a
// long transcript.
func busyRun(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, Options{Demo: true, Model: "demo", Description: "Built-in demo: a scripted model fixes a bug"})
	h.startRun("Customers say the last page of results is missing. Find and fix the bug.")
	for turn := 1; turn <= 20; turn++ {
		h.feed(runtime.ReplyReceived{Turn: turn, Text: fmt.Sprintf("Turn %d: reading the files together, then editing the one that is wrong.", turn),
			Calls: []runtime.PlannedCall{
				pc(0, "read_file", `{"path":"pager.go"}`, reads("pager.go"), 1),
				pc(1, "edit_file", `{"path":"pager.go","old":"return total / size","new":"return (total + size - 1) / size"}`, writes("pager.go"), 2, 0),
				pc(2, "read_file", `{"path":"README.md"}`, reads("README.md"), 1),
			}},
			decide(turn, 0, "run", "mode:reads", "reads mode runs calls that only read"),
			decide(turn, 1, "ask", "mode:reads", "reads mode asks before a call that may change things (writes /w/pager.go)"),
			decide(turn, 2, "run", "mode:reads", "reads mode runs calls that only read"),
			started(turn, 0, "read_file", t0), started(turn, 2, "read_file", t0),
			finished(turn, 2, "read_file", "success", "", "# pager\n\nA tiny package.", 400),
		)
		if turn < 20 {
			h.feed(finished(turn, 0, "read_file", "success", "", "package pager", 300),
				decide(turn, 1, "run", "user", "approved"), started(turn, 1, "edit_file", t0),
				finished(turn, 1, "edit_file", "success", "", "Edited pager.go.", 30), runtime.TurnEnded{Turn: turn})
		}
	}
	h.feed(request(9, 20, 1, "edit_file", t0), usage(12345, 678))
	return h
}

// checkScreen fails unless the screen is exactly w×h with the header and
// status bar in place.
func checkScreen(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines at %d×%d:\n%s", len(lines), w, h, screen)
	}
	for i, l := range lines {
		if lw := lineWidth(l); lw > w {
			t.Fatalf("line %d is %d columns at width %d: %q", i, lw, w, l)
		}
	}
	if !strings.HasPrefix(lines[0], "agenttui") {
		t.Fatalf("no header at %d×%d:\n%s", w, h, screen)
	}
	if !strings.Contains(lines[h-1], "│") {
		t.Fatalf("no status bar at %d×%d:\n%s", w, h, screen)
	}
}

func TestLayoutAtManySizes(t *testing.T) {
	h := busyRun(t)
	for _, size := range [][2]int{{120, 40}, {60, 20}, {MinWidth, MinHeight}, {200, 60}, {80, 24}, {120, 40}} {
		h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkScreen(t, h.view(), size[0], size[1])
		mustNotContain(t, h.view(), "……")
		h.key("enter") // expanded details must fit too
		checkScreen(t, h.view(), size[0], size[1])
		h.key("enter")
	}
	screen := h.view()
	mustContain(t, screen, "[DEMO]", "Calls · turn 20", "? needs approval", "tokens 12k in · 678 out")
}

func TestTooSmall(t *testing.T) {
	h := busyRun(t)
	h.update(tea.WindowSizeMsg{Width: MinWidth - 1, Height: 30})
	mustContain(t, h.view(), "terminal too small", fmt.Sprintf("need ≥ %d×%d", MinWidth, MinHeight))
	h.update(tea.WindowSizeMsg{Width: 80, Height: MinHeight - 1})
	mustContain(t, h.view(), "terminal too small")
	if n := len(strings.Split(h.view(), "\n")); n != MinHeight-1 {
		t.Fatalf("the notice has %d lines, want %d", n, MinHeight-1)
	}
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	checkScreen(t, h.view(), 120, 40)
}

func TestTranscriptScrolls(t *testing.T) {
	h := busyRun(t)
	h.key("tab") // board → transcript
	mustNotContain(t, h.view(), "Turn 1:")
	for i := 0; i < 40; i++ {
		h.key("pgup")
	}
	screen := h.view()
	mustContain(t, screen, "This is the built-in demo", "goal › Customers say", "Turn 1: reading", "↓ more below")
	// One line down: the transcript's lines move up by one.
	h.key("down")
	after := strings.Split(h.view(), "\n")
	if before := strings.Split(screen, "\n"); after[3] != before[4] {
		t.Fatalf("down did not scroll one line: %q then %q", before[4], after[3])
	}
	h.key("end")
	mustContain(t, h.view(), "Turn 20: reading")
	mustNotContain(t, h.view(), "↓ more below")
	// While scrolled up, new output does not move the view.
	h.key("pgup")
	before := h.view()
	h.feed(runtime.Notice{Level: "info", Text: "new notice"})
	if h.view() != before {
		t.Fatal("new output moved a scrolled-up transcript")
	}
	h.update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	for i := 0; i < 40; i++ {
		h.key("pgdown")
	}
	mustContain(t, h.view(), "new notice")
}

func TestIdleMeansNoTicks(t *testing.T) {
	h := newHarness(t, Options{})
	if h.m.ticking {
		t.Fatal("an idle console ticks")
	}
	h.startRun("x")
	if !h.m.ticking {
		t.Fatal("no spinner while the model replies")
	}
	// Only an approval is pending: nothing moves, so the tick chain ends.
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "run_shell", `{"command":"make"}`, writesAnything(), 1)}},
		decide(1, 0, "ask", "mode:reads", "asks"), request(1, 1, 0, "run_shell", t0))
	if cmd := h.update(spinnerTick(h)); cmd != nil || h.m.ticking {
		t.Fatal("the spinner keeps ticking while only an approval is pending")
	}
	mustContain(t, h.view(), "waiting for you since 09:00:00")
	// The call runs: ticking again.
	h.feed(decide(1, 0, "run", "user", "approved"), started(1, 0, "run_shell", t0))
	if !h.m.ticking {
		t.Fatal("no spinner while a call runs")
	}
	if cmd := h.update(spinnerTick(h)); cmd == nil {
		t.Fatal("the spinner stopped while a call runs")
	}
	out := runtime.Succeeded("ok", nil)
	h.feed(finished(1, 0, "run_shell", "success", "", "ok", 5), runtime.TurnEnded{Turn: 1}, runtime.RunFinished{Outcome: out},
		runDone{run: h.m.run, outcome: out})
	if cmd := h.update(spinnerTick(h)); cmd != nil || h.m.ticking {
		t.Fatal("the spinner keeps ticking after the run ended")
	}
	// A graceEnd timer is one shot: it schedules nothing.
	if cmd := h.update(board.GraceEndMsg{}); cmd != nil {
		t.Fatal("a grace timer scheduled more work")
	}
}

// spinnerTick returns the spinner's next tick message.
func spinnerTick(h *harness) tea.Msg { return h.m.spin.Tick() }

func TestElapsedUsesInjectedClock(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("x")
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "read_file", `{"path":"a"}`, reads("a"), 1)}},
		decide(1, 0, "run", "mode:reads", "r"), started(1, 0, "read_file", t0))
	h.clock.advance(3*time.Second + 400*time.Millisecond)
	mustContain(t, h.view(), "3.4s   ▶ running")
}
