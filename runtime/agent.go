package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/runtime/hooks"
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

// DefaultSystemPrompt is the system prompt a run gets when Agent.System is
// empty: assets.SystemPrompt, agenttui's prompt for coding work.
var DefaultSystemPrompt = assets.SystemPrompt

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
	// HookCommands runs the person's hook commands (package hooks): before
	// each call (their decisions reach Hooks in CallInfo.Hook), after it,
	// on the person's input, before the run ends and when the session
	// starts. Nil runs none.
	HookCommands HookRunner
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
	// Reasoning is how hard the model is asked to reason; see SetEffort
	// for changing it while the session goes on.
	Reasoning model.Effort
	// Prices are the configuration's prices, which take precedence over
	// the built-in table's; a model neither knows is not priced.
	Prices model.Prices
	// Durable, when set, reports an error once the events the run publishes
	// can no longer be recorded, such as a session journal on a full disk.
	// The runtime asks it after publishing the intent of each effect (a
	// model request, a call attempt). An effect whose intent may not be on
	// disk could be performed twice, or misreported, after a crash, so from
	// the first error on nothing more is performed: calls not yet started
	// are reported as not run and the run ends failed, saying why.
	Durable func() error
	// Untrusted says which results are untrusted: a call whose arguments
	// carry text from one into an action asks the person (see
	// approval). Nil means DefaultUntrusted.
	Untrusted func(tool.Source) bool

	emitMu sync.Mutex // serialises calls to Sink

	// task is the path of the task this agent runs, for a sub-agent; nil
	// for the session's own agent. Hooks read it in CallInfo.Task.
	task []string
	// taskAgent names a sub-agent's definition, for its hooks' input.
	taskAgent string
	// confine, for a sub-agent, is what its calls may change; a call that
	// would change more is refused (Denied) without running. Nil for the
	// session's own agent.
	confine *confinement

	// replaced holds a catalogue set by SetCatalog, which takes effect at
	// the next turn.
	replaced atomic.Pointer[Catalog]
	// contextSet holds a policy set by SetContextPolicy, which takes
	// effect at the next turn.
	contextSet atomic.Pointer[ContextPolicy]
	// effortSet holds an effort set by SetEffort, which takes effect at
	// the next turn.
	effortSet atomic.Pointer[model.Effort]
}

// SetEffort replaces Reasoning from the next turn on (the console's
// /reasoning). It is safe to call at any time, from any goroutine.
func (a *Agent) SetEffort(e model.Effort) { a.effortSet.Store(&e) }

// Effort returns the reasoning effort the next turn asks for: the last one
// SetEffort gave, or Reasoning.
func (a *Agent) Effort() model.Effort {
	if e := a.effortSet.Load(); e != nil {
		return *e
	}
	return a.Reasoning
}

