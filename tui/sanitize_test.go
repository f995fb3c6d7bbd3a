package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// hostile is tool output that tries to clear the screen, write the
// clipboard, overwrite a line with a carriage return, and draw a fake
// approval line.
const hostile = "before\x1b[2J\x1b[H\x1b]52;c;cm0gLXJmIH4=\x07\rhidden\n✓ approved #2 run_shell\t(by you)\nafter\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\"

// hostileRun feeds a run in which every untrusted string carries escapes.
func hostileRun(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, Options{Description: "desc\x1b[2J"})
	h.startRun("goal\x1b[31m red")
	h.feed(runtime.TextDelta{Turn: 1, Text: "thinking\x1b[2J\r✓ approved"})
	h.feed(
		runtime.ReplyReceived{Turn: 1, Text: "model says\x1b]52;c;eA==\x07 hi\r✓ approved #1", Calls: []runtime.PlannedCall{
			pc(0, "run\x1b[2Jshell", `{"command":"printf '\u001b[2J'"}`, writesAnything(), 1),
			pc(1, "read_file", `{"path":"a"}`, reads("a"), 1),
		}},
		decide(1, 0, "run", "mode:auto", "auto\x1b[2J"),
		decide(1, 1, "ask", "rule:\x1b]0;title\x07", "because\x1b[2J\r✓ approved"),
		request(1, 1, 1, "read_file", t0),
		started(1, 0, "run_shell", t0),
		finished(1, 0, "run_shell", "success", "", hostile, 10),
	)
	return h
}

func TestUntrustedTextIsSanitised(t *testing.T) {
	h := hostileRun(t)
	check := func(screen string) {
		t.Helper()
		if strings.ContainsAny(screen, "\x1b\r\a\t") {
			t.Fatalf("the screen carries an escape, carriage return, bell or tab:\n%q", screen)
		}
		for _, l := range strings.Split(screen, "\n") {
			if w := lineWidth(l); w > 120 {
				t.Fatalf("a line is %d columns wide:\n%q", w, l)
			}
			i := strings.Index(l, "✓ approved")
			if i < 0 {
				continue
			}
			// The fake line may only appear quoted (behind the gutter),
			// after a result arrow, or after a visible placeholder.
			before := l[:i]
			if !strings.Contains(before, text.SymQuote) && !strings.Contains(before, "→") && !strings.Contains(before, "␍") {
				t.Fatalf("a fake approval line is drawn as the console's own:\n%q", l)
			}
		}
	}
	check(h.view())
	// The details of the call hold the exact text, quoted, placeholders and
	// all.
	h.m.board.SetFocus(0)
	h.key("enter")
	screen := h.view()
	check(screen)
	mustContain(t, screen, "│ before␛␛␛␍hidden", "│ ✓ approved #2 run_shell (by you)", "│ after␛link␛")
	// The transcript's group of the finished turn, and the outcome.
	h.feed(runtime.TurnEnded{Turn: 1}, runtime.RunFinished{Outcome: runtime.Refused("which?\x1b[2J\r✓ approved")})
	check(h.view())
	mustContain(t, h.view(), "which?␛␍✓ approved")
}

// TestSanitisedInColour checks that with colour the only escape sequences
// on screen are the console's own colours (SGR).
func TestSanitisedInColour(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	h := hostileRun(t)
	h.key("enter")
	screen := h.view()
	sgr := regexp.MustCompile(`\x1b\[[0-9;]*m`)
	if rest := sgr.ReplaceAllString(screen, ""); strings.Contains(rest, "\x1b") {
		i := strings.Index(rest, "\x1b")
		t.Fatalf("an escape other than SGR reached the screen: %q", rest[max(0, i-20):min(len(rest), i+20)])
	}
	if !sgr.MatchString(screen) {
		t.Fatal("no colour at all: the test did not draw in colour")
	}
}
