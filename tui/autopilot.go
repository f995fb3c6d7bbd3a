package tui

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/input"
)

// Autopilot plays the person a scenario records: it types each step's
// input, and answers each call's approval as the scenario's decision says.
type Autopilot struct {
	// Scenario is the scenario the console's model plays; its steps'
	// inputs and its calls' decisions are what the autopilot does.
	Scenario *model.Scenario
	// Speed divides every pause the autopilot makes: 2 plays twice as
	// fast. Zero or less means 1.
	Speed float64
}

// The autopilot's pace at speed 1, chosen so that a person watching (or a
// recording) can follow: typing at a brisk human cadence, a pause before
// each input and each approval long enough to read what is decided.
const (
	pilotLead      = 900 * time.Millisecond  // before the first key of an input
	pilotKeyMin    = 45 * time.Millisecond   // the shortest gap between typed keys
	pilotKeySpread = 70 * time.Millisecond   // added to it, varying per key
	pilotPunct     = 220 * time.Millisecond  // more after . , ; : ! ?
	pilotSend      = 600 * time.Millisecond  // before Enter, once the text is typed
	pilotMove      = 300 * time.Millisecond  // between focus moves on the board
	pilotRead      = 1600 * time.Millisecond // reading a call before answering it
	pilotReadLine  = 80 * time.Millisecond   // more for each line its change adds or removes
	pilotReadMax   = 4 * time.Second         // the longest reading pause
	pilotChoose    = 900 * time.Millisecond  // reading the grant chooser before choosing
)

// pilotWake wakes the autopilot to take its next step. Only the wake
// whose seq is current counts: a pause or a newer plan voids the others.
type pilotWake struct{ seq int }

// callRef names a call: its turn and its index in the reply.
type callRef struct{ turn, index int }

// pilot is the console's autopilot. It decides what a person would press
// next by looking at the console (the input, the board, the prompts), and
// presses it through the same key handling a person's keys go through, so
// the screen shows what a person would see. It holds no timer of its own:
// it asks the console's Tick to wake it.
type pilot struct {
	sc    *model.Scenario
	speed float64

	// paused says a person's key took the console over; done says the
	// scenario is played out.
	paused, done bool
	// replies counts the model's replies in this session, which is the
	// step the scenario's model plays next; stepOf maps each turn to the
	// step its reply came from.
	replies int
	stepOf  map[int]int
	// sent is how many steps' inputs were sent (or stood in for by the
	// goal given on the command line).
	sent int

	// target names what the autopilot works on now (an input, a call),
	// and since is when it began; lastKey is when it last pressed a key.
	target  string
	since   time.Time
	lastKey time.Time

	// seq numbers the wakes; waking says one is scheduled.
	seq    int
	waking bool
	// say is what the autopilot is doing, for the status bar.
	say string
}

func newPilot(a *Autopilot, goalGiven bool) *pilot {
	p := &pilot{sc: a.Scenario, speed: a.Speed, stepOf: map[int]int{}}
	if p.speed <= 0 {
		p.speed = 1
	}
	if goalGiven {
		// The goal given on the command line stands for the first
		// step's input.
		p.sent = 1
	}
	return p
}

// scaled divides d by the speed.
func (p *pilot) scaled(d time.Duration) time.Duration { return time.Duration(float64(d) / p.speed) }

// observe follows the session's replies, to know which step comes next.
func (p *pilot) observe(ev runtime.ReplyReceived) {
	p.stepOf[ev.Turn] = p.replies
	p.replies++
}

// reset starts over with a new session (/clear): its first reply is the
// scenario's first step again.
func (p *pilot) reset() {
	p.replies, p.sent, p.stepOf, p.done = 0, 0, map[int]int{}, false
}

// decision returns the scenario's decision for c, or nil.
func (p *pilot) decision(c *callview.Call) *model.Decision {
	if c == nil {
		return nil
	}
	step, ok := p.stepOf[c.Turn]
	if !ok || step >= len(p.sc.Steps) || c.Index >= len(p.sc.Steps[step].Calls) {
		return nil
	}
	return p.sc.Steps[step].Calls[c.Index].Decision
}

