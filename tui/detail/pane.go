// Package detail shows one call in full: the detail pane under the board,
// with the call's change, footprint, dependencies, the decisions about it
// and the exact text the model read, and the full-screen diff of its
// change. Neither answers the runtime; the board's keys do that through the
// console.
package detail

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// Pane is the detail pane of the focused call: its arguments, footprint,
// dependencies, the policy decisions about it and what made them, retries,
// and the exact text the model read. Collapsed, it shows the first lines;
// expanded (Enter on the board), it takes more of the screen and scrolls.
type Pane struct {
	styles   *text.Styles
	expanded bool
	offset   int
	height   int // the height last laid out, which scrolling works in
	cache    *detailCache
	// layout is the diff layout the person chose with v; nil follows the
	// width (side by side from diffview.SplitWidth columns).
	layout *diffview.Layout
}

// detailCache keeps the lines of the last call drawn until the call changes,
// so a long result is cleaned and wrapped once, not every frame. It sits
// behind a pointer because View works on a copy of the console's model.
type detailCache struct {
	call    *callview.Call
	version int
	reply   int
	width   int
	layout  diffview.Layout
	lines   []string
}

// NewPane returns a collapsed pane that draws with styles.
func NewPane(styles *text.Styles) Pane { return Pane{styles: styles, cache: &detailCache{}} }

// Expanded reports whether the pane is expanded.
func (d *Pane) Expanded() bool { return d.expanded }

// Height returns the height last laid out, which scrolling works in.
func (d *Pane) Height() int { return d.height }

// SetHeight tells the pane the height it is drawn at.
func (d *Pane) SetHeight(h int) { d.height = h }

// LayoutAt returns the diff layout at width: the person's choice, or the
// one that suits the width.
func (d *Pane) LayoutAt(width int) diffview.Layout {
	if d.layout != nil {
		return *d.layout
	}
	return diffview.For(width)
}

// ToggleLayout switches diffs between unified and side by side.
func (d *Pane) ToggleLayout(width int) diffview.Layout {
	next := diffview.Split
	if d.LayoutAt(width) == diffview.Split {
		next = diffview.Unified
	}
	d.layout = &next
	return next
}

// Toggle expands or collapses the pane.
func (d *Pane) Toggle() { d.expanded = !d.expanded; d.offset = 0 }

// Scroll moves the expanded pane by n lines.
func (d *Pane) Scroll(n int) {
	limit := max(0, len(d.cache.lines)-(d.height-1))
	d.offset = min(max(0, d.offset+n), limit)
}

// FocusChanged starts the pane at the top for a newly focused call.
func (d *Pane) FocusChanged() { d.offset = 0 }

// lines returns the pane's content for c at width, from the cache when c has
// not changed.
func (d *Pane) lines(c *callview.Call, r *callview.Reply, ws string, width int) []string {
	k := d.cache
	layout := d.LayoutAt(width)
	if c == k.call && c.Version == k.version && r.Version == k.reply && width == k.width && layout == k.layout {
		return k.lines
	}
	*k = detailCache{call: c, version: c.Version, reply: r.Version, width: width, layout: layout,
		lines: detailLines(d.styles, c, r, ws, width, layout)}
	return k.lines
}

// Need returns how many lines the pane would take to show c whole, its
// title included.
func (d *Pane) Need(c *callview.Call, r *callview.Reply, ws string, width int) int {
	return 1 + len(d.lines(c, r, ws, width))
}

// View draws the pane in exactly height lines.
func (d *Pane) View(c *callview.Call, r *callview.Reply, ws string, width, height int) string {
	if height <= 0 {
		return ""
	}
	how := "enter expands"
	switch {
	case c != nil && c.Task != nil:
		// Enter on the row of a task's call opens the task instead.
		how = "enter opens the task's calls and transcript"
	case d.expanded:
		how = "enter collapses · pgup/pgdn scroll"
	}
	if c == nil {
		title := d.styles.Dim.Render(text.Cut("── details ── focus a call on the board (tab) to see what it did", width))
		return text.JoinLines([]string{title}, height)
	}
	body := d.lines(c, r, ws, width)
	avail := height - 1
	offset := min(d.offset, max(0, len(body)-avail))
	more := ""
	if len(body) > avail {
		more = fmt.Sprintf(" · lines %d–%d of %d", offset+1, min(offset+avail, len(body)), len(body))
	}
	title := d.styles.Title.Render(text.Cut(fmt.Sprintf("── %s ── %s%s ", c.Title(), how, more), width))
	out := make([]string, 0, height)
	out = append(out, title)
	end := min(len(body), offset+avail)
	out = append(out, body[offset:end]...)
	return text.JoinLines(out, height)
}

