package tui

import (
	"fmt"

	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// transcriptDiffLines is how much of a finished change the transcript
// keeps under its call.
const transcriptDiffLines = 8

// snippet is the head of a finished change that the transcript keeps.
type snippet struct {
	diff *diffview.Diff
	left int
}

// snippetOf returns the head of c's change for the transcript, or nil.
func snippetOf(c *callview.Call) *snippet {
	if c.Outcome != "success" {
		return nil
	}
	d := c.Change.TextDiff()
	if d == nil || d.Empty() {
		return nil
	}
	h, left := d.Head(transcriptDiffLines)
	return &snippet{diff: h, left: left}
}

// lines draws the snippet at width, indented by prefix.
func (s *snippet) lines(prefix string, width int) []string {
	v := s.diff.Layout(width-len(prefix), diffview.Unified, text.DiffStyle())
	var out []string
	for _, l := range v.Lines(0, v.Len()) {
		out = append(out, prefix+l)
	}
	if s.left > 0 {
		out = append(out, st.Dim.Render(text.Cut(fmt.Sprintf("%s… %d more lines of this change", prefix, s.left), width)))
	}
	return out
}
