package tui

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/eventtest"
)

// TestMain draws everything without colour, so screens and goldens hold
// only text and no test depends on the terminal it runs in.
func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

const ws = eventtest.WS

// t0 is the fake clock's start.
var t0 = eventtest.T0

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// harness drives a Model by calling Update directly, so every step is
// deterministic: nothing runs in the background.
type harness struct {
	t     *testing.T
	m     Model
	clock *fakeClock
	// ticks are what the console scheduled through Options.Tick (the
	// autopilot's steps), earliest first once wake sorts them.
	ticks []scheduled
}

// scheduled is a message the console asked for at a time.
type scheduled struct {
	at time.Time
	fn func(time.Time) tea.Msg
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	h := &harness{t: t, clock: &fakeClock{t: t0}}
	if opts.Bridge == nil {
		opts.Bridge = NewBridge(h.clock.now)
	}
	if opts.Run == nil {
		opts.Run = func(ctx context.Context, input string) runtime.GoalOutcome {
			<-ctx.Done()
			return runtime.Failed(input, "stopped", nil)
		}
	}
	if opts.Workspace == "" {
		opts.Workspace = ws
	}
	if opts.Model == "" {
		opts.Model = "scenario:test"
	}
	if opts.Mode == "" {
		opts.Mode = approval.ModeReads
	}
	opts.Now = h.clock.now
	if opts.Tick == nil {
		opts.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
			h.ticks = append(h.ticks, scheduled{at: h.clock.now().Add(d), fn: fn})
			return nil
		}
	}
	h.m = New(opts)
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return h
}

// update sends msg to the model and returns the command it gave back.
func (h *harness) update(msg tea.Msg) tea.Cmd {
	h.t.Helper()
	nm, cmd := h.m.Update(msg)
	h.m = nm.(Model)
	return cmd
}

// wake delivers the earliest scheduled message, moving the fake clock to
// its time; it reports false when nothing is scheduled.
func (h *harness) wake() bool {
	h.t.Helper()
	if len(h.ticks) == 0 {
		return false
	}
	first := 0
	for i, s := range h.ticks {
		if s.at.Before(h.ticks[first].at) {
			first = i
		}
	}
	s := h.ticks[first]
	h.ticks = append(h.ticks[:first], h.ticks[first+1:]...)
	if s.at.After(h.clock.now()) {
		h.clock.t = s.at
	}
	h.update(s.fn(h.clock.now()))
	return true
}

// feed delivers items as one batch from the Bridge.
func (h *harness) feed(items ...any) { h.update(eventsMsg(items)) }

// key presses one key, named as bubbletea names it.
func (h *harness) key(name string) {
	h.t.Helper()
	h.update(keyMsg(name))
}

// typeText types text into whatever has focus, one key per rune.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func keyMsg(name string) tea.KeyMsg {
	switch name {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "f1":
		return tea.KeyMsg{Type: tea.KeyF1}
	case "ctrl+o":
		return tea.KeyMsg{Type: tea.KeyCtrlO}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// view returns the screen.
func (h *harness) view() string { return h.m.View() }

// startRun submits a goal, as the person would, marks the run active, and
// moves focus to the board with tab, as a person who means to approve does.
func (h *harness) startRun(goal string) {
	h.t.Helper()
	h.sendGoal(goal)
	h.key("tab")
}

// sendGoal submits a goal, as the person would, and marks the run active;
// focus stays in the input.
func (h *harness) sendGoal(goal string) {
	h.t.Helper()
	h.m.input.SetValue(goal)
	h.m.setFocus(focusInput)
	h.key("enter")
	if h.m.run == nil {
		h.t.Fatalf("enter did not start a run; note: %q", h.m.note)
	}
	if h.m.focus != focusInput {
		h.t.Fatalf("focus moved to the %s when the goal was sent; it stays in the input", h.m.focus)
	}
	h.feed(runtime.RunStarted{Session: "s", Goal: goal, Input: goal, Model: "scenario:test", Mode: "reads", At: runtime.Time{Time: h.clock.now()}})
}

// The events the tests feed the console, in short.
var (
	pc             = eventtest.Call
	reads          = eventtest.Reads
	writes         = eventtest.Writes
	writesAnything = eventtest.WritesAnything
	decide         = eventtest.Decide
	started        = eventtest.Started
	finished       = eventtest.Finished
)

// request builds an approval request for a call, with its answer channel.
func request(id uint64, turn, index int, name string, since time.Time) approvalRequest {
	return approvalRequest{answer: make(chan approval.Answer, 1), Request: callview.Request{
		ID: id, Since: since,
		Req: approval.Request{Turn: turn, Index: index, Call: tool.Call{Name: name}, By: "mode:reads", Reason: "reads mode asks"},
	}}
}

// answered returns the answer sent on r, if any.
func answered(r approvalRequest) (approval.Answer, bool) {
	select {
	case a := <-r.answer:
		return a, true
	default:
		return approval.Answer{}, false
	}
}

func usage(in, out int) runtime.UsageReported {
	return runtime.UsageReported{Turn: 1, Total: model.Usage{InputTokens: in, OutputTokens: out}}
}

// mustContain fails unless the screen holds every want.
func mustContain(t *testing.T, screen string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(screen, w) {
			t.Fatalf("screen lacks %q:\n%s", w, screen)
		}
	}
}

func mustNotContain(t *testing.T, screen string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(screen, b) {
			t.Fatalf("screen holds %q:\n%s", b, screen)
		}
	}
}

// lineWidth is the width of a drawn line in terminal columns.
func lineWidth(s string) int { return ansi.StringWidth(s) }
