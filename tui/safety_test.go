package tui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/board"
	"github.com/agenttui/agenttui/tui/input"
)

// pendingShell sets up a run whose only call, run_shell, waits for approval,
// with the board focused and the grace period over.
func pendingShell(t *testing.T) (*harness, approvalRequest) {
	t.Helper()
	h := newHarness(t, Options{})
	h.startRun("goal")
	req := request(1, 1, 0, "run_shell", t0)
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "run_shell", `{"command":"make"}`, writesAnything(), 1)}},
		decide(1, 0, "ask", "mode:reads", "reads mode asks"), req)
	if h.m.focus != focusBoard {
		t.Fatalf("focus is on the %s after submitting a goal, want the board", h.m.focus)
	}
	h.clock.advance(DefaultGrace)
	return h, req
}

func TestApproveFocusedCall(t *testing.T) {
	h, req := pendingShell(t)
	mustContain(t, h.view(), "y approve · n skip")
	h.key("y")
	a, ok := answered(req)
	if !ok || !a.Approve {
		t.Fatalf("y did not approve the focused call: %+v, %v", a, ok)
	}
	mustContain(t, h.view(), "… approved, starting")
	// The runtime acts on the answer: the call runs.
	h.feed(decide(1, 0, "run", "user", "approved"), started(1, 0, "run_shell", h.clock.now()))
	mustContain(t, h.view(), "▶ running")
}

func TestMultiRuneMessageIsTypingNotApproval(t *testing.T) {
	h, req := pendingShell(t)
	// Bubbletea delivers runes that arrive in one read as one message.
	h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("yy")})
	if a, ok := answered(req); ok {
		t.Fatalf(`"yy" in one message approved or skipped the call: %+v`, a)
	}
	h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("A"), Paste: true})
	if a, ok := answered(req); ok {
		t.Fatalf("a pasted A answered the call: %+v", a)
	}
	mustContain(t, h.view(), "typed text is ignored on the board")
}

func TestKeysIgnoredDuringGracePeriod(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "read_file", `{"path":"a"}`, reads("a"), 1),
		pc(1, "write_file", `{"path":"b","content":""}`, writes("b"), 1),
	}}, decide(1, 0, "run", "mode:reads", "r"), decide(1, 1, "ask", "mode:reads", "asks"))
	h.key("down") // the person focuses #2, which asks but has no request yet
	h.clock.advance(time.Second)

	// The request arrives under the person's fingers.
	req := request(5, 1, 1, "write_file", h.clock.now())
	h.feed(req)
	for _, k := range []string{"y", "n", "a", "A"} {
		h.key(k)
		if a, ok := answered(req); ok {
			t.Fatalf("%s within the grace period answered the call: %+v", k, a)
		}
	}
	mustContain(t, h.view(), "A ignored: the approvals under focus just changed", "approval keys paused ½ s")
	if h.m.focus != focusBoard || h.m.input.Mode() == input.ModeReason {
		t.Fatalf("n within the grace period opened the reason prompt")
	}

	h.clock.advance(DefaultGrace - time.Millisecond)
	h.key("y")
	if _, ok := answered(req); ok {
		t.Fatal("y 1 ms before the grace period ended approved the call")
	}
	h.clock.advance(time.Millisecond)
	h.update(board.GraceEndMsg{Seq: h.m.board.GraceSeq()})
	mustContain(t, h.view(), "y approve · n skip")
	h.key("y")
	if a, ok := answered(req); !ok || !a.Approve {
		t.Fatalf("y after the grace period did not approve: %+v %v", a, ok)
	}
}

func TestNewReplyUnderFocusArmsGrace(t *testing.T) {
	h, req := pendingShell(t)
	h.key("y")
	answered(req)
	h.feed(decide(1, 0, "run", "user", "approved"), started(1, 0, "run_shell", t0), finished(1, 0, "run_shell", "success", "", "ok", 5),
		runtime.TurnEnded{Turn: 1})
	h.clock.advance(time.Hour)
	// A new reply replaces the board while the person's finger is on y.
	req2 := request(2, 2, 0, "write_file", h.clock.now())
	h.feed(runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{pc(0, "write_file", `{"path":"x","content":""}`, writes("x"), 1)}},
		decide(2, 0, "ask", "mode:reads", "asks"), req2)
	h.key("y")
	if _, ok := answered(req2); ok {
		t.Fatal("y right after a new reply approved its call")
	}
}

func TestPersonMovingFocusDoesNotArmGrace(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	r1, r2 := request(1, 1, 0, "write_file", t0), request(2, 1, 1, "write_file", t0)
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "write_file", `{"path":"a","content":""}`, writes("a"), 1),
		pc(1, "write_file", `{"path":"b","content":""}`, writes("b"), 1),
	}}, decide(1, 0, "ask", "mode:reads", "asks"), decide(1, 1, "ask", "mode:reads", "asks"), r1, r2)
	h.clock.advance(DefaultGrace)
	h.key("down")
	h.key("y")
	if a, ok := answered(r2); !ok || !a.Approve {
		t.Fatal("y right after the person moved focus was ignored")
	}
	if _, ok := answered(r1); ok {
		t.Fatal("y answered a call that was not focused")
	}
}

