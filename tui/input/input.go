// Package input is the console's input: the goal, the answer to a
// clarification question, a follow-up, a slash command, or the reason for
// skipping a call. It holds several lines and grows with them up to a few
// rows, then scrolls; it recalls earlier inputs (↑ on its first line, ↓ on
// its last, Ctrl+P and Ctrl+N), searches them (Ctrl+R), and completes slash
// commands from a small menu.
//
// The text is edited by bubbles' textarea; the box draws it at the height its
// text needs and keeps the cursor in view itself. Update hands what the
// person asks for (send, open the editor) back to the console as an Action.
package input

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// Mode is what the input is for.
type Mode int

// The input's modes.
const (
	ModeGoal     Mode = iota // the first goal of the session
	ModeFollowUp             // a follow-up after an outcome
	ModeAnswer               // the answer to the agent's question
	ModeReason               // the reason for skipping a call
)

// Action is what a key in the input asks of the console.
type Action int

// The input's actions.
const (
	None   Action = iota
	Submit        // send what is typed
	Editor        // open what is typed in the person's editor
)

// MaxRows is how many rows of text the input grows to before it scrolls; a
// short terminal allows fewer.
const MaxRows = 6

// menuRows is how many entries the slash-command menu shows at once.
const menuRows = 6

// Box is the input. Make one with New.
type Box struct {
	// Keys are the input's keys.
	Keys   KeyMap
	styles *text.Styles

	ta       textarea.Model
	mode     Mode
	question string // clean
	// reasonFor is the call a skip reason is for; draft and draftMode are
	// what the input held before the reason prompt opened.
	reasonFor *callview.Call
	draft     string
	draftMode Mode
	// placeholder is shown when nothing is typed; busy replaces it while a
	// run is going.
	placeholder, busy string

	// top is the first row of text in view when the text is taller than
	// the input.
	top int

	// history is the earlier inputs, oldest first; histPos is the one
	// recalled, len(history) for the text being written (histDraft).
	history   []string
	histPos   int
	histDraft string
	// search is the Ctrl+R search under way, if any.
	search *historySearch

	// commands are the slash commands the menu offers; menuSel is the
	// selected entry, and menuHidden is the text for which Esc closed
	// the menu.
	commands   []Command
	menuSel    int
	menuHidden string
}

// Command is a slash command as the menu offers it.
type Command struct {
	// Name is the command without its slash; Args says what it takes,
	// such as "<id>"; Desc says what it does.
	Name, Args, Desc string
	// Choices are the values the argument takes, which the menu offers.
	Choices []Choice
	// Tag says where a command that is not the console's own comes from,
	// such as "project"; the menu shows it in a column of its own, so
	// such a command cannot pass for a built-in one. Empty for the
	// console's own.
	Tag string
}

// Choice is one value of a command's argument.
type Choice struct{ Name, Desc string }

// MenuEntry is one line of the slash-command menu: what Tab completes to,
// and a description.
type MenuEntry struct {
	completion, label, desc, tag string
}

// New returns an input for a goal, holding prefill, whose menu offers
// commands; it has focus.
func New(prefill string, commands []Command, keys KeyMap, styles *text.Styles) Box {
	ta := textarea.New()
	ta.Prompt = ""
	ta.ShowLineNumbers = false
	ta.MaxHeight = 0 // no limit on lines: the box scrolls instead
	ta.MaxWidth = 0
	ta.CharLimit = 0
	ta.EndOfBufferCharacter = ' '
	// A blinking cursor would redraw the screen twice a second while the
	// console is idle; a static one costs nothing.
	ta.Cursor.SetMode(cursor.CursorStatic)
	plain := textarea.Style{
		Base: lipgloss.NewStyle(), CursorLine: lipgloss.NewStyle(), CursorLineNumber: lipgloss.NewStyle(),
		EndOfBuffer: lipgloss.NewStyle(), LineNumber: lipgloss.NewStyle(), Placeholder: styles.Dim,
		Prompt: lipgloss.NewStyle(), Text: lipgloss.NewStyle(),
	}
	ta.FocusedStyle, ta.BlurredStyle = plain, plain
	km := textarea.DefaultKeyMap
	// Enter sends; these insert a new line. Shift+Enter arrives as a key
	// of its own only from some terminals (see Model.Update).
	km.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j", "alt+enter"))
	// The box moves through history at the first and last line, and
	// Ctrl+P and Ctrl+N always recall.
	km.LinePrevious = key.NewBinding(key.WithKeys("up"))
	km.LineNext = key.NewBinding(key.WithKeys("down"))
	// A paste arrives as one bracketed message; reading the clipboard
	// would need an external program.
	km.Paste = key.NewBinding(key.WithDisabled())
	ta.KeyMap = km
	in := Box{Keys: keys, styles: styles, ta: ta, commands: commands}
	in.SetMode(ModeGoal, "")
	in.SetValue(prefill)
	in.ta.Focus()
	return in
}