// priced returns reply naming the model that wrote it, when the model did
// not say, and with its usage priced as that model's: by Prices, else by
// the built-in table.
func (a *Agent) priced(reply model.Reply) model.Reply {
	if reply.Model == "" {
		reply.Model = a.Model.Name()
	}
	p, ok := a.Prices.Of(reply.Model)
	reply.Usage = model.Priced(reply.Usage, p, ok)
	return reply
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
	// Usage is the session's token total, and its cost when every model
	// it used is priced.
	Usage model.Usage

	// Checkpoints, when set, is where the session records what its replies
	// may change before they change it, so the person can undo it.
	Checkpoints *CheckpointStore
	// Changes are the workspace changes the session recorded, oldest
	// first: replies' checkpoints, undos, redos and rewinds.
	Changes []Change
	// Points are the places in the session a rewind can go back to,
	// oldest first.
	Points []Point
	// Note is what agenttui will tell the model with the next input about
	// what an undo or a rewind changed under it.
	Note string

	// meter estimates the size of the next request; it is used by one run
	// at a time, as the session is.
	meter meter
	// origins records what the model read and where it came from, to find
	// where calls' arguments came from; originsOnce makes it once, since
	// a task's session may share its parent's.
	origins     *origins
	originsOnce sync.Once
	// inputFromModel says the session's input is not the person's but a
	// model's (a task's prompt), so it proves nothing trusted.
	inputFromModel bool
	// restoring is the restore whose start is recorded and whose end is
	// not, while one goes on or after the process died in one; 0 for none.
	restoring int
	// restoreStart is the record of that restore's start.
	restoreStart RestoreStarted
	// hooksStarted says the SessionStart hooks ran for the session in
	// this process.
	hooksStarted bool
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
	// stopContinues is how many times in a row Stop hooks sent the agent
	// on.
	stopContinues int
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
	mode := ""
	if a.Mode != nil {
		mode = a.Mode()
	}
	hookNote, blocked := a.startHooks(ctx, s, input, false)
	if blocked != nil {
		// The model never sees a blocked input: the run ends at once,
		// saying which hook blocked it and why.
		goal := s.Goal
		if goal == "" {
			goal = input
		}
		a.emit(RunStarted{Session: s.ID, Goal: goal, Input: input, Model: a.Model.Name(), Mode: mode, Blocked: blocked.By,
			At: Time{a.clock().Now()}})
		out := Failed(input, string(hooks.UserPromptSubmit)+" hook "+hookCommand(blocked.By),
			[]string{feedback.PromptBlocked(hookOf(hooks.UserPromptSubmit, blocked.By, blocked.ByWorkspace), blocked.Reason)})
		total := s.Usage
		a.emit(RunFinished{Outcome: out, Usage: &total, At: Time{a.clock().Now()}})
		return out
	}
	if s.Goal == "" {
		s.Goal = input
	}
	note := joinNotes(s.Note, hookNote)
	s.Note = ""
	s.AppendInput(input, note)
	a.emit(RunStarted{Session: s.ID, Goal: s.Goal, Input: input, Note: note, Model: a.Model.Name(), Mode: mode, At: Time{a.clock().Now()}})
	r := &run{agent: a, session: s, budgets: a.budgets(), started: a.clock().Now()}
	out := r.loop(ctx)
	total := s.Usage
	a.emit(RunFinished{Outcome: out, Usage: &total, At: Time{a.clock().Now()}})
	return out
}

func (r *run) loop(ctx context.Context) GoalOutcome {
	a, s := r.agent, r.session
	invalidInARow := 0
	overflowTurn := 0 // the turn whose overflow was answered by compacting
	for {
		turn := s.Turns() + 1
		if r.turns >= r.budgets.MaxTurns {
			r.note(fmt.Sprintf("the run used up its %s without finishing", plural.Of(r.budgets.MaxTurns, "model turn")))
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
		r.seedOrigins()
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
			if d.Thinking != "" {
				a.emit(ThinkingDelta{Turn: turn, Text: d.Thinking})
			}
			if d.Text != "" {
				a.emit(TextDelta{Turn: turn, Text: d.Text})
			}
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
		reply = a.priced(reply)
		s.Usage = s.Usage.Add(reply.Usage)
		s.meter.report(reply.Usage, len(s.Messages)+1)
		a.emit(UsageReported{Turn: turn, Model: reply.Model, Usage: reply.Usage, Total: s.Usage,
			Context: a.ContextPolicy().use(reply.Usage.InputTokens + reply.Usage.OutputTokens), At: Time{replied}})

		outcome, invalid, ended := r.handleReply(ctx, turn, reply)
		a.emit(TurnEnded{Turn: turn})
		if ended && outcome.Status == StatusSucceeded {
			if text, goOn := r.stopHooks(ctx, turn); goOn {
				s.Messages = append(s.Messages, model.Message{Role: model.RoleUser, Text: text})
				continue
			}
		}
		if ended {
			return outcome
		}
		if !invalid {
			invalidInARow = 0
			continue
		}
		invalidInARow++
		if invalidInARow >= r.budgets.MaxInvalidReplies {
			return r.fail(fmt.Sprintf("turn %d: model reply (%s in a row)", turn, plural.Irregular(invalidInARow, "invalid reply", "invalid replies")))
		}
	}
}

// joinNotes joins what agenttui tells the model with an input, skipping
// empty parts.
func joinNotes(notes ...string) string {
	var kept []string
	for _, n := range notes {
		if strings.TrimSpace(n) != "" {
			kept = append(kept, n)
		}
	}
	return strings.Join(kept, "\n\n")
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
		MaxOutputTokens: r.agent.MaxOutputTokens, Effort: r.agent.Effort(), CacheKey: r.session.ID,
	}
}
