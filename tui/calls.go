package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// callState is where a call stands, as the board shows it.
type callState int

// The call states. Every state has a symbol and a word, so none relies on
// colour.
const (
	stateQueued     callState = iota // cleared to run, waiting for a slot (or not yet decided)
	stateWaiting                     // waits for earlier calls it conflicts with
	stateAsking                      // needs the person's approval
	stateAnswered                    // the person answered; the runtime is acting on it
	stateRunning                     // the body is running
	stateSucceeded                   // outcome success
	stateError                       // outcome error, with a failure kind
	stateSkipped                     // outcome skipped: the body never ran
	stateDenied                      // outcome denied: the tool refused
	stateNotRun                      // an early end caught it before it started
	statePartly                      // an early end caught it running; it may have partly run
	stateUnfinished                  // an early end caught it running; it only reads
	stateInvalid                     // part of an invalid reply; nothing ran
)

// decision is one hook decision about a call: what was decided, by whom
// and why, cleaned for display, and who decided as a value.
type decision struct {
	what, by, reason string
	who              approval.Provenance
}

// call is one call of a reply as the console knows it. All strings are clean.
type call struct {
	turn, index int
	name        string
	args        json.RawMessage
	short       string
	touches     *tool.Touches
	sandbox     *tool.Sandbox
	waitsFor    []int
	batch       int

	decisions []decision
	asking    bool      // the last decision was "ask"
	askedAt   time.Time // when the request reached the console
	req       *approvalRequest
	answered  string // "approved" or "skipped" once the person answered

	started   bool
	startedAt time.Time
	attempt   int
	// maxAttempts is the retry policy's total, once a retry told it; zero
	// while unknown.
	maxAttempts int
	retries     []string
	// retrying says a failed attempt will be repeated once backoff has
	// passed; failure is what that attempt failed with.
	retrying bool
	failure  string
	backoff  time.Duration

	done        bool
	outcome     string
	kind        string
	result      string // the exact text the model read, raw; cleaned when drawn
	notFinished bool
	// why is what ended a not-finished call early, clean; empty in
	// journals written before events carried it.
	why      string
	ranBody  bool
	duration time.Duration

	// change is the call's preview as last published; stale says why the
	// person's approval was withdrawn, when it was; edited says the
	// person approved it with their own version; diffstat is what a
	// finished write added and removed.
	change   *change
	stale    string
	edited   bool
	diffstat *runtime.Diffstat
	// whole is the output's size when the model read it cut or summarised.
	whole int

	// version changes whenever anything above does, so the detail pane
	// knows when its cached lines are stale.
	version int
}

// attemptOf names attempt n, with the total when a retry has told it.
func (c *call) attemptOf(n int) string {
	if c.maxAttempts > 0 {
		return fmt.Sprintf("%d of %d", n, c.maxAttempts)
	}
	return strconv.Itoa(n)
}

// endedBy says what ended c early, as "the person stopped the turn" or "the
// session restarted"; fallback stands in when the event did not say.
func (c *call) endedBy(fallback string) string {
	if c.why != "" {
		return c.why
	}
	return fallback
}

// reply is the active reply: the calls the board shows.
type reply struct {
	turn    int
	calls   []*call
	invalid bool
	cut     string // the tool a cut reply was stopped inside, cleaned
	ended   bool   // TurnEnded arrived: every call has settled
	// order is the display order: by batch, then by index.
	order []int
	// version changes with every event applied to the reply.
	version int
}

// newReply builds the board's reply from a ReplyReceived event.
func newReply(ev runtime.ReplyReceived) *reply {
	r := &reply{turn: ev.Turn}
	for _, pc := range ev.Calls {
		c := &call{
			turn: ev.Turn, index: pc.Index, name: text.CleanLine(pc.Name), args: pc.Args, short: text.ShortArgs(pc.Args),
			touches: pc.Touches, sandbox: pc.Sandbox, waitsFor: slices.Clone(pc.WaitsFor), batch: pc.Batch,
		}
		if pc.Touches == nil {
			r.invalid = true
		}
		r.calls = append(r.calls, c)
	}
	if ev.Cut != nil {
		r.cut = text.CleanLine(ev.Cut.Name)
		r.invalid = true
	}
	r.order = make([]int, len(r.calls))
	for i := range r.order {
		r.order[i] = i
	}
	slices.SortStableFunc(r.order, func(a, b int) int { return r.calls[a].batch - r.calls[b].batch })
	return r
}

