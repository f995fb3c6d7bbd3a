// Package rewind is the rewind picker (/rewind): the places the session can
// go back to, newest first, each an input of the person's or a reply of the
// model's with the files it changed, and for the selected one the three
// ways back: the workspace and the conversation, the workspace only, or the
// conversation only.
//
// It guards its choices as the grant chooser does: several runes in one
// message (typing, a paste) never choose, and nothing is chosen for a short
// grace period after it opens, so the Enter that sent /rewind, or a key
// pressed a moment later for something else, cannot send the session back.
// It never goes back itself: Update says which point and which way the
// person chose, and the console previews that and asks again before
// anything is restored.
package rewind

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// DefaultGrace is how long the choosing keys are ignored after the picker
// opens: long enough that a key already on its way cannot choose, short
// enough not to be noticed by a person who reads before choosing.
const DefaultGrace = 500 * time.Millisecond

// maxFiles is how many changed files the picker lists under a reply before
// it only counts the rest, so one large reply cannot push every other point
// off the screen.
const maxFiles = 4

// Point is one place the session can go back to: the state just before an
// input of the person's was sent, or before a reply's changes were made.
type Point struct {
	// Kind is "goal", "answer", "followup" or "reply".
	Kind string
	// Turn is the turn the point starts.
	Turn int
	// Text is the person's input, or the reply's text, Markdown, which
	// the picker shows as plain text. It is untrusted and is cleaned
	// before it is drawn.
	Text string
	// Files are, for a reply, the changes it made that are still in
	// effect; going back in the workspace undoes them.
	Files []File
	// Conversation says the conversation can be rewound to the point; it
	// is false once compaction has folded the turns before it away.
	Conversation bool
	// Code says the workspace has changes in effect made after the point,
	// so going back in the workspace would change something.
	Code bool
}

// File is one file a reply changed, as the picker lists it under the reply.
type File struct {
	// Path is the file's path in the workspace (untrusted).
	Path string
	// Kind is "added", "modified", "removed" or "mode".
	Kind string
	// Added and Removed count the lines a modification added and removed.
	Added, Removed int
}

// Action is what a key in the picker asks of the console: go back to a
// point in the workspace, the conversation or both, or close without going
// back. The zero Action asks for nothing.
type Action struct {
	// Point is the index of the chosen point in the slice given to Show.
	Point int
	// Code asks to restore the workspace to the point.
	Code bool
	// Conversation asks to restore the conversation to the point.
	Conversation bool
	// Cancel says the person closed the picker without choosing.
	Cancel bool
}

// Picker is the rewind picker. It takes the body of the console while it
// is open. Its zero value is not usable: make one with New.
type Picker struct {
	// Keys are the picker's keys.
	Keys KeyMap
	// Grace is how long the choosing keys are ignored after Show; New sets
	// DefaultGrace, and zero or less means no grace at all.
	Grace time.Duration

	styles *text.Styles
	open   bool
	points []Point
	drawn  []drawnPoint // the points' clean text, as the picker draws it
	sel    int          // index into points
	opened time.Time
	note   string // what the last key said, until the selection moves
	// scroll sits behind a pointer because the console draws from a copy
	// of its model: where the list was scrolled to must outlive View.
	scroll *scroll
}

// drawnPoint is a point's text made clean for drawing.
type drawnPoint struct {
	label string
	text  string
	files []drawnFile
}

// drawnFile is a changed file made clean for drawing.
type drawnFile struct {
	path, kind     string
	added, removed int
}

// scroll is how far the list is scrolled: the position, newest first, of
// the topmost point drawn.
type scroll struct{ top int }

// New returns a closed picker with keys, drawing with styles.
func New(keys KeyMap, styles *text.Styles) Picker {
	return Picker{Keys: keys, Grace: DefaultGrace, styles: styles, scroll: &scroll{}}
}

