package trust

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the keys of the workspace trust screen, active while it is
// open.
type KeyMap struct {
	// Trust runs the workspace's hooks. It is "t" rather than "y" or
	// Enter, so that keys typed for a goal before the screen appeared
	// cannot trust a workspace by accident.
	Trust key.Binding
	// Decline runs none of the workspace's hooks in this console; the
	// session still works, without them.
	Decline key.Binding
	// Up and Down scroll a list of commands longer than the screen: by a
	// line with the arrows or k and j, by a page with pgup and pgdown.
	Up, Down key.Binding
}

// DefaultKeyMap returns the trust screen's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Trust:   key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "trust and run them")),
		Decline: key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "do not run them")),
		Up:      key.NewBinding(key.WithKeys("up", "k", "pgup"), key.WithHelp("↑/k", "scroll the commands up")),
		Down:    key.NewBinding(key.WithKeys("down", "j", "pgdown"), key.WithHelp("↓/j", "scroll the commands down")),
	}
}