// Value returns what was typed.
func (in *Box) Value() string { return in.ta.Value() }

// SetValue replaces the text, with the cursor at its end.
func (in *Box) SetValue(s string) {
	in.ta.SetValue(s)
	in.top = 0
}

// Reset empties the input and forgets any recall.
func (in *Box) Reset() {
	in.SetValue("")
	in.histPos, in.histDraft, in.search = len(in.history), "", nil
}

// SetMode switches what the input is for; question is shown in ModeAnswer.
func (in *Box) SetMode(mode Mode, question string) {
	in.mode, in.question = mode, question
	switch mode {
	case ModeGoal:
		in.placeholder = "type what the agent should do, then press enter · / for commands"
	case ModeFollowUp:
		in.placeholder = "type a follow-up for the agent, then press enter · / for commands"
	case ModeAnswer:
		in.placeholder = "type your answer to the question above, then press enter"
	case ModeReason:
		in.placeholder = "optional; enter with nothing typed skips without a reason"
	}
}

// OpenReason turns the input into the skip-reason prompt for c, keeping what
// was typed so far for later.
func (in *Box) OpenReason(c *callview.Call) {
	in.draft, in.draftMode = in.Value(), in.mode
	in.reasonFor = c
	in.search = nil
	in.SetValue("")
	in.SetMode(ModeReason, in.question)
}

// CloseReason restores the input as it was before the reason prompt.
func (in *Box) CloseReason() {
	in.reasonFor = nil
	in.SetMode(in.draftMode, in.question)
	in.SetValue(in.draft)
	in.draft = ""
}

// SetHistory gives the box the earlier inputs, oldest first.
func (in *Box) SetHistory(entries []string) {
	in.history = entries
	in.histPos = len(entries)
}

// Remember adds text, as the history keeps it, as the newest entry.
func (in *Box) Remember(text string) {
	if text == "" || (len(in.history) > 0 && in.history[len(in.history)-1] == text) {
		in.histPos = len(in.history)
		return
	}
	in.history = append(in.history, text)
	in.histPos = len(in.history)
}

// Mode returns what the input is for.
func (in *Box) Mode() Mode { return in.mode }

// ReasonFor returns the call a skip reason is for, or nil when the input
// does not ask for one.
func (in *Box) ReasonFor() *callview.Call { return in.reasonFor }

// History returns the earlier inputs, oldest first.
func (in *Box) History() []string { return in.history }

// Recalling reports whether the text shown is an earlier input recalled
// from the history, rather than the text being written.
func (in *Box) Recalling() bool { return in.histPos != len(in.history) }

// Searching reports whether a history search is under way.
func (in *Box) Searching() bool { return in.search != nil }

// SetPlaceholder sets what the input shows when nothing is typed, until the
// mode changes.
func (in *Box) SetPlaceholder(s string) { in.placeholder = s }

// Focus and Blur follow the console's focus, so keys reach the text only
// when it has focus.
func (in *Box) Focus() { in.ta.Focus() }
func (in *Box) Blur()  { in.ta.Blur() }

// Overlay reports whether a search or the menu is open, whose Esc and Tab
// the box takes before the console's own.
func (in *Box) Overlay() bool { return in.search != nil || len(in.Menu()) > 0 }

