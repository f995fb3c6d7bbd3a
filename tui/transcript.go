package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// transcriptModel is the scrollable record of the session: what the person
// typed, what the model said, each finished reply's calls, invalid replies
// and outcomes.
//
// Finished items are drawn once per width and kept; only the lines in view
// are looked at, so drawing costs the same at the ten-thousandth call as at
// the first. The position is an anchor (an item and a line in it) rather than
// a line number, so scrolling never counts the lines above.
type transcriptModel struct {
	// Keys are the transcript's keys.
	Keys TranscriptKeys

	items []*entry
	live  *liveText

	follow bool   // pinned to the end, showing new output as it comes
	top    anchor // the first line in view when not following

	// The size last drawn at, which scrolling works in.
	width, height int
}

// anchor is a line of an item.
type anchor struct{ item, line int }

// entry is a finished item and its lines at the last width drawn.
type entry struct {
	it    item
	width int
	lines []string
}

// item is one finished thing in the transcript. lines draws it at width;
// it must return at least one line, each at most width columns.
type item interface {
	lines(width int) []string
}

// liveText is the model's reply as it streams in.
type liveText struct {
	turn int
	text strings.Builder
	// frame is the spinner frame drawn after the text while the model
	// replies; waiting, when set, is what the run waits for instead.
	frame   string
	waiting string
	// doing, when set, is what the run does instead of asking the model
	// for a reply, such as compacting the conversation.
	doing string
}

func newTranscript() transcriptModel {
	return transcriptModel{Keys: DefaultTranscriptKeys(), follow: true}
}

// add appends a finished item.
func (t *transcriptModel) add(it item) { t.items = append(t.items, &entry{it: it, width: -1}) }

// count returns the number of items in view order, the live one last.
func (t *transcriptModel) count() int {
	if t.live != nil {
		return len(t.items) + 1
	}
	return len(t.items)
}

// itemLines returns the lines of item i at width, drawing a finished item
// only when the width has changed.
func (t *transcriptModel) itemLines(i, width int) []string {
	if i == len(t.items) {
		return t.live.lines(width)
	}
	e := t.items[i]
	if e.width != width {
		e.lines, e.width = e.it.lines(width), width
		if len(e.lines) == 0 {
			e.lines = []string{""}
		}
	}
	return e.lines
}

// bottom returns the anchor that shows the last height lines.
func (t *transcriptModel) bottom(width, height int) anchor {
	remaining := height
	for i := t.count() - 1; i >= 0; i-- {
		n := len(t.itemLines(i, width))
		if n >= remaining {
			return anchor{i, n - remaining}
		}
		remaining -= n
	}
	return anchor{}
}

// scroll moves the view by n lines (negative is up).
func (t *transcriptModel) scroll(n int) {
	w, h := t.width, t.height
	if w <= 0 || h <= 0 || t.count() == 0 {
		return
	}
	if t.follow {
		if n >= 0 {
			return
		}
		t.top, t.follow = t.bottom(w, h), false
	}
	a := t.top
	a.item = min(a.item, t.count()-1)
	a.line = min(a.line, len(t.itemLines(a.item, w))-1)
	for ; n < 0; n++ {
		if a.line > 0 {
			a.line--
			continue
		}
		if a.item == 0 {
			break
		}
		a.item--
		a.line = len(t.itemLines(a.item, w)) - 1
	}
	for ; n > 0; n-- {
		if a.line < len(t.itemLines(a.item, w))-1 {
			a.line++
		} else if a.item < t.count()-1 {
			a.item, a.line = a.item+1, 0
		} else {
			break
		}
	}
	t.top = a
	if b := t.bottom(w, h); a.item > b.item || (a.item == b.item && a.line >= b.line) {
		t.follow = true
	}
}

// setSize tells the transcript the size it is drawn at, which scrolling
// works in.
func (t *transcriptModel) setSize(width, height int) { t.width, t.height = width, height }

// toTop shows the start of the session.
func (t *transcriptModel) toTop() { t.follow, t.top = false, anchor{} }

// toBottom follows the end again.
func (t *transcriptModel) toBottom() { t.follow = true }

// Update handles a key while the transcript has focus.
func (t *transcriptModel) Update(msg tea.KeyMsg) {
	switch {
	case key.Matches(msg, t.Keys.Up):
		t.scroll(-1)
	case key.Matches(msg, t.Keys.Down):
		t.scroll(1)
	case key.Matches(msg, t.Keys.Top):
		t.toTop()
	case key.Matches(msg, t.Keys.Bottom):
		t.toBottom()
	case key.Matches(msg, t.Keys.Expand):
		t.toggleCompactions()
	}
}

// View draws the lines in view, exactly height of them.
func (t *transcriptModel) View(width, height int, hasFocus bool) string {
	if height <= 0 {
		return ""
	}
	if t.count() == 0 {
		return text.JoinLines(nil, height)
	}
	a := t.top
	if t.follow {
		a = t.bottom(width, height)
	}
	a.item = min(a.item, t.count()-1)
	out := make([]string, 0, height)
	for i := a.item; i < t.count() && len(out) < height; i++ {
		lines := t.itemLines(i, width)
		from := 0
		if i == a.item {
			from = min(a.line, len(lines)-1)
		}
		for _, l := range lines[from:] {
			if len(out) == height {
				break
			}
			out = append(out, l)
		}
	}
	if !t.follow && len(out) == height {
		mark := "  ↓ more below · end follows the output"
		if hasFocus {
			mark = text.SymFocus + " ↓ more below · end follows the output"
		}
		out[height-1] = st.Accent.Render(text.Cut(mark, width))
	}
	return text.JoinLines(out, height)
}

// lines draws the streaming reply.
func (l *liveText) lines(width int) []string {
	body := text.Clean(l.text.String())
	var out []string
	if strings.TrimSpace(body) != "" {
		out = modelLines(body, width)
	}
	switch {
	case l.doing != "":
		out = append(out, st.Dim.Render(text.Cut("  "+l.frame+" "+l.doing+"…", width)))
	case l.frame != "" && l.waiting != "":
		out = append(out, st.Dim.Render(text.Cut("  "+l.frame+" waiting for "+l.waiting+" before the first turn…", width)))
	case l.frame != "":
		out = append(out, st.Dim.Render(text.Cut("  "+l.frame+" the model is replying…", width)))
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// modelLines draws model text: clean, wrapped and indented under a marker,
// so it never starts where the console's own lines do.
func modelLines(body string, width int) []string {
	lines := text.Indent(strings.TrimRight(body, "\n"), "  ", width)
	if len(lines) > 0 {
		lines[0] = st.Accent.Render("◆") + lines[0][1:]
	}
	return lines
}
