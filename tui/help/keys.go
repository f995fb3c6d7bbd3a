package help

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the keys of the help, active while it is open. They are a
// pager's: a line, a page, or to either end.
type KeyMap struct {
	// Up and Down scroll a line.
	Up, Down key.Binding
	// PageUp and PageDown scroll a page, less a line kept for context.
	PageUp, PageDown key.Binding
	// Top and Bottom go to the start and to the end.
	Top, Bottom key.Binding
	// Close closes the help.
	Close key.Binding
}

// DefaultKeyMap returns the help's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up a line")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down a line")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up a page")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", " "), key.WithHelp("pgdn/space", "scroll down a page")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "the start")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "the end")),
		Close:    key.NewBinding(key.WithKeys("esc", "?", "q", "f1"), key.WithHelp("esc/?", "close the help")),
	}
}
