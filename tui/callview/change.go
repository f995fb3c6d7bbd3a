package callview

import (
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// Change is what the console knows of a call's preview: what it would do,
// as the runtime last published it. Strings are clean.
type Change struct {
	Kind, Path, Summary string
	Digest              string
	Provisional         bool
	After               []int
	Editable            bool
	// Full is the whole preview, file contents included; nil for a
	// session replayed from its journal, which keeps only the summary.
	Full *tool.Preview
	// Diff is computed from full the first time it is drawn.
	Diff *diffview.Diff
}

// NewChange takes in a published preview.
func NewChange(ev runtime.CallPreviewed) *Change {
	return &Change{
		Kind: ev.Kind, Path: text.CleanLine(ev.Path), Summary: text.CleanLine(ev.Summary), Digest: ev.Digest,
		Provisional: ev.Provisional, After: ev.After, Editable: ev.Editable, Full: ev.Full,
	}
}

// ChangeOf takes in the preview an approval request carries, for a call
// whose preview event has not been applied.
func ChangeOf(pv tool.Preview) *Change {
	return &Change{Kind: string(pv.Kind), Path: text.CleanLine(pv.Path), Summary: text.CleanLine(pv.Summary()), Digest: pv.Digest, Full: &pv}
}

// IsFile reports whether the change is to a file.
func (ch *Change) IsFile() bool { return ch != nil && ch.Kind == string(tool.PreviewFile) }

// TextDiff returns the change's line diff, or nil when it has none to show
// (not a file, no contents kept, binary, too large, or a call that would
// fail).
func (ch *Change) TextDiff() *diffview.Diff {
	if !ch.IsFile() || ch.Full == nil {
		return nil
	}
	pv := ch.Full
	if pv.Binary || pv.TooLarge || pv.Problem != "" {
		return nil
	}
	if ch.Diff == nil {
		ch.Diff = diffview.New(pv.Path, pv.Old, pv.New)
	}
	return ch.Diff
}

// ArgsText is what the board shows of c's arguments: for a file change, the
// file and what the change does to it; for a task, its agent, what it is
// for and what it may write; otherwise the arguments.
func (c *Call) ArgsText() string {
	if c.Task != nil {
		// What the task is for says more than its prompt's first words.
		return c.Task.Words()
	}
	ch := c.Change
	if !ch.IsFile() {
		return c.Short
	}
	s := ch.Path
	if ch.Provisional && !c.Done {
		s += " (as of now)"
	}
	return s + " · " + ch.Summary
}

// Digest returns the Digest of the preview the console shows for c, or "".
func (c *Call) Digest() string {
	if c.Change == nil {
		return ""
	}
	return c.Change.Digest
}