// Show opens the picker on points, oldest first as the session made them,
// at time now, from which the grace period runs. The selection starts on
// the newest point.
func (p *Picker) Show(points []Point, now time.Time) {
	p.open, p.points, p.opened, p.note = true, slices.Clone(points), now, ""
	p.sel = len(points) - 1
	p.drawn = make([]drawnPoint, len(points))
	for i, pt := range points {
		d := drawnPoint{label: label(pt), text: pointText(pt)}
		for _, f := range pt.Files {
			d.files = append(d.files, drawnFile{path: text.CleanLine(f.Path), kind: f.Kind, added: f.Added, removed: f.Removed})
		}
		p.drawn[i] = d
	}
	if p.scroll == nil {
		p.scroll = &scroll{}
	}
	p.scroll.top = 0
}

// Hide closes the picker without choosing.
func (p *Picker) Hide() {
	p.open, p.points, p.drawn, p.note = false, nil, nil, ""
}

// Shown reports whether the picker is open.
func (p *Picker) Shown() bool { return p.open }

// label names a point as the picker lists it: what the person sent and in
// which turn, or the turn of a reply.
func label(pt Point) string {
	switch pt.Kind {
	case "goal":
		return fmt.Sprintf("goal · turn %d", pt.Turn)
	case "answer":
		return fmt.Sprintf("answer · turn %d", pt.Turn)
	case "followup":
		return fmt.Sprintf("follow-up · turn %d", pt.Turn)
	case "reply":
		return fmt.Sprintf("turn %d", pt.Turn)
	}
	return fmt.Sprintf("%s · turn %d", text.CleanLine(pt.Kind), pt.Turn)
}

// pointText is a point's text as the picker lists it, on one line: the
// person's input as they typed it, a reply's Markdown as the plain text it
// reads as, so that no ** or # shows in the list.
func pointText(pt Point) string {
	if pt.Kind == "reply" {
		return text.Preview(text.PlainMarkdown(pt.Text))
	}
	return text.Preview(pt.Text)
}

// Update handles a key while the picker is open, at time now. It reports
// whether the key was the picker's: every key it binds and all typed text
// are, so typing never reaches what lies beneath; a key it does not use
// (ctrl+c, say) is left to the console. A choice or Cancel closes the
// picker.
func (p *Picker) Update(msg tea.KeyMsg, now time.Time) (Action, bool) {
	if !p.open {
		return Action{}, false
	}
	if msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) {
		// Several runes in one message are typing or a paste, never a
		// choice.
		p.note = "typed text is ignored while choosing where to go back to: press 1, 2, 3 or enter, or esc"
		return Action{}, true
	}
	switch {
	case key.Matches(msg, p.Keys.Cancel):
		p.Hide()
		return Action{Cancel: true}, true
	case key.Matches(msg, p.Keys.Up):
		p.move(1)
	case key.Matches(msg, p.Keys.Down):
		p.move(-1)
	case key.Matches(msg, p.Keys.Both):
		return p.choose(true, true, now), true
	case key.Matches(msg, p.Keys.CodeOnly):
		return p.choose(true, false, now), true
	case key.Matches(msg, p.Keys.ConversationOnly):
		return p.choose(false, true, now), true
	case key.Matches(msg, p.Keys.Choose):
		pt, ok := p.selected()
		switch {
		case !ok:
			p.note = "there is nothing to go back to yet: esc closes"
		case pt.Code && pt.Conversation:
			return p.choose(true, true, now), true
		case pt.Code:
			return p.choose(true, false, now), true
		case pt.Conversation:
			return p.choose(false, true, now), true
		default:
			p.note = why(pt)
		}
	case msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace:
		p.note = "choose with 1, 2 or 3, or ↑↓ and enter; esc closes without going back"
	default:
		return Action{}, false
	}
	return Action{}, true
}

// move shifts the selection by d points: +1 is newer.
func (p *Picker) move(d int) {
	if len(p.points) == 0 {
		return
	}
	p.sel = min(max(p.sel+d, 0), len(p.points)-1)
	p.note = ""
}

// selected returns the selected point.
func (p *Picker) selected() (Point, bool) {
	if p.sel < 0 || p.sel >= len(p.points) {
		return Point{}, false
	}
	return p.points[p.sel], true
}

// Armed reports whether, at now, the grace period after Show is over, so
// that the choosing keys work; the console's hints say so.
func (p *Picker) Armed(now time.Time) bool { return p.Grace <= 0 || !now.Before(p.opened.Add(p.Grace)) }