func TestApprovalRequestDoesNotStealFocusFromInput(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	h.key("tab")
	h.key("tab") // board → transcript → input
	if h.m.focus != focusInput {
		t.Fatalf("focus is on the %s, want the input", h.m.focus)
	}
	h.typeText("hello ")
	req := request(1, 1, 0, "run_shell", t0)
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "run_shell", `{"command":"make"}`, writesAnything(), 1)}},
		decide(1, 0, "ask", "mode:reads", "reads mode asks"), req)
	if h.m.focus != focusInput {
		t.Fatalf("an approval request moved focus to the %s", h.m.focus)
	}
	h.clock.advance(time.Hour)
	// y, n, a and A typed in the input are text.
	h.typeText("ynaA")
	if a, ok := answered(req); ok {
		t.Fatalf("typing in the input answered an approval: %+v", a)
	}
	if got := h.m.input.Value(); got != "hello ynaA" {
		t.Fatalf("input holds %q, want %q", got, "hello ynaA")
	}
}

func TestSkipWithReason(t *testing.T) {
	h, req := pendingShell(t)
	h.key("n")
	if h.m.focus != focusInput || h.m.input.Mode() != input.ModeReason {
		t.Fatalf("n did not open the reason prompt (focus %s)", h.m.focus)
	}
	mustContain(t, h.view(), "Skip #1 run_shell · reason ›")
	h.typeText("not now, yes")
	if _, ok := answered(req); ok {
		t.Fatal("typing the reason answered early")
	}
	h.key("enter")
	a, ok := answered(req)
	if !ok || a.Approve || a.Reason != "not now, yes" {
		t.Fatalf("skip answer = %+v, %v; want a skip with the typed reason", a, ok)
	}
	if h.m.focus != focusBoard {
		t.Fatalf("focus after the skip is on the %s, want the board", h.m.focus)
	}
}

func TestSkipWithoutReasonAndCancel(t *testing.T) {
	h, req := pendingShell(t)
	h.key("n")
	h.key("esc")
	if _, ok := answered(req); ok {
		t.Fatal("esc in the reason prompt answered the call")
	}
	if h.m.run.stopping {
		t.Fatal("esc in the reason prompt stopped the run")
	}
	h.key("n")
	h.key("enter")
	a, ok := answered(req)
	if !ok || a.Approve || a.Reason != "" {
		t.Fatalf("empty reason answer = %+v, %v", a, ok)
	}
}

func TestApproveBatchAndAll(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	reqs := []approvalRequest{request(1, 1, 0, "write_file", t0), request(2, 1, 1, "write_file", t0), request(3, 1, 2, "run_shell", t0)}
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "write_file", `{"path":"a","content":""}`, writes("a"), 1),
		pc(1, "write_file", `{"path":"b","content":""}`, writes("b"), 1),
		pc(2, "run_shell", `{"command":"make"}`, writesAnything(), 2, 0, 1),
	}}, decide(1, 0, "ask", "m", "r"), decide(1, 1, "ask", "m", "r"), decide(1, 2, "ask", "m", "r"), reqs[0], reqs[1], reqs[2])
	h.clock.advance(DefaultGrace)
	h.key("a")
	for i, r := range reqs[:2] {
		if a, ok := answered(r); !ok || !a.Approve {
			t.Fatalf("a did not approve #%d of the focused batch", i+1)
		}
	}
	if _, ok := answered(reqs[2]); ok {
		t.Fatal("a approved a call of another batch")
	}
	h.key("A")
	if a, ok := answered(reqs[2]); !ok || !a.Approve {
		t.Fatal("A did not approve the remaining call")
	}
}

func TestRequestGoneLeavesBoard(t *testing.T) {
	h, req := pendingShell(t)
	h.feed(approvalGone{id: req.ID})
	h.key("y")
	if _, ok := answered(req); ok {
		t.Fatal("y answered a request the runtime no longer waits for")
	}
	mustContain(t, h.view(), "not waiting for approval")
}

// TestTypingOnNeverApproves is the person who sends a goal and goes on
// typing at an ordinary pace while a write comes to ask: every key is text,
// none answers the call, the status bar says a call waits and how to reach
// it, and the approval keys work only once they have stopped typing.
func TestTypingOnNeverApproves(t *testing.T) {
	h := newHarness(t, Options{})
	h.sendGoal("write the note")
	const typed = "yes please, and all of it"
	// The request arrives between the third and the fourth key.
	req := request(1, 1, 0, "write_file", t0.Add(900*time.Millisecond))
	for i, r := range typed {
		if i == 3 {
			h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "write_file", `{"path":"note.txt","content":"hi"}`, writes("note.txt"), 1)}},
				decide(1, 0, "ask", "mode:reads", "reads mode asks"), req)
		}
		h.clock.advance(300 * time.Millisecond)
		key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
		if r == ' ' {
			key = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{r}}
		}
		h.update(key)
		if a, ok := answered(req); ok {
			t.Fatalf("typing %q answered the call: %+v", typed[:i+1], a)
		}
	}
	if h.m.focus != focusInput || h.m.input.Value() != typed {
		t.Fatalf("focus on the %s, input %q; want the input holding %q", h.m.focus, h.m.input.Value(), typed)
	}
	mustContain(t, h.view(), "? 1 call to approve", "tab approve on the board")

	// Tab takes the person to the board, onto the call; y right after
	// typing is still held back, and says why.
	h.key("tab")
	if h.m.focus != focusBoard || h.m.board.Focused() == nil || h.m.board.Focused().Req == nil {
		t.Fatalf("tab did not bring focus to the waiting call (focus %s)", h.m.focus)
	}
	mustContain(t, h.view(), "approval keys paused: you are typing")
	h.key("y")
	if a, ok := answered(req); ok {
		t.Fatalf("y 0.3 s after the last typed key answered the call: %+v", a)
	}
	mustContain(t, h.view(), "y ignored: you are typing")
	h.clock.advance(board.TypingPause)
	mustContain(t, h.view(), "y approve · n skip")
	h.key("y")
	if a, ok := answered(req); !ok || !a.Approve {
		t.Fatalf("y after the pause did not approve: %+v %v", a, ok)
	}
}
