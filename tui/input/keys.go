package input

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap are the keys of the input, active when it has focus.
type KeyMap struct {
	// Submit sends the goal, the answer, the follow-up, the slash command
	// or the skip reason.
	Submit key.Binding
	// Newline inserts a line break; it is listed here for the help, and
	// handled by the text area (Shift+Enter by the console, from the
	// terminals that send it as a key of its own: see IsShiftEnter).
	Newline key.Binding
	// Older and Newer recall earlier inputs; ↑ and ↓ do so on the first
	// and last line of the text.
	Older, Newer key.Binding
	// Search searches the earlier inputs.
	Search key.Binding
	// Editor opens the input in $VISUAL or $EDITOR.
	Editor key.Binding
	// Complete completes the slash command or argument the menu selects.
	Complete key.Binding
	// Close closes the menu, or cancels the history search.
	Close key.Binding
}

// DefaultKeyMap returns the input's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Submit:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send the goal, answer, command or skip reason")),
		Newline:  key.NewBinding(key.WithKeys("ctrl+j", "alt+enter"), key.WithHelp("ctrl+j", "new line (also alt+enter, shift+enter)")),
		Older:    key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑/ctrl+p", "earlier input (↑ on the first line)")),
		Newer:    key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓/ctrl+n", "later input (↓ on the last line)")),
		Search:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "search earlier inputs")),
		Editor:   key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "edit the input in $VISUAL/$EDITOR")),
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete the /command the menu shows")),
		Close:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close the menu, cancel the search")),
	}
}

// IsShiftEnter reports whether msg is Shift+Enter from a terminal that sends
// it as a key of its own, in the CSI u form (ESC [13;2u) or xterm's
// modifyOtherKeys form (ESC [27;2;13~). Bubbletea v1 does not know either
// and passes them on as an unknown sequence, which prints as its bytes; the
// type of that message is unexported, so it is known by its name. A test
// feeds both sequences through a real bubbletea reader, so a bubbletea that
// changes the name or the form breaks it rather than Shift+Enter.
func IsShiftEnter(msg tea.Msg) bool {
	if fmt.Sprintf("%T", msg) != "tea.unknownCSISequenceMsg" {
		return false
	}
	s := fmt.Sprint(msg)
	return s == "?CSI[49 51 59 50 117]?" || s == "?CSI[50 55 59 50 59 49 51 126]?"
}