// choose goes back to the selected point in the workspace (code), the
// conversation, or both, unless the point does not allow it or the picker
// has only just opened.
func (p *Picker) choose(code, conversation bool, now time.Time) Action {
	pt, ok := p.selected()
	switch {
	case !ok:
		p.note = "there is nothing to go back to yet: esc closes"
		return Action{}
	case code && !pt.Code || conversation && !pt.Conversation:
		p.note = why(pt)
		return Action{}
	case !p.Armed(now):
		p.note = "ignored: the picker has just opened; look, then choose again"
		return Action{}
	}
	act := Action{Point: p.sel, Code: code, Conversation: conversation}
	p.Hide()
	return act
}

// why says why a point does not allow every way back, or "" when it does.
func why(pt Point) string {
	switch {
	case !pt.Code && !pt.Conversation:
		return "nothing to go back to here: nothing changed in the workspace after this point, and the conversation before it was compacted"
	case !pt.Code:
		return "code: nothing changed in the workspace after this point"
	case !pt.Conversation:
		return "conversation: the conversation before this point was compacted"
	}
	return ""
}

// View draws the picker in exactly height lines of at most width columns:
// a title, the points newest first with the selection kept in view, the
// choices the selected point allows, and a status line. On a narrow screen
// the choices and the status wrap rather than lose their ends; on a short
// one the title goes first, then the status.
func (p *Picker) View(width, height int) string {
	if width <= 0 || height <= 0 {
		return text.JoinLines(nil, max(height, 0))
	}
	st := p.styles
	title := "Rewind: go back to before a point, newest first"
	if n := len(p.points); n > 0 {
		title += fmt.Sprintf(" · %d of %d", n-p.sel, n)
	}
	choices, status := p.choices(width), p.status(width)
	// The list keeps at least one line, so the selection always shows.
	choices = choices[:min(len(choices), max(height-1, 1))]
	room := height - len(choices)
	status = status[:min(len(status), max(room-1, 0))]
	room -= len(status)
	var lines []string
	if room >= 2 {
		lines = append(lines, st.Title.Render(text.Cut(title, width)))
		room--
	}
	if room > 0 {
		lines = append(lines, p.list(width, room)...)
	}
	foot := append(choices, status...)
	for len(lines) < height-len(foot) {
		lines = append(lines, "")
	}
	lines = append(lines, foot...)
	for i, l := range lines {
		lines[i] = text.Cut(l, width)
	}
	return text.JoinLines(lines, height)
}

// list draws the points, newest first, in at most h lines, scrolled so the
// selected point's first line is in view.
func (p *Picker) list(width, h int) []string {
	n := len(p.points)
	if n == 0 {
		return []string{p.styles.Dim.Render(text.Cut("  nothing to go back to yet: the session has no point to rewind to", width))}
	}
	labelW := 0
	for _, d := range p.drawn {
		labelW = max(labelW, ansi.StringWidth(d.label))
	}
	labelW = min(labelW, max(width/3, 6))
	// Position k (newest first) is point n-1-k.
	rows := func(k int) int { return 1 + fileRows(len(p.drawn[n-1-k].files)) }
	sel := n - 1 - p.sel
	sc := p.scroll
	if sc == nil {
		sc = &scroll{}
	}
	top := min(max(sc.top, 0), n-1)
	if sel < top {
		top = sel
	}
	for top < sel && span(rows, top, sel) > h {
		top++
	}
	// When the height grows, show more of the newer points again.
	for top > 0 && span(rows, top-1, n-1) <= h {
		top--
	}
	sc.top = top
	var out []string
	for k := top; k < n && len(out) < h; k++ {
		out = append(out, p.point(n-1-k, k == sel, width, labelW)...)
	}
	return out[:min(len(out), h)]
}

// span returns how many lines the points at positions from to to take.
func span(rows func(int) int, from, to int) int {
	s := 0
	for k := from; k <= to; k++ {
		s += rows(k)
	}
	return s
}

// fileRows returns how many lines n changed files take under a point.
func fileRows(n int) int {
	if n > maxFiles {
		return maxFiles + 1
	}
	return n
}