// Update handles a key while the input has focus and says what it asks of
// the console. A paste is inserted as it is, new lines and all, and never
// sends.
func (in *Box) Update(msg tea.KeyMsg) (Action, tea.Cmd) {
	if in.search != nil {
		if done := in.searchKey(msg); done {
			return None, nil
		}
	}
	if msg.Paste {
		in.insert(string(msg.Runes))
		return None, nil
	}
	k := in.Keys
	if menu := in.Menu(); len(menu) > 0 {
		switch {
		case key.Matches(msg, k.Complete):
			in.SetValue(menu[min(in.menuSel, len(menu)-1)].completion)
			in.menuSel = 0
			return None, nil
		case key.Matches(msg, k.Close):
			in.menuHidden = in.Value()
			return None, nil
		case msg.Type == tea.KeyUp:
			in.menuSel = (in.menuSel + len(menu) - 1) % len(menu)
			return None, nil
		case msg.Type == tea.KeyDown:
			in.menuSel = (in.menuSel + 1) % len(menu)
			return None, nil
		}
	}
	switch {
	case key.Matches(msg, k.Submit):
		return Submit, nil
	case key.Matches(msg, k.Editor):
		return Editor, nil
	case key.Matches(msg, k.Search) && in.mode != ModeReason:
		in.search = &historySearch{match: -1, draft: in.Value()}
		in.find(len(in.history) - 1)
		return None, nil
	case key.Matches(msg, k.Older) && in.mode != ModeReason && (msg.Type != tea.KeyUp || in.onFirstRow()):
		in.recall(-1)
		return None, nil
	case key.Matches(msg, k.Newer) && in.mode != ModeReason && (msg.Type != tea.KeyDown || in.onLastRow()):
		in.recall(1)
		return None, nil
	}
	before := in.Value()
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	if in.Value() != before {
		in.menuSel = 0
	}
	return None, cmd
}

// Newline inserts a line break at the cursor.
func (in *Box) Newline() { in.ta.InsertString("\n") }

// insert inserts pasted text at the cursor. Terminals send a pasted line
// break as CR; CRLF and CR both become one new line.
func (in *Box) insert(s string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	in.ta.InsertString(s)
}

// onFirstRow and onLastRow report whether the cursor is on the first or the
// last row of the text as drawn, where ↑ and ↓ leave the text for the
// history.
func (in *Box) onFirstRow() bool { return in.ta.Line() == 0 && in.ta.LineInfo().RowOffset == 0 }

func (in *Box) onLastRow() bool {
	li := in.ta.LineInfo()
	return in.ta.Line() == in.ta.LineCount()-1 && li.RowOffset >= li.Height-1
}

// Menu returns the slash-command menu for what is typed: the commands whose
// name starts with it, or the choices of a command's argument.
func (in *Box) Menu() []MenuEntry {
	v := in.Value()
	if in.mode == ModeReason || in.search != nil || !strings.HasPrefix(v, "/") || strings.HasPrefix(v, "//") ||
		strings.Contains(v, "\n") || v == in.menuHidden {
		return nil
	}
	name, arg, hasArg := strings.Cut(v[1:], " ")
	var out []MenuEntry
	for _, c := range in.commands {
		switch {
		case !hasArg && strings.HasPrefix(c.Name, name):
			completion := "/" + c.Name
			if c.Args != "" {
				completion += " "
			}
			out = append(out, MenuEntry{completion: completion, label: strings.TrimSpace("/" + c.Name + " " + c.Args), desc: c.Desc, tag: c.Tag})
		case hasArg && c.Name == name:
			for _, ch := range c.Choices {
				if strings.HasPrefix(ch.Name, arg) && ch.Name != arg {
					out = append(out, MenuEntry{completion: "/" + c.Name + " " + ch.Name, label: ch.Name, desc: ch.Desc})
				}
			}
		}
	}
	return out
}

