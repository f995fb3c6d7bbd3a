package text

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/agenttui/agenttui/tui/diffview"
)

// The palette adapts to the terminal's background, so the console reads on
// light and dark terminals alike. Nothing depends on colour alone: every
// state also has a symbol and a word, so the console works with NO_COLOR.
var (
	colAccent = lipgloss.AdaptiveColor{Light: "#005fd7", Dark: "#5fafff"}
	colOK     = lipgloss.AdaptiveColor{Light: "#007a00", Dark: "#5fd75f"}
	colErr    = lipgloss.AdaptiveColor{Light: "#c00000", Dark: "#ff6f6f"}
	colWarn   = lipgloss.AdaptiveColor{Light: "#a34e00", Dark: "#ffaf00"}
	colDim    = lipgloss.AdaptiveColor{Light: "#6c6c6c", Dark: "#8a8a8a"}
	colSel    = lipgloss.AdaptiveColor{Light: "#dadada", Dark: "#3a3a3a"}
	colBadge  = lipgloss.AdaptiveColor{Light: "#af00af", Dark: "#ff87ff"}
)

// Styles are the styles of the console's own text. The console makes one
// value and hands it to every part it draws, so a part never reaches for a
// global. Untrusted text is cleaned before any of these is applied to it.
type Styles struct {
	Bold, Dim, Accent, Title, OK, Err, Warn, Badge, Focused, Key lipgloss.Style
	// Discarded is the text of a model request's failed attempt: struck
	// through and dimmed.
	Discarded lipgloss.Style
	// Mark is the part of a quoted value the console points at, such as
	// the text of an argument that came from an untrusted result; the
	// console also puts it between « and », for terminals without styles.
	Mark lipgloss.Style
}

// DefaultStyles returns the console's styles. The console hands the one
// value to every part by pointer: a Styles is some kilobytes, too much to copy
// into each part and with every update.
func DefaultStyles() *Styles {
	return &Styles{
		Bold:      lipgloss.NewStyle().Bold(true),
		Dim:       lipgloss.NewStyle().Foreground(colDim),
		Accent:    lipgloss.NewStyle().Foreground(colAccent),
		Title:     lipgloss.NewStyle().Foreground(colAccent).Bold(true),
		OK:        lipgloss.NewStyle().Foreground(colOK),
		Err:       lipgloss.NewStyle().Foreground(colErr),
		Warn:      lipgloss.NewStyle().Foreground(colWarn).Bold(true),
		Badge:     lipgloss.NewStyle().Foreground(colBadge).Bold(true),
		Focused:   lipgloss.NewStyle().Background(colSel),
		Key:       lipgloss.NewStyle().Foreground(colAccent).Bold(true),
		Discarded: lipgloss.NewStyle().Foreground(colDim).Strikethrough(true),
		Mark:      lipgloss.NewStyle().Reverse(true).Bold(true),
	}
}

// Tone is how a piece of the console's own text should stand out, named by
// what it means rather than by its colour, so that words and their look can
// be decided in different places.
type Tone int

// The tones.
const (
	ToneDim Tone = iota
	ToneAccent
	ToneOK
	ToneWarn
	ToneErr
)

// Render draws s in tone t.
func (st *Styles) Render(t Tone, s string) string {
	switch t {
	case ToneAccent:
		return st.Accent.Render(s)
	case ToneOK:
		return st.OK.Render(s)
	case ToneWarn:
		return st.Warn.Render(s)
	case ToneErr:
		return st.Err.Render(s)
	}
	return st.Dim.Render(s)
}

// Plain draws text as it is; it stands where a style's Render would.
func Plain(s ...string) string { return strings.Join(s, " ") }

// DiffStyle is how diffs are drawn on this terminal: its colour profile
// (none under NO_COLOR) and background.
func DiffStyle() diffview.Style {
	return diffview.Style{Profile: lipgloss.ColorProfile(), Dark: lipgloss.HasDarkBackground()}
}

// Symbols of the call states and of the console's marks; each state also
// says its name in words.
const (
	SymQueued   = "○"
	SymWaiting  = "⧗"
	SymAsk      = "?"
	SymAnswered = "…"
	SymRunning  = "▶"
	SymRetry    = "↻"
	SymOK       = "✓"
	SymErr      = "✗"
	SymSkipped  = "⊘"
	SymDenied   = "⊗"
	SymPartly   = "◐"
	SymInvalid  = "✗"
	SymFocus    = "▸"
	SymQuote    = "│ "
)
