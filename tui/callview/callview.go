// Package callview is what the console knows of the reply on the board and
// its calls: each call's footprint, dependencies, decisions, approval
// request, preview, state and outcome, as the runtime's events report them,
// and the words and symbols that say where each call stands.
//
// It has no screen of its own: the board, the detail pane, the transcript
// and the autopilot all read the same values, so they cannot disagree about
// a call. The values are changed only by Reply.Apply, Reply.Attach,
// Reply.Detach and Call.MarkAnswered, which the console calls on its event
// loop; everything else only reads them.
package callview

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

// State is where a call stands, as the board shows it.
type State int

// The call states. Every state has a symbol and a word, so none relies on
// colour.
const (
	StateQueued     State = iota // cleared to run, waiting for a slot (or not yet decided)
	StateWaiting                 // waits for earlier calls it conflicts with
	StateAsking                  // needs the person's approval
	StateAnswered                // the person answered; the runtime is acting on it
	StateRunning                 // the body is running
	StateSucceeded               // outcome success
	StateError                   // outcome error, with a failure kind
	StateSkipped                 // outcome skipped: the body never ran
	StateDenied                  // outcome denied: the tool refused
	StateNotRun                  // an early end caught it before it started
	StatePartly                  // an early end caught it running; it may have partly run
	StateUnfinished              // an early end caught it running; it only reads
	StateInvalid                 // part of an invalid reply; nothing ran
)

// Decision is one hook decision about a call: what was decided, by whom
// and why, cleaned for display, and who decided as a value.
type Decision struct {
	What, By, Reason string
	Who              approval.Provenance
}

// Call is one call of a reply as the console knows it. All strings are
// clean, but Args and Result, which are kept as the model sent and read them
// and are cleaned where they are drawn.
type Call struct {
	Turn, Index int
	Name        string
	Args        json.RawMessage
	Short       string
	Touches     *tool.Touches
	Sandbox     *tool.Sandbox
	WaitsFor    []int
	Batch       int
	// Origins are the parts of the arguments that came from untrusted
	// results earlier in the session, as the planned call, its decisions
	// and its approval request reported them; raw, cleaned where drawn.
	Origins []tool.Origin
	// RewrittenBy names the hook that rewrote the arguments (its command,
	// clean), and RewrittenByWorkspace says it is the workspace's own
	// rather than the person's; Sent is what the model sent, raw. Args
	// are then the rewrite, which is what runs.
	RewrittenBy          string
	RewrittenByWorkspace bool
	Sent                 string

	Decisions []Decision
	Asking    bool      // the last decision was "ask"
	AskedAt   time.Time // when the request reached the console
	Req       *Request
	Answered  string // "approved" or "skipped" once the person answered

	Started   bool
	StartedAt time.Time
	Attempt   int
	// MaxAttempts is the retry policy's total, once a retry told it; zero
	// while unknown.
	MaxAttempts int
	Retries     []string
	// Retrying says a failed attempt will be repeated once Backoff has
	// passed; Failure is what that attempt failed with.
	Retrying bool
	Failure  string
	Backoff  time.Duration

	Done    bool
	Outcome string
	Kind    string
	// Code is an error's machine-readable code, clean, such as a shell
	// command's "exit:3" (see tool.ProcessEnd).
	Code        string
	Result      string // the exact text the model read, raw; cleaned when drawn
	NotFinished bool
	// Why is what ended a not-finished call early, clean; empty in
	// journals written before events carried it.
	Why      string
	RanBody  bool
	Duration time.Duration

	// Change is the call's preview as last published; Stale says why the
	// person's approval was withdrawn, when it was; Edited says the
	// person approved it with their own version; Diffstat is what a
	// finished write added and removed.
	Change   *Change
	Stale    string
	Edited   bool
	Diffstat *runtime.Diffstat
	// Whole is the output's size when the model read it cut or summarised.
	Whole int

	// Task is the task the call runs, for a call named task; In is the
	// task whose agent made the call. Both are nil for the session's own
	// calls that start no task.
	Task, In *Task

	// Version changes whenever anything above does, so the detail pane
	// knows when its cached lines are stale.
	Version int
}

// AttemptOf names attempt n, with the total when a retry has told it.
func (c *Call) AttemptOf(n int) string {
	if c.MaxAttempts > 0 {
		return fmt.Sprintf("%d of %d", n, c.MaxAttempts)
	}
	return strconv.Itoa(n)
}

// EndedBy says what ended c early, as "the person stopped the turn" or "the
// session restarted"; fallback stands in when the event did not say.
func (c *Call) EndedBy(fallback string) string {
	if c.Why != "" {
		return c.Why
	}
	return fallback
}

// Reply is the active reply: the calls the board shows.
type Reply struct {
	Turn    int
	Calls   []*Call
	Invalid bool
	Cut     string // the tool a cut reply was stopped inside, cleaned
	Ended   bool   // TurnEnded arrived: every call has settled
	// Order is the display order: by batch, then by index.
	Order []int
	// Version changes with every event applied to the reply.
	Version int
}

