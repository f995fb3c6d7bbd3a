package tui

import "github.com/charmbracelet/lipgloss"

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

// Styles of the console's own text. Untrusted text is cleaned before any of
// these is applied to it.
var (
	stBold    = lipgloss.NewStyle().Bold(true)
	stDim     = lipgloss.NewStyle().Foreground(colDim)
	stAccent  = lipgloss.NewStyle().Foreground(colAccent)
	stTitle   = lipgloss.NewStyle().Foreground(colAccent).Bold(true)
	stOK      = lipgloss.NewStyle().Foreground(colOK)
	stErr     = lipgloss.NewStyle().Foreground(colErr)
	stWarn    = lipgloss.NewStyle().Foreground(colWarn).Bold(true)
	stBadge   = lipgloss.NewStyle().Foreground(colBadge).Bold(true)
	stFocused = lipgloss.NewStyle().Background(colSel)
	stKey     = lipgloss.NewStyle().Foreground(colAccent).Bold(true)
)

// Symbols of the call states; each state also says its name in words.
const (
	symQueued   = "○"
	symWaiting  = "⧗"
	symAsk      = "?"
	symAnswered = "…"
	symRunning  = "▶"
	symRetry    = "↻"
	symOK       = "✓"
	symErr      = "✗"
	symSkipped  = "⊘"
	symDenied   = "⊗"
	symPartly   = "◐"
	symInvalid  = "✗"
	symFocus    = "▸"
	symQuote    = "│ "
)
