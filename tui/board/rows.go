package board

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// columns are the widths of a board row's parts. A task's call that waits
// is drawn in ask columns for what it is (its task, tool and arguments) and
// askState for why it asks, with the badge and elapsed columns of the rest.
type columns struct {
	num, name, args, badge, elapsed, state int
	ask, askState                          int
	// origin is the room after the call number for the mark of a call
	// whose arguments came from an untrusted result: two columns when a
	// call of the reply has one, so every row keeps the same columns.
	origin int
}

func (b *Model) columns(width int, asks []callview.Ask) columns {
	var calls []*callview.Call
	if r := b.reply; r != nil {
		calls = r.Calls
	}
	c := columns{num: len(fmt.Sprintf("#%d", len(calls))) + 1}
	args, tasks := 0, false
	for _, x := range calls {
		tasks = tasks || x.Task != nil
		if x.HasOrigins() {
			c.origin = 2
		}
		c.name = max(c.name, ansi.StringWidth(x.Name))
		c.badge = max(c.badge, ansi.StringWidth(callview.Badge(x, b.workspace)))
		args = max(args, ansi.StringWidth(x.ArgsText()))
	}
	askText := 0
	for _, a := range asks {
		c.badge = max(c.badge, ansi.StringWidth(callview.Badge(a.Call, b.workspace)))
		askText = max(askText, ansi.StringWidth(askWords(a)))
	}
	c.name = min(c.name, 16, max(9, width/7)) + 1
	c.badge = min(c.badge, max(6, width/6)) + 1
	if width >= 80 {
		c.elapsed = 7
	}
	rest := width - 2 - c.num - c.origin - c.name - c.badge - c.elapsed
	// Arguments get up to two fifths of what is left, less when they are
	// short, so the state and outcome have room.
	c.args = min(args+1, max(4, rest*2/5))
	// A state that says more (which grant cleared a call, a retry, how
	// far a task has got) takes room from the arguments, down to a
	// quarter of the row. A call that asks keeps its arguments in full
	// view: they are what the person decides on.
	need := 0
	if r := b.reply; r != nil {
		for _, x := range calls {
			if (x.Retrying || x.Attempt > 1 || x.Task != nil && !x.Done || callview.ClearedBy(x) != "") && r.State(x) != callview.StateAsking {
				head, _, _ := r.StateHead(x, b.workspace, " ")
				need = max(need, ansi.StringWidth(head)+1)
			}
		}
	}
	if need > rest-c.args {
		c.args = max(min(c.args, max(4, rest/4)), rest-need)
	} else if tasks {
		// What a task is for is the most of what its row says: its
		// words may take the room its state does not need.
		c.args = max(c.args, min(args+1, rest-need, rest*3/5))
	}
	c.state = rest - c.args
	// What a task's waiting call is matters more than why it asks.
	c.ask = max(c.num+c.origin+c.name+c.args, min(askText+1, (width-2-c.badge-c.elapsed)*3/5))
	c.askState = max(0, width-2-c.ask-c.badge-c.elapsed)
	return c
}

// askWords say what a task's call that waits is: "↳ task #2 explore ·
// edit_file docs/api.md · +3 −1", with "↳ ⚠ " ahead for a call whose
// arguments came from an untrusted result.
func askWords(a callview.Ask) string {
	lead := "↳ "
	if a.Call.HasOrigins() {
		lead += callview.SymOrigin + " "
	}
	return lead + a.Task.Name() + " · " + a.Call.Name + " " + a.Call.ArgsText()
}

// Need returns how many lines the board takes to show every row, its
// title included.
func (b *Model) Need() int {
	r := b.reply
	extra := len(b.extraAsks())
	if extra > 0 {
		extra++ // their heading
	}
	if r == nil {
		return 2 + extra
	}
	n := 1 + len(r.Calls) + extra
	batch := -1
	for _, i := range r.Order {
		c := r.Calls[i]
		if c.Batch != batch && !r.Invalid {
			batch = c.Batch
			n++
		}
		if c.Task != nil {
			n += len(c.Task.Asks())
		}
	}
	if r.Cut != "" {
		n++
	}
	return n
}

