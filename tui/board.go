package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/approval"
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

	reply     *reply
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
	note          string
	skip          *call
	grant         *call
	edit          *call
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
func (b *boardModel) focused() *call { return b.reply.get(b.focus) }

// setReply shows a new reply; focus goes to its first call.
func (b *boardModel) setReply(r *reply) {
	b.reply = r
	b.focus = 0
	if len(r.order) > 0 {
		b.focus = r.order[0]
	}
}

// sig returns the current approval signature.
func (b *boardModel) sig() approvalSig {
	s := approvalSig{focus: b.focus}
	if b.reply == nil {
		return s
	}
	s.turn = b.reply.turn
	if c := b.focused(); c != nil && c.req != nil {
		s.focusedReq = c.req.id
	}
	for _, c := range b.reply.pending(0) {
		s.pending = append(s.pending, c.req.id)
		s.digests = append(s.digests, c.digest())
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
		if c == nil || c.change.textDiff() == nil {
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
		if c == nil || c.req == nil {
			return boardAction{note: "the focused call is not waiting for approval"}
		}
		c.approve()
		return boardAction{note: fmt.Sprintf("approved #%d %s", c.index+1, c.name)}
	case key.Matches(msg, b.Keys.Skip):
		if c == nil || c.req == nil {
			return boardAction{note: "the focused call is not waiting for approval"}
		}
		return boardAction{skip: c}
	case key.Matches(msg, b.Keys.Grant):
		if c == nil || c.req == nil {
			return boardAction{note: "the focused call is not waiting for approval: g grants from a call that asks"}
		}
		return boardAction{grant: c}
	case key.Matches(msg, b.Keys.Edit):
		switch {
		case c == nil || c.req == nil:
			return boardAction{note: "the focused call is not waiting for approval: e edits the change of a call that asks"}
		case c.change == nil || !c.change.editable || c.change.textDiff() == nil:
			return boardAction{note: "this call's change cannot be edited: e edits the text a write_file or edit_file would leave"}
		}
		return boardAction{edit: c}
	case key.Matches(msg, b.Keys.ApproveBatch):
		if c == nil {
			return boardAction{}
		}
		n := b.approveAll(b.reply.pending(c.batch))
		return boardAction{note: fmt.Sprintf("approved %d pending call(s) of batch %d", n, c.batch)}
	default:
		n := b.approveAll(b.reply.pending(0))
		return boardAction{note: fmt.Sprintf("approved %d pending call(s)", n)}
	}
}

func (b *boardModel) approveAll(calls []*call) int {
	n := 0
	for _, c := range calls {
		if c.approve() {
			n++
		}
	}
	return n
}

// move shifts focus by d calls in display order.
func (b *boardModel) move(d int) {
	r := b.reply
	if r == nil || len(r.order) == 0 {
		return
	}
	pos := slices.Index(r.order, b.focus)
	pos = min(max(pos+d, 0), len(r.order)-1)
	b.focus = r.order[pos]
	b.personChange()
}

// columns are the widths of a board row's parts.
type columns struct {
	num, name, args, badge, elapsed, state int
}

func (b *boardModel) columns(width int) columns {
	r := b.reply
	c := columns{num: len(fmt.Sprintf("#%d", len(r.calls))) + 1}
	args := 0
	for _, x := range r.calls {
		c.name = max(c.name, ansi.StringWidth(x.name))
		c.badge = max(c.badge, ansi.StringWidth(badge(x, b.workspace)))
		args = max(args, ansi.StringWidth(x.argsText()))
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
	for _, x := range r.calls {
		if (x.retrying || x.attempt > 1 || clearedBy(x) != "") && r.state(x) != stateAsking {
			head, _, _ := b.stateHead(x, " ")
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
	for _, c := range r.calls {
		batches = max(batches, c.batch)
	}
	t := fmt.Sprintf("Calls · turn %d · %d call(s)", r.turn, len(r.calls))
	if batches > 1 {
		t += fmt.Sprintf(" in %d batches", batches)
	}
	extra := ""
	switch {
	case r.invalid && r.cut != "":
		extra = st.Err.Render(fmt.Sprintf(" · reply cut off inside a call to %s: nothing ran", r.cut))
	case r.invalid:
		extra = st.Err.Render(" · invalid reply: nothing ran")
	}
	if _, _, asking := r.counts(); asking > 0 {
		extra += st.Warn.Render(fmt.Sprintf(" · %d need(s) approval", asking))
	}
	return text.Cut(mark+st.Title.Render(t)+extra, width)
}

func (b *boardModel) rows(width int, frame string) []boardRow {
	r := b.reply
	cols := b.columns(width)
	var rows []boardRow
	batch := -1
	for _, i := range r.order {
		c := r.calls[i]
		if c.batch != batch && !r.invalid {
			batch = c.batch
			n := 0
			for _, x := range r.calls {
				if x.batch == batch {
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
		rows = append(rows, boardRow{text: b.row(c, cols, width, frame), isCall: true, call: c.index})
	}
	if r.invalid && r.cut != "" {
		rows = append(rows, boardRow{text: st.Err.Render(text.Cut(fmt.Sprintf("  ✂ %s: cut off by the output limit; the tool never ran", r.cut), width))})
	}
	return rows
}

// row draws one call.
func (b *boardModel) row(c *call, cols columns, width int, frame string) string {
	focused := c.index == b.focus
	mark := "  "
	if focused {
		mark = text.SymFocus + " "
	}
	var sb strings.Builder
	sb.WriteString(mark)
	sb.WriteString(text.Cell(fmt.Sprintf("#%d", c.index+1), cols.num))
	sb.WriteString(text.Cell(c.name, cols.name))
	sb.WriteString(st.Dim.Render(text.Cell(c.argsText(), cols.args)))
	sb.WriteString(text.Cell(badge(c, b.workspace), cols.badge))
	if cols.elapsed > 0 {
		sb.WriteString(st.Dim.Render(text.Cell(b.elapsed(c), cols.elapsed)))
	}
	state, style := b.stateText(c, frame)
	sb.WriteString(style(text.Cut(state, cols.state)))
	line := sb.String()
	if focused {
		return st.Focused.Render(text.Pad(line, width))
	}
	return line
}

// elapsed is how long a call has run, or ran.
func (b *boardModel) elapsed(c *call) string {
	switch {
	case c.started && !c.done:
		return text.Since(b.now().Sub(c.startedAt))
	case c.done && c.ranBody:
		return text.Since(c.duration)
	}
	return ""
}

// stateText says where c stands, with the outcome for a settled call, and
// the style to draw it in.
func (b *boardModel) stateText(c *call, frame string) (string, func(...string) string) {
	s, style, withResult := b.stateHead(c, frame)
	if withResult && c.result != "" {
		s += " → " + text.Preview(c.result)
	}
	return s, style
}

// stateHead says where c stands without what the model read, the style to
// draw it in, and whether a preview of what the model read follows.
func (b *boardModel) stateHead(c *call, frame string) (string, func(...string) string, bool) {
	r := b.reply
	switch r.state(c) {
	case stateQueued:
		return text.SymQueued + " queued" + clearedBy(c), st.Dim.Render, false
	case stateWaiting:
		return text.SymWaiting + " waits for " + text.Numbers(r.pendingDeps(c)) + clearedBy(c), st.Dim.Render, false
	case stateAsking:
		s := text.SymAsk + " needs approval"
		if c.stale != "" {
			s += " again: " + c.stale
		}
		if deps := r.pendingDeps(c); len(deps) > 0 {
			s += " (then waits for " + text.Numbers(deps) + ")"
		}
		if d := lastDecision(c); d != nil {
			s += " · " + d.by + ": " + text.RelativeAll(b.workspace, d.reason)
		}
		return s, st.Warn.Render, false
	case stateAnswered:
		if c.answered == "approved" {
			return text.SymAnswered + " approved, starting", st.Accent.Render, false
		}
		return text.SymAnswered + " skipping", st.Accent.Render, false
	case stateRunning:
		if c.retrying {
			s := fmt.Sprintf("%s retry: attempt %s in %s · attempt %d failed (%s)",
				text.SymRetry, c.attemptOf(c.attempt+1), text.Since(c.backoff), c.attempt, c.failure)
			return s, st.Warn.Render, false
		}
		s := text.SymRunning + " running " + frame
		if c.attempt > 1 {
			s += " · attempt " + c.attemptOf(c.attempt)
			if c.failure != "" {
				s += " (after " + c.failure + ")"
			}
		}
		return s + clearedBy(c), st.Accent.Render, false
	case stateSucceeded:
		return text.SymOK + " succeeded" + retried(c) + clearedBy(c), st.OK.Render, true
	case stateError:
		return text.SymErr + " error " + c.kind + retried(c) + clearedBy(c), st.Err.Render, true
	case stateSkipped:
		by := ""
		if d := lastDecision(c); d != nil && d.what == "skip" {
			by = " by " + d.by
		}
		return text.SymSkipped + " skipped" + by, st.Warn.Render, true
	case stateDenied:
		return text.SymDenied + " denied" + clearedBy(c), st.Err.Render, true
	case stateNotRun:
		return text.SymSkipped + " not run: " + briefly(c.endedBy("the turn was stopped before it started")), st.Warn.Render, false
	case statePartly:
		return text.SymPartly + " may have partly run: " + briefly(c.endedBy("the turn was stopped")) + " while it ran", st.Err.Render, false
	case stateUnfinished:
		return text.SymPartly + " did not finish (only reads; safe to rerun): " + briefly(c.endedBy("the turn was stopped")), st.Warn.Render, false
	default:
		return text.SymInvalid + " not run: invalid reply", st.Err.Render, true
	}
}

// briefly keeps the first clause of a reason, such as "the session record
// cannot be written" of a reason that goes on to quote the error: a board
// row has room for little, and the detail pane shows the whole.
func briefly(why string) string {
	if i := strings.IndexAny(why, "(,;:"); i > 0 {
		return strings.TrimSpace(why[:i])
	}
	return why
}

// clearedBy names the session grant that let c run, if one did: the board
// says which grant cleared each call.
func clearedBy(c *call) string {
	d := lastDecision(c)
	if d == nil || d.what != "run" {
		return ""
	}
	if d.who.Who == approval.WhoGrant {
		return " · cleared by grant: " + text.CleanLine(d.who.Label)
	}
	return ""
}

// retried says how many attempts a settled call took, when it took more
// than one.
func retried(c *call) string {
	if c.attempt > 1 {
		return fmt.Sprintf(" after %d attempts", c.attempt)
	}
	return ""
}

// restarted reports whether a call was caught unfinished by a restart of
// the session, rather than by the person stopping the turn.
func lastDecision(c *call) *decision {
	if len(c.decisions) == 0 {
		return nil
	}
	return &c.decisions[len(c.decisions)-1]
}