// label is the prompt before the text.
func (in *Box) label(running bool) string {
	switch in.mode {
	case ModeReason:
		if c := in.reasonFor; c != nil {
			return "Skip " + c.Title() + " · reason › "
		}
		return "Skip · reason › "
	case ModeAnswer:
		return "Answer › "
	case ModeFollowUp:
		return "Follow-up › "
	}
	if running {
		return "› "
	}
	return "Goal › "
}

// textWidth is the width the text is wrapped at.
func (in *Box) textWidth(width int, running bool) int {
	return max(1, width-2-ansi.StringWidth(in.label(running))-1)
}

// rows returns how many rows the text takes when wrapped at width.
func (in *Box) rows(width int) int {
	n := 0
	for _, l := range strings.Split(in.Value(), "\n") {
		n += wrappedRows([]rune(l), width)
	}
	return n
}

// cursorRow returns the row of the text, as drawn at width, the cursor is
// on.
func (in *Box) cursorRow(width int) int {
	lines := strings.Split(in.Value(), "\n")
	row := 0
	for _, l := range lines[:min(in.ta.Line(), len(lines))] {
		row += wrappedRows([]rune(l), width)
	}
	return row + in.ta.LineInfo().RowOffset
}

// Layout is how the input's lines are shared out; Plan makes one.
type Layout struct {
	question, search bool
	menu             []MenuEntry
	menuShown        int  // menu entries shown
	menuMore         bool // a line saying how many more there are
	textRows         int  // rows of text shown
	textWidth, rows  int  // the width the text wraps at, and its rows
}

// Lines returns how many lines the layout takes.
func (l Layout) Lines() int {
	n := l.textRows + l.menuShown
	for _, b := range []bool{l.question, l.search, l.menuMore} {
		if b {
			n++
		}
	}
	return n
}

// Plan shares out at most budget lines at width: the question and the
// search line first, then the text, at most textMax rows of it, then as
// much of the menu as fits.
func (in *Box) Plan(width, budget, textMax int, running bool) Layout {
	l := Layout{
		question:  in.mode == ModeAnswer || (in.mode == ModeReason && in.draftMode == ModeAnswer),
		search:    in.search != nil,
		textWidth: in.textWidth(width, running),
	}
	l.rows = in.rows(l.textWidth)
	used := l.Lines()
	l.textRows = max(1, min(l.rows, textMax, budget-used))
	used += l.textRows
	if l.menu = in.Menu(); len(l.menu) > 0 {
		room := budget - used
		l.menuShown = max(0, min(len(l.menu), menuRows, room))
		if l.menuShown < len(l.menu) && l.menuShown > 1 {
			l.menuMore = true
			if l.menuShown+1 > room {
				l.menuShown--
			}
		}
	}
	return l
}

// Fit sizes the text area and keeps the cursor within the rows in view.
func (in *Box) Fit(l Layout) {
	in.ta.SetWidth(l.textWidth)
	in.ta.SetHeight(l.rows)
	cur := in.cursorRow(l.textWidth)
	if cur < in.top {
		in.top = cur
	}
	if cur >= in.top+l.textRows {
		in.top = cur - l.textRows + 1
	}
	in.top = max(0, min(in.top, l.rows-l.textRows))
}

