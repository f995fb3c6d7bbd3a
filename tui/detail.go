package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// detailPane is the detail pane of the focused call: its arguments, footprint,
// dependencies, the policy decisions about it and what made them, retries,
// and the exact text the model read. Collapsed, it shows the first lines;
// expanded (Enter on the board), it takes more of the screen and scrolls.
type detailPane struct {
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

func newDetail() detailPane { return detailPane{cache: &detailCache{}} }

// layoutAt returns the diff layout at width: the person's choice, or the
// one that suits the width.
func (d *detailPane) layoutAt(width int) diffview.Layout {
	if d.layout != nil {
		return *d.layout
	}
	return diffview.For(width)
}

// toggleLayout switches diffs between unified and side by side.
func (d *detailPane) toggleLayout(width int) diffview.Layout {
	next := diffview.Split
	if d.layoutAt(width) == diffview.Split {
		next = diffview.Unified
	}
	d.layout = &next
	return next
}

// toggle expands or collapses the pane.
func (d *detailPane) toggle() { d.expanded = !d.expanded; d.offset = 0 }

// scroll moves the expanded pane by n lines.
func (d *detailPane) scroll(n int) {
	limit := max(0, len(d.cache.lines)-(d.height-1))
	d.offset = min(max(0, d.offset+n), limit)
}

// focusChanged starts the pane at the top for a newly focused call.
func (d *detailPane) focusChanged() { d.offset = 0 }

// lines returns the pane's content for c at width, from the cache when c has
// not changed.
func (d *detailPane) lines(c *callview.Call, r *callview.Reply, ws string, width int) []string {
	k := d.cache
	layout := d.layoutAt(width)
	if c == k.call && c.Version == k.version && r.Version == k.reply && width == k.width && layout == k.layout {
		return k.lines
	}
	*k = detailCache{call: c, version: c.Version, reply: r.Version, width: width, layout: layout,
		lines: detailLines(c, r, ws, width, layout)}
	return k.lines
}

// need returns how many lines the pane would take to show c whole, its
// title included.
func (d *detailPane) need(c *callview.Call, r *callview.Reply, ws string, width int) int {
	return 1 + len(d.lines(c, r, ws, width))
}

// View draws the pane in exactly height lines.
func (d *detailPane) View(c *callview.Call, r *callview.Reply, ws string, width, height int) string {
	if height <= 0 {
		return ""
	}
	how := "enter expands"
	if d.expanded {
		how = "enter collapses · pgup/pgdn scroll"
	}
	if c == nil {
		title := st.Dim.Render(text.Cut("── details ── focus a call on the board (tab) to see what it did", width))
		return text.JoinLines([]string{title}, height)
	}
	body := d.lines(c, r, ws, width)
	avail := height - 1
	offset := min(d.offset, max(0, len(body)-avail))
	more := ""
	if len(body) > avail {
		more = fmt.Sprintf(" · lines %d–%d of %d", offset+1, min(offset+avail, len(body)), len(body))
	}
	title := st.Title.Render(text.Cut(fmt.Sprintf("── #%d %s ── %s%s ", c.Index+1, c.Name, how, more), width))
	out := make([]string, 0, height)
	out = append(out, title)
	end := min(len(body), offset+avail)
	out = append(out, body[offset:end]...)
	return text.JoinLines(out, height)
}

// detailLines builds the pane's content. Untrusted text is cleaned and shown
// behind a "│ " gutter, so nothing in it can pass for the console's own
// lines.
func detailLines(c *callview.Call, r *callview.Reply, ws string, width int, layout diffview.Layout) []string {
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
	if line := callview.SandboxLine(c.Sandbox, ws); line != "" {
		add("", line)
	}
	// The change comes first: it is what the person decides on.
	out = append(out, changeLines(c, r, width, layout)...)
	out = append(out, policyLines(c, ws, width)...)
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
func policyLines(c *callview.Call, ws string, width int) []string {
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

// width of a rendered line, for tests and layout checks.
func lineWidth(s string) int { return ansi.StringWidth(s) }
