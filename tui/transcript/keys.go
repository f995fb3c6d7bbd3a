package transcript

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the keys of the transcript, active when it has focus.
type KeyMap struct {
	// Up and Down scroll one line.
	Up, Down key.Binding
	// Top and Bottom jump to the start and the end.
	Top, Bottom key.Binding
	// Expand shows or hides the summaries of compactions.
	Expand key.Binding
	// Thinking unfolds and folds the model's thinking nearest the bottom
	// of the view.
	Thinking key.Binding
}

// DefaultKeyMap returns the transcript's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up a line")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down a line")),
		Top:    key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "the start of the session")),
		Bottom: key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "the end, following new output")),
		Expand: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "show or hide compaction summaries")),
		// t is free in the transcript (it scrolls with arrows, j/k,
		// home and end), and it is never an approval key: in the input
		// it is text, and the board does not take it.
		Thinking: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "show or fold the model's thinking")),
	}
}