// point draws point i: its label and text, then the files it changed.
func (p *Picker) point(i int, selected bool, width, labelW int) []string {
	st := p.styles
	d := p.drawn[i]
	mark := "  "
	if selected {
		mark = text.SymFocus + " "
	}
	first := mark + text.Pad(d.label, labelW) + "  " + d.text
	if selected {
		first = st.Focused.Render(text.Pad(first, width))
	} else {
		first = text.Cut(first, width)
	}
	out := []string{first}
	for j, f := range d.files {
		if j == maxFiles {
			out = append(out, st.Dim.Render(text.Cut("    … and "+text.Plural(len(d.files)-maxFiles, "more file"), width)))
			break
		}
		out = append(out, p.file(f, width))
	}
	return out
}

// file draws one changed file on its line: the path, cut at the front when
// it must be so the name stays, and what changed.
func (p *Picker) file(f drawnFile, width int) string {
	st := p.styles
	var stat, plain string
	switch f.kind {
	case "added":
		stat, plain = st.OK.Render("new"), "new"
	case "removed":
		stat, plain = st.Err.Render("removed"), "removed"
	case "mode":
		stat, plain = st.Dim.Render("mode"), "mode"
	default:
		if f.added == 0 && f.removed == 0 {
			stat, plain = "changed", "changed"
			break
		}
		a, r := fmt.Sprintf("+%d", f.added), fmt.Sprintf("−%d", f.removed)
		stat, plain = st.OK.Render(a)+" "+st.Err.Render(r), a+" "+r
	}
	const indent = "    "
	avail := width - len(indent) - 1 - ansi.StringWidth(plain)
	return indent + cutFront(f.path, max(avail, 1)) + " " + stat
}

// cutFront shortens clean text s to at most w columns by cutting its
// start, so a long path keeps its file name.
func cutFront(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw <= w {
		return s
	}
	return ansi.TruncateLeft(s, sw-w+1, "…")
}

// choices draws the three ways back, with those the selected point does
// not allow dimmed and crossed, so they read as unavailable without colour
// too. They take as many lines as the width needs.
func (p *Picker) choices(width int) []string {
	st := p.styles
	pt, ok := p.selected()
	type choice struct {
		k     key.Binding
		what  string
		avail bool
	}
	cs := []choice{
		{p.Keys.Both, "code and conversation", ok && pt.Code && pt.Conversation},
		{p.Keys.CodeOnly, "code only", ok && pt.Code},
		{p.Keys.ConversationOnly, "conversation only", ok && pt.Conversation},
		{p.Keys.Cancel, "cancel", true},
	}
	var parts, plain []string
	for _, c := range cs {
		s := c.k.Help().Key + " " + c.what
		if !c.avail {
			s = "✗ " + s
			parts, plain = append(parts, st.Dim.Render(s)), append(plain, s)
			continue
		}
		parts, plain = append(parts, st.Key.Render(c.k.Help().Key)+" "+c.what), append(plain, s)
	}
	return pack(parts, plain, width)
}

// pack joins parts with " · " into as few lines of width as it can,
// breaking only between parts; plain are the parts without their styling.
func pack(parts, plain []string, width int) []string {
	var lines []string
	line, w := "", 0
	for i, part := range parts {
		pw := ansi.StringWidth(plain[i])
		switch {
		case i == 0:
			line, w = part, pw
		case w+3+pw <= width:
			line, w = line+" · "+part, w+3+pw
		default:
			lines = append(lines, line)
			line, w = part, pw
		}
	}
	return append(lines, line)
}

// status draws what the last key said, or why the selected point does not
// allow every way back, or what Enter would do, in up to two lines.
func (p *Picker) status(width int) []string {
	st := p.styles
	say, style := "", st.Warn
	pt, ok := p.selected()
	switch {
	case p.note != "":
		say = p.note
	case !ok:
		return nil
	case why(pt) != "":
		say = why(pt)
	default:
		say, style = "↑↓ select · enter goes back in code and conversation", st.Dim
	}
	lines := text.Wrap(say, width)
	if len(lines) > 2 {
		lines = []string{lines[0], text.Cut(strings.Join(lines[1:], " "), width)}
	}
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}
