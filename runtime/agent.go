package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Budgets bound a run. Exhausting one ends the run as failed, with attempts
// that say which budget ran out.
type Budgets struct {
	// MaxTurns is the number of model replies a run may use.
	MaxTurns int
	// MaxTime is the agent's own time a run may use: time spent waiting for
	// the person does not count.
	MaxTime time.Duration
	// MaxInvalidReplies is how many invalid replies in a row end the run.
	MaxInvalidReplies int
	// CallTimeout bounds each attempt of each call.
	CallTimeout time.Duration
}

// DefaultBudgets returns the default budgets: 80 turns, 15 minutes of agent
// time, 3 invalid replies in a row, and 10 minutes a call.
func DefaultBudgets() Budgets {
	return Budgets{MaxTurns: 80, MaxTime: 15 * time.Minute, MaxInvalidReplies: 3, CallTimeout: 10 * time.Minute}
}

// DefaultMaxParallel is how many calls run at once when Agent.MaxParallel is
// not set.
const DefaultMaxParallel = 8

// DefaultSystemPrompt tells the model how this runtime treats its calls.
const DefaultSystemPrompt = `You are an agent working in a software workspace through tools, watched by a person in a terminal.
Calls you make in one reply run side by side unless one changes what another reads or writes, so batch independent calls.
Some calls need the person's approval; a skipped call did not run, and its result says why.
When the goal is reached, call finish with a short summary and any structured data worth keeping.
When the goal is ambiguous or too risky to attempt as stated, call ask_user with one clear question.
Use remember to keep values that belong in the final result.`

// Agent runs a tool-using model. Its fields are set before the first Run
// and not changed while a run is going.
type Agent struct {
	// Model answers each turn.
	Model model.Model
	// Catalog is the tools the model may call at the first turn; see
	// SetCatalog for changing it while the session goes on.
	Catalog *Catalog
	// Hooks review every call when its reply arrives, in order.
	Hooks []Hook
	// Sink receives the run's events; nil discards them.
	Sink Sink
	// MaxParallel bounds how many calls run at once; zero means
	// DefaultMaxParallel.
	MaxParallel int
	// Budgets bound each run; zero fields take the defaults.
	Budgets Budgets
	// System is the system prompt; empty means DefaultSystemPrompt.
	System string
	// MaxOutputTokens bounds each reply; zero means the provider default.
	MaxOutputTokens int
	// MaxResultBytes bounds what the model reads of one call's result,
	// whatever the tool: a longer one keeps its start and end, with a note
	// saying how much was cut and how to get the rest. Zero means
	// feedback.DefaultMaxResultBytes; negative, no bound.
	MaxResultBytes int
	// Clock tells the time; nil means the system clock.
	Clock Clock
	// Mode names the approval mode for the run_started event.
	Mode func() string
	// StopGrace is how long running calls get to return after an early
	// end; zero means two seconds.
	StopGrace time.Duration
	// Context keeps the conversation within the model's context window:
	// the window, and the share of it at which the conversation is
	// compacted. The zero value accounts for nothing and compacts only to
	// recover from a provider's overflow error.
	Context ContextPolicy
	// Durable, when set, reports an error once the events the run publishes
	// can no longer be recorded, such as a session journal on a full disk.
	// The runtime asks it after publishing the intent of each effect (a
	// model request, a call attempt). An effect whose intent may not be on
	// disk could be performed twice, or misreported, after a crash, so from
	// the first error on nothing more is performed: calls not yet started
	// are reported as not run and the run ends failed, saying why.
	Durable func() error

	emitMu sync.Mutex // serialises calls to Sink

	// replaced holds a catalogue set by SetCatalog, which takes effect at
	// the next turn.
	replaced atomic.Pointer[Catalog]
	// contextSet holds a policy set by SetContextPolicy, which takes
	// effect at the next turn.
	contextSet atomic.Pointer[ContextPolicy]
}

// SetContextPolicy replaces Context from the next turn on, such as when the
// person switches to a model with another window. It is safe to call at any
// time, from any goroutine.
func (a *Agent) SetContextPolicy(p ContextPolicy) { a.contextSet.Store(&p) }

// ContextPolicy returns the context policy the next turn follows: the last
// one SetContextPolicy gave, or Context.
func (a *Agent) ContextPolicy() ContextPolicy {
	if p := a.contextSet.Load(); p != nil {
		return *p
	}
	return a.Context
}