// aim makes target what the autopilot works on, noting when it began.
func (p *pilot) aim(target string, now time.Time) {
	if p.target != target {
		p.target, p.since = target, now
	}
}

// gap is the pause before typing the i-th rune of text: a brisk cadence
// that varies from key to key, the same in every play, longer after
// punctuation.
func (p *pilot) gap(text string, i int) time.Duration {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d:%s", i, text)
	d := pilotKeyMin + time.Duration(h.Sum32()%uint32(pilotKeySpread/time.Millisecond))*time.Millisecond
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:i]); strings.ContainsRune(".,;:!?", r) {
			d += pilotPunct
		}
	}
	return p.scaled(d)
}

// pilotStep is the autopilot's next key and the earliest time to press it.
type pilotStep struct {
	key tea.KeyMsg
	at  time.Time
	// sends marks the Enter that sends the input of step sends-1.
	sends int
}

// runeKey returns the key message a terminal produces for typing r.
func runeKey(r rune) tea.KeyMsg {
	switch r {
	case ' ':
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case '\n':
		return tea.KeyMsg{Type: tea.KeyCtrlJ}
	}
	if r < 0x20 || r == 0x7f {
		// A control character cannot be typed as itself: it comes as
		// it would in a paste.
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Paste: true}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
}

// later returns the latest of the times.
func later(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// pilotNext decides the autopilot's next key from what the console shows;
// ok is false when there is nothing to do until something changes.
func (m *Model) pilotNext() (step pilotStep, ok bool) {
	p := m.pilot
	now := m.now()
	after := func(gap time.Duration) time.Time { return later(p.lastKey.Add(gap), p.since.Add(gap)) }
	switch {
	case m.openErr != "":
		p.done, p.say = true, "stopped: the session could not be opened"
		return pilotStep{}, false
	case m.help.open, m.diffScreen.Shown():
		p.aim("close", now)
		return pilotStep{key: keyOf(tea.KeyEsc), at: after(pilotMove)}, true
	case m.grant.Shown():
		return m.pilotGrant(after)
	case m.input.Mode() == input.ModeReason:
		return m.pilotReason(after)
	}
	if m.run != nil {
		return m.pilotApprove(after)
	}
	if m.opening || m.busy != "" || m.queued != "" {
		return pilotStep{}, false
	}
	return m.pilotInput(after)
}

// keyOf returns the message of a key that is not a rune.
func keyOf(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// pilotApprove moves the focus to the first call that waits for an
// approval the scenario recorded, lets the viewer read it, and answers it.
func (m *Model) pilotApprove(after func(time.Duration) time.Time) (pilotStep, bool) {
	p := m.pilot
	r := m.board.Reply()
	var target *callview.Call
	waiting := 0
	for _, c := range r.Pending(0) {
		if p.decision(c) != nil {
			target = c
			break
		}
		waiting++
	}
	if target == nil {
		p.say = "watching"
		if waiting > 0 {
			c := r.Pending(0)[0]
			p.say = fmt.Sprintf("waits for you: no decision recorded for #%d %s", c.Index+1, c.Name)
		}
		return pilotStep{}, false
	}
	d := p.decision(target)
	p.aim(fmt.Sprintf("call %d/%d", target.Turn, target.Index), m.now())
	p.say = fmt.Sprintf("%s #%d %s", decisionVerb(d), target.Index+1, target.Name)
	switch {
	case m.focus == focusInput && m.input.Overlay():
		// Tab would complete a command or take a search's match: Esc
		// closes them first.
		return pilotStep{key: keyOf(tea.KeyEsc), at: after(pilotMove)}, true
	case m.focus != focusBoard:
		return pilotStep{key: keyOf(tea.KeyTab), at: after(pilotMove)}, true
	}
	if f := m.board.Focus(); f != target.Index {
		k := keyOf(tea.KeyDown)
		if indexOf(r.Order, target.Index) < indexOf(r.Order, f) {
			k = keyOf(tea.KeyUp)
		}
		return pilotStep{key: k, at: after(pilotMove)}, true
	}
	read := pilotRead
	if ch := target.Change; ch != nil && ch.Full != nil {
		read += time.Duration(ch.Full.Added+ch.Full.Removed) * pilotReadLine
	}
	read = p.scaled(min(read, pilotReadMax))
	at := later(p.lastKey, p.since).Add(read)
	// The board ignores approval keys for a moment after what is under
	// focus changes; a careful person waits it out, and so does the
	// autopilot.
	at = later(at, m.board.GraceUntil())
	k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}}
	switch d.Kind {
	case model.DecisionSkip:
		k.Runes = []rune{'n'}
	case model.DecisionGrant:
		if m.grantChoice(target, d.Grant) >= 0 {
			k.Runes = []rune{'g'}
		}
	}
	return pilotStep{key: k, at: at}, true
}

