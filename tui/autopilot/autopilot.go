// Package autopilot plays the person a scenario records: it types each
// step's input and answers each call's approval as the scenario's decision
// says, at a pace a person watching (or a recording) can follow.
//
// Next is a pure function from what the screen shows (a Snapshot) and what
// the autopilot remembers (a Pilot) to the next key and when to press it.
// The console builds the snapshot, presses the key through the same key
// handling a person's keys go through, and schedules the wake; the
// autopilot holds no timer and answers nothing itself.
package autopilot

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/callview"
)

// The autopilot's pace at speed 1, chosen so that a person watching (or a
// recording) can follow: typing at a brisk human cadence, a pause before
// each input and each approval long enough to read what is decided.
const (
	// Lead is the pause before the first key of an input.
	Lead = 900 * time.Millisecond
	// Read is the pause for reading a call before answering it, to which
	// each line its change adds or removes adds a little.
	Read = 1600 * time.Millisecond

	pilotKeyMin    = 45 * time.Millisecond  // the shortest gap between typed keys
	pilotKeySpread = 70 * time.Millisecond  // added to it, varying per key
	pilotPunct     = 220 * time.Millisecond // more after . , ; : ! ?
	pilotSend      = 600 * time.Millisecond // before Enter, once the text is typed
	pilotMove      = 300 * time.Millisecond // between focus moves on the board
	pilotReadLine  = 80 * time.Millisecond  // more for each line its change adds or removes
	pilotReadMax   = 4 * time.Second        // the longest reading pause
	pilotChoose    = 900 * time.Millisecond // reading the grant chooser before choosing
)

// Focus is the part of the screen keys go to, as the autopilot needs it.
type Focus int

// The parts of the screen.
const (
	FocusInput Focus = iota
	FocusBoard
	FocusElsewhere
)

// Snapshot is what the screen shows, as far as the autopilot looks.
type Snapshot struct {
	// Now is the console's clock.
	Now time.Time
	// OpenFailed says the session could not be opened.
	OpenFailed bool
	// HelpOpen and DiffOpen say the help or the full-screen diff covers
	// the screen.
	HelpOpen, DiffOpen bool
	// TaskOpen says a task's board and transcript hold the screen; Esc
	// goes back to the session's.
	TaskOpen bool
	// GrantOpen says the grant chooser is open, for the call GrantFor.
	GrantOpen bool
	GrantFor  *callview.Call
	// Grants returns the grants the console would offer for a call that
	// waits for approval, in the order the chooser lists them; none for a
	// call a grant cannot release (an ask rule asks). It only looks, and it
	// is asked only about a call whose recorded decision is a grant.
	Grants func(*callview.Call) []approval.Grant
	// ReasonFor is the call the input asks a skip reason for, or nil.
	ReasonFor *callview.Call
	// Running says a run is going; Busy that the session is being opened
	// or replaced, or an input waits to start.
	Running, Busy bool
	// Reply is the reply on the board and BoardFocus the index of its
	// focused call.
	Reply      *callview.Reply
	BoardFocus int
	// FocusOnTask says focus is on a task's call that waits, drawn under
	// the row of call BoardFocus (after every call when it is -1).
	FocusOnTask bool
	// Rows are the board's focusable rows in display order, each the call
	// it shows: the reply's calls, each followed by the waiting calls of
	// the task it runs. Focused is the focused row's call. With Rows the
	// autopilot also answers tasks' calls, as their scripts record.
	Rows    []*callview.Call
	Focused *callview.Call
	// Focus is where keys go.
	Focus Focus
	// Input is what the input holds; InputOverlay says its menu or a
	// history search is open, and Searching that a search is.
	Input                   string
	InputOverlay, Searching bool
	// GraceUntil is when the board's approval keys work again.
	GraceUntil time.Time
	// ResumeKey names the key that resumes the autopilot.
	ResumeKey string
}