// SetCatalog replaces the catalogue from the next model turn on, such as when
// an MCP server's tool list changes. It is safe to call at any time, from any
// goroutine; the reply being run keeps the catalogue it was checked against.
func (a *Agent) SetCatalog(c *Catalog) { a.replaced.Store(c) }

// CurrentCatalog returns the catalogue the next turn will offer the model:
// the last one SetCatalog gave, or Catalog.
func (a *Agent) CurrentCatalog() *Catalog { return a.catalog() }

// catalog returns the catalogue for a new turn.
func (a *Agent) catalog() *Catalog {
	if c := a.replaced.Load(); c != nil {
		return c
	}
	return a.Catalog
}

func (a *Agent) clock() Clock {
	if a.Clock == nil {
		return systemClock{}
	}
	return a.Clock
}

func (a *Agent) maxParallel() int {
	if a.MaxParallel <= 0 {
		return DefaultMaxParallel
	}
	return a.MaxParallel
}

// durable returns the error that forbids further effects, if any.
func (a *Agent) durable() error {
	if a.Durable == nil {
		return nil
	}
	return a.Durable()
}

// unrecorded is why calls were not run once the record of the run failed.
func unrecorded(err error) string {
	return fmt.Sprintf("the session record cannot be written (%v), and nothing runs without one", err)
}

func (a *Agent) stopGrace() time.Duration {
	if a.StopGrace <= 0 {
		return 2 * time.Second
	}
	return a.StopGrace
}

func (a *Agent) budgets() Budgets {
	b, d := a.Budgets, DefaultBudgets()
	if b.MaxTurns <= 0 {
		b.MaxTurns = d.MaxTurns
	}
	if b.MaxTime <= 0 {
		b.MaxTime = d.MaxTime
	}
	if b.MaxInvalidReplies <= 0 {
		b.MaxInvalidReplies = d.MaxInvalidReplies
	}
	if b.CallTimeout <= 0 {
		b.CallTimeout = d.CallTimeout
	}
	return b
}

func (a *Agent) emit(e Event) {
	if a.Sink == nil {
		return
	}
	a.emitMu.Lock()
	defer a.emitMu.Unlock()
	a.Sink(e)
}

// Session is one conversation with the agent, which may span several runs: a
// goal, then answers to clarifications and follow-ups. It is used by one run
// at a time.
type Session struct {
	// ID identifies the session.
	ID string
	// Goal is the first thing the person asked for.
	Goal string
	// Messages is the conversation so far.
	Messages []model.Message
	// Memory is what remember stored.
	Memory *Memory
	// Usage is the session's token total.
	Usage model.Usage

	// meter estimates the size of the next request; it is used by one run
	// at a time, as the session is.
	meter meter
}

// NewSession returns an empty session.
func NewSession(id string) *Session { return &Session{ID: id, Memory: NewMemory()} }

// Turns returns how many model replies the session has had, those a
// compaction summarised included.
func (s *Session) Turns() int {
	n := 0
	for _, m := range s.Messages {
		n += m.Summarizes
		if m.Role == model.RoleAssistant {
			n++
		}
	}
	return n
}

// stopCause is the cause an early end carries; see Stop and StopReason.
type stopCause struct{ why string }

func (s stopCause) Error() string { return s.why }

// Stop returns a cause for context.WithCancelCause that tells the model why
// its calls did not finish, such as "the person stopped the turn".
func Stop(why string) error { return stopCause{why: why} }

// StopReason returns why ctx ended, as the model should read it.
func StopReason(ctx context.Context) string {
	var s stopCause
	if errors.As(context.Cause(ctx), &s) {
		return s.why
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "the run ran out of time"
	}
	return "the turn was stopped"
}

// run is the state of one Run call.
type run struct {
	agent    *Agent
	session  *Session
	budgets  Budgets
	started  time.Time
	waited   time.Duration // time spent waiting for the person
	attempts []string      // recent error messages, oldest first
	turns    int
	cat      *Catalog // the catalogue of the current turn
}

func (r *run) note(msg string) {
	r.attempts = append(r.attempts, msg)
	if len(r.attempts) > 3 {
		r.attempts = r.attempts[len(r.attempts)-3:]
	}
}

func (r *run) fail(step string) GoalOutcome {
	return Failed(r.session.Goal, step, r.attempts)
}