// get returns the call with the given index, or nil.
func (r *reply) get(index int) *call {
	if r == nil || index < 0 || index >= len(r.calls) {
		return nil
	}
	return r.calls[index]
}

// state returns where c stands.
func (r *reply) state(c *call) callState {
	switch {
	case c.done:
		switch {
		case c.notFinished && !c.ranBody:
			return stateNotRun
		case c.notFinished && c.touches != nil && c.touches.ReadsOnly():
			return stateUnfinished
		case c.notFinished:
			return statePartly
		case c.outcome == "invalid":
			return stateInvalid
		case c.outcome == "success":
			return stateSucceeded
		case c.outcome == "skipped":
			return stateSkipped
		case c.outcome == "denied":
			return stateDenied
		}
		return stateError
	case r.invalid:
		return stateInvalid
	case c.started:
		return stateRunning
	case c.asking && c.answered != "":
		return stateAnswered
	case c.asking:
		return stateAsking
	}
	for _, d := range c.waitsFor {
		if dep := r.get(d); dep != nil && !dep.done {
			return stateWaiting
		}
	}
	return stateQueued
}

// pendingDeps returns the dependencies of c that have not settled.
func (r *reply) pendingDeps(c *call) []int {
	var out []int
	for _, d := range c.waitsFor {
		if dep := r.get(d); dep != nil && !dep.done {
			out = append(out, d)
		}
	}
	return out
}

// apply updates the reply with one event of its turn.
func (r *reply) apply(e runtime.Event) {
	if r == nil {
		return
	}
	r.version++
	switch ev := e.(type) {
	case runtime.CallDecision:
		c := r.get(ev.Index)
		if c == nil || ev.Turn != r.turn {
			return
		}
		c.decisions = append(c.decisions, decision{what: ev.Decision, by: text.CleanLine(ev.By), reason: text.CleanLine(ev.Reason),
			who: approval.ProvenanceOf(ev)})
		c.asking = ev.Decision == runtime.DecisionAsk
		if !c.asking {
			c.req = nil
		}
		if ev.Decision == runtime.DecisionRun {
			c.edited = ev.Edited
		}
		c.version++
	case runtime.CallPreviewed:
		c := r.get(ev.Index)
		if c == nil || ev.Turn != r.turn {
			return
		}
		c.change = newChange(ev)
		c.version++
	case runtime.PreviewStale:
		c := r.get(ev.Index)
		if c == nil || ev.Turn != r.turn {
			return
		}
		// The approval was withdrawn: the call asks again.
		c.stale, c.answered, c.edited = text.CleanLine(ev.Why), "", false
		c.version++
	case runtime.CallStarted:
		c := r.get(ev.Index)
		if c == nil || ev.Turn != r.turn {
			return
		}
		c.started, c.attempt, c.retrying = true, ev.Attempt, false
		if ev.Attempt <= 1 || c.startedAt.IsZero() {
			c.startedAt = ev.At.Time
		}
		c.req = nil
		c.version++
	case runtime.CallRetried:
		c := r.get(ev.Index)
		if c == nil || ev.Turn != r.turn {
			return
		}
		c.retries = append(c.retries, text.CleanLine(fmt.Sprintf("attempt %d failed (%s); retrying in %d ms", ev.Attempt-1, ev.Failure, ev.BackoffMS)))
		c.retrying, c.failure = true, text.CleanLine(ev.Failure)
		c.backoff = time.Duration(ev.BackoffMS) * time.Millisecond
		c.attempt = ev.Attempt - 1
		c.maxAttempts = ev.MaxAttempts
		c.version++
	case runtime.CallFinished:
		c := r.get(ev.Index)
		if c == nil || ev.Turn != r.turn {
			return
		}
		c.done, c.outcome, c.result = true, ev.Outcome, ev.Result
		c.notFinished, c.ranBody, c.why = ev.NotFinished, ev.Started, text.CleanLine(ev.Why)
		c.duration = time.Duration(ev.DurationMS) * time.Millisecond
		if ev.Attempts > 0 {
			c.attempt = ev.Attempts
		}
		if ev.Kind != nil {
			c.kind = text.CleanLine(*ev.Kind)
		}
		c.req = nil
		c.asking = false
		c.retrying = false
		c.diffstat = ev.Diffstat
		c.whole = ev.Whole
		c.version++
	case runtime.TurnEnded:
		if ev.Turn == r.turn {
			r.ended = true
		}
	}
}

