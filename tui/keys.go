package tui

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/agenttui/agenttui/tui/board"
	"github.com/agenttui/agenttui/tui/detail"
	"github.com/agenttui/agenttui/tui/grant"
	"github.com/agenttui/agenttui/tui/help"
	"github.com/agenttui/agenttui/tui/input"
	"github.com/agenttui/agenttui/tui/restore"
	"github.com/agenttui/agenttui/tui/rewind"
	"github.com/agenttui/agenttui/tui/transcript"
	"github.com/agenttui/agenttui/tui/trust"
)

// GlobalKeys are the keys that work whatever has focus.
type GlobalKeys struct {
	// Focus moves focus to the next part: input, board, transcript.
	Focus key.Binding
	// Mode cycles the approval mode ask → reads → auto → plan.
	Mode key.Binding
	// Stop stops the running turn; in a task's view it goes back to the
	// view the task was opened from instead.
	Stop key.Binding
	// Quit quits when pressed twice in a row.
	Quit key.Binding
	// Help opens and closes the key overlay.
	Help key.Binding
	// PageUp and PageDown scroll the transcript, or the expanded details.
	PageUp, PageDown key.Binding
	// Autopilot resumes the autopilot, which any other key pauses (and
	// pauses it too); it is disabled when there is no autopilot.
	Autopilot key.Binding
}

// DefaultGlobalKeys returns the global key map.
func DefaultGlobalKeys() GlobalKeys {
	return GlobalKeys{
		Focus:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus input → board → transcript")),
		Mode:     key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "approval mode ask → reads → auto → plan")),
		Stop:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop the turn; close a prompt; leave a task")),
		Quit:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c ×2", "quit")),
		Help:     key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("? / f1", "this help (? outside the input)")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up (transcript, or expanded details)")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down; the mouse wheel scrolls too")),
		Autopilot: key.NewBinding(key.WithKeys("ctrl+o"),
			key.WithHelp("ctrl+o", "resume the autopilot (any other key pauses it and hands you the console)")),
	}
}

// KeyMap is every key of the console, grouped by the part that handles it;
// it implements help.KeyMap, so the help overlay lists them all.
type KeyMap struct {
	// Global are the keys that work whatever has focus.
	Global GlobalKeys
	// Board are the call board's keys, approvals among them.
	Board board.KeyMap
	// Grant are the grant chooser's keys.
	Grant grant.KeyMap
	// Rewind and Restore are the keys of the /rewind picker and of a
	// restore's preview.
	Rewind  rewind.KeyMap
	Restore restore.KeyMap
	// Trust are the keys of the question a workspace's hooks ask.
	Trust trust.KeyMap
	// Transcript are the transcript's scrolling keys.
	Transcript transcript.KeyMap
	// Diff are the full-screen diff's keys.
	Diff detail.KeyMap
	// Input are the input line's keys.
	Input input.KeyMap
	// Help are the keys that scroll and close the help.
	Help help.KeyMap
}

// DefaultKeyMap returns the console's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Global:     DefaultGlobalKeys(),
		Board:      board.DefaultKeyMap(),
		Grant:      grant.DefaultKeyMap(),
		Rewind:     rewind.DefaultKeyMap(),
		Restore:    restore.DefaultKeyMap(),
		Trust:      trust.DefaultKeyMap(),
		Transcript: transcript.DefaultKeyMap(),
		Diff:       detail.DefaultKeyMap(),
		Input:      input.DefaultKeyMap(),
		Help:       help.DefaultKeyMap(),
	}
}

// ShortHelp returns the keys shown when there is little room.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Board.Approve, k.Board.Skip, k.Global.Focus, k.Global.Help}
}

// FullHelp returns every key, one column per part of the console.
func (k KeyMap) FullHelp() [][]key.Binding {
	b, g, t, d := k.Board, k.Global, k.Transcript, k.Diff
	return [][]key.Binding{
		{b.Up, b.Down, b.Approve, b.Skip, b.Grant, b.ApproveBatch, b.ApproveAll, b.Details, b.Layout, b.FullDiff, b.Edit},
		{k.Input.Submit, k.Input.Newline, k.Input.Older, k.Input.Newer, k.Input.Search, k.Input.Editor, k.Input.Complete,
			t.Up, t.Down, t.Top, t.Bottom, t.Expand, t.Thinking, g.PageUp, g.PageDown},
		{g.Focus, g.Mode, g.Stop, g.Quit, g.Help, g.Autopilot},
		{d.Up, d.Down, d.PageUp, d.PageDown, d.Top, d.Bottom, d.Layout, d.Close},
	}
}
