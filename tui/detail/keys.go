package detail

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the keys of the full-screen diff, active while it is open;
// the board's y, n and e still answer the call it shows.
type KeyMap struct {
	// Up and Down scroll one line; PageUp and PageDown a screen.
	Up, Down, PageUp, PageDown key.Binding
	// Top and Bottom jump to the start and the end.
	Top, Bottom key.Binding
	// Layout switches between unified and side by side.
	Layout key.Binding
	// Close goes back to the board.
	Close key.Binding
}

// DefaultKeyMap returns the full-screen diff's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up a line")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down a line")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up a screen")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", " "), key.WithHelp("pgdn/space", "scroll down a screen")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "the start of the diff")),
		Bottom:   key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "the end of the diff")),
		Layout:   key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "unified or side by side")),
		Close:    key.NewBinding(key.WithKeys("esc", "q", "f"), key.WithHelp("esc/q/f", "close the full-screen diff")),
	}
}
