package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/input"
)

// recordingRun returns a Run that reports each input on inputs and then
// waits to be stopped.
func recordingRun(inputs chan<- string) func(ctx context.Context, input string) runtime.GoalOutcome {
	return func(ctx context.Context, input string) runtime.GoalOutcome {
		inputs <- input
		<-ctx.Done()
		return runtime.Failed(input, "stopped", nil)
	}
}

// started returns the input the run was started with, if a run started.
func startedWith(t *testing.T, h *harness, inputs <-chan string) (string, bool) {
	t.Helper()
	if h.m.run == nil {
		return "", false
	}
	select {
	case in := <-inputs:
		return in, true
	case <-time.After(10 * time.Second):
		t.Fatal("a run was launched but its Run was never called")
	}
	return "", false
}

// launch runs the command an update returned, as bubbletea would, each in
// its own goroutine, so that a run's goroutine calls Run. The messages are
// dropped: tests feed the console what it would hear.
func launch(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if batch, ok := cmd().(tea.BatchMsg); ok {
			for _, c := range batch {
				launch(c)
			}
		}
	}()
}

// submitKey presses Enter and starts whatever run it launches.
func (h *harness) submitKey() {
	h.t.Helper()
	launch(h.update(keyMsg("enter")))
}

func paste(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true} }

func TestMultiLineInput(t *testing.T) {
	inputs := make(chan string, 4)
	h := newHarness(t, Options{Run: recordingRun(inputs)})
	h.typeText("first")
	h.update(tea.KeyMsg{Type: tea.KeyCtrlJ})
	h.typeText("second")
	h.update(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	h.typeText("third")
	if got := h.m.input.Value(); got != "first\nsecond\nthird" {
		t.Fatalf("input = %q", got)
	}
	mustContain(t, h.view(), "▸ Goal › first\n         second\n         third")
	h.submitKey()
	if in, ok := startedWith(t, h, inputs); !ok || in != "first\nsecond\nthird" {
		t.Fatalf("the run started with %q (%v)", in, ok)
	}
	// The transcript shows the three lines as the person's message.
	h.feed(runtime.RunStarted{Goal: "first\nsecond\nthird", Input: "first\nsecond\nthird", At: runtime.Time{Time: t0}})
	mustContain(t, h.view(), "goal › first\n       second\n       third")
}

func TestPasteKeepsNewlinesAndNeverSends(t *testing.T) {
	inputs := make(chan string, 4)
	h := newHarness(t, Options{Run: recordingRun(inputs)})
	h.update(paste("line one\rline two\r\nline three\n\x1b[31mred\x1b[0m\tend\r"))
	if h.m.run != nil {
		t.Fatal("a paste ending in a line break sent the input")
	}
	want := "line one\nline two\nline three\n[31mred[0m    end\n"
	if got := h.m.input.Value(); got != want {
		t.Fatalf("input after the paste = %q, want %q", got, want)
	}
	if strings.Contains(h.view(), "\x1b") {
		t.Fatal("the pasted escape reached the screen")
	}
	h.submitKey()
	if in, ok := startedWith(t, h, inputs); !ok || in != strings.TrimSpace(want) {
		t.Fatalf("the run started with %q (%v)", in, ok)
	}
}

// TestShiftEnterFromTerminals feeds the bytes terminals send for
// Shift+Enter when they report it as a key of its own through a real
// bubbletea input reader, and checks that each inserts a line break.
func TestShiftEnterFromTerminals(t *testing.T) {
	for name, seq := range map[string]string{"CSI u": "\x1b[13;2u", "modifyOtherKeys": "\x1b[27;2;13~"} {
		t.Run(name, func(t *testing.T) {
			probe := &msgProbe{want: 1}
			p := tea.NewProgram(probe, tea.WithInput(strings.NewReader(seq)), tea.WithOutput(io.Discard), tea.WithoutRenderer(),
				tea.WithoutSignalHandler())
			if _, err := p.Run(); err != nil {
				t.Fatal(err)
			}
			if len(probe.msgs) != 1 || !input.IsShiftEnter(probe.msgs[0]) {
				t.Fatalf("%q arrived as %#v", seq, probe.msgs)
			}
			h := newHarness(t, Options{})
			h.typeText("a")
			h.update(probe.msgs[0])
			h.typeText("b")
			if got := h.m.input.Value(); got != "a\nb" {
				t.Fatalf("input = %q", got)
			}
		})
	}
	if input.IsShiftEnter(tea.KeyMsg{Type: tea.KeyEnter}) {
		t.Fatal("plain Enter taken for Shift+Enter")
	}
}

// msgProbe records the messages that are neither sizes nor its own, and
// quits after want of them.
type msgProbe struct {
	want int
	msgs []tea.Msg
}

func (p *msgProbe) Init() tea.Cmd { return nil }
func (p *msgProbe) View() string  { return "" }
func (p *msgProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case tea.WindowSizeMsg:
		return p, nil
	}
	p.msgs = append(p.msgs, msg)
	if len(p.msgs) >= p.want {
		return p, tea.Quit
	}
	return p, nil
}

