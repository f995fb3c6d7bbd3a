package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// DefaultGrace is how long y, n, a and A are ignored after the approval
// under focus changes, so that a key pressed for something else cannot
// approve a call that has just appeared.
const DefaultGrace = 500 * time.Millisecond

// boardModel is the call board: the calls of the active reply, grouped into the
// batches that run together, with the focused call marked. It owns the
// approval keys and the grace period that guards them.
type boardModel struct {
	// Keys are the board's keys.
	Keys BoardKeys

	reply     *callview.Reply
	focus     int // index of the focused call in reply.calls
	workspace string

	now        func() time.Time
	grace      time.Duration
	graceUntil time.Time
	graceSeq   int
	last       approvalSig
}

// approvalSig is what the approval keys would act on: the focused call, its
// open request, every open request, and the previews they show: a change
// that moves under the person is as new as a new request.
type approvalSig struct {
	turn, focus int
	focusedReq  uint64
	pending     []uint64
	digests     []string
}

// boardAction is what a key on the board asks of the rest of the console.
type boardAction struct {
	note string
	// approve are the calls the key approves, each bound to the preview
	// the board shows for it.
	approve       []*callview.Call
	skip          *callview.Call
	grant         *callview.Call
	edit          *callview.Call
	toggleDetails bool
	toggleLayout  bool
	fullDiff      bool
}

// graceEndMsg redraws the board when the grace period it armed has passed,
// so the hints show that the approval keys work again. It is a single timer,
// not a tick: nothing repeats while the console is idle.
type graceEndMsg struct{ seq int }

func newBoard(workspace string, now func() time.Time, grace time.Duration) boardModel {
	return boardModel{Keys: DefaultBoardKeys(), workspace: workspace, now: now, grace: grace}
}

// focused returns the focused call, or nil.
func (b *boardModel) focused() *callview.Call { return b.reply.Get(b.focus) }

// setReply shows a new reply; focus goes to its first call.
func (b *boardModel) setReply(r *callview.Reply) {
	b.reply = r
	b.focus = 0
	if len(r.Order) > 0 {
		b.focus = r.Order[0]
	}
}

// sig returns the current approval signature.
func (b *boardModel) sig() approvalSig {
	s := approvalSig{focus: b.focus}
	if b.reply == nil {
		return s
	}
	s.turn = b.reply.Turn
	if c := b.focused(); c != nil && c.Req != nil {
		s.focusedReq = c.Req.ID
	}
	for _, c := range b.reply.Pending(0) {
		s.pending = append(s.pending, c.Req.ID)
		s.digests = append(s.digests, c.Digest())
	}
	return s
}

// externalChange is called after the runtime changed the board. When what
// the approval keys act on has changed in a way the person did not cause (a
// new request, a new reply under focus), it arms the grace period and
// returns the command that ends it.
func (b *boardModel) externalChange() tea.Cmd {
	n := b.sig()
	o := b.last
	b.last = n
	gained := false
	for _, id := range n.pending {
		if !slices.Contains(o.pending, id) {
			gained = true
			break
		}
	}
	moved := false
	for i, id := range n.pending {
		if j := slices.Index(o.pending, id); j >= 0 && o.digests[j] != n.digests[i] {
			moved = true
			break
		}
	}
	changed := gained || moved || n.turn != o.turn || n.focus != o.focus || (n.focusedReq != 0 && n.focusedReq != o.focusedReq)
	if !changed || len(n.pending) == 0 || b.grace <= 0 {
		return nil
	}
	b.graceUntil = b.now().Add(b.grace)
	b.graceSeq++
	seq := b.graceSeq
	return tea.Tick(b.grace, func(time.Time) tea.Msg { return graceEndMsg{seq: seq} })
}

// personChange records a change the person made (moving focus, answering),
// which never arms the grace period.
func (b *boardModel) personChange() { b.last = b.sig() }

// armed reports whether the approval keys work now.
func (b *boardModel) armed() bool { return !b.now().Before(b.graceUntil) }