// detailLines builds the pane's content. Untrusted text is cleaned and shown
// behind a "│ " gutter, so nothing in it can pass for the console's own
// lines.
func detailLines(st *text.Styles, c *callview.Call, r *callview.Reply, ws string, width int, layout diffview.Layout) []string {
	var out []string
	add := func(label, s string) {
		out = append(out, text.Indent(label+s, "", width)...)
	}
	quote := func(s string) {
		for _, l := range text.Indent(text.Clean(s), text.SymQuote, width) {
			out = append(out, st.Dim.Render(text.SymQuote)+strings.TrimPrefix(l, text.SymQuote))
		}
	}
	head := fmt.Sprintf("batch %d · %s", c.Batch, callview.Footprint(c.Touches, ws))
	if len(c.WaitsFor) > 0 {
		head += " · depends on " + text.Numbers(c.WaitsFor)
		if p := r.PendingDeps(c); len(p) > 0 {
			head += " (waiting for " + text.Numbers(p) + ")"
		}
	} else {
		head += " · depends on nothing"
	}
	add("", head)
	// Where untrusted parts of the arguments came from comes next: it is
	// why such a call asks, and what the person decides on.
	out = append(out, originLines(st, c, width)...)
	if c.RewrittenBy != "" {
		// What runs is not what the model sent: the person approves the
		// rewrite, and sees what it replaced.
		whose := "your hook "
		if c.RewrittenByWorkspace {
			whose = "the workspace's hook "
		}
		add("", "✎ rewritten by "+whose+c.RewrittenBy+"; the model sent "+text.CleanLine(text.ShortArgs(json.RawMessage(c.Sent))))
	}
	if t := c.Task; t != nil {
		add("", "task: "+t.Name()+" · "+t.Progress())
		if len(t.Writes) > 0 {
			add("", "its agent may change only "+strings.Join(t.Writes, ", "))
		} else {
			add("", "its agent changes nothing in the workspace: it only reads")
		}
	}
	if line := callview.SandboxLine(c.Sandbox, ws); line != "" {
		add("", line)
	}
	// The change comes first: it is what the person decides on.
	out = append(out, changeLines(st, c, r, width, layout)...)
	out = append(out, policyLines(st, c, ws, width)...)
	if st := outcomeLine(c, r); st != "" {
		add("", st)
	}
	for _, rt := range c.Retries {
		add("retry: ", rt)
	}
	if c.Done {
		out = append(out, st.Bold.Render("what the model read:"))
		if c.Whole > 0 {
			add("", fmt.Sprintf("(not the whole output: that was %s, too much to read whole, so the model read its start and end, "+
				"or a summary of it, as below)", tool.FormatSize(int64(c.Whole))))
		}
		if c.Result == "" {
			out = append(out, st.Dim.Render(text.SymQuote+"(empty)"))
		} else {
			quote(c.Result)
		}
	}
	out = append(out, st.Bold.Render("arguments:"))
	quote(text.PrettyJSON(c.Args))
	return out
}

// policyLines says which decisions were made about the call and by what.
func policyLines(st *text.Styles, c *callview.Call, ws string, width int) []string {
	if len(c.Decisions) == 0 {
		return []string{st.Dim.Render("policy: not reviewed yet")}
	}
	var out []string
	for i, d := range c.Decisions {
		label := "policy: "
		if i > 0 {
			label = "  then: "
		}
		var what string
		switch d.What {
		case "run":
			what = "run"
		case "ask":
			what = "asks the person"
		case "skip":
			what = "skip"
		default:
			what = d.What
		}
		line := fmt.Sprintf("%s%s, by %s: %s", label, what, d.By, text.RelativeAll(ws, d.Reason))
		if d.What == "ask" && !c.AskedAt.IsZero() {
			line += " · waiting since " + c.AskedAt.Format(time.TimeOnly)
		}
		out = append(out, text.Indent(line, "", width)...)
	}
	return out
}

// outcomeLine says how the call ended, or that it has not.
func outcomeLine(c *callview.Call, r *callview.Reply) string {
	switch r.State(c) {
	case callview.StateSucceeded:
		return fmt.Sprintf("outcome: %s succeeded after %s, %s", text.SymOK, text.Since(c.Duration), attempts(c))
	case callview.StateError:
		if words, ok := tool.ProcessEnd(c.Code); ok {
			if c.Kind == tool.KindTimeout.String() {
				// "timed out after 2m" says how long it ran.
				return fmt.Sprintf("outcome: %s %s (error), %s", text.SymErr, words, attempts(c))
			}
			return fmt.Sprintf("outcome: %s %s (error) after %s, %s", text.SymErr, words, text.Since(c.Duration), attempts(c))
		}
		return fmt.Sprintf("outcome: %s error (%s) after %s, %s", text.SymErr, c.Kind, text.Since(c.Duration), attempts(c))
	case callview.StateSkipped:
		return "outcome: " + text.SymSkipped + " skipped: the body never ran"
	case callview.StateDenied:
		return "outcome: " + text.SymDenied + " denied: the tool refused"
	case callview.StateNotRun:
		return "outcome: " + text.SymSkipped + " not run: " + c.EndedBy("the turn was stopped before it started")
	case callview.StatePartly:
		return "outcome: " + text.SymPartly + " may have partly run: " + c.EndedBy("the turn was stopped") + " while it ran; check before repeating it"
	case callview.StateUnfinished:
		return "outcome: " + text.SymPartly + " did not finish: " + c.EndedBy("the turn was stopped") +
			" while it ran; it only reads, so it is safe to run again"
	case callview.StateInvalid:
		return "outcome: " + text.SymInvalid + " not run: the reply was invalid, so none of its calls ran"
	case callview.StateRunning:
		return fmt.Sprintf("state: %s running since %s (attempt %d)", text.SymRunning, c.StartedAt.Format(time.TimeOnly), max(1, c.Attempt))
	}
	return ""
}

func attempts(c *callview.Call) string {
	if c.Attempt <= 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", c.Attempt)
}

// detailDiffLines bounds the diff the detail pane shows; f opens the whole
// of it full screen.
const detailDiffLines = 200

// changeLines draws the change section of c's details: what the change
// does, whether it is provisional or moved since an approval, and the diff
// or the command.
func changeLines(st *text.Styles, c *callview.Call, r *callview.Reply, width int, layout diffview.Layout) []string {
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
			add(st.Dim.Render, fmt.Sprintf("… %s: f shows the whole diff", text.Plural(v.Len()-detailDiffLines, "more line")))
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
