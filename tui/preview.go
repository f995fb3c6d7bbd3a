package tui

import (
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// detailDiffLines bounds the diff the detail pane shows; f opens the whole
// of it full screen.
const detailDiffLines = 200

// transcriptDiffLines is how much of a finished change the transcript
// keeps under its call.
const transcriptDiffLines = 8

// change is what the console knows of a call's preview: what it would do,
// as the runtime last published it. Strings are clean.
type change struct {
	kind, path, summary string
	digest              string
	provisional         bool
	after               []int
	editable            bool
	// full is the whole preview, file contents included; nil for a
	// session replayed from its journal, which keeps only the summary.
	full *tool.Preview
	// diff is computed from full the first time it is drawn.
	diff *diffview.Diff
}

// newChange takes in a published preview.
func newChange(ev runtime.CallPreviewed) *change {
	return &change{
		kind: ev.Kind, path: text.CleanLine(ev.Path), summary: text.CleanLine(ev.Summary), digest: ev.Digest,
		provisional: ev.Provisional, after: ev.After, editable: ev.Editable, full: ev.Full,
	}
}

// changeOf takes in the preview an approval request carries, for a call
// whose preview event has not been applied.
func changeOf(pv tool.Preview) *change {
	return &change{kind: string(pv.Kind), path: text.CleanLine(pv.Path), summary: text.CleanLine(pv.Summary()), digest: pv.Digest, full: &pv}
}

// isFile reports whether the change is to a file.
func (ch *change) isFile() bool { return ch != nil && ch.kind == string(tool.PreviewFile) }

// textDiff returns the change's line diff, or nil when it has none to show
// (not a file, no contents kept, binary, too large, or a call that would
// fail).
func (ch *change) textDiff() *diffview.Diff {
	if !ch.isFile() || ch.full == nil {
		return nil
	}
	pv := ch.full
	if pv.Binary || pv.TooLarge || pv.Problem != "" {
		return nil
	}
	if ch.diff == nil {
		ch.diff = diffview.New(pv.Path, pv.Old, pv.New)
	}
	return ch.diff
}

// argsText is what the board shows of c's arguments: for a file change, the
// file and what the change does to it; otherwise the arguments.
func (c *call) argsText() string {
	ch := c.change
	if !ch.isFile() {
		return c.short
	}
	s := ch.path
	if ch.provisional && !c.done {
		s += " (as of now)"
	}
	return s + " · " + ch.summary
}

// approve approves c, bound to the preview the console shows for it.
func (c *call) approve() bool {
	return c.answer(approval.Answer{Approve: true, Digest: c.digest()})
}

// digest returns the digest of the preview the console shows for c, or "".
func (c *call) digest() string {
	if c.change == nil {
		return ""
	}
	return c.change.digest
}

// changeLines draws the change section of c's details: what the change
// does, whether it is provisional or moved since an approval, and the diff
// or the command.
func changeLines(c *call, r *reply, width int, layout diffview.Layout) []string {
	ch := c.change
	if ch == nil {
		return nil
	}
	var out []string
	add := func(style func(...string) string, s string) {
		for _, l := range text.Indent(s, "", width) {
			out = append(out, style(l))
		}
	}
	if !ch.isFile() {
		if ch.full == nil {
			return nil
		}
		pv := ch.full
		out = append(out, st.Bold.Render("command:"))
		for _, l := range text.Indent(text.Clean(pv.Command), text.SymQuote, width) {
			out = append(out, st.Dim.Render(text.SymQuote)+strings.TrimPrefix(l, text.SymQuote))
		}
		where := "runs in the workspace folder"
		if pv.Dir != "" && pv.Dir != "." {
			where = "runs in " + text.CleanLine(pv.Dir)
		}
		add(text.Plain, fmt.Sprintf("%s · time limit %d s", where, pv.TimeoutS))
		if c.sandbox == nil {
			// The sandbox line above says the same for a shell call.
			for _, n := range pv.Notes {
				add(text.Plain, text.CleanLine(n))
			}
		}
		return out
	}
	head := "change: " + ch.path + " · " + ch.summary
	if d := ch.textDiff(); d != nil && !c.done {
		head += " · v " + otherLayout(layout) + " · f full screen"
		if ch.editable && c.req != nil {
			head += " · e edit"
		}
	}
	add(st.Bold.Render, head)
	if ch.provisional && !c.done {
		first := text.Numbers(ch.after)
		if len(ch.after) > 0 {
			first = text.Numbers(ch.after[:1])
		}
		pending := r.pendingDeps(c)
		if len(pending) > 0 {
			add(st.Warn.Render, fmt.Sprintf("as of now: %s changes %s first; the change is shown again once it has", first, ch.path))
		}
	}
	if c.stale != "" && !c.done {
		add(st.Warn.Render, "changed since it was approved: "+c.stale+"; it did not run, and waits for approval again")
	}
	if c.edited {
		add(st.Accent.Render, "approved with your own version of the change")
	}
	d := ch.textDiff()
	switch {
	case ch.full == nil:
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
func snippetOf(c *call) *snippet {
	if c.outcome != "success" {
		return nil
	}
	d := c.change.textDiff()
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