// Update handles a key while the board has focus.
func (b *boardModel) Update(msg tea.KeyMsg) boardAction {
	if msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) {
		// Several runes in one message are typing (or a paste), never a
		// series of approvals.
		return boardAction{note: "typed text is ignored on the board: press tab to reach the input"}
	}
	if b.reply == nil {
		return boardAction{}
	}
	switch {
	case key.Matches(msg, b.Keys.Up):
		b.move(-1)
	case key.Matches(msg, b.Keys.Down):
		b.move(1)
	case key.Matches(msg, b.Keys.Details):
		return boardAction{toggleDetails: true}
	case key.Matches(msg, b.Keys.Layout):
		return boardAction{toggleLayout: true}
	case key.Matches(msg, b.Keys.FullDiff):
		c := b.focused()
		if c == nil || c.Change.TextDiff() == nil {
			return boardAction{note: "the focused call has no change to show: f shows the diff of a file change"}
		}
		return boardAction{fullDiff: true}
	case key.Matches(msg, b.Keys.Approve, b.Keys.Skip, b.Keys.Grant, b.Keys.ApproveBatch, b.Keys.ApproveAll, b.Keys.Edit):
		return b.approval(msg)
	}
	return boardAction{}
}

// approval handles y, n, g, a and A.
func (b *boardModel) approval(msg tea.KeyMsg) boardAction {
	k := msg.String()
	if !b.armed() {
		return boardAction{note: fmt.Sprintf("%s ignored: the approvals under focus just changed; look, then press it again", k)}
	}
	c := b.focused()
	defer b.personChange()
	switch {
	case key.Matches(msg, b.Keys.Approve):
		if c == nil || c.Req == nil {
			return boardAction{note: "the focused call is not waiting for approval"}
		}
		return boardAction{approve: []*callview.Call{c}, note: fmt.Sprintf("approved #%d %s", c.Index+1, c.Name)}
	case key.Matches(msg, b.Keys.Skip):
		if c == nil || c.Req == nil {
			return boardAction{note: "the focused call is not waiting for approval"}
		}
		return boardAction{skip: c}
	case key.Matches(msg, b.Keys.Grant):
		if c == nil || c.Req == nil {
			return boardAction{note: "the focused call is not waiting for approval: g grants from a call that asks"}
		}
		return boardAction{grant: c}
	case key.Matches(msg, b.Keys.Edit):
		switch {
		case c == nil || c.Req == nil:
			return boardAction{note: "the focused call is not waiting for approval: e edits the change of a call that asks"}
		case c.Change == nil || !c.Change.Editable || c.Change.TextDiff() == nil:
			return boardAction{note: "this call's change cannot be edited: e edits the text a write_file or edit_file would leave"}
		}
		return boardAction{edit: c}
	case key.Matches(msg, b.Keys.ApproveBatch):
		if c == nil {
			return boardAction{}
		}
		calls := b.reply.Pending(c.Batch)
		return boardAction{approve: calls, note: fmt.Sprintf("approved %d pending call(s) of batch %d", len(calls), c.Batch)}
	default:
		calls := b.reply.Pending(0)
		return boardAction{approve: calls, note: fmt.Sprintf("approved %d pending call(s)", len(calls))}
	}
}

// move shifts focus by d calls in display order.
func (b *boardModel) move(d int) {
	r := b.reply
	if r == nil || len(r.Order) == 0 {
		return
	}
	pos := slices.Index(r.Order, b.focus)
	pos = min(max(pos+d, 0), len(r.Order)-1)
	b.focus = r.Order[pos]
	b.personChange()
}

// columns are the widths of a board row's parts.
type columns struct {
	num, name, args, badge, elapsed, state int
}

func (b *boardModel) columns(width int) columns {
	r := b.reply
	c := columns{num: len(fmt.Sprintf("#%d", len(r.Calls))) + 1}
	args := 0
	for _, x := range r.Calls {
		c.name = max(c.name, ansi.StringWidth(x.Name))
		c.badge = max(c.badge, ansi.StringWidth(callview.Badge(x, b.workspace)))
		args = max(args, ansi.StringWidth(x.ArgsText()))
	}
	c.name = min(c.name, 16, max(9, width/7)) + 1
	c.badge = min(c.badge, max(6, width/6)) + 1
	if width >= 80 {
		c.elapsed = 7
	}
	rest := width - 2 - c.num - c.name - c.badge - c.elapsed
	// Arguments get up to two fifths of what is left, less when they are
	// short, so the state and outcome have room.
	c.args = min(args+1, max(4, rest*2/5))
	// A state that says more (which grant cleared a call, a retry) takes
	// room from the arguments, down to a quarter of the row. A call that
	// asks keeps its arguments in full view: they are what the person
	// decides on.
	need := 0
	for _, x := range r.Calls {
		if (x.Retrying || x.Attempt > 1 || callview.ClearedBy(x) != "") && r.State(x) != callview.StateAsking {
			head, _, _ := r.StateHead(x, b.workspace, " ")
			need = max(need, ansi.StringWidth(head)+1)
		}
	}
	if need > rest-c.args {
		c.args = max(min(c.args, max(4, rest/4)), rest-need)
	}
	c.state = rest - c.args
	return c
}