// Run appends input to the session as a user message and runs the agent
// until the run ends: the model finishes or asks a question, a budget runs
// out, the model fails, or ctx ends (an early end, see Stop). Every call the
// model made gets a result in the session, whatever happens.
func (a *Agent) Run(ctx context.Context, s *Session, input string) GoalOutcome {
	if s.Memory == nil {
		s.Memory = NewMemory()
	}
	if s.Goal == "" {
		s.Goal = input
	}
	s.Messages = append(s.Messages, model.Message{Role: model.RoleUser, Text: input})
	mode := ""
	if a.Mode != nil {
		mode = a.Mode()
	}
	a.emit(RunStarted{Session: s.ID, Goal: s.Goal, Input: input, Model: a.Model.Name(), Mode: mode, At: Time{a.clock().Now()}})
	r := &run{agent: a, session: s, budgets: a.budgets(), started: a.clock().Now()}
	out := r.loop(ctx)
	a.emit(RunFinished{Outcome: out, At: Time{a.clock().Now()}})
	return out
}

func (r *run) loop(ctx context.Context) GoalOutcome {
	a, s := r.agent, r.session
	invalidInARow := 0
	overflowTurn := 0 // the turn whose overflow was answered by compacting
	for {
		turn := s.Turns() + 1
		if r.turns >= r.budgets.MaxTurns {
			r.note(fmt.Sprintf("the run used all %d of its model turns without finishing", r.budgets.MaxTurns))
			return r.fail(fmt.Sprintf("turn %d: model reply", turn))
		}
		if used := a.clock().Now().Sub(r.started) - r.waited; used >= r.budgets.MaxTime {
			r.note(fmt.Sprintf("the run used its %s of agent time without finishing", r.budgets.MaxTime))
			return r.fail(fmt.Sprintf("turn %d: model reply", turn))
		}
		if ctx.Err() != nil {
			return r.stopped(ctx, fmt.Sprintf("turn %d: model reply", turn))
		}
		if err := a.durable(); err != nil {
			r.note(unrecorded(err))
			return r.fail(fmt.Sprintf("turn %d: model reply", turn))
		}
		r.cat = a.catalog()
		r.compactIfNeeded(ctx, turn)
		if ctx.Err() != nil {
			return r.stopped(ctx, fmt.Sprintf("turn %d: compacting the conversation", turn))
		}
		a.emit(TurnStarted{Turn: turn, At: Time{a.clock().Now()}})
		if err := a.durable(); err != nil {
			// The request's intent may not be on disk, so it is not sent.
			r.note(unrecorded(err))
			a.emit(TurnEnded{Turn: turn})
			return r.fail(fmt.Sprintf("turn %d: model reply", turn))
		}
		reply, err := a.Model.Reply(ctx, r.request(), func(d model.Delta) {
			if d.Retry != nil {
				a.emit(modelRetry(turn, *d.Retry, a.clock().Now()))
				return
			}
			a.emit(TextDelta{Turn: turn, Text: d.Text})
		})
		replied := a.clock().Now()
		r.turns++
		if err != nil {
			if ctx.Err() != nil {
				return r.stopped(ctx, fmt.Sprintf("turn %d: model reply", turn))
			}
			if errors.Is(err, model.ErrContextOverflow) {
				if overflowTurn == turn {
					r.note(r.overflowed(err, true, nil))
					return r.fail(fmt.Sprintf("turn %d: model reply", turn))
				}
				// The estimate missed: compact and ask again, once.
				overflowTurn = turn
				cerr := r.compact(ctx, turn, CompactOverflow, "")
				if cerr == nil {
					r.turns--
					continue
				}
				if ctx.Err() != nil {
					return r.stopped(ctx, fmt.Sprintf("turn %d: compacting the conversation", turn))
				}
				r.note(r.overflowed(err, false, cerr))
				return r.fail(fmt.Sprintf("turn %d: model reply", turn))
			}
			r.note(modelFailed(err))
			return r.fail(fmt.Sprintf("turn %d: model reply", turn))
		}
		s.Usage = s.Usage.Add(reply.Usage)
		s.meter.report(reply.Usage, len(s.Messages)+1)
		a.emit(UsageReported{Turn: turn, Usage: reply.Usage, Total: s.Usage,
			Context: a.ContextPolicy().use(reply.Usage.InputTokens + reply.Usage.OutputTokens), At: Time{replied}})

		outcome, invalid, ended := r.handleReply(ctx, turn, reply)
		a.emit(TurnEnded{Turn: turn})
		if ended {
			return outcome
		}
		if !invalid {
			invalidInARow = 0
			continue
		}
		invalidInARow++
		if invalidInARow >= r.budgets.MaxInvalidReplies {
			return r.fail(fmt.Sprintf("turn %d: model reply (%d invalid replies in a row)", turn, invalidInARow))
		}
	}
}

