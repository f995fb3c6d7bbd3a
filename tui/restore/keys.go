package restore

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the keys of the restore screen, active while it is open.
type KeyMap struct {
	// Up and Down select a file, whose diff the screen shows.
	Up, Down key.Binding
	// Scroll scrolls the selected file's diff by a page: up with the
	// binding's first key, down with any other.
	Scroll key.Binding
	// Overwrite toggles overwriting the selected file when someone changed
	// it after the changes being undone; such a file is kept otherwise.
	Overwrite key.Binding
	// Confirm restores what the screen shows.
	Confirm key.Binding
	// Cancel closes the screen and restores nothing.
	Cancel key.Binding
}

// DefaultKeyMap returns the restore screen's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "select the previous file")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "select the next file")),
		Scroll:    key.NewBinding(key.WithKeys("pgup", "pgdown"), key.WithHelp("pgup/pgdn", "scroll the diff")),
		Overwrite: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "overwrite the selected file changed since, or keep it again")),
		Confirm:   key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y/enter", "restore")),
		Cancel:    key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "cancel, restoring nothing")),
	}
}