// View draws the input at width as l lays it out: the question when there
// is one, the search line, the menu, then the text with the prompt before
// its first row and arrows where it scrolls.
func (in *Box) View(l Layout, width int, hasFocus, running bool) string {
	mark := "  "
	style := in.styles.Dim
	if hasFocus {
		mark, style = text.SymFocus+" ", in.styles.Key
	}
	var out []string
	if l.question {
		out = append(out, in.styles.Warn.Render(text.Cut("  "+text.SymAsk+" "+text.CleanLine(in.question), width)))
	}
	if s := in.search; s != nil {
		line := "  history search (ctrl+r older · enter take · esc cancel): " + text.CleanLine(s.query)
		if s.match < 0 {
			line = "  history search: nothing matches " + text.CleanLine(s.query) + " (backspace · esc cancel)"
		}
		out = append(out, in.styles.Accent.Render(text.Cut(line, width)))
	}
	if l.menuShown > 0 {
		out = append(out, in.menuView(l, width)...)
	}
	label := mark + in.label(running)
	in.ta.Placeholder = in.placeholder
	if running && in.mode != ModeReason && in.Value() == "" {
		in.ta.Placeholder = "a run is going: esc stops it; you can type your next message meanwhile"
	}
	in.ta.SetWidth(l.textWidth)
	in.ta.SetHeight(l.rows)
	rows := strings.Split(in.ta.View(), "\n")
	visible := min(l.textRows, len(rows))
	top := max(0, min(in.top, len(rows)-visible))
	blank := strings.Repeat(" ", ansi.StringWidth(label))
	for i, row := range rows[top : top+visible] {
		// The text area pads its rows to its width; the screen needs
		// no trailing blanks.
		row = strings.TrimRight(row, " ")
		prefix := blank
		if i == 0 {
			prefix = style.Render(label)
		}
		switch {
		case i == 0 && top > 0:
			row = text.Pad(row, l.textWidth) + in.styles.Dim.Render("↑")
		case i == visible-1 && top+visible < len(rows):
			row = text.Pad(row, l.textWidth) + in.styles.Dim.Render("↓")
		}
		out = append(out, text.Cut(prefix+row, width))
	}
	return strings.Join(out, "\n")
}

// menuView draws the slash-command menu: the entries l shows, the selected
// one marked, each with its tag, when any entry has one, and its
// description.
func (in *Box) menuView(l Layout, width int) []string {
	menu := l.menu
	sel := min(in.menuSel, len(menu)-1)
	first := max(0, min(sel-l.menuShown+1, len(menu)-l.menuShown))
	labelW, tagW := 0, 0
	for _, e := range menu {
		labelW = max(labelW, ansi.StringWidth(e.label))
		if e.tag != "" {
			tagW = max(tagW, ansi.StringWidth(e.tag)+4)
		}
	}
	var out []string
	for i := first; i < first+l.menuShown; i++ {
		e := menu[i]
		tag := ""
		if tagW > 0 {
			// The column is there for every entry, so the descriptions
			// line up; the console's own commands leave it blank.
			if e.tag != "" {
				tag = "(" + e.tag + ")"
			}
			tag = in.styles.Accent.Render(text.Pad(tag, tagW))
		}
		line := "    " + text.Pad(e.label, labelW+2) + tag + in.styles.Dim.Render(e.desc)
		if i == sel {
			line = "  " + in.styles.Key.Render(text.SymFocus+" "+text.Pad(e.label, labelW+2)) + tag + e.desc
		}
		out = append(out, text.Cut(line, width))
	}
	if l.menuMore {
		out = append(out, in.styles.Dim.Render(text.Cut(fmt.Sprintf("    … %d more · ↑↓ choose · tab completes · esc closes", len(menu)-l.menuShown), width)))
	}
	return out
}

// wrappedRows returns how many rows the textarea draws line in when it
// wraps at width columns. It follows the textarea's own wrapping: words
// move to the next row whole, a word wider than the row is broken, and a
// row that ends exactly at the width is followed by an empty one for the
// cursor.
func wrappedRows(line []rune, width int) int {
	width = max(width, 1)
	rows := 1
	lineW := 0  // width of the current row
	wordW := 0  // width of the word being read
	spaces := 0 // spaces after it
	for _, r := range line {
		if unicode.IsSpace(r) {
			spaces++
		} else {
			wordW += text.RuneWidth(r)
		}
		if spaces > 0 {
			if lineW+wordW+spaces > width {
				rows++
				lineW = wordW + spaces
			} else {
				lineW += wordW + spaces
			}
			wordW, spaces = 0, 0
			continue
		}
		if wordW+text.RuneWidth(r) > width {
			// The word alone fills the row: it goes on a row of its
			// own, and the next starts afresh.
			if lineW > 0 {
				rows++
			}
			lineW, wordW = wordW, 0
		}
	}
	if lineW+wordW+spaces >= width {
		rows++
	}
	return rows
}