// View draws the board in exactly height lines of at most width columns.
// frame is the spinner's current frame.
func (b *boardModel) View(width, height int, frame string, hasFocus bool) string {
	if height <= 0 {
		return ""
	}
	lines := make([]string, 0, height)
	lines = append(lines, b.title(width, hasFocus))
	if b.reply == nil {
		lines = append(lines, st.Dim.Render(text.Cut("  No calls yet: the model's next reply shows its calls here.", width)))
		return text.JoinLines(lines, height)
	}
	rows := b.rows(width, frame)
	avail := height - 1
	start := 0
	if len(rows) > avail {
		// Keep the focused call in view, with its batch header when
		// there is room.
		focusRow := 0
		for i, r := range rows {
			if r.call == b.focus && r.isCall {
				focusRow = i
			}
		}
		start = min(max(0, focusRow-avail/2), len(rows)-avail)
	}
	for i := start; i < len(rows) && len(lines) < height; i++ {
		lines = append(lines, rows[i].text)
	}
	return text.JoinLines(lines, height)
}

// boardRow is one drawn line of the board: a batch header or a call.
type boardRow struct {
	text   string
	isCall bool
	call   int
}

func (b *boardModel) title(width int, hasFocus bool) string {
	mark := "  "
	if hasFocus {
		mark = text.SymFocus + " "
	}
	if b.reply == nil {
		return text.Cut(mark+st.Title.Render("Calls"), width)
	}
	r := b.reply
	batches := 0
	for _, c := range r.Calls {
		batches = max(batches, c.Batch)
	}
	t := fmt.Sprintf("Calls · turn %d · %d call(s)", r.Turn, len(r.Calls))
	if batches > 1 {
		t += fmt.Sprintf(" in %d batches", batches)
	}
	extra := ""
	switch {
	case r.Invalid && r.Cut != "":
		extra = st.Err.Render(fmt.Sprintf(" · reply cut off inside a call to %s: nothing ran", r.Cut))
	case r.Invalid:
		extra = st.Err.Render(" · invalid reply: nothing ran")
	}
	if _, _, asking := r.Counts(); asking > 0 {
		extra += st.Warn.Render(fmt.Sprintf(" · %d need(s) approval", asking))
	}
	return text.Cut(mark+st.Title.Render(t)+extra, width)
}

func (b *boardModel) rows(width int, frame string) []boardRow {
	r := b.reply
	cols := b.columns(width)
	var rows []boardRow
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
			rows = append(rows, boardRow{text: st.Dim.Render(text.Cut(h, width))})
		}
		rows = append(rows, boardRow{text: b.row(c, cols, width, frame), isCall: true, call: c.Index})
	}
	if r.Invalid && r.Cut != "" {
		rows = append(rows, boardRow{text: st.Err.Render(text.Cut(fmt.Sprintf("  ✂ %s: cut off by the output limit; the tool never ran", r.Cut), width))})
	}
	return rows
}

// row draws one call.
func (b *boardModel) row(c *callview.Call, cols columns, width int, frame string) string {
	focused := c.Index == b.focus
	mark := "  "
	if focused {
		mark = text.SymFocus + " "
	}
	var sb strings.Builder
	sb.WriteString(mark)
	sb.WriteString(text.Cell(fmt.Sprintf("#%d", c.Index+1), cols.num))
	sb.WriteString(text.Cell(c.Name, cols.name))
	sb.WriteString(st.Dim.Render(text.Cell(c.ArgsText(), cols.args)))
	sb.WriteString(text.Cell(callview.Badge(c, b.workspace), cols.badge))
	if cols.elapsed > 0 {
		sb.WriteString(st.Dim.Render(text.Cell(b.elapsed(c), cols.elapsed)))
	}
	state, tone := b.reply.StateText(c, b.workspace, frame)
	sb.WriteString(st.Render(tone, text.Cut(state, cols.state)))
	line := sb.String()
	if focused {
		return st.Focused.Render(text.Pad(line, width))
	}
	return line
}

// elapsed is how long a call has run, or ran.
func (b *boardModel) elapsed(c *callview.Call) string {
	switch {
	case c.Started && !c.Done:
		return text.Since(b.now().Sub(c.StartedAt))
	case c.Done && c.RanBody:
		return text.Since(c.Duration)
	}
	return ""
}