// View draws the board in exactly height lines of at most width columns.
// frame is the spinner's current frame.
func (b *Model) View(width, height int, frame string, hasFocus bool) string {
	if height <= 0 {
		return ""
	}
	lines := make([]string, 0, height)
	lines = append(lines, b.title(width, hasFocus))
	if b.reply == nil {
		lines = append(lines, b.Styles.Dim.Render(text.Cut("  No calls yet: the model's next reply shows its calls here.", width)))
	}
	rows := b.rows(width, frame)
	if len(rows) == 0 {
		return text.JoinLines(lines, height)
	}
	avail := height - len(lines)
	start := 0
	if len(rows) > avail {
		// Keep the focused row in view, with its batch header when
		// there is room.
		focusRow := 0
		cur := b.current().key
		for i, r := range rows {
			if r.focusable && r.key == cur {
				focusRow = i
			}
		}
		start = max(0, min(max(0, focusRow-avail/2), len(rows)-avail))
	}
	for i := start; i < len(rows) && len(lines) < height; i++ {
		lines = append(lines, rows[i].text)
	}
	return text.JoinLines(lines, height)
}

// boardRow is one drawn line of the board: a batch header, a call, or a
// task's call that waits.
type boardRow struct {
	text      string
	focusable bool
	key       rowKey
}

func (b *Model) title(width int, hasFocus bool) string {
	mark := "  "
	if hasFocus {
		mark = text.SymFocus + " "
	}
	crumb := ""
	if b.Crumb != "" {
		crumb = b.Crumb + " · "
	}
	asking := len(b.extraAsks())
	if b.reply == nil {
		t := mark + b.Styles.Title.Render(crumb+"Calls")
		if asking > 0 {
			t += b.Styles.Warn.Render(fmt.Sprintf(" · %d need(s) approval", asking))
		}
		return text.Cut(t, width)
	}
	r := b.reply
	batches := 0
	for _, c := range r.Calls {
		batches = max(batches, c.Batch)
		if c.Task != nil {
			asking += len(c.Task.Asks())
		}
	}
	t := fmt.Sprintf("%sCalls · turn %d · %d call(s)", crumb, r.Turn, len(r.Calls))
	if batches > 1 {
		t += fmt.Sprintf(" in %d batches", batches)
	}
	extra := ""
	switch {
	case r.Invalid && r.Cut != "":
		extra = b.Styles.Err.Render(fmt.Sprintf(" · reply cut off inside a call to %s: nothing ran", r.Cut))
	case r.Invalid:
		extra = b.Styles.Err.Render(" · invalid reply: nothing ran")
	}
	if _, _, a := r.Counts(); a+asking > 0 {
		extra += b.Styles.Warn.Render(fmt.Sprintf(" · %d need(s) approval", a+asking))
	}
	return text.Cut(mark+b.Styles.Title.Render(t)+extra, width)
}