func TestInputGrowsThenScrollsAndLayoutShrinks(t *testing.T) {
	h := newHarness(t, Options{})
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	emptyTranscript := h.m.plan().transcript
	h.typeText("one")
	for i := 2; i <= 3; i++ {
		h.update(tea.KeyMsg{Type: tea.KeyCtrlJ})
		h.typeText(fmt.Sprint(i))
	}
	s := h.m.plan()
	if s.input != 3 || s.transcript != emptyTranscript-2 {
		t.Fatalf("with three lines the input takes %d lines and the transcript %d (was %d)", s.input, s.transcript, emptyTranscript)
	}
	for i := 4; i <= 12; i++ {
		h.update(tea.KeyMsg{Type: tea.KeyCtrlJ})
		h.typeText(fmt.Sprint(i))
	}
	s = h.m.plan()
	if s.input != h.m.inputRows() || s.input >= 12 {
		t.Fatalf("with twelve lines the input takes %d lines, want %d", s.input, h.m.inputRows())
	}
	screen := h.view()
	checkScreen(t, screen, 80, 24)
	// The cursor is on the last line: the lines in view end there, and
	// the first rows are scrolled away, which the arrow says.
	mustContain(t, screen, "12", "↑")
	mustNotContain(t, screen, "Goal › one")
	// Moving up to the top scrolls back.
	for i := 0; i < 11; i++ {
		h.key("up")
	}
	mustContain(t, h.view(), "▸ Goal › one")
	mustContain(t, h.view(), "↓")
	if h.m.input.Value() == "" || h.m.input.Recalling() {
		t.Fatal("moving up inside the text recalled history")
	}
	// At every size the screen stays whole.
	for _, size := range [][2]int{{MinWidth, MinHeight}, {60, 20}, {120, 40}} {
		h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkScreen(t, h.view(), size[0], size[1])
	}
}

func TestHistoryRecall(t *testing.T) {
	hist := &memHistory{entries: []string{"oldest", "two\nlines"}}
	inputs := make(chan string, 4)
	h := newHarness(t, Options{History: hist, Run: recordingRun(inputs)})
	h.typeText("draft")
	h.key("up")
	if got := h.m.input.Value(); got != "two\nlines" {
		t.Fatalf("↑ recalled %q", got)
	}
	// The cursor is on the recalled text's last line: ↑ moves up in it
	// first, then to the older entry.
	h.key("up")
	if got := h.m.input.Value(); got != "two\nlines" {
		t.Fatalf("↑ inside a recalled text recalled %q", got)
	}
	h.key("up")
	if got := h.m.input.Value(); got != "oldest" {
		t.Fatalf("↑ on the first line recalled %q", got)
	}
	h.key("up") // nothing older
	if got := h.m.input.Value(); got != "oldest" {
		t.Fatalf("↑ past the oldest gave %q", got)
	}
	h.update(tea.KeyMsg{Type: tea.KeyCtrlN})
	h.update(tea.KeyMsg{Type: tea.KeyCtrlN})
	if got := h.m.input.Value(); got != "draft" {
		t.Fatalf("coming back down gave %q, want the draft", got)
	}
	h.update(tea.KeyMsg{Type: tea.KeyCtrlP})
	if got := h.m.input.Value(); got != "two\nlines" {
		t.Fatalf("ctrl+p recalled %q", got)
	}
	h.submitKey()
	startedWith(t, h, inputs)
	if got := strings.Join(hist.added, "|"); got != "two\nlines" {
		t.Fatalf("the history was given %q", got)
	}
	// What the store kept (redacted) is what is recalled.
	h.m.stop("test")
	h.feed(runDone{run: h.m.run, outcome: runtime.Succeeded("ok", nil)})
	hist.keep = "[redacted] prompt"
	h.m.setFocus(focusInput)
	h.typeText("sk-secret prompt")
	h.submitKey()
	startedWith(t, h, inputs)
	h.m.stop("test")
	h.feed(runDone{run: h.m.run, outcome: runtime.Succeeded("ok", nil)})
	h.m.setFocus(focusInput)
	h.key("up")
	if got := h.m.input.Value(); got != "[redacted] prompt" {
		t.Fatalf("recalled %q, want the text as the history kept it", got)
	}
}