// NewReply builds the board's reply from a ReplyReceived event.
func NewReply(ev runtime.ReplyReceived) *Reply {
	r := &Reply{Turn: ev.Turn}
	for _, pc := range ev.Calls {
		c := &Call{
			Turn: ev.Turn, Index: pc.Index, Name: text.CleanLine(pc.Name), Args: pc.Args, Short: text.ShortArgs(pc.Args),
			Touches: pc.Touches, Sandbox: pc.Sandbox, WaitsFor: slices.Clone(pc.WaitsFor), Batch: pc.Batch,
		}
		c.addOrigins(pc.Provenance)
		if pc.RewrittenBy != "" {
			c.RewrittenBy, c.RewrittenByWorkspace, c.Sent = text.CleanLine(approval.ParseDecider(pc.RewrittenBy).Label), pc.RewrittenByWorkspace, pc.Raw
			// The row says a hook rewrote what runs.
			c.Short = "✎ " + c.Short
		}
		if pc.Touches == nil {
			r.Invalid = true
		}
		r.Calls = append(r.Calls, c)
	}
	if ev.Cut != nil {
		r.Cut = text.CleanLine(ev.Cut.Name)
		r.Invalid = true
	}
	r.Order = make([]int, len(r.Calls))
	for i := range r.Order {
		r.Order[i] = i
	}
	slices.SortStableFunc(r.Order, func(a, b int) int { return r.Calls[a].Batch - r.Calls[b].Batch })
	return r
}

// Get returns the call with the given index, or nil.
func (r *Reply) Get(index int) *Call {
	if r == nil || index < 0 {
		return nil
	}
	if index < len(r.Calls) && r.Calls[index].Index == index {
		return r.Calls[index]
	}
	// A reply made of some of a turn's calls (LoneReply) holds them
	// out of place.
	for _, c := range r.Calls {
		if c.Index == index {
			return c
		}
	}
	return nil
}

// State returns where c stands.
func (r *Reply) State(c *Call) State {
	switch {
	case c.Done:
		switch {
		case c.NotFinished && !c.RanBody:
			return StateNotRun
		case c.NotFinished && c.Touches != nil && c.Touches.ReadsOnly():
			return StateUnfinished
		case c.NotFinished:
			return StatePartly
		case c.Outcome == "invalid":
			return StateInvalid
		case c.Outcome == "success":
			return StateSucceeded
		case c.Outcome == "skipped":
			return StateSkipped
		case c.Outcome == "denied":
			return StateDenied
		}
		return StateError
	case r.Invalid:
		return StateInvalid
	case c.Started:
		return StateRunning
	case c.Asking && c.Answered != "":
		return StateAnswered
	case c.Asking:
		return StateAsking
	}
	for _, d := range c.WaitsFor {
		if dep := r.Get(d); dep != nil && !dep.Done {
			return StateWaiting
		}
	}
	return StateQueued
}

// PendingDeps returns the dependencies of c that have not settled.
func (r *Reply) PendingDeps(c *Call) []int {
	var out []int
	for _, d := range c.WaitsFor {
		if dep := r.Get(d); dep != nil && !dep.Done {
			out = append(out, d)
		}
	}
	return out
}

// Apply updates the reply with one event of its turn.
func (r *Reply) Apply(e runtime.Event) {
	if r == nil {
		return
	}
	r.Version++
	switch ev := e.(type) {
	case runtime.CallDecision:
		c := r.Get(ev.Index)
		if c == nil || ev.Turn != r.Turn {
			return
		}
		c.Decisions = append(c.Decisions, Decision{What: ev.Decision, By: text.CleanLine(ev.By), Reason: text.CleanLine(ev.Reason),
			Who: approval.ProvenanceOf(ev)})
		c.addOrigins(ev.Provenance)
		c.Asking = ev.Decision == runtime.DecisionAsk
		if !c.Asking {
			c.Req = nil
		}
		if ev.Decision == runtime.DecisionRun {
			c.Edited = ev.Edited
		}
		c.Version++
	case runtime.CallPreviewed:
		c := r.Get(ev.Index)
		if c == nil || ev.Turn != r.Turn {
			return
		}
		c.Change = NewChange(ev)
		c.Version++
	case runtime.PreviewStale:
		c := r.Get(ev.Index)
		if c == nil || ev.Turn != r.Turn {
			return
		}
		// The approval was withdrawn: the call asks again.
		c.Stale, c.Answered, c.Edited = text.CleanLine(ev.Why), "", false
		c.Version++
	case runtime.CallStarted:
		c := r.Get(ev.Index)
		if c == nil || ev.Turn != r.Turn {
			return
		}
		c.Started, c.Attempt, c.Retrying = true, ev.Attempt, false
		if ev.Attempt <= 1 || c.StartedAt.IsZero() {
			c.StartedAt = ev.At.Time
		}
		c.Req = nil
		c.Version++
	case runtime.CallRetried:
		c := r.Get(ev.Index)
		if c == nil || ev.Turn != r.Turn {
			return
		}
		c.Retries = append(c.Retries, text.CleanLine(fmt.Sprintf("attempt %d failed (%s); retrying in %d ms", ev.Attempt-1, ev.Failure, ev.BackoffMS)))
		c.Retrying, c.Failure = true, text.CleanLine(ev.Failure)
		c.Backoff = time.Duration(ev.BackoffMS) * time.Millisecond
		c.Attempt = ev.Attempt - 1
		c.MaxAttempts = ev.MaxAttempts
		c.Version++
	case runtime.CallFinished:
		c := r.Get(ev.Index)
		if c == nil || ev.Turn != r.Turn {
			return
		}
		c.Done, c.Outcome, c.Result = true, ev.Outcome, ev.Result
		c.NotFinished, c.RanBody, c.Why = ev.NotFinished, ev.Started, text.CleanLine(ev.Why)
		c.Duration = time.Duration(ev.DurationMS) * time.Millisecond
		if ev.Attempts > 0 {
			c.Attempt = ev.Attempts
		}
		if ev.Kind != nil {
			c.Kind = text.CleanLine(*ev.Kind)
		}
		c.Code = text.CleanLine(ev.Code)
		c.Req = nil
		c.Asking = false
		c.Retrying = false
		c.Diffstat = ev.Diffstat
		c.Whole = ev.Whole
		c.Version++
	case runtime.TurnEnded:
		if ev.Turn == r.Turn {
			r.Ended = true
		}
	}
}