func (r *run) stopped(ctx context.Context, step string) GoalOutcome {
	r.note("stopped: " + StopReason(ctx))
	return r.fail(step)
}

func (r *run) request() model.Request {
	system := r.agent.System
	if system == "" {
		system = DefaultSystemPrompt
	}
	return model.Request{
		System: system, Messages: r.session.Messages, Tools: r.cat.Declarations(),
		MaxOutputTokens: r.agent.MaxOutputTokens,
	}
}

// handleReply validates and runs one reply. It reports whether the reply was
// invalid, and whether the run ended with it (and how).
func (r *run) handleReply(ctx context.Context, turn int, reply model.Reply) (out GoalOutcome, invalid, ended bool) {
	a, s := r.agent, r.session
	s.Messages = append(s.Messages, model.Message{Role: model.RoleAssistant, Text: reply.Text, Calls: reply.Calls, Cut: reply.Cut})

	prepared, refusals, anyRefused := r.prepareAll(reply.Calls)
	if anyRefused || reply.Cut != nil {
		a.emit(plannedReply(turn, reply, nil, replyPlan{}))
		r.answerInvalid(turn, reply, refusals)
		return GoalOutcome{}, true, false
	}

	if len(reply.Calls) == 0 && reply.Stop == model.StopOutputLimit {
		// Text cut off by the output limit is not a summary to end on: the
		// model is told, and tries again within the invalid-reply budget.
		a.emit(plannedReply(turn, reply, nil, replyPlan{}))
		r.note("the reply was cut off by the output limit")
		a.emit(InvalidReply{Turn: turn, Results: []string{feedback.TextCut}})
		s.Messages = append(s.Messages, model.Message{Role: model.RoleUser, Text: feedback.TextCut})
		return GoalOutcome{}, true, false
	}
	if len(reply.Calls) == 0 {
		a.emit(plannedReply(turn, reply, nil, replyPlan{}))
		return Succeeded(textSummary(reply.Text), mergeData(s.Memory.Snapshot(), nil)), false, true
	}

	rr := r.prepareReply(ctx, turn, prepared)
	final := make([]*Prepared, len(rr.calls))
	for i, c := range rr.calls {
		final[i] = c.p
	}
	a.emit(plannedReply(turn, reply, final, rr.plan))
	rr.run(ctx)
	r.waited += rr.personWait
	results := rr.results()
	s.Messages = append(s.Messages, model.Message{Role: model.RoleTool, Results: results})
	for _, c := range rr.calls {
		if f := c.outcome.Failure(); f != nil {
			r.note(fmt.Sprintf("%s (call %d of turn %d): %s", c.p.Call.Name, c.index+1, turn, f))
		}
	}
	if ctx.Err() != nil {
		return r.stopped(ctx, fmt.Sprintf("turn %d: the reply's calls", turn)), false, true
	}
	if rr.broken != nil {
		r.note(unrecorded(rr.broken))
		return r.fail(fmt.Sprintf("turn %d: the reply's calls", turn)), false, true
	}
	if out, ok := r.controlOutcome(rr); ok {
		return out, false, true
	}
	return GoalOutcome{}, false, false
}

// prepareAll checks every call of a reply against the turn's catalogue. For a
// call that cannot run, refusals holds what the model reads.
func (r *run) prepareAll(calls []tool.Call) (prepared []*Prepared, refusals []string, anyRefused bool) {
	prepared = make([]*Prepared, len(calls))
	refusals = make([]string, len(calls))
	for i, c := range calls {
		p, err := r.cat.Prepare(c)
		var refused *RefusedError
		switch {
		case errors.As(err, &refused):
			refusals[i], anyRefused = refused.Feedback, true
		case err != nil:
			refusals[i], anyRefused = err.Error(), true
		default:
			prepared[i] = p
		}
	}
	return prepared, refusals, anyRefused
}

