// Package help is the console's help (?, F1 or /help): every key of the
// console and every slash command, the person's own included, as titled
// sections of rows, each a key or command and what it does.
//
// It scrolls as a pager does (a line, a page, to either end, the mouse
// wheel) and says what lies beyond the view: a line at the top when it is
// scrolled, naming the section it is in, and a line at the bottom counting
// what is below and naming the keys that scroll. It uses the width it has:
// each section's key column is as wide as its widest key, and descriptions
// take the rest of the line, wrapping under themselves rather than being
// cut.
//
// The help takes plain data: the console builds the sections from its key
// maps and its commands, and the help knows nothing of where they came
// from. It cleans everything it is given before drawing it, since a
// command file's name and description are text from the person's files,
// not the console's own. It takes every key while it is open, so no key
// meant for it (a y, say) reaches the board beneath.
package help

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// Row is one entry of the help: a key or a command and what it does.
type Row struct {
	// Key is the key or the command as the person types it, such as
	// "ctrl+c ×2" or "/mode <ask|reads|auto|plan>".
	Key string
	// Desc says what it does.
	Desc string
	// Aside is drawn dimmed after the description, such as the file a
	// person's own command comes from; empty draws nothing.
	Aside string
}

// Section is a titled block of rows.
type Section struct {
	// Title names the block, such as "On the board".
	Title string
	// Note is drawn dimmed after the title, or under it when the line has
	// no room for both; empty draws nothing.
	Note string
	// Rows are the block's entries, in the order they are listed.
	Rows []Row
}

// Action is what a key in the help asks of the console. The zero Action
// asks for nothing.
type Action struct {
	// Close says the person closed the help; Update has closed it.
	Close bool
	// Note, when not empty, says why a key did nothing, for the console's
	// note line.
	Note string
}

// The layout's fixed measures, in columns and lines.
const (
	indent = 2 // before a key
	gap    = 2 // between the key column and the descriptions
	// minDesc is the narrowest the descriptions' column may be beside
	// the keys; below it, each key goes on a line of its own with its
	// description under it.
	minDesc = 16
	// wheelLines is how far one step of the mouse wheel scrolls, as it
	// scrolls the transcript.
	wheelLines = 3
)

// Model is the help. Its zero value is not usable: make one with New.
type Model struct {
	// Keys are the help's keys.
	Keys KeyMap

	styles   *text.Styles
	open     bool
	title    string
	sections []Section
	// top is the first line of the body in view.
	top int
	// width and height are the size the console last gave (SetSize),
	// by which the scrolling keys measure a page and the end.
	width, height int
	// laid is the body as last laid out. It sits behind a pointer, made
	// anew by Show, because the console draws from copies of its model:
	// every copy of one showing shares the one layout.
	laid *layout
}

// layout is the body laid out at one width.
type layout struct {
	width int
	lines []line
}

// New returns a closed help with keys, drawing with styles.
func New(keys KeyMap, styles *text.Styles) Model {
	return Model{Keys: keys, styles: styles}
}

// Show opens the help at its start, listing sections under title. Every
// text it is given is cleaned for drawing.
func (m *Model) Show(title string, sections []Section) {
	m.open, m.top, m.title, m.laid = true, 0, text.CleanLine(title), &layout{width: -1}
	m.sections = make([]Section, len(sections))
	for i, s := range sections {
		c := Section{Title: text.CleanLine(s.Title), Note: text.CleanLine(s.Note), Rows: make([]Row, len(s.Rows))}
		for j, r := range s.Rows {
			c.Rows[j] = Row{Key: text.CleanLine(r.Key), Desc: text.CleanLine(r.Desc), Aside: text.CleanLine(r.Aside)}
		}
		m.sections[i] = c
	}
}

// Hide closes the help.
func (m *Model) Hide() { m.open, m.sections, m.top, m.laid = false, nil, 0, nil }

// Shown reports whether the help is open.
func (m Model) Shown() bool { return m.open }

// SetSize tells the help the size it is drawn at, so that the scrolling
// keys know how long a page is and where the end is.
func (m *Model) SetSize(width, height int) { m.width, m.height = width, height }

