package tui

import (
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// detailDiffLines bounds the diff the detail pane shows; f opens the whole
// of it full screen.
const detailDiffLines = 200

// transcriptDiffLines is how much of a finished change the transcript
// keeps under its call.
const transcriptDiffLines = 8

// changeLines draws the change section of c's details: what the change
// does, whether it is provisional or moved since an approval, and the diff
// or the command.
func changeLines(c *callview.Call, r *callview.Reply, width int, layout diffview.Layout) []string {
	ch := c.Change
	if ch == nil {
		return nil
	}
	var out []string
	add := func(style func(...string) string, s string) {
		for _, l := range text.Indent(s, "", width) {
			out = append(out, style(l))
		}
	}
	if !ch.IsFile() {
		if ch.Full == nil {
			return nil
		}
		pv := ch.Full
		out = append(out, st.Bold.Render("command:"))
		for _, l := range text.Indent(text.Clean(pv.Command), text.SymQuote, width) {
			out = append(out, st.Dim.Render(text.SymQuote)+strings.TrimPrefix(l, text.SymQuote))
		}
		where := "runs in the workspace folder"
		if pv.Dir != "" && pv.Dir != "." {
			where = "runs in " + text.CleanLine(pv.Dir)
		}
		add(text.Plain, fmt.Sprintf("%s · time limit %d s", where, pv.TimeoutS))
		if c.Sandbox == nil {
			// The sandbox line above says the same for a shell call.
			for _, n := range pv.Notes {
				add(text.Plain, text.CleanLine(n))
			}
		}
		return out
	}
	head := "change: " + ch.Path + " · " + ch.Summary
	if d := ch.TextDiff(); d != nil && !c.Done {
		head += " · v " + otherLayout(layout) + " · f full screen"
		if ch.Editable && c.Req != nil {
			head += " · e edit"
		}
	}
	add(st.Bold.Render, head)
	if ch.Provisional && !c.Done {
		first := text.Numbers(ch.After)
		if len(ch.After) > 0 {
			first = text.Numbers(ch.After[:1])
		}
		pending := r.PendingDeps(c)
		if len(pending) > 0 {
			add(st.Warn.Render, fmt.Sprintf("as of now: %s changes %s first; the change is shown again once it has", first, ch.Path))
		}
	}
	if c.Stale != "" && !c.Done {
		add(st.Warn.Render, "changed since it was approved: "+c.Stale+"; it did not run, and waits for approval again")
	}
	if c.Edited {
		add(st.Accent.Render, "approved with your own version of the change")
	}
	d := ch.TextDiff()
	switch {
	case ch.Full == nil:
		add(st.Dim.Render, "(the change itself is not kept in the session's journal)")
	case d == nil:
		// The summary says it all: binary, too large, or why it would fail.
	default:
		v := d.Layout(width, layout, text.DiffStyle())
		out = append(out, v.Lines(0, detailDiffLines)...)
		if v.Len() > detailDiffLines {
			add(st.Dim.Render, fmt.Sprintf("… %d more lines: f shows the whole diff", v.Len()-detailDiffLines))
		}
	}
	return out
}

// otherLayout names the layout v switches to.
func otherLayout(l diffview.Layout) string {
	if l == diffview.Split {
		return "unified"
	}
	return "side by side"
}

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
