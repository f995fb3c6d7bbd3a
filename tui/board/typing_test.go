package board

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// TestTypingHoldsTheApprovalKeys shows the pause after typing on a board
// whose call waits: y is refused with its reason while the person typed
// within TypingPause, every board sharing the record sees it, the board
// asks to be redrawn when the pause ends (again after more typing), and y
// works after it.
func TestTypingHoldsTheApprovalKeys(t *testing.T) {
	clock := &fakeClock{t: t0}
	typing := new(Typing)
	b := New(ws, clock.now, DefaultGrace, DefaultKeyMap(), text.DefaultStyles())
	b.SetTyping(typing)
	other := New(ws, clock.now, DefaultGrace, DefaultKeyMap(), text.DefaultStyles())
	other.SetTyping(typing)

	if cmd := b.Typed(); cmd != nil {
		t.Fatal("typing with nothing waiting scheduled a redraw")
	}
	r := callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "write_file", `{"path":"a"}`, writes("a"), 1)}})
	b.SetReply(r)
	feed(r, decide(1, 0, "ask", "mode:reads", "asks"))
	feed(r, callview.Request{ID: 1, Since: t0, Req: approval.Request{Turn: 1, Index: 0, Call: tool.Call{Name: "write_file"}}})
	b.PersonChange()

	clock.advance(DefaultGrace)
	if cmd := b.Typed(); cmd == nil {
		t.Fatal("typing with a call waiting scheduled no redraw for the pause's end")
	}
	if b.Armed() || other.Armed() || !other.Typing() {
		t.Fatal("a board's approval keys work right after the person typed")
	}
	if got, want := b.GraceUntil(), clock.now().Add(TypingPause); !got.Equal(want) {
		t.Fatalf("GraceUntil = %v, want the pause's end %v", got, want)
	}
	act := b.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	if len(act.Approve) > 0 || act.Note != "y ignored: you are typing; approval keys work 1½ s after the last typed key" {
		t.Fatalf("y while typing: %+v", act)
	}

	// More typing before the pause ended: the redraw that comes finds the
	// keys still held and asks for another.
	clock.advance(TypingPause / 2)
	typing.Typed(clock.now())
	clock.advance(TypingPause / 2)
	if cmd := b.Rearm(GraceEndMsg{Seq: b.GraceSeq()}); cmd == nil {
		t.Fatal("the end of a pause that typing extended scheduled no further redraw")
	}
	clock.advance(TypingPause / 2)
	if !b.Armed() {
		t.Fatal("the approval keys are still held TypingPause after the last key")
	}
	if cmd := b.Rearm(GraceEndMsg{Seq: b.GraceSeq()}); cmd != nil {
		t.Fatal("a redraw was scheduled although the keys work")
	}
	if act := b.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")}); len(act.Approve) != 1 {
		t.Fatalf("y after the pause did not approve: %+v", act)
	}
}

// TestFocusPendingTakesTheFirstCallThatAsks moves focus, as tab onto the
// board does, to the first call in display order whose row asks for the
// person, whichever request came first, and leaves it on a call that
// asks already.
func TestFocusPendingTakesTheFirstCallThatAsks(t *testing.T) {
	clock := &fakeClock{t: t0}
	b := New(ws, clock.now, DefaultGrace, DefaultKeyMap(), text.DefaultStyles())
	r := callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "read_file", `{"path":"a"}`, reads("a"), 1),
		pc(1, "write_file", `{"path":"b"}`, writes("b"), 1),
		pc(2, "write_file", `{"path":"c"}`, writes("c"), 1),
	}})
	b.SetReply(r)
	feed(r, decide(1, 0, "run", "mode:reads", "reads"))
	feed(r, decide(1, 2, "ask", "mode:reads", "asks"))
	feed(r, callview.Request{ID: 3, Since: t0, Req: approval.Request{Turn: 1, Index: 2, Call: tool.Call{Name: "write_file"}}})
	feed(r, decide(1, 1, "ask", "mode:reads", "asks"))
	if !b.FocusPending() || b.Focus() != 1 {
		t.Fatalf("focus went to #%d, want #2, the first call that asks", b.Focus()+1)
	}
	if b.FocusPending() {
		t.Fatal("focus moved off a call that asks")
	}
}