// invalidResults records what the model read about an invalid reply.
func (r *reply) invalidResults(ev runtime.InvalidReply) {
	for i, text := range ev.Results {
		if c := r.get(i); c != nil {
			c.done, c.outcome, c.result = true, "invalid", text
			c.version++
		}
	}
}

// attach puts an approval request on its call; it reports whether the call
// was found.
func (r *reply) attach(req approvalRequest) bool {
	if r == nil {
		return false
	}
	r.version++
	c := r.get(req.req.Index)
	if c == nil || r.turn != req.req.Turn || c.done {
		return false
	}
	rq := req
	c.req = &rq
	c.asking = true
	c.askedAt = req.since
	if c.change == nil && req.req.Preview != nil {
		c.change = changeOf(*req.req.Preview)
	}
	c.version++
	return true
}

// detach removes the request with id, if a call holds it.
func (r *reply) detach(id uint64) {
	if r == nil {
		return
	}
	r.version++
	for _, c := range r.calls {
		if c.req != nil && c.req.id == id {
			c.req = nil
			c.version++
		}
	}
}

// answer sends the person's answer to c's request. It never blocks: the
// request's channel has room for one answer, and only one is ever sent.
func (c *call) answer(a approval.Answer) bool {
	if c.req == nil {
		return false
	}
	c.req.answer <- a
	c.req = nil
	if a.Approve {
		c.answered = "approved"
	} else {
		c.answered = "skipped"
	}
	c.version++
	return true
}

// pending returns the calls with an open approval request, in display
// order; batch > 0 keeps only that batch.
func (r *reply) pending(batch int) []*call {
	if r == nil {
		return nil
	}
	var out []*call
	for _, i := range r.order {
		c := r.calls[i]
		if c.req != nil && (batch == 0 || c.batch == batch) {
			out = append(out, c)
		}
	}
	return out
}

// counts returns how many calls run, wait (queued, waiting for others, or
// for a decision to take effect) and need approval.
func (r *reply) counts() (running, waiting, asking int) {
	if r == nil {
		return
	}
	for _, c := range r.calls {
		switch r.state(c) {
		case stateRunning:
			running++
		case stateQueued, stateWaiting, stateAnswered:
			waiting++
		case stateAsking:
			asking++
		}
	}
	return
}

// anyRunning reports whether a call runs or is about to.
func (r *reply) anyRunning() bool {
	if r == nil {
		return false
	}
	for _, c := range r.calls {
		if c.started && !c.done {
			return true
		}
	}
	return false
}

// badge renders a call's footprint as R, W or I with its scope relative to
// the workspace: "R pager.go", "W *", "I"; or, for a call its tool can
// sandbox, S with what it may write ("S . +1") when it runs in the sandbox,
// and "W * unsandboxed" when it does not.
func badge(c *call, ws string) string {
	t := c.touches
	switch {
	case t == nil:
		return "—"
	case c.sandbox != nil && c.sandbox.Sandboxed:
		return sandboxBadge(c.sandbox, ws)
	case c.sandbox != nil:
		return footprintBadge(t, ws) + " unsandboxed"
	}
	return footprintBadge(t, ws)
}

// footprintBadge renders a footprint as R, W or I with its scope.
func footprintBadge(t *tool.Touches, ws string) string {
	letter := map[tool.Access]string{tool.AccessReads: "R", tool.AccessWrites: "W", tool.AccessIndependent: "I"}[t.Access]
	if t.Access == tool.AccessIndependent {
		return letter
	}
	switch {
	case t.Scope.IsAnything():
		return letter + " *"
	case t.Scope.IsEmpty():
		return letter + " ∅"
	}
	paths := t.Scope.PathList()
	s := letter + " " + text.CleanLine(text.Relative(ws, paths[0]))
	if len(paths) > 1 {
		s += fmt.Sprintf(" +%d", len(paths)-1)
	}
	return s
}

// footprint describes a footprint in words for the detail pane.
func footprint(t *tool.Touches, ws string) string {
	if t == nil {
		return "none: the call was not valid"
	}
	switch t.Access {
	case tool.AccessIndependent:
		return "independent: changes nothing the reply's other calls see"
	}
	var scope string
	switch {
	case t.Scope.IsAnything():
		scope = "anything"
	case t.Scope.IsEmpty():
		scope = "nothing"
	default:
		paths := t.Scope.PathList()
		for i, p := range paths {
			paths[i] = text.Relative(ws, p)
		}
		scope = strings.Join(paths, ", ")
	}
	return text.CleanLine(t.Access.String() + " " + scope)
}