// answerInvalid gives the model the results of a reply that cannot run and
// publishes them.
func (r *run) answerInvalid(turn int, reply model.Reply, refusals []string) {
	results := r.invalidResults(reply, refusals)
	texts := make([]string, len(results))
	for i, res := range results {
		texts[i] = res.Content
	}
	r.agent.emit(InvalidReply{Turn: turn, Results: texts})
	r.session.Messages = append(r.session.Messages, model.Message{Role: model.RoleTool, Results: results})
}

// invalidResults answers a reply that cannot run: each refused call gets its
// own feedback, every other call the peer notice, and a cut call the output
// limit feedback.
func (r *run) invalidResults(reply model.Reply, refusals []string) []tool.Result {
	first := -1
	for i, text := range refusals {
		if text != "" {
			first = i
			break
		}
	}
	var results []tool.Result
	if first >= 0 {
		results = feedback.InvalidCall(reply.Calls, first, refusals[first])
		for i, text := range refusals {
			if text != "" {
				results[i] = feedback.ResultMessage(reply.Calls[i], text)
				r.note(text)
			}
		}
	} else {
		for _, c := range reply.Calls {
			results = append(results, feedback.NotExecuted(c))
		}
	}
	if reply.Cut != nil {
		text := feedback.OutputLimit(reply.Cut.Name, reply.Cut.Arguments)
		r.note(text)
		results = append(results, feedback.ResultMessage(*reply.Cut, text))
	}
	return results
}

// prepareReply runs the hooks over every call, settles which control call
// takes effect, and plans the dependencies.
func (r *run) prepareReply(ctx context.Context, turn int, prepared []*Prepared) *replyRun {
	a := r.agent
	rr := &replyRun{agent: a, turn: turn, session: r.session.ID, mem: r.session.Memory, emit: a.emit, cat: r.cat,
		inbox: make(chan any, 3*len(prepared))}
	rr.calls = make([]*callRun, len(prepared))
	ender := ""
	for i, p := range prepared {
		c := &callRun{index: i, p: p}
		c.p, c.flow = r.review(ctx, turn, i, p)
		if endsRun(p.Call.Name) && !c.flow.IsSkip() {
			if ender == "" {
				ender = p.Call.Name
			} else {
				c.flow = secondEnder(ender)
			}
		}
		rr.calls[i] = c
	}
	touches := make([]tool.Touches, len(rr.calls))
	for i, c := range rr.calls {
		touches[i] = c.p.Touches
	}
	rr.plan = planCalls(touches)
	for i, c := range rr.calls {
		c.deps = rr.plan.deps[i]
		c.batch = rr.plan.batch[i]
		c.unmet = len(c.deps)
		c.key = EffectKey(r.session.ID, turn, i, c.p.Call.Name, c.p.Args)
	}
	rr.unsettled = len(rr.calls)
	return rr
}

// secondEnder skips a finish or ask_user call that follows the call of the
// same reply (named ender) that already ends the run.
func secondEnder(ender string) Flow {
	return Skip("runtime", fmt.Sprintf("Not used: the %s call before this one in the same reply already ends the run, "+
		"so this call was not run.", ender))
}

// review passes a call through the hooks in order. A rewrite is checked
// against the schema and gives the call a new footprint; a rewrite that does
// not fit skips the call with the schema's feedback.
func (r *run) review(ctx context.Context, turn, index int, p *Prepared) (*Prepared, Flow) {
	flow := Continue("default", "no hook reviewed this call")
	for _, h := range r.agent.Hooks {
		info := CallInfo{Turn: turn, Index: index, Call: p.Call, Args: p.Args, Touches: p.Touches, Decl: p.Decl, Sandbox: p.Sandbox}
		f := h.Review(ctx, info)
		switch f.action {
		case flowContinue:
			flow = f
		case flowRewrite:
			q, err := r.cat.rewrite(p, f.args)
			if err != nil {
				return p, Skip(f.By, "Skipped: a hook rewrote the arguments of this call and the new ones do not fit: "+err.Error())
			}
			p = q
			flow = Continue(f.By, "arguments rewritten")
		default:
			return p, f
		}
	}
	return p, flow
}

