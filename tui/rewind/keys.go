package rewind

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the keys of the rewind picker, active while it is open.
type KeyMap struct {
	// Up and Down move the selection between points; Up goes to newer
	// ones, since the newest is listed first.
	Up, Down key.Binding
	// Both goes back in the workspace and the conversation.
	Both key.Binding
	// CodeOnly goes back in the workspace and keeps the conversation.
	CodeOnly key.Binding
	// ConversationOnly goes back in the conversation and keeps the
	// workspace as it is.
	ConversationOnly key.Binding
	// Choose takes Both when the selected point allows it, or else the
	// only choice it allows.
	Choose key.Binding
	// Cancel closes the picker without going back.
	Cancel key.Binding
}

// DefaultKeyMap returns the rewind picker's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:               key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "select a newer point")),
		Down:             key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "select an older point")),
		Both:             key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "go back in code and conversation")),
		CodeOnly:         key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "go back in code only")),
		ConversationOnly: key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "go back in the conversation only")),
		Choose:           key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "code and conversation, or the only choice")),
		Cancel:           key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close without going back")),
	}
}