// Update handles a key or the mouse wheel while the help is open. It takes
// every key: the scrolling keys scroll, Close closes it, and any other key,
// typed text included, does nothing but say how to close the help. The
// console handles the keys that work everywhere, such as ctrl+c, before it
// hands a key to the help.
func (m Model) Update(msg tea.Msg) (Model, Action) {
	if !m.open {
		return m, Action{}
	}
	switch msg := msg.(type) {
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.scroll(-wheelLines)
		case tea.MouseButtonWheelDown:
			m.scroll(wheelLines)
		}
	case tea.KeyMsg:
		if msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) {
			// Typing or a paste is never a key of the help's, even when
			// it begins with one.
			return m, Action{Note: "typed text is ignored while the help is open: " + m.closeWords() + " closes it"}
		}
		v := m.place(m.width, m.height)
		switch {
		case key.Matches(msg, m.Keys.Close):
			m.Hide()
			return m, Action{Close: true}
		case key.Matches(msg, m.Keys.Up):
			m.scroll(-1)
		case key.Matches(msg, m.Keys.Down):
			m.scroll(1)
		case key.Matches(msg, m.Keys.PageUp):
			m.scroll(-v.page)
		case key.Matches(msg, m.Keys.PageDown):
			m.scroll(v.page)
		case key.Matches(msg, m.Keys.Top):
			m.top = 0
		case key.Matches(msg, m.Keys.Bottom):
			m.top = v.maxTop
		default:
			return m, Action{Note: "the help is open: " + m.closeWords() + " closes it"}
		}
	}
	return m, Action{}
}

// scroll moves the view d lines down (up when d is negative), no further
// than the ends at the size last given.
func (m *Model) scroll(d int) {
	m.top = min(max(m.top+d, 0), m.place(m.width, m.height).maxTop)
}

// closeWords names the closing keys as a sentence says them: "esc or ?".
func (m Model) closeWords() string {
	return strings.ReplaceAll(m.Keys.Close.Help().Key, "/", " or ")
}

// view is what the help shows at one size: the lines of the body in view
// and the lines around them.
type view struct {
	// head says the title line is drawn.
	head bool
	// top and rows are the body's lines in view: lines[top:top+rows].
	top, rows int
	// above and below say a line tells what lies above or below.
	above, below bool
	// maxTop is top at the end; page is how far a page scrolls.
	maxTop, page int
}

// place lays the help out at width and height, scrolled as near to m.top
// as that size allows.
func (m Model) place(width, height int) view {
	return fit(len(m.body(width)), height, m.top)
}

// fit lays out n lines of body in height lines, scrolled as near to top
// as they allow. When the body fits, the title and all of it show. When it
// does not, the last line says what is below, and when scrolled the first
// line of the body says what is above; the title goes first on a screen
// too short for it and at least a line of the body.
func fit(n, height, top int) view {
	if height <= 0 {
		return view{}
	}
	if n+1 <= height {
		return view{head: true, rows: n, page: max(1, n)}
	}
	v := view{head: height >= 4, below: true}
	room := height - 1 // less the line saying what is below
	if v.head {
		room--
	}
	// Scrolled, one line of the room says what is above, when the room
	// has a line for the body beside it.
	scrolled := room
	if room >= 2 {
		scrolled = room - 1
	}
	v.maxTop = max(0, n-max(scrolled, 1))
	v.top = min(max(top, 0), v.maxTop)
	v.page = max(1, scrolled-1)
	v.rows = room
	if v.top > 0 && room >= 2 {
		v.above, v.rows = true, scrolled
	}
	v.rows = min(v.rows, n-v.top)
	return v
}

// line is one line of the help's body.
type line struct {
	text string
	// section is the index of the section the line belongs to.
	section int
	// heading says the line is its section's title (or blank before it),
	// so the line above it need not name the section.
	heading bool
}

// body returns every section laid out at width: its title, then its
// rows, with a blank line between sections. It lays them out again only
// when the width changes.
func (m Model) body(width int) []line {
	if m.laid == nil {
		return m.lay(width)
	}
	if m.laid.width != width {
		m.laid.width, m.laid.lines = width, m.lay(width)
	}
	return m.laid.lines
}

// lay lays out every section at width.
func (m Model) lay(width int) []line {
	var out []line
	for i, s := range m.sections {
		if i > 0 {
			out = append(out, line{section: i, heading: true})
		}
		for _, t := range m.heading(s, width) {
			out = append(out, line{text: t, section: i, heading: true})
		}
		for _, t := range m.rows(s.Rows, width) {
			out = append(out, line{text: t, section: i})
		}
	}
	return out
}

