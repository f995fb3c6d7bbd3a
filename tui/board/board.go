// Package board is the call board: the calls of the reply on the board,
// grouped into the batches that run together, each with its footprint,
// state and outcome, and the focused call marked.
//
// The board owns the approval keys and the grace period that guards them:
// y, n, a, A, g and e are ignored for a moment after what they would act on
// changes in a way the person did not cause, so a key pressed for something
// else cannot answer a call that has just appeared. It never answers the
// runtime itself: Update returns an Action saying what the person asked for,
// and the console performs it.
package board

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

// Model is the call board. Its zero value is not usable: make one with New.
type Model struct {
	// Keys are the board's keys.
	Keys KeyMap
	// Styles are the styles it draws with.
	Styles *text.Styles

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

// Action is what a key on the board asks of the rest of the console.
type Action struct {
	// Note is what the console says about the key, if anything.
	Note string
	// Approve are the calls the key approves, each to be bound to the
	// preview the board shows for it.
	Approve []*callview.Call
	// Skip asks for the reason to skip the call with; Grant offers the
	// session grants the call allows; Edit opens the change the call
	// proposes in the person's editor.
	Skip, Grant, Edit *callview.Call
	// ToggleDetails expands or collapses the detail pane; ToggleLayout
	// switches diffs between unified and side by side; FullDiff shows the
	// focused call's change full screen.
	ToggleDetails, ToggleLayout, FullDiff bool
}

// GraceEndMsg redraws the board when the grace period it armed has passed,
// so the hints show that the approval keys work again. It is a single timer,
// not a tick: nothing repeats while the console is idle.
type GraceEndMsg struct{ Seq int }

// New returns an empty board for a session in workspace, whose footprints
// it shows relative to it. now tells the time; grace is how long approval
// keys are ignored after what they act on changes, none when it is zero or
// less.
func New(workspace string, now func() time.Time, grace time.Duration, keys KeyMap, styles *text.Styles) Model {
	return Model{Keys: keys, Styles: styles, workspace: workspace, now: now, grace: grace}
}

// Reply returns the reply on the board, or nil before the first.
func (b *Model) Reply() *callview.Reply { return b.reply }

// Focus returns the index of the focused call in its reply.
func (b *Model) Focus() int { return b.focus }

// SetFocus focuses the call with index i, as the person would.
func (b *Model) SetFocus(i int) {
	b.focus = i
	b.PersonChange()
}

// Focused returns the focused call, or nil.
func (b *Model) Focused() *callview.Call { return b.reply.Get(b.focus) }

// GraceUntil returns when the approval keys work again; a time in the past
// when they work now.
func (b *Model) GraceUntil() time.Time { return b.graceUntil }

// GraceSeq returns the number of the latest grace period, which its
// GraceEndMsg carries.
func (b *Model) GraceSeq() int { return b.graceSeq }

// SetReply shows a new reply; focus goes to its first call.
func (b *Model) SetReply(r *callview.Reply) {
	b.reply = r
	b.focus = 0
	if len(r.Order) > 0 {
		b.focus = r.Order[0]
	}
}

// sig returns the current approval signature.
func (b *Model) sig() approvalSig {
	s := approvalSig{focus: b.focus}
	if b.reply == nil {
		return s
	}
	s.turn = b.reply.Turn
	if c := b.Focused(); c != nil && c.Req != nil {
		s.focusedReq = c.Req.ID
	}
	for _, c := range b.reply.Pending(0) {
		s.pending = append(s.pending, c.Req.ID)
		s.digests = append(s.digests, c.Digest())
	}
	return s
}

// ExternalChange is called after the runtime changed the board. When what
// the approval keys act on has changed in a way the person did not cause (a
// new request, a new reply under focus), it arms the grace period and
// returns the command that ends it.
func (b *Model) ExternalChange() tea.Cmd {
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
	return tea.Tick(b.grace, func(time.Time) tea.Msg { return GraceEndMsg{Seq: seq} })
}

// PersonChange records a change the person made (moving focus, answering),
// which never arms the grace period.
func (b *Model) PersonChange() { b.last = b.sig() }

// Armed reports whether the approval keys work now.
func (b *Model) Armed() bool { return !b.now().Before(b.graceUntil) }

// Update handles a key while the board has focus.
func (b *Model) Update(msg tea.KeyMsg) Action {
	if msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) {
		// Several runes in one message are typing (or a paste), never a
		// series of approvals.
		return Action{Note: "typed text is ignored on the board: press tab to reach the input"}
	}
	if b.reply == nil {
		return Action{}
	}
	switch {
	case key.Matches(msg, b.Keys.Up):
		b.move(-1)
	case key.Matches(msg, b.Keys.Down):
		b.move(1)
	case key.Matches(msg, b.Keys.Details):
		return Action{ToggleDetails: true}
	case key.Matches(msg, b.Keys.Layout):
		return Action{ToggleLayout: true}
	case key.Matches(msg, b.Keys.FullDiff):
		c := b.Focused()
		if c == nil || c.Change.TextDiff() == nil {
			return Action{Note: "the focused call has no change to show: f shows the diff of a file change"}
		}
		return Action{FullDiff: true}
	case key.Matches(msg, b.Keys.Approve, b.Keys.Skip, b.Keys.Grant, b.Keys.ApproveBatch, b.Keys.ApproveAll, b.Keys.Edit):
		return b.approval(msg)
	}
	return Action{}
}