// decisionVerb says what the autopilot does about a call.
func decisionVerb(d *model.Decision) string {
	switch d.Kind {
	case model.DecisionSkip:
		return "skipping"
	case model.DecisionGrant:
		return "granting from"
	}
	return "approving"
}

func indexOf(order []int, i int) int {
	for n, x := range order {
		if x == i {
			return n
		}
	}
	return -1
}

// grantChoice returns the position, among the grants the console offers
// for c, of the grant of the given kind; -1 when none is offered. Where the
// kind is not offered but a single grant is — a sandboxed command's grant
// on a machine with a sandbox, the tool's without one — that one stands in.
func (m *Model) grantChoice(c *callview.Call, kind string) int {
	if m.opts.Policy == nil || c == nil || c.Req == nil {
		return -1
	}
	if c.Req.Req.Asker().Who == approval.WhoRule {
		return -1
	}
	opts := m.opts.Policy.GrantOptions(c.Req.Req)
	for i, g := range opts {
		switch {
		case kind == model.GrantSandboxed && g.Sandboxed,
			kind == model.GrantFolder && !g.Within.IsEmpty(),
			kind == model.GrantTool && !g.Sandboxed && g.Within.IsEmpty():
			return i
		}
	}
	if len(opts) == 1 && kind != model.GrantFolder {
		return 0
	}
	return -1
}

// pilotGrant chooses, in the open grant chooser, the grant the scenario
// recorded; a chooser it did not open is closed.
func (m *Model) pilotGrant(after func(time.Duration) time.Time) (pilotStep, bool) {
	p := m.pilot
	c := m.grant.Call()
	d := p.decision(c)
	p.aim("grant", m.now())
	if d == nil || d.Kind != model.DecisionGrant || m.grantChoice(c, d.Grant) < 0 {
		return pilotStep{key: keyOf(tea.KeyEsc), at: after(pilotMove)}, true
	}
	i := m.grantChoice(c, d.Grant)
	at := later(after(pilotChoose), m.board.GraceUntil())
	return pilotStep{key: tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{rune('1' + i)}}, at: at}, true
}

// pilotReason types the skip reason the scenario recorded, then sends it.
func (m *Model) pilotReason(after func(time.Duration) time.Time) (pilotStep, bool) {
	p := m.pilot
	c := m.input.ReasonFor()
	d := p.decision(c)
	p.aim(fmt.Sprintf("reason %p", c), m.now())
	if d == nil || d.Kind != model.DecisionSkip {
		return pilotStep{key: keyOf(tea.KeyEsc), at: after(pilotMove)}, true
	}
	return m.pilotType(d.Reason, 0, after)
}

// pilotInput types the input of the step the model plays next, once the
// console waits for one, and sends it.
func (m *Model) pilotInput(after func(time.Duration) time.Time) (pilotStep, bool) {
	p := m.pilot
	n := p.replies
	switch {
	case n >= len(p.sc.Steps):
		p.done, p.say = true, "the scenario is played out"
		return pilotStep{}, false
	case p.sent > n:
		// Its input was sent, and the run ended before the model
		// replied to it: the scenario cannot go on by itself.
		p.say = "waits for you: the run ended before the model's next reply"
		return pilotStep{}, false
	case p.sc.Steps[n].Input == "":
		p.say = fmt.Sprintf("waits for you: no input recorded before step %d", n+1)
		return pilotStep{}, false
	}
	p.aim(fmt.Sprintf("input %d", n), m.now())
	p.say = "typing"
	if m.focus != focusInput {
		return pilotStep{key: keyOf(tea.KeyTab), at: after(pilotMove)}, true
	}
	text := p.sc.Steps[n].Input
	if strings.HasPrefix(text, "/") {
		// Typed as it is, it would be a slash command.
		text = "/" + text
	}
	return m.pilotType(text, n+1, after)
}