// heading draws a section's title, with its note beside it when both fit
// on the line and wrapped under it when they do not.
func (m Model) heading(s Section, width int) []string {
	st := m.styles
	title := st.Title.Render(text.Cut(s.Title, width))
	if s.Note == "" {
		return []string{title}
	}
	if ansi.StringWidth(s.Title)+1+ansi.StringWidth(s.Note) <= width {
		return []string{title + st.Dim.Render(" "+s.Note)}
	}
	out := []string{title}
	for _, l := range text.Wrap(s.Note, max(width-indent, 1)) {
		out = append(out, pad(indent)+st.Dim.Render(l))
	}
	return out
}

// rows draws a section's rows: the keys in a column as wide as the widest
// of them (up to half the width), and each description beside its key,
// wrapped to the rest of the line. A key wider than the column goes on a
// line of its own with its description under it, as every key does when
// the descriptions would have too little room beside the keys.
func (m Model) rows(rows []Row, width int) []string {
	st := m.styles
	keyW := 0
	for _, r := range rows {
		keyW = max(keyW, ansi.StringWidth(r.Key))
	}
	keyW = min(keyW, max((width-indent-gap)/2, 1))
	x := indent + keyW + gap
	stacked := width-x < minDesc
	if stacked {
		x = 2 * indent
	}
	descW := max(width-x, 1)
	var out []string
	for _, r := range rows {
		desc := m.describe(r, descW)
		kw := ansi.StringWidth(r.Key)
		if stacked || kw > keyW {
			out = append(out, pad(indent)+st.Key.Render(text.Cut(r.Key, max(width-indent, 1))))
		} else {
			first := pad(indent) + st.Key.Render(r.Key)
			if len(desc) > 0 {
				first += pad(x-indent-kw) + desc[0]
				desc = desc[1:]
			}
			out = append(out, first)
		}
		for _, d := range desc {
			out = append(out, pad(x)+d)
		}
	}
	return out
}

// describe wraps a row's description to w columns, with its aside dimmed
// after it on the last line when it fits there and on lines of its own
// when it does not.
func (m Model) describe(r Row, w int) []string {
	var out []string
	if r.Desc != "" {
		out = text.Wrap(r.Desc, w)
	}
	if r.Aside == "" {
		return out
	}
	dim := m.styles.Dim
	if n := len(out); n > 0 && ansi.StringWidth(out[n-1])+3+ansi.StringWidth(r.Aside) <= w {
		out[n-1] += dim.Render(" · " + r.Aside)
		return out
	}
	for _, l := range text.Wrap(r.Aside, w) {
		out = append(out, dim.Render(l))
	}
	return out
}

// pad returns n spaces.
func pad(n int) string { return strings.Repeat(" ", max(n, 0)) }

// View draws the help in exactly height lines of at most width columns:
// the title, the body scrolled to where the keys left it, and the lines
// saying what lies above and below.
func (m Model) View(width, height int) string {
	if width <= 0 || height <= 0 {
		return text.JoinLines(nil, max(height, 0))
	}
	st := m.styles
	body := m.body(width)
	v := fit(len(body), height, m.top)
	var out []string
	if v.head {
		out = append(out, st.Title.Render(m.title)+st.Dim.Render(" · "+m.closeWords()+" closes this"))
	}
	if v.above {
		say := st.Accent.Render(fmt.Sprintf("↑ %d above", v.top))
		if first := body[v.top]; !first.heading {
			say += st.Dim.Render(" · " + m.sections[first.section].Title + ", continued")
		}
		out = append(out, say)
	}
	for _, l := range body[v.top : v.top+v.rows] {
		out = append(out, l.text)
	}
	if v.below {
		out = append(out, m.foot(len(body)-v.top-v.rows))
	}
	for i, l := range out {
		out[i] = text.Cut(l, width)
	}
	return text.JoinLines(out, height)
}

// foot is the last line of a help that does not fit: how much is below,
// or that this is the end, and the keys that scroll and close.
func (m Model) foot(below int) string {
	st := m.styles
	k := m.Keys
	first := func(b key.Binding) string { h, _, _ := strings.Cut(b.Help().Key, "/"); return h }
	keys := fmt.Sprintf(" · %s%s %s %s %s %s scroll · %s closes",
		first(k.Up), first(k.Down), first(k.PageUp), first(k.PageDown), first(k.Top), first(k.Bottom), m.closeWords())
	if below > 0 {
		return st.Accent.Render(fmt.Sprintf("↓ %d more", below)) + st.Dim.Render(keys)
	}
	return st.Accent.Render("the end") + st.Dim.Render(keys)
}