// approval handles y, n, g, a and A.
func (b *Model) approval(msg tea.KeyMsg) Action {
	k := msg.String()
	if !b.Armed() {
		return Action{Note: fmt.Sprintf("%s ignored: the approvals under focus just changed; look, then press it again", k)}
	}
	c := b.Focused()
	defer b.PersonChange()
	switch {
	case key.Matches(msg, b.Keys.Approve):
		if c == nil || c.Req == nil {
			return Action{Note: "the focused call is not waiting for approval"}
		}
		return Action{Approve: []*callview.Call{c}, Note: fmt.Sprintf("approved #%d %s", c.Index+1, c.Name)}
	case key.Matches(msg, b.Keys.Skip):
		if c == nil || c.Req == nil {
			return Action{Note: "the focused call is not waiting for approval"}
		}
		return Action{Skip: c}
	case key.Matches(msg, b.Keys.Grant):
		if c == nil || c.Req == nil {
			return Action{Note: "the focused call is not waiting for approval: g grants from a call that asks"}
		}
		return Action{Grant: c}
	case key.Matches(msg, b.Keys.Edit):
		switch {
		case c == nil || c.Req == nil:
			return Action{Note: "the focused call is not waiting for approval: e edits the change of a call that asks"}
		case c.Change == nil || !c.Change.Editable || c.Change.TextDiff() == nil:
			return Action{Note: "this call's change cannot be edited: e edits the text a write_file or edit_file would leave"}
		}
		return Action{Edit: c}
	case key.Matches(msg, b.Keys.ApproveBatch):
		if c == nil {
			return Action{}
		}
		calls := b.reply.Pending(c.Batch)
		return Action{Approve: calls, Note: fmt.Sprintf("approved %d pending call(s) of batch %d", len(calls), c.Batch)}
	default:
		calls := b.reply.Pending(0)
		return Action{Approve: calls, Note: fmt.Sprintf("approved %d pending call(s)", len(calls))}
	}
}

// move shifts focus by d calls in display order.
func (b *Model) move(d int) {
	r := b.reply
	if r == nil || len(r.Order) == 0 {
		return
	}
	pos := slices.Index(r.Order, b.focus)
	pos = min(max(pos+d, 0), len(r.Order)-1)
	b.focus = r.Order[pos]
	b.PersonChange()
}

// columns are the widths of a board row's parts.
type columns struct {
	num, name, args, badge, elapsed, state int
}

func (b *Model) columns(width int) columns {
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
func (b *Model) View(width, height int, frame string, hasFocus bool) string {
	if height <= 0 {
		return ""
	}
	lines := make([]string, 0, height)
	lines = append(lines, b.title(width, hasFocus))
	if b.reply == nil {
		lines = append(lines, b.Styles.Dim.Render(text.Cut("  No calls yet: the model's next reply shows its calls here.", width)))
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

func (b *Model) title(width int, hasFocus bool) string {
	mark := "  "
	if hasFocus {
		mark = text.SymFocus + " "
	}
	if b.reply == nil {
		return text.Cut(mark+b.Styles.Title.Render("Calls"), width)
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
		extra = b.Styles.Err.Render(fmt.Sprintf(" · reply cut off inside a call to %s: nothing ran", r.Cut))
	case r.Invalid:
		extra = b.Styles.Err.Render(" · invalid reply: nothing ran")
	}
	if _, _, asking := r.Counts(); asking > 0 {
		extra += b.Styles.Warn.Render(fmt.Sprintf(" · %d need(s) approval", asking))
	}
	return text.Cut(mark+b.Styles.Title.Render(t)+extra, width)
}

func (b *Model) rows(width int, frame string) []boardRow {
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
			rows = append(rows, boardRow{text: b.Styles.Dim.Render(text.Cut(h, width))})
		}
		rows = append(rows, boardRow{text: b.row(c, cols, width, frame), isCall: true, call: c.Index})
	}
	if r.Invalid && r.Cut != "" {
		rows = append(rows, boardRow{text: b.Styles.Err.Render(text.Cut(fmt.Sprintf("  ✂ %s: cut off by the output limit; the tool never ran", r.Cut), width))})
	}
	return rows
}

// row draws one call.
func (b *Model) row(c *callview.Call, cols columns, width int, frame string) string {
	focused := c.Index == b.focus
	mark := "  "
	if focused {
		mark = text.SymFocus + " "
	}
	var sb strings.Builder
	sb.WriteString(mark)
	sb.WriteString(text.Cell(fmt.Sprintf("#%d", c.Index+1), cols.num))
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