// pilotType types text into the input one key at a time and sends it with
// Enter; sends says which step's input it is (0 for a skip reason). Text
// the autopilot did not type stops it: that is the person's to send or
// clear.
func (m *Model) pilotType(text string, sends int, after func(time.Duration) time.Time) (pilotStep, bool) {
	p := m.pilot
	v := m.input.Value()
	switch {
	case m.input.Searching():
		// A history search a person opened takes the keys: Esc puts the
		// input back.
		return pilotStep{key: keyOf(tea.KeyEsc), at: after(pilotMove)}, true
	case v == text:
		return pilotStep{key: keyOf(tea.KeyEnter), at: after(p.scaled(pilotSend)), sends: sends}, true
	case strings.HasPrefix(text, v):
		r, _ := utf8.DecodeRuneInString(text[len(v):])
		gap := p.gap(text, len(v))
		at := p.lastKey.Add(gap)
		if v == "" {
			at = later(at, p.since.Add(p.scaled(pilotLead)))
		}
		return pilotStep{key: runeKey(r), at: at}, true
	}
	p.paused = true
	p.say = "paused: the input holds text the autopilot did not type; send it or clear it, then " + m.keys.Global.Autopilot.Help().Key + " resumes"
	return pilotStep{}, false
}

// drivePilot schedules the autopilot's next step, unless one is scheduled,
// it is paused or done, or there is nothing to do until the console
// changes (the next message will ask again).
func (m *Model) drivePilot() tea.Cmd {
	p := m.pilot
	if p == nil || p.paused || p.done || p.waking {
		return nil
	}
	step, ok := m.pilotNext()
	if !ok {
		return nil
	}
	p.waking = true
	seq := p.seq
	return m.tick(max(0, step.at.Sub(m.now())), func(time.Time) tea.Msg { return pilotWake{seq: seq} })
}

// wakePilot takes the autopilot's step, if it is due; it presses the key
// through the console's own key handling.
func (m *Model) wakePilot(w pilotWake) tea.Cmd {
	p := m.pilot
	if p == nil || w.seq != p.seq {
		return nil
	}
	p.waking = false
	if p.paused || p.done {
		return nil
	}
	step, ok := m.pilotNext()
	if !ok || step.at.After(m.now()) {
		return nil
	}
	p.lastKey = m.now()
	if step.sends > 0 {
		p.sent = step.sends
	}
	return m.key(step.key)
}

// personKey lets a person's key take the console over from the autopilot
// (it pauses) or give it back (the Autopilot key). It reports whether the
// key is used up by that.
func (m *Model) personKey(msg tea.KeyMsg) (used, paused bool) {
	p := m.pilot
	if p == nil {
		return false, false
	}
	if key.Matches(msg, m.keys.Global.Autopilot) {
		p.seq++
		p.waking = false
		if p.paused {
			p.paused = false
			p.target = ""
			m.note = "autopilot resumed"
		} else {
			p.paused = true
			m.note = "autopilot paused: the console is yours · " + m.keys.Global.Autopilot.Help().Key + " resumes it"
		}
		return true, false
	}
	if p.paused || p.done {
		return false, false
	}
	p.seq++
	p.waking = false
	p.paused = true
	return false, true
}

// pilotStatus is what the status bar says of the autopilot, and whether it
// wants the person's attention.
func (m *Model) pilotStatus() (string, bool) {
	p := m.pilot
	switch {
	case p == nil:
		return "", false
	case p.done:
		return "autopilot: " + p.say, false
	case p.paused:
		if strings.HasPrefix(p.say, "paused:") {
			return "⏸ autopilot " + p.say, true
		}
		return "⏸ autopilot paused · " + m.keys.Global.Autopilot.Help().Key + " resumes", true
	case strings.HasPrefix(p.say, "waits for you"):
		return "▶ autopilot " + p.say, true
	}
	return "▶ autopilot: " + p.say + " · any key takes over", false
}