func (b *Model) rows(width int, frame string) []boardRow {
	var asks []callview.Ask
	if r := b.reply; r != nil {
		for _, c := range r.Calls {
			if c.Task != nil {
				asks = append(asks, c.Task.Asks()...)
			}
		}
	}
	extra := b.extraAsks()
	cols := b.columns(width, append(asks, extra...))
	cur := b.current().key
	var rows []boardRow
	if r := b.reply; r != nil {
		batch := -1
		for _, i := range r.Order {
			c := r.Calls[i]
			if c.Batch != batch && !r.Invalid {
				batch = c.Batch
				n := 0
				for _, x := range r.Calls {
					if x.Batch == batch {
						n++
					}
				}
				h := fmt.Sprintf("  batch %d", batch)
				if batch > 1 {
					h += " · after what it waits for"
				}
				if n > 1 {
					h += fmt.Sprintf(" · %d calls run together", n)
				}
				rows = append(rows, boardRow{text: b.Styles.Dim.Render(text.Cut(h, width))})
			}
			k := rowKey{index: c.Index}
			rows = append(rows, boardRow{text: b.row(c, cols, width, frame, k == cur), focusable: true, key: k})
			if c.Task != nil {
				for _, a := range c.Task.Asks() {
					k := rowKey{index: c.Index, ask: a.Call}
					rows = append(rows, boardRow{text: b.askRow(a, cols, width, frame, k == cur), focusable: true, key: k})
				}
			}
		}
		if r.Invalid && r.Cut != "" {
			rows = append(rows, boardRow{text: b.Styles.Err.Render(text.Cut(fmt.Sprintf("  ✂ %s: cut off by the output limit; the tool never ran", r.Cut), width))})
		}
	}
	if len(extra) > 0 {
		rows = append(rows, boardRow{text: b.Styles.Dim.Render(text.Cut("  waiting for you: tasks' calls without a row above", width))})
		for _, a := range extra {
			k := rowKey{index: -1, ask: a.Call}
			rows = append(rows, boardRow{text: b.askRow(a, cols, width, frame, k == cur), focusable: true, key: k})
		}
	}
	return rows
}

// row draws one call.
func (b *Model) row(c *callview.Call, cols columns, width int, frame string, focused bool) string {
	mark := "  "
	if focused {
		mark = text.SymFocus + " "
	}
	var sb strings.Builder
	sb.WriteString(mark)
	sb.WriteString(text.Cell(fmt.Sprintf("#%d", c.Index+1), cols.num))
	switch {
	case cols.origin == 0:
	case c.HasOrigins():
		sb.WriteString(b.Styles.Warn.Render(callview.SymOrigin) + strings.Repeat(" ", cols.origin-1))
	default:
		sb.WriteString(strings.Repeat(" ", cols.origin))
	}
	sb.WriteString(text.Cell(c.Name, cols.name))
	sb.WriteString(b.Styles.Dim.Render(text.Cell(c.ArgsText(), cols.args)))
	sb.WriteString(text.Cell(callview.Badge(c, b.workspace), cols.badge))
	if cols.elapsed > 0 {
		sb.WriteString(b.Styles.Dim.Render(text.Cell(b.elapsed(c), cols.elapsed)))
	}
	state, tone := b.reply.StateText(c, b.workspace, frame)
	sb.WriteString(b.Styles.Render(tone, text.Cut(state, cols.state)))
	line := sb.String()
	if focused {
		return b.Styles.Focused.Render(text.Pad(line, width))
	}
	return line
}

// askRow draws a task's call that waits for the person, under the row of
// the call that runs the task: "↳ task #2 explore · edit_file docs/api.md
// · +3 −1", its footprint, and why it asks.
func (b *Model) askRow(a callview.Ask, cols columns, width int, frame string, focused bool) string {
	c := a.Call
	mark := "  "
	if focused {
		mark = text.SymFocus + " "
	}
	var sb strings.Builder
	sb.WriteString(mark)
	sb.WriteString(text.Cell(askWords(a), cols.ask))
	sb.WriteString(text.Cell(callview.Badge(c, b.workspace), cols.badge))
	if cols.elapsed > 0 {
		sb.WriteString(text.Cell("", cols.elapsed))
	}
	state, tone := a.Reply.StateText(c, b.workspace, frame)
	sb.WriteString(b.Styles.Render(tone, text.Cut(state, cols.askState)))
	line := sb.String()
	if focused {
		return b.Styles.Focused.Render(text.Pad(line, width))
	}
	return line
}

// elapsed is how long a call has run, or ran.
func (b *Model) elapsed(c *callview.Call) string {
	switch {
	case c.Started && !c.Done:
		return text.Since(b.now().Sub(c.StartedAt))
	case c.Done && c.RanBody:
		return text.Since(c.Duration)
	}
	return ""
}