// controlOutcome returns the outcome a successful finish or ask_user call
// gives the run, if the reply had one.
func (r *run) controlOutcome(rr *replyRun) (GoalOutcome, bool) {
	for _, c := range rr.calls {
		if !c.outcome.IsSuccess() {
			continue
		}
		switch c.p.Call.Name {
		case AskUser:
			var args struct {
				Question string `json:"question"`
			}
			_ = json.Unmarshal(c.p.Args, &args)
			return Refused(args.Question), true
		case Finish:
			var args struct {
				Summary string          `json:"summary"`
				Data    json.RawMessage `json:"data"`
			}
			_ = json.Unmarshal(c.p.Args, &args)
			return Succeeded(args.Summary, mergeData(r.session.Memory.Snapshot(), args.Data)), true
		}
	}
	return GoalOutcome{}, false
}

// mergeData lays data over the remembered values: when data is an object its
// keys override remembered keys of the same name; any other non-null data
// replaces the memory. With nothing remembered and no data it is nil.
func mergeData(memory map[string]json.RawMessage, data json.RawMessage) json.RawMessage {
	trimmed := strings.TrimSpace(string(data))
	if trimmed != "" && trimmed != "null" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return data
		}
		for k, v := range obj {
			memory[k] = v
		}
	}
	if len(memory) == 0 {
		return nil
	}
	b, err := json.Marshal(memory)
	if err != nil {
		return nil
	}
	return b
}

// plannedReply builds the reply event. prepared is nil for a reply that will
// not run, whose calls then carry no footprint.
func plannedReply(turn int, reply model.Reply, prepared []*Prepared, plan replyPlan) ReplyReceived {
	ev := ReplyReceived{Turn: turn, Text: reply.Text, Stop: string(reply.Stop), Calls: make([]PlannedCall, len(reply.Calls))}
	for i, c := range reply.Calls {
		pc := PlannedCall{Index: i, ID: c.ID, Name: c.Name, Args: model.ArgumentsJSON(c), WaitsFor: []int{}}
		if prepared != nil {
			p := prepared[i]
			t := p.Touches
			pc.Args = p.Args
			pc.Touches = &t
			pc.Sandbox = p.Sandbox.Clone()
			pc.WaitsFor = append(pc.WaitsFor, plan.deps[i]...)
			pc.Batch = plan.batch[i]
		}
		if !isObject(c.Arguments) || !encodesAs(pc.Args, c.Arguments) {
			// The exact text the model sent, so that a resumed session
			// sends the model its own bytes back: args is re-encoded
			// (spacing, escapes) and may be a hook's rewrite.
			pc.Raw = c.Arguments
		}
		ev.Calls[i] = pc
	}
	if reply.Cut != nil {
		ev.Cut = &CutCall{ID: reply.Cut.ID, Name: reply.Cut.Name, Raw: reply.Cut.Arguments}
	}
	return ev
}

// encodesAs reports whether args, written in an event, reads back as text
// exactly.
func encodesAs(args json.RawMessage, text string) bool {
	b, err := json.Marshal(args)
	return err == nil && string(b) == text
}

// isObject reports whether raw is one JSON object, so that its compact form
// in an event says the same as the text the model sent.
func isObject(raw string) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(raw), &obj) == nil && obj != nil
}

// EffectKey identifies a call's effect: a hash of the session, the call's
// position in the session (turn and index), its tool and its canonical
// arguments (keys sorted, no spaces). The journal records it with the call's
// intent and result, so a resumed session can tell the effects apart.
func EffectKey(session string, turn, index int, name string, args json.RawMessage) string {
	canonical := args
	var v any
	if err := json.Unmarshal(args, &v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			canonical = b
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00", session, turn, index, name)
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// textSummary is the summary of a run that a reply of text alone ended.
func textSummary(text string) string {
	if summary := strings.TrimSpace(text); summary != "" {
		return summary
	}
	return "The model ended its turn without a summary."
}

// bound returns what the model reads of a call's output text: a summary of
// a binary output, and a text longer than the bound cut to its start and
// end with the tool's advice on getting the rest. whole is the output's size
// when it was summarised or cut, else zero.
func (a *Agent) bound(text string, d tool.Declaration) (out string, whole int) {
	if tool.IsBinary(text) {
		return tool.DescribeBinary(text, int64(len(text))), len(text)
	}
	limit := a.MaxResultBytes
	if limit == 0 {
		limit = feedback.DefaultMaxResultBytes
	}
	if cut, ok := feedback.Bound(text, limit, d.More); ok {
		return cut, len(text)
	}
	return text, 0
}