// Pilot is what the autopilot remembers between its steps: where the
// scenario stands, what it works on, and whether a person took over.
type Pilot struct {
	sc    *model.Scenario
	speed float64

	// Paused says a person's key took the console over; Done says the
	// scenario is played out.
	Paused, Done bool
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

	// Seq numbers the wakes the console schedules; only the wake whose
	// number is current counts, so a pause or a newer plan voids the
	// others. Waking says one is scheduled.
	Seq    int
	Waking bool
	// Say is what the autopilot is doing, for the status bar.
	Say string
}

// New returns the autopilot of the scenario sc, played at speed (zero or
// less means 1). goalGiven says the goal on the command line stands for the
// first step's input.
func New(sc *model.Scenario, speed float64, goalGiven bool) *Pilot {
	p := &Pilot{sc: sc, speed: speed, stepOf: map[int]int{}}
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
func (p *Pilot) scaled(d time.Duration) time.Duration { return time.Duration(float64(d) / p.speed) }

// Observe follows the session's replies, to know which step comes next.
func (p *Pilot) Observe(ev runtime.ReplyReceived) {
	p.stepOf[ev.Turn] = p.replies
	p.replies++
}

// Reset starts over with a new session (/clear): its first reply is the
// scenario's first step again.
func (p *Pilot) Reset() {
	p.replies, p.sent, p.stepOf, p.Done = 0, 0, map[int]int{}, false
}

// Pressed records that the console pressed step's key at now.
func (p *Pilot) Pressed(step Step, now time.Time) {
	p.lastKey = now
	if step.sends > 0 {
		p.sent = step.sends
	}
}

// Interrupt voids the wake that is scheduled, if any: the next one the
// console schedules carries a new number.
func (p *Pilot) Interrupt() {
	p.Seq++
	p.Waking = false
}

// Resume gives the console back to the autopilot after a person paused it;
// it starts afresh on whatever it finds.
func (p *Pilot) Resume() {
	p.Interrupt()
	p.Paused = false
	p.target = ""
}

// Decision returns the decision the scenario records for c, or nil. A
// task's call is looked up in the script of the task with its description,
// whose steps are its turns.
func (p *Pilot) Decision(c *callview.Call) *model.Decision {
	if c == nil {
		return nil
	}
	if c.In != nil {
		ts := p.sc.Tasks[c.In.Description]
		if ts == nil || c.Turn < 1 || c.Turn > len(ts.Steps) || c.Index >= len(ts.Steps[c.Turn-1].Calls) {
			return nil
		}
		return ts.Steps[c.Turn-1].Calls[c.Index].Decision
	}
	step, ok := p.stepOf[c.Turn]
	if !ok || step >= len(p.sc.Steps) || c.Index >= len(p.sc.Steps[step].Calls) {
		return nil
	}
	return p.sc.Steps[step].Calls[c.Index].Decision
}

// aim makes target what the autopilot works on, noting when it began.
func (p *Pilot) aim(target string, now time.Time) {
	if p.target != target {
		p.target, p.since = target, now
	}
}

// gap is the pause before typing the i-th rune of text: a brisk cadence
// that varies from key to key, the same in every play, longer after
// punctuation.
func (p *Pilot) gap(text string, i int) time.Duration {
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

// Step is the autopilot's next key and the earliest time to press it.
type Step struct {
	// Key is the key to press; At is when, at the earliest.
	Key tea.KeyMsg
	At  time.Time
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

// Next decides the autopilot's next key from what the console shows, as a
// person watching it would: p is what the autopilot remembers, s what the
// screen shows. It returns what the autopilot remembers after deciding, the
// step, and ok false when there is nothing to do until something changes.
// It changes nothing else: the console presses the key, through the same
// key handling a person's keys go through, so the screen shows what a
// person would see.
func Next(p Pilot, s Snapshot) (Pilot, Step, bool) {
	d := decider{p: &p, s: s}
	step, ok := d.next()
	return p, step, ok
}

// decider works out one step on a copy of the autopilot's memory.
type decider struct {
	p *Pilot
	s Snapshot
}

// after returns when a key that follows the last one, or the start of the
// current target, by gap may be pressed.
func (d *decider) after(gap time.Duration) time.Time {
	return later(d.p.lastKey.Add(gap), d.p.since.Add(gap))
}

func (d *decider) next() (Step, bool) {
	p, s := d.p, d.s
	switch {
	case s.OpenFailed:
		p.Done, p.Say = true, "stopped: the session could not be opened"
		return Step{}, false
	case s.HelpOpen, s.DiffOpen, s.TaskOpen:
		p.aim("close", s.Now)
		return Step{Key: keyOf(tea.KeyEsc), At: d.after(pilotMove)}, true
	case s.GrantOpen:
		return d.grant()
	case s.ReasonFor != nil:
		return d.reason()
	}
	if s.Running {
		return d.approve()
	}
	if s.Busy {
		return Step{}, false
	}
	return d.input()
}

// keyOf returns the message of a key that is not a rune.
func keyOf(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// approve moves the focus to the first call that waits for an
// approval the scenario recorded, lets the viewer read it, and answers it.
func (d *decider) approve() (Step, bool) {
	p, s := d.p, d.s
	r := s.Reply
	var target *callview.Call
	waiting := 0
	candidates := r.Pending(0)
	if s.Rows != nil {
		candidates = candidates[:0:0]
		for _, c := range s.Rows {
			if c.Req != nil {
				candidates = append(candidates, c)
			}
		}
	}
	for _, c := range candidates {
		if p.Decision(c) != nil {
			target = c
			break
		}
		waiting++
	}
	if target == nil {
		p.Say = "watching"
		if waiting > 0 {
			c := candidates[0]
			p.Say = fmt.Sprintf("waits for you: no decision recorded for #%d %s", c.Index+1, c.Name)
		}
		return Step{}, false
	}
	dec := p.Decision(target)
	p.aim(fmt.Sprintf("call %d/%d", target.Turn, target.Index), s.Now)
	p.Say = fmt.Sprintf("%s #%d %s", decisionVerb(dec), target.Index+1, target.Name)
	switch {
	case s.Focus == FocusInput && s.InputOverlay:
		// Tab would complete a command or take a search's match: Esc
		// closes them first.
		return Step{Key: keyOf(tea.KeyEsc), At: d.after(pilotMove)}, true
	case s.Focus != FocusBoard:
		return Step{Key: keyOf(tea.KeyTab), At: d.after(pilotMove)}, true
	}
	if s.Rows != nil {
		if s.Focused != target {
			k := keyOf(tea.KeyDown)
			if slices.Index(s.Rows, target) < slices.Index(s.Rows, s.Focused) {
				k = keyOf(tea.KeyUp)
			}
			return Step{Key: k, At: d.after(pilotMove)}, true
		}
	} else if f := s.BoardFocus; f != target.Index || s.FocusOnTask {
		pos, at := indexOf(r.Order, target.Index), indexOf(r.Order, f)
		if s.FocusOnTask && f < 0 {
			at = len(r.Order)
		}
		// A task's row is just below the call that runs the task.
		k := keyOf(tea.KeyDown)
		if pos < at || s.FocusOnTask && pos <= at {
			k = keyOf(tea.KeyUp)
		}
		return Step{Key: k, At: d.after(pilotMove)}, true
	}
	read := Read
	if ch := target.Change; ch != nil && ch.Full != nil {
		read += time.Duration(ch.Full.Added+ch.Full.Removed) * pilotReadLine
	}
	read = p.scaled(min(read, pilotReadMax))
	at := later(p.lastKey, p.since).Add(read)
	// The board ignores approval keys for a moment after what is under
	// focus changes; a careful person waits it out, and so does the
	// autopilot.
	at = later(at, s.GraceUntil)
	k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}}
	switch dec.Kind {
	case model.DecisionSkip:
		k.Runes = []rune{'n'}
	case model.DecisionGrant:
		if s.grantChoice(target, dec.Grant) >= 0 {
			k.Runes = []rune{'g'}
		}
	}
	return Step{Key: k, At: at}, true
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
func (s Snapshot) grantChoice(c *callview.Call, kind string) int {
	if c == nil || c.Req == nil {
		return -1
	}
	if s.Grants == nil {
		return -1
	}
	opts := s.Grants(c)
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

// grant chooses, in the open grant chooser, the grant the scenario
// recorded; a chooser it did not open is closed.
func (d *decider) grant() (Step, bool) {
	p, s := d.p, d.s
	c := s.GrantFor
	dec := p.Decision(c)
	p.aim("grant", s.Now)
	if dec == nil || dec.Kind != model.DecisionGrant || s.grantChoice(c, dec.Grant) < 0 {
		return Step{Key: keyOf(tea.KeyEsc), At: d.after(pilotMove)}, true
	}
	i := s.grantChoice(c, dec.Grant)
	at := later(d.after(pilotChoose), s.GraceUntil)
	return Step{Key: tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{rune('1' + i)}}, At: at}, true
}

// reason types the skip reason the scenario recorded, then sends it.
func (d *decider) reason() (Step, bool) {
	p, s := d.p, d.s
	c := s.ReasonFor
	dec := p.Decision(c)
	p.aim(fmt.Sprintf("reason %p", c), s.Now)
	if dec == nil || dec.Kind != model.DecisionSkip {
		return Step{Key: keyOf(tea.KeyEsc), At: d.after(pilotMove)}, true
	}
	return d.typeText(dec.Reason, 0)
}

// input types the input of the step the model plays next, once the
// console waits for one, and sends it.
func (d *decider) input() (Step, bool) {
	p, s := d.p, d.s
	n := p.replies
	switch {
	case n >= len(p.sc.Steps):
		p.Done, p.Say = true, "the scenario is played out"
		return Step{}, false
	case p.sent > n:
		// Its input was sent, and the run ended before the model
		// replied to it: the scenario cannot go on by itself.
		p.Say = "waits for you: the run ended before the model's next reply"
		return Step{}, false
	case p.sc.Steps[n].Input == "":
		p.Say = fmt.Sprintf("waits for you: no input recorded before step %d", n+1)
		return Step{}, false
	}
	p.aim(fmt.Sprintf("input %d", n), s.Now)
	p.Say = "typing"
	if s.Focus != FocusInput {
		return Step{Key: keyOf(tea.KeyTab), At: d.after(pilotMove)}, true
	}
	text := p.sc.Steps[n].Input
	if strings.HasPrefix(text, "/") {
		// Typed as it is, it would be a slash command.
		text = "/" + text
	}
	return d.typeText(text, n+1)
}

// typeText types text into the input one key at a time and sends it with
// Enter; sends says which step's input it is (0 for a skip reason). Text
// the autopilot did not type stops it: that is the person's to send or
// clear.
func (d *decider) typeText(text string, sends int) (Step, bool) {
	p, s := d.p, d.s
	v := s.Input
	switch {
	case s.Searching:
		// A history search a person opened takes the keys: Esc puts the
		// input back.
		return Step{Key: keyOf(tea.KeyEsc), At: d.after(pilotMove)}, true
	case v == text:
		return Step{Key: keyOf(tea.KeyEnter), At: d.after(p.scaled(pilotSend)), sends: sends}, true
	case strings.HasPrefix(text, v):
		r, _ := utf8.DecodeRuneInString(text[len(v):])
		gap := p.gap(text, len(v))
		at := p.lastKey.Add(gap)
		if v == "" {
			at = later(at, p.since.Add(p.scaled(Lead)))
		}
		return Step{Key: runeKey(r), At: at}, true
	}
	p.Paused = true
	p.Say = "paused: the input holds text the autopilot did not type; send it or clear it, then " + s.ResumeKey + " resumes"
	return Step{}, false
}