// memHistory is a History in memory; keep, when set, is what Add keeps.
type memHistory struct {
	entries, added []string
	keep           string
}

func (m *memHistory) Entries() []string { return m.entries }
func (m *memHistory) Add(text string) (string, error) {
	m.added = append(m.added, text)
	if m.keep != "" {
		text = m.keep
	}
	m.entries = append(m.entries, text)
	return text, nil
}

func TestHistorySearch(t *testing.T) {
	h := newHarness(t, Options{History: &memHistory{entries: []string{"fix the pager", "write the docs", "fix the tests", "other"}}})
	h.typeText("draft")
	h.update(tea.KeyMsg{Type: tea.KeyCtrlR})
	h.typeText("fix")
	if got := h.m.input.Value(); got != "fix the tests" {
		t.Fatalf("the search shows %q", got)
	}
	mustContain(t, h.view(), "history search (ctrl+r older · enter take · esc cancel): fix", "type to search")
	h.update(tea.KeyMsg{Type: tea.KeyCtrlR})
	if got := h.m.input.Value(); got != "fix the pager" {
		t.Fatalf("ctrl+r again shows %q", got)
	}
	h.typeText("zz")
	mustContain(t, h.view(), "nothing matches fixzz")
	h.key("esc")
	if got := h.m.input.Value(); got != "draft" || h.m.input.Searching() {
		t.Fatalf("esc left %q (searching %v)", got, h.m.input.Searching())
	}
	if h.m.run != nil {
		t.Fatal("esc in the search did something else")
	}
	h.update(tea.KeyMsg{Type: tea.KeyCtrlR})
	h.typeText("docs")
	h.key("enter")
	if got := h.m.input.Value(); got != "write the docs" || h.m.run != nil {
		t.Fatalf("enter in the search: input %q, run %v; want the match in the input, not sent", got, h.m.run != nil)
	}
}

func TestApprovalNeverStealsFocusFromMultiLineTyping(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	h.setFocusToInput()
	h.typeText("line")
	h.update(tea.KeyMsg{Type: tea.KeyCtrlJ})
	req := request(1, 1, 0, "run_shell", t0)
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "run_shell", `{"command":"make"}`, writesAnything(), 1)}},
		decide(1, 0, "ask", "mode:reads", "asks"), req)
	h.clock.advance(time.Hour)
	h.typeText("yy")
	h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ynaA")})
	h.update(paste("y\ny"))
	if a, ok := answered(req); ok {
		t.Fatalf("typing answered the approval: %+v", a)
	}
	if h.m.focus != focusInput || h.m.input.Value() != "line\nyyynaAy\ny" {
		t.Fatalf("focus %s, input %q", h.m.focus, h.m.input.Value())
	}
}

// setFocusToInput tabs to the input, as the person would.
func (h *harness) setFocusToInput() {
	for i := 0; i < 3 && h.m.focus != focusInput; i++ {
		h.key("tab")
	}
	if h.m.focus != focusInput {
		h.t.Fatal("tab never reached the input")
	}
}

func TestModeAndApprovalKeysStillWork(t *testing.T) {
	p := approval.NewPolicy(approval.ModeReads, nil)
	h := newHarness(t, Options{Policy: p})
	h.typeText("/mode plan")
	h.key("enter")
	if p.Mode() != approval.ModePlan || h.m.input.Value() != "" {
		t.Fatalf("/mode plan left mode %s and input %q", p.Mode(), h.m.input.Value())
	}
	mustContain(t, h.view(), "[PLAN: read-only]")
	h.key("shift+tab")
	if p.Mode() != approval.ModeAsk {
		t.Fatalf("shift+tab after /mode gave %s", p.Mode())
	}
}
