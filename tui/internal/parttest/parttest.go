// Package parttest holds what the console's parts' tests share: drawing
// without colour, keys as the terminal sends them, hostile text, and the
// check that a view fits its size and lets nothing raw through.
package parttest

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// Hostile is text from outside that tries to clear the screen, set the
// clipboard and plant a link.
const Hostile = "\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://evil.example\x07click\x1b]8;;\x07 me\r"

// Colourless makes everything draw without colour on a dark background,
// so that goldens hold only text and no test depends on the terminal it
// runs in. A test binary's TestMain calls it first.
func Colourless() {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
}

// Runes is the key message of typed text: several runes in one message are
// what bubbletea delivers for a burst of typing.
func Runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// Paste is the key message of pasted text.
func Paste(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true} }

// CheckScreen fails unless out has h lines of at most w columns and, when
// drawing without colour, no escape or control character.
func CheckScreen(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Fatalf("%d×%d: drew %d lines", w, h, len(lines))
	}
	for _, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Fatalf("%d×%d: a line is %d columns wide: %q", w, h, n, l)
		}
	}
	if lipgloss.ColorProfile() == termenv.Ascii && strings.ContainsAny(out, "\x1b\x07\r") {
		t.Fatalf("%d×%d: an escape or control character reached the output: %q", w, h, out)
	}
}

// Widths returns the widths the fitting tests draw at: every one up to 48,
// where cutting and wrapping change most, then every fifth to 163, past
// the width where a diff turns side by side.
func Widths() []int {
	var ws []int
	for w := 1; w <= 163; w++ {
		if w <= 48 || w%5 == 3 {
			ws = append(ws, w)
		}
	}
	return ws
}
