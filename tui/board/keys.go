package board

import "github.com/charmbracelet/bubbles/key"

// KeyMap are the keys of the call board, active when it has focus.
type KeyMap struct {
	// Up and Down focus the previous and next call.
	Up, Down key.Binding
	// Approve approves the focused call.
	Approve key.Binding
	// Skip skips the focused call, asking for an optional reason.
	Skip key.Binding
	// Grant offers session grants from the focused call: its tool for the
	// session, or within the folders it touches.
	Grant key.Binding
	// ApproveBatch approves every pending call of the focused call's batch.
	ApproveBatch key.Binding
	// ApproveAll approves every pending call.
	ApproveAll key.Binding
	// Open opens the board and transcript of the task the focused call
	// runs; Esc goes back.
	Open key.Binding
	// Details expands and collapses the detail pane of the focused call.
	Details key.Binding
	// Layout switches diffs between unified and side by side.
	Layout key.Binding
	// FullDiff shows the focused call's change full screen.
	FullDiff key.Binding
	// Edit opens the change a pending write proposes in $VISUAL or
	// $EDITOR; saving approves the call with the person's version.
	Edit key.Binding
}

// DefaultKeyMap returns the board's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "focus the previous call")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "focus the next call")),
		Approve:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "approve the focused call")),
		Skip:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "skip the focused call (reason, enter)")),
		Grant:        key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "session grant: tool, or tool in a folder")),
		ApproveBatch: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve every pending call of the batch")),
		ApproveAll:   key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "approve every pending call")),
		Open:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the focused task's calls and transcript (esc back)")),
		Details:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details; on a task, open its calls (esc back)")),
		Layout:       key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "diffs unified or side by side")),
		FullDiff:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "the focused call's diff full screen")),
		Edit:         key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit a pending write in $EDITOR (save = y)")),
	}
}
