package grant

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the keys of the grant chooser, active while it is open.
type KeyMap struct {
	// Up and Down move the selection.
	Up, Down key.Binding
	// Pick chooses a grant by its number.
	Pick key.Binding
	// Choose gives the selected grant.
	Choose key.Binding
	// Cancel closes the chooser without a grant.
	Cancel key.Binding
}

// DefaultKeyMap returns the grant chooser's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "select the previous grant")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "select the next grant")),
		Pick:   key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1/2", "give that grant")),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "give the selected grant")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close without a grant")),
	}
}
