// Package transcript is the scrollable record of a session: what the person
// typed, what the model thought and said, each finished reply's calls with
// their outcomes, compactions, the console's notes and each run's outcome.
//
// Finished items are drawn once per width and kept; only the lines in view
// are looked at, so drawing costs the same at the ten-thousandth call as at
// the first. Everything an item shows that came from outside agenttui is
// cleaned before it is drawn.
package transcript

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// Model is the scrollable record of the session: what the person
// typed, what the model said, each finished reply's calls, invalid replies
// and outcomes.
//
// Finished items are drawn once per width and kept; only the lines in view
// are looked at, so drawing costs the same at the ten-thousandth call as at
// the first. The position is an anchor (an item and a line in it) rather than
// a line number, so scrolling never counts the lines above.
type Model struct {
	// Keys are the transcript's keys.
	Keys   KeyMap
	styles *text.Styles

	items []*entry
	live  *Live
	// thinking and hidden count the thinking items with text to unfold
	// and those the provider hid, for the hints and the Thinking key.
	thinking, hidden int

	follow bool   // pinned to the end, showing new output as it comes
	top    anchor // the first line in view when not following

	// The size last drawn at, which scrolling works in.
	width, height int
}

// anchor is a line of an item.
type anchor struct{ item, line int }

// entry is a finished item and its lines at the last width drawn.
type entry struct {
	it    Item
	width int
	lines []string
}

// Item is one finished thing in the transcript: User, Thinking, ModelText,
// Group, Note, Outcome, Compaction or Discarded. Only this package makes
// items, so that every one is drawn from clean text.
type Item interface {
	// lines draws the item at width with st; it must return at least one
	// line, each at most width columns.
	lines(width int, st *text.Styles) []string
}

// Live is the model's reply as it streams in, drawn after the finished
// items.
type Live struct {
	// Turn is the turn that replies.
	Turn int
	// Text is what the model has streamed so far, raw.
	Text strings.Builder
	// Thinking is what the model has streamed of its reasoning so far,
	// raw; it is drawn dimmed above Text. ThinkingSince is when its first
	// piece came, for how long the model thought.
	Thinking      strings.Builder
	ThinkingSince time.Time
	thinking      streamedThinking
	// buf holds the lines last drawn, reused from frame to frame.
	buf []string
	// Frame is the spinner frame drawn after the text while the model
	// replies; Waiting, when set, is what the run waits for instead.
	Frame   string
	Waiting string
	// Doing, when set, is what the run does instead of asking the model
	// for a reply, such as compacting the conversation.
	Doing string
}

// New returns an empty transcript that follows its end, with keys, drawing
// with styles.
func New(keys KeyMap, styles *text.Styles) Model {
	return Model{Keys: keys, styles: styles, follow: true}
}

// Add appends a finished item.
func (t *Model) Add(it Item) {
	if th, ok := it.(Thinking); ok {
		switch {
		case th.Expandable():
			t.thinking++
		case th.hidden:
			t.hidden++
		}
	}
	t.items = append(t.items, &entry{it: it, width: -1})
}

// HasThinking reports whether the transcript holds thinking that its
// Thinking key can unfold.
func (t *Model) HasThinking() bool { return t.thinking > 0 }

// Live returns the reply streaming in, or nil.
func (t *Model) Live() *Live { return t.live }

// SetLive makes l the reply streaming in; nil ends it.
func (t *Model) SetLive(l *Live) { t.live = l }

// Items returns the finished items, oldest first.
func (t *Model) Items() []Item {
	out := make([]Item, len(t.items))
	for i, e := range t.items {
		out[i] = e.it
	}
	return out
}

// Height returns the height last drawn at, which scrolling works in.
func (t *Model) Height() int { return t.height }

// Drawn returns how many finished items have been drawn at some width:
// drawing looks only at the items in view, so it stays small however long
// the session.
func (t *Model) Drawn() int {
	n := 0
	for _, e := range t.items {
		if e.width >= 0 {
			n++
		}
	}
	return n
}

