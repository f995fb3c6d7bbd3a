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
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

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
	// Crumb, when set, leads the title: the board shows a task's calls,
	// and the crumb says which task and where it is.
	Crumb string

	reply     *callview.Reply
	focus     rowKey
	workspace string
	// loose are tasks whose calls wait for the person but that have no
	// row on the board; own is the task whose calls the board shows, if
	// it does: its lone requests are drawn after its reply's calls.
	loose []*callview.Task
	own   *callview.Task

	now        func() time.Time
	grace      time.Duration
	graceUntil time.Time
	graceSeq   int
	last       approvalSig
	// typing, when set, is the console's record of the person's typing,
	// which holds the approval keys back as the grace period does.
	typing *Typing
}

// rowKey names a focusable row: a call of the reply (ask nil), or a task's
// call that waits for the person, drawn under the row of the call that runs
// the task (index), or after the reply's calls (index -1).
type rowKey struct {
	index int
	ask   *callview.Call
}

// approvalSig is what the approval keys would act on: the focused row, its
// open request, every open request (the tasks' too), and the previews they
// show: a change that moves under the person is as new as a new request.
type approvalSig struct {
	turn       int
	focus      rowKey
	focusedReq uint64
	pending    []uint64
	digests    []string
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
	// OpenTask opens the board and transcript of a task.
	OpenTask *callview.Task
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

// SetLoose shows, after the reply's calls, the calls that wait for the
// person of tasks that have no row on the board (their call is not in the
// reply), so that they can be answered all the same.
func (b *Model) SetLoose(tasks []*callview.Task) { b.loose = tasks }

// SetOwn says the board shows the calls of task t (its reply is set with
// SetReply): the task's lone requests are drawn after its reply's calls.
func (b *Model) SetOwn(t *callview.Task) { b.own = t }

// entry is a focusable row and what it shows.
type entry struct {
	key   rowKey
	call  *callview.Call
	reply *callview.Reply
}

// entries returns the focusable rows in display order: each call of the
// reply, followed by the waiting calls of the task it runs; then the
// waiting calls of tasks without a row.
func (b *Model) entries() []entry {
	var out []entry
	if r := b.reply; r != nil {
		for _, i := range r.Order {
			c := r.Calls[i]
			out = append(out, entry{key: rowKey{index: c.Index}, call: c, reply: r})
			if c.Task != nil {
				for _, a := range c.Task.Asks() {
					out = append(out, entry{key: rowKey{index: c.Index, ask: a.Call}, call: a.Call, reply: a.Reply})
				}
			}
		}
	}
	for _, a := range b.extraAsks() {
		out = append(out, entry{key: rowKey{index: -1, ask: a.Call}, call: a.Call, reply: a.Reply})
	}
	return out
}

// extraAsks returns the waiting calls drawn after the reply's: the loose
// tasks', and the own task's lone requests.
func (b *Model) extraAsks() []callview.Ask {
	var out []callview.Ask
	for _, t := range b.loose {
		out = append(out, t.Asks()...)
	}
	if t := b.own; t != nil {
		for _, r := range t.Lone {
			for _, c := range r.Pending(0) {
				out = append(out, callview.Ask{Task: t, Reply: r, Call: c})
			}
		}
	}
	return out
}

// current returns the focused row. A task's call that no longer waits has
// no row: focus falls back to the call that runs its task, or the first
// row.
func (b *Model) current() entry {
	if b.focus.ask == nil {
		return entry{key: b.focus, call: b.reply.Get(b.focus.index), reply: b.reply}
	}
	es := b.entries()
	for _, e := range es {
		if e.key == b.focus && e.call.Req != nil {
			return e
		}
	}
	if c := b.reply.Get(b.focus.index); c != nil {
		return entry{key: rowKey{index: c.Index}, call: c, reply: b.reply}
	}
	if len(es) > 0 {
		return es[0]
	}
	return entry{key: rowKey{index: -1}}
}

// Focus returns the index of the focused call in its reply; on a task's
// call that waits, the index of the call that runs the task (-1 when that
// is not in the reply).
func (b *Model) Focus() int { return b.current().key.index }

// FocusOnTask reports whether focus is on a task's call that waits, rather
// than on a call of the reply.
func (b *Model) FocusOnTask() bool { return b.current().key.ask != nil }

// SetFocus focuses the call with index i, as the person would.
func (b *Model) SetFocus(i int) {
	b.focus = rowKey{index: i}
	b.PersonChange()
}

// SetFocusCall focuses the row of c, a call of the reply or a task's call
// that waits, as the person would; it reports whether c has a row.
func (b *Model) SetFocusCall(c *callview.Call) bool {
	for _, e := range b.entries() {
		if e.call == c {
			b.focus = e.key
			b.PersonChange()
			return true
		}
	}
	return false
}

// FocusPending focuses the first row in display order that waits for the
// person, as the person would, unless the focused one does; it reports
// whether focus moved. A call of the reply waits from its decision to ask
// on, as its row says, even before its request has come.
func (b *Model) FocusPending() bool {
	waits := func(e entry) bool {
		if e.call == nil {
			return false
		}
		return e.call.Req != nil || e.key.ask == nil && b.reply.State(e.call) == callview.StateAsking
	}
	if waits(b.current()) {
		return false
	}
	for _, e := range b.entries() {
		if waits(e) {
			b.focus = e.key
			b.PersonChange()
			return true
		}
	}
	return false
}

// Rows returns the calls of the focusable rows in display order: each call
// of the reply, followed by the waiting calls of the task it runs, then the
// waiting calls of tasks without a row.
func (b *Model) Rows() []*callview.Call {
	es := b.entries()
	out := make([]*callview.Call, 0, len(es))
	for _, e := range es {
		out = append(out, e.call)
	}
	return out
}

// Focused returns the focused call, or nil.
func (b *Model) Focused() *callview.Call { return b.current().call }

// FocusedReply returns the reply the focused call is in: the board's, or,
// for a task's call, the task's.
func (b *Model) FocusedReply() *callview.Reply {
	if e := b.current(); e.call != nil {
		return e.reply
	}
	return b.reply
}

// Pending returns every call on the board that waits for the person: the
// reply's, then the tasks', in display order.
func (b *Model) Pending() []*callview.Call {
	out := b.reply.Pending(0)
	for _, e := range b.entries() {
		if e.key.ask != nil {
			out = append(out, e.call)
		}
	}
	return out
}

// GraceUntil returns when the approval keys work again, after the grace
// period and the pause after typing; a time in the past when they work now.
func (b *Model) GraceUntil() time.Time {
	if t := b.typing.Until(); t.After(b.graceUntil) {
		return t
	}
	return b.graceUntil
}

// GraceSeq returns the number of the latest grace period, which its
// GraceEndMsg carries.
func (b *Model) GraceSeq() int { return b.graceSeq }

// SetReply shows a new reply; focus goes to its first call.
func (b *Model) SetReply(r *callview.Reply) {
	b.reply = r
	b.focus = rowKey{}
	if r != nil && len(r.Order) > 0 {
		b.focus = rowKey{index: r.Calls[r.Order[0]].Index}
	}
}

// sig returns the current approval signature.
func (b *Model) sig() approvalSig {
	cur := b.current()
	s := approvalSig{focus: cur.key}
	if b.reply != nil {
		s.turn = b.reply.Turn
	}
	if c := cur.call; c != nil && c.Req != nil {
		s.focusedReq = c.Req.ID
	}
	for _, c := range b.Pending() {
		s.pending = append(s.pending, c.Req.ID)
		s.digests = append(s.digests, c.Digest())
	}
	return s
}

// ExternalChange is called after the runtime changed the board. When what
// the approval keys act on has changed in a way the person did not cause (a
// new request, a task's or the reply's, a new reply under focus), it arms
// the grace period and returns the command that ends it.
func (b *Model) ExternalChange() tea.Cmd {
	b.settle()
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
	if !changed || len(n.pending) == 0 {
		return nil
	}
	if b.grace > 0 {
		b.graceUntil = b.now().Add(b.grace)
	}
	return b.redrawWhenArmed()
}

// redrawWhenArmed returns the command that redraws the board once its
// approval keys work again, or nil when they work now. It is a single
// timer, which ends the pause the console is in.
func (b *Model) redrawWhenArmed() tea.Cmd {
	wait := b.GraceUntil().Sub(b.now())
	if wait <= 0 {
		return nil
	}
	b.graceSeq++
	seq := b.graceSeq
	return tea.Tick(wait, func(time.Time) tea.Msg { return GraceEndMsg{Seq: seq} })
}

// Typed records that the person typed text, holding the approval keys back
// for TypingPause, and returns the command that redraws the board when they
// work again: nil when nothing on the board waits for the person, as then
// the pause shows nowhere.
func (b *Model) Typed() tea.Cmd {
	if b.typing == nil {
		return nil
	}
	b.typing.Typed(b.now())
	if len(b.Pending()) == 0 {
		return nil
	}
	return b.redrawWhenArmed()
}

// Rearm is called when a GraceEndMsg arrives: when the keys are still held
// back (the person typed again meanwhile), it returns the command that
// redraws the board when they are not.
func (b *Model) Rearm(msg GraceEndMsg) tea.Cmd {
	if msg.Seq != b.graceSeq || len(b.Pending()) == 0 {
		return nil
	}
	return b.redrawWhenArmed()
}

// PersonChange records a change the person made (moving focus, answering),
// which never arms the grace period.
func (b *Model) PersonChange() {
	b.settle()
	b.last = b.sig()
}

// settle makes the row focus fell back to the focused one, so that a
// task's call answered and then asking again does not take focus back.
func (b *Model) settle() {
	if b.focus.ask != nil {
		b.focus = b.current().key
	}
}

// Armed reports whether the approval keys work now: the grace period after
// a change is over and the person is not typing.
func (b *Model) Armed() bool { return !b.now().Before(b.graceUntil) && !b.typingNow() }

// Typing reports whether the approval keys are held back because the person
// typed text within TypingPause.
func (b *Model) Typing() bool { return b.typingNow() }

// Update handles a key while the board has focus.
func (b *Model) Update(msg tea.KeyMsg) Action {
	if msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) {
		// Several runes in one message are typing (or a paste), never a
		// series of approvals.
		return Action{Note: "typed text is ignored on the board: press tab to reach the input"}
	}
	if b.reply == nil && len(b.extraAsks()) == 0 {
		return Action{}
	}
	switch {
	case key.Matches(msg, b.Keys.Up):
		b.move(-1)
	case key.Matches(msg, b.Keys.Down):
		b.move(1)
	case key.Matches(msg, b.Keys.Open) && b.opens():
		return Action{OpenTask: b.current().call.Task}
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

// opens reports whether the focused row is the call that runs a task, which
// Open opens. On a task's call that waits, Enter shows its details, as on
// any other call.
func (b *Model) opens() bool {
	e := b.current()
	return e.key.ask == nil && e.call != nil && e.call.Task != nil
}

// approval handles y, n, g, a and A.
func (b *Model) approval(msg tea.KeyMsg) Action {
	k := msg.String()
	switch {
	case b.typingNow():
		return Action{Note: fmt.Sprintf("%s ignored: you are typing; approval keys work 1½ s after the last typed key", k)}
	case !b.Armed():
		return Action{Note: fmt.Sprintf("%s ignored: the approvals under focus just changed; look, then press it again", k)}
	}
	cur := b.current()
	c := cur.call
	defer b.PersonChange()
	switch {
	case key.Matches(msg, b.Keys.Approve):
		if c == nil || c.Req == nil {
			return Action{Note: "the focused call is not waiting for approval"}
		}
		return Action{Approve: []*callview.Call{c}, Note: "approved " + c.Title()}
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
		if cur.key.ask != nil {
			// A task's calls are not in the reply's batches: each is
			// answered on its own, or with every other by A.
			return Action{Note: "a approves a batch of this reply's own calls: y approves this task's call, A every pending call"}
		}
		calls := b.reply.Pending(c.Batch)
		return Action{Approve: calls, Note: fmt.Sprintf("approved %d pending call(s) of batch %d", len(calls), c.Batch)}
	default:
		calls := b.Pending()
		return Action{Approve: calls, Note: fmt.Sprintf("approved %d pending call(s)", len(calls))}
	}
}

// move shifts focus by d rows, over the reply's calls and the tasks' calls
// that wait, in display order.
func (b *Model) move(d int) {
	es := b.entries()
	if len(es) == 0 {
		return
	}
	cur := b.current().key
	pos := slices.IndexFunc(es, func(e entry) bool { return e.key == cur })
	pos = min(max(pos+d, 0), len(es)-1)
	b.focus = es[pos].key
	b.PersonChange()
}
