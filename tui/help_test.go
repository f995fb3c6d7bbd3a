package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/runtime"
)

// helpScreens pages through the open help with key, from where it is to
// its end, and returns every screen on the way, joined: what a person can
// read by scrolling.
func (h *harness) helpScreens(key string) string {
	h.t.Helper()
	var screens []string
	for range 300 {
		s := h.view()
		screens = append(screens, s)
		if !strings.Contains(s, " more · ") {
			return strings.Join(screens, "\n")
		}
		h.key(key)
		if h.view() == s {
			h.t.Fatalf("%s did not scroll the help:\n%s", key, s)
		}
	}
	h.t.Fatalf("%s never reached the end of the help", key)
	return ""
}

// TestHelpScrollsToEverythingAt80x24 opens the help on the smallest
// ordinary terminal, where the first screen holds only the first sections
// and says how much more there is, and scrolls down with each key that
// does, down to /quit and the person's own commands.
func TestHelpScrollsToEverythingAt80x24(t *testing.T) {
	for _, key := range []string{"pgdown", "down", "j", " "} {
		h := newHarness(t, Options{Commands: fileCmds()})
		h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
		h.command("/help")
		first := h.view()
		checkScreen(t, first, 80, 24)
		mustContain(t, first, "Keys and commands · esc or ? closes this", "ctrl+c ×2  quit", "? / f1", "esc        stop the turn",
			" more · ↑↓ pgup pgdn home end scroll · esc or ? closes")
		mustNotContain(t, first, "/quit", "Your commands", "above")
		all := h.helpScreens(key)
		mustContain(t, all, "/quit", "quit the console", "/export [file]", "Your commands", "/fix [issue-number] [priority]",
			"fix an issue by number", "/release-notes", "/review [focus]", "↑ ", " above · ")
		// A description may wrap, so it is looked for in the screens' words;
		// a line at a time, every row is whole on some screen.
		words := strings.Join(strings.Fields(all), " ")
		for _, group := range h.m.keys.FullHelp() {
			for _, b := range group {
				if b.Enabled() {
					mustContain(t, all, b.Help().Key)
					if key == "down" {
						mustContain(t, words, b.Help().Desc)
					}
				}
			}
		}
		for _, c := range commands() {
			mustContain(t, all, strings.TrimSpace("/"+c.Name+" "+c.Args))
			if key == "down" {
				mustContain(t, words, c.Desc)
			}
		}
		end := h.view()
		mustContain(t, end, "the end · ", "/review [focus]␇", "/home/p/.config/agenttui/commands/review.md")
		// End and Home jump to either end.
		h.key("home")
		if h.view() != first {
			t.Fatalf("home did not go back to the start:\n%s", h.view())
		}
		h.key("end")
		if h.view() != end {
			t.Fatalf("end did not go to the end:\n%s", h.view())
		}
	}
}

// TestHelpScreensGolden pins the whole screen with the help open at 80×24
// and 120×40, at its start and scrolled to its end, where /quit and the
// person's own commands are.
func TestHelpScreensGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, at := range []string{"home", "end"} {
			t.Run(fmt.Sprintf("%s_%dx%d", at, size[0], size[1]), func(t *testing.T) {
				h := newHarness(t, Options{Commands: fileCmds()})
				h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				h.key("f1")
				h.key(at)
				screen := h.view()
				checkScreen(t, screen, size[0], size[1])
				if strings.ContainsAny(screen, "\x1b\a") {
					t.Fatalf("escape sequences or a command file's control characters on the screen: %q", screen)
				}
				if at == "end" {
					mustContain(t, screen, "/quit", "/review [focus]", "the end · ")
				}
				golden.RequireEqual(t, []byte(screen+"\n"))
			})
		}
	}
}

// TestApprovalKeysNeverActWhileHelpIsOpen opens the help over a call that
// waits for approval: no approval key answers it, typed or pasted, and no
// key reaches the board or the grant chooser beneath; each key the help
// does not use says how to close it, and esc and ? close it.
func TestApprovalKeysNeverActWhileHelpIsOpen(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("goal")
	req := request(1, 1, 0, "run_shell", t0)
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "run_shell", `{"command":"make"}`, writesAnything(), 1)}},
		decide(1, 0, "ask", "mode:reads", "reads mode asks"), req)
	h.m.setFocus(focusBoard)
	h.clock.advance(2 * time.Second)
	for _, closer := range []string{"esc", "?"} {
		h.key("f1")
		if !h.m.help.Shown() {
			t.Fatal("f1 did not open the help")
		}
		for _, k := range []string{"y", "n", "a", "A", "g", "enter", "tab", "e"} {
			h.key(k)
			if a, ok := answered(req); ok {
				t.Fatalf("%s with the help open answered the call: %+v", k, a)
			}
			if !h.m.help.Shown() {
				t.Fatalf("%s closed the help", k)
			}
			if k != "g" { // g goes to the help's start, as G goes to its end
				mustContain(t, h.view(), "the help is open: esc or ? closes it")
			}
		}
		h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y"), Paste: true})
		h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("yA")})
		if a, ok := answered(req); ok {
			t.Fatalf("typed text with the help open answered the call: %+v", a)
		}
		mustContain(t, h.view(), "typed text is ignored while the help is open")
		if h.m.focus != focusBoard || h.m.grant.Shown() {
			t.Fatal("a key with the help open reached what lies beneath it")
		}
		h.key(closer)
		if h.m.help.Shown() {
			t.Fatalf("%s did not close the help", closer)
		}
	}
	if _, ok := answered(req); ok {
		t.Fatal("the call was answered")
	}
}

// TestMouseWheelScrollsTheHelp scrolls the help, not the transcript
// beneath it, with the wheel.
func TestMouseWheelScrollsTheHelp(t *testing.T) {
	h := newHarness(t, Options{})
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.key("f1")
	mustNotContain(t, h.view(), " above · ")
	h.update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	mustContain(t, h.view(), "↑ 3 above · Anywhere, continued")
	h.update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	mustNotContain(t, h.view(), " above · ")
}