// count returns the number of items in view order, the live one last.
func (t *Model) count() int {
	if t.live != nil {
		return len(t.items) + 1
	}
	return len(t.items)
}

// itemLines returns the lines of item i at width, drawing a finished item
// only when the width has changed.
func (t *Model) itemLines(i, width int) []string {
	if i == len(t.items) {
		return t.live.lines(width, t.styles)
	}
	e := t.items[i]
	if e.width != width {
		e.lines, e.width = e.it.lines(width, t.styles), width
		if len(e.lines) == 0 {
			e.lines = []string{""}
		}
	}
	return e.lines
}

// bottom returns the anchor that shows the last height lines.
func (t *Model) bottom(width, height int) anchor {
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

// Scroll moves the view by n lines (negative is up).
func (t *Model) Scroll(n int) {
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
	t.settle()
}

// settle follows the end again when the view has reached it.
func (t *Model) settle() {
	if b, a := t.bottom(t.width, t.height), t.top; a.item > b.item || (a.item == b.item && a.line >= b.line) {
		t.follow = true
	}
}

// SetSize tells the transcript the size it is drawn at, which scrolling
// works in.
func (t *Model) SetSize(width, height int) { t.width, t.height = width, height }

// ToTop shows the start of the session.
func (t *Model) ToTop() { t.follow, t.top = false, anchor{} }

// ToBottom follows the end again.
func (t *Model) ToBottom() { t.follow = true }

// Action is what a key in the transcript asks of the console.
type Action struct {
	// Note, when set, is said in the console's note line.
	Note string
}

// Update handles a key while the transcript has focus.
func (t *Model) Update(msg tea.KeyMsg) Action {
	switch {
	case key.Matches(msg, t.Keys.Up):
		t.Scroll(-1)
	case key.Matches(msg, t.Keys.Down):
		t.Scroll(1)
	case key.Matches(msg, t.Keys.Top):
		t.ToTop()
	case key.Matches(msg, t.Keys.Bottom):
		t.ToBottom()
	case key.Matches(msg, t.Keys.Expand):
		t.ToggleCompactions()
	case key.Matches(msg, t.Keys.Thinking):
		return t.ToggleThinking()
	}
	return Action{}
}

// View draws the lines in view, exactly height of them.
func (t *Model) View(width, height int, hasFocus bool) string {
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
		out[height-1] = t.styles.Accent.Render(text.Cut(mark, width))
	}
	return text.JoinLines(out, height)
}

// lines draws the streaming reply: its thinking so far, dimmed, then its
// text. The slice it returns is the Live's own, valid until the next call:
// a frame asks for it more than once, and a long thinking would otherwise
// be copied into a new slice every time.
func (l *Live) lines(width int, st *text.Styles) []string {
	out := l.buf[:0]
	if raw := l.Thinking.String(); strings.TrimSpace(raw) != "" {
		out = append(out, st.Dim.Render(text.Cut("  "+SymThinking+" thinking…", width)))
		out = l.thinking.draw(out, st, raw, width)
	}
	body := text.Clean(l.Text.String())
	if strings.TrimSpace(body) != "" {
		out = append(out, modelLines(st, body, width)...)
	}
	switch {
	case l.Doing != "":
		out = append(out, st.Dim.Render(text.Cut("  "+l.Frame+" "+l.Doing+"…", width)))
	case l.Frame != "" && l.Waiting != "":
		out = append(out, st.Dim.Render(text.Cut("  "+l.Frame+" waiting for "+l.Waiting+" before the first turn…", width)))
	case l.Frame != "":
		out = append(out, st.Dim.Render(text.Cut("  "+l.Frame+" the model is replying…", width)))
	}
	if len(out) == 0 {
		out = append(out, "")
	}
	l.buf = out
	return out
}

// modelLines draws model text: clean, wrapped and indented under a marker,
// so it never starts where the console's own lines do.
func modelLines(st *text.Styles, body string, width int) []string {
	lines := text.Indent(strings.TrimRight(body, "\n"), "  ", width)
	if len(lines) > 0 {
		lines[0] = st.Accent.Render("◆") + lines[0][1:]
	}
	return lines
}