// InvalidResults records what the model read about an invalid reply.
func (r *Reply) InvalidResults(ev runtime.InvalidReply) {
	for i, result := range ev.Results {
		if c := r.Get(i); c != nil {
			c.Done, c.Outcome, c.Result = true, "invalid", result
			c.Version++
		}
	}
}

// Request is an approval request that waits for the person, as the board
// shows it. Where its answer goes is the console's own business: the view
// of a call cannot answer it.
type Request struct {
	// ID names the request among the session's.
	ID uint64
	// Req is what the policy asks about the call.
	Req approval.Request
	// Since is when the request reached the console.
	Since time.Time
}

// Attach puts an approval request on its call; it reports whether the call
// was found.
func (r *Reply) Attach(req Request) bool {
	if r == nil {
		return false
	}
	r.Version++
	c := r.Get(req.Req.Index)
	if c == nil || r.Turn != req.Req.Turn || c.Done {
		return false
	}
	rq := req
	c.Req = &rq
	c.Asking = true
	c.AskedAt = req.Since
	c.addOrigins(req.Req.Provenance)
	if c.Change == nil && req.Req.Preview != nil {
		c.Change = ChangeOf(*req.Req.Preview)
	}
	c.Version++
	return true
}

// Detach removes the request with id, if a call holds it.
func (r *Reply) Detach(id uint64) {
	if r == nil {
		return
	}
	r.Version++
	for _, c := range r.Calls {
		if c.Req != nil && c.Req.ID == id {
			c.Req = nil
			c.Version++
		}
	}
}

// MarkAnswered records that the person answered c's request, approving or
// skipping the call, once the console has sent the answer: the request
// leaves the call, which says it was answered until the runtime acts on it.
func (c *Call) MarkAnswered(approved bool) {
	c.Req = nil
	c.Answered = "skipped"
	if approved {
		c.Answered = "approved"
	}
	c.Version++
}

// Pending returns the calls with an open approval request, in display
// order; batch > 0 keeps only that batch.
func (r *Reply) Pending(batch int) []*Call {
	if r == nil {
		return nil
	}
	var out []*Call
	for _, i := range r.Order {
		c := r.Calls[i]
		if c.Req != nil && (batch == 0 || c.Batch == batch) {
			out = append(out, c)
		}
	}
	return out
}

// Counts returns how many calls run, wait (queued, waiting for others, or
// for a decision to take effect) and need approval.
func (r *Reply) Counts() (running, waiting, asking int) {
	if r == nil {
		return
	}
	for _, c := range r.Calls {
		switch r.State(c) {
		case StateRunning:
			running++
		case StateQueued, StateWaiting, StateAnswered:
			waiting++
		case StateAsking:
			asking++
		}
	}
	return
}

// AnyRunning reports whether a call runs or is about to.
func (r *Reply) AnyRunning() bool {
	if r == nil {
		return false
	}
	for _, c := range r.Calls {
		if c.Started && !c.Done {
			return true
		}
	}
	return false
}

// Badge renders a call's footprint as R, W or I with its scope relative to
// the workspace: "R pager.go", "W *", "I"; or, for a call its tool can
// sandbox, S with what it may write ("S . +1") when it runs in the sandbox,
// and "W * unsandboxed" when it does not.
func Badge(c *Call, ws string) string {
	t := c.Touches
	switch {
	case t == nil:
		return "—"
	case c.Sandbox != nil && c.Sandbox.Sandboxed:
		return SandboxBadge(c.Sandbox, ws)
	case c.Sandbox != nil:
		return FootprintBadge(t, ws) + " unsandboxed"
	}
	return FootprintBadge(t, ws)
}

// FootprintBadge renders a footprint as R, W or I with its scope.
func FootprintBadge(t *tool.Touches, ws string) string {
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

// Footprint describes a footprint in words for the detail pane.
func Footprint(t *tool.Touches, ws string) string {
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
