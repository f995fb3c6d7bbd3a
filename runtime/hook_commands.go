package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/tool"
)

// HookRunner runs the person's hook commands (package hooks) at the points
// of a run where they may act. *hooks.Runner is one.
type HookRunner interface {
	// Has reports whether any command is hooked on ev for tool (tool is
	// ignored for events that are not about a call).
	Has(ev hooks.Event, tool string) bool
	// Run runs the commands hooked on in.HookEventName that match
	// in.ToolName side by side, and returns what they decided together.
	Run(ctx context.Context, in hooks.Input) hooks.Verdict
}

// HookDecision is what the person's PreToolUse hooks decided about a call
// that the approval policy weighs: allow or ask. A hook's deny never reaches
// the policy, since the runtime skips the call itself.
type HookDecision struct {
	// Decision is hooks.Allow or hooks.Ask.
	Decision hooks.Decision
	// By names the hook, as "hook:" and its command.
	By string
	// Reason is the hook's reason, possibly empty.
	Reason string
}

// HooksRunning says the person's hook commands of Event are running: the
// PreToolUse hooks of turn Turn's calls before the calls are planned, the
// hooks of the person's input before the run starts, or the Stop hooks
// before the run ends.
type HooksRunning struct {
	Event string `json:"event"`
	Turn  int    `json:"turn,omitempty"`
	// Calls are the calls of the reply whose hooks run, for PreToolUse.
	Calls []int `json:"calls,omitempty"`
	At    Time  `json:"at"`
}

// HookRan records one hook command's run and its answer. Index is the call's
// position in its reply for PreToolUse and PostToolUse; nil otherwise.
type HookRan struct {
	Event      string `json:"event"`
	Turn       int    `json:"turn,omitempty"`
	Index      *int   `json:"index,omitempty"`
	Command    string `json:"command"`
	Exit       int    `json:"exit"`
	DurationMS int64  `json:"duration_ms"`
	// Decision is allow, ask, deny or block; empty when the hook decided
	// nothing.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Context is the additional context the hook gave the model.
	Context string `json:"context,omitempty"`
	// Message is what the hook asked to show the person.
	Message string `json:"message,omitempty"`
	// Error says what went wrong with the hook, in one line.
	Error    string `json:"error,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	At       Time   `json:"at"`
}

// RunContinued says a Stop hook did not let the run end: the model reads
// Text as a message of its own, and the run goes on.
type RunContinued struct {
	Turn int    `json:"turn"`
	By   string `json:"by"`
	// Workspace says the hook is the workspace's own, not the person's.
	Workspace bool   `json:"workspace,omitempty"`
	Reason    string `json:"reason"`
	Text      string `json:"text"`
	At        Time   `json:"at"`
}

// EventType returns "hooks_running".
func (HooksRunning) EventType() string { return "hooks_running" }

// EventType returns "hook".
func (HookRan) EventType() string { return "hook" }

// EventType returns "run_continued".
func (RunContinued) EventType() string { return "run_continued" }

// hookCommand returns the command a hook decider names.
func hookCommand(by string) string { return strings.TrimPrefix(by, "hook:") }

// hookOf returns the hook of ev that a decider names, as the texts the model
// reads name it: workspace says it is one of the workspace's own.
func hookOf(ev hooks.Event, by string, workspace bool) feedback.Hook {
	return feedback.Hook{Event: string(ev), Command: hookCommand(by), Workspace: workspace}
}

// contextOwners returns whose hooks gave the context of v.
func contextOwners(v hooks.Verdict) feedback.HookOwners {
	var o feedback.HookOwners
	for _, run := range v.Runs {
		if strings.TrimSpace(run.Context) == "" {
			continue
		}
		if run.Workspace {
			o.Workspace = true
		} else {
			o.Person = true
		}
	}
	return o
}

// hooksFor reports whether the agent has hooks on ev for tool. Control tools
// are never hooked: what they do is decided by the Stop hooks.
func (a *Agent) hooksFor(ev hooks.Event, name string) bool {
	if a.HookCommands == nil {
		return false
	}
	if ev.ToolEvent() && IsControl(name) {
		return false
	}
	return a.HookCommands.Has(ev, name)
}

// hookInput returns the input common to every hook of the agent's session.
func (a *Agent) hookInput(ev hooks.Event, session string) hooks.Input {
	in := hooks.Input{SessionID: session, HookEventName: ev}
	if a.task != nil {
		in.Task, in.Agent = a.task, a.taskAgent
	}
	return in
}

// publishRuns publishes each command's run, and a notice for each one that
// failed, saying the run goes on as if there were no hook unless it blocked.
func (a *Agent) publishRuns(ev hooks.Event, turn int, index *int, v hooks.Verdict, emit func(Event)) {
	now := Time{a.clock().Now()}
	for _, run := range v.Runs {
		emit(HookRan{Event: string(ev), Turn: turn, Index: index, Command: run.Command, Exit: run.Exit,
			DurationMS: run.Duration.Milliseconds(), Decision: string(run.Decision), Reason: run.Reason, Context: run.Context,
			Message: run.Message, Error: run.Error, TimedOut: run.TimedOut, At: now})
		where := string(ev)
		if index != nil {
			where = fmt.Sprintf("%s, call %d of turn %d", ev, *index+1, turn)
		}
		if run.Error != "" {
			then := "it is ignored, as if there were no hook"
			if run.Refused {
				then = "the run goes on without it"
			}
			if run.Decision != hooks.None {
				then = "its entry says on_error: deny"
			}
			emit(Notice{Level: "warning", Text: fmt.Sprintf("hook %s (%s) %s; %s", run.Command, where, run.Error, then)})
		}
		if run.Message != "" {
			emit(Notice{Level: "info", Text: fmt.Sprintf("hook %s (%s) says: %s", run.Command, where, run.Message)})
		}
	}
}

// preCallHooks runs the PreToolUse hooks of every call of a reply side by
// side, each call's commands also side by side, and returns each call's
// verdict (nil for a call no hook matched). Nothing is published here but
// that hooks run: the runs are published with the reply (see publishPre).
func (r *run) preCallHooks(ctx context.Context, turn int, prepared []*Prepared) []*hooks.Verdict {
	a := r.agent
	var calls []int
	hooked := make([]bool, len(prepared))
	for i, p := range prepared {
		hooked[i] = a.hooksFor(hooks.PreToolUse, p.Call.Name)
		if hooked[i] {
			calls = append(calls, i)
		}
	}
	if len(calls) == 0 {
		return nil
	}
	a.emit(HooksRunning{Event: string(hooks.PreToolUse), Turn: turn, Calls: calls, At: Time{a.clock().Now()}})
	out := make([]*hooks.Verdict, len(prepared))
	var wg sync.WaitGroup
	for i, p := range prepared {
		if !hooked[i] {
			continue
		}
		in := a.hookInput(hooks.PreToolUse, r.session.ID)
		in.ToolName, in.ToolInput, in.ToolUseID = p.Call.Name, p.Args, p.Call.ID
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := a.HookCommands.Run(ctx, in)
			out[i] = &v
		}()
	}
	wg.Wait()
	return out
}

// publishPre publishes the PreToolUse hooks' runs of a reply, once the
// reply's event says what calls they were about.
func (r *run) publishPre(turn int, verdicts []*hooks.Verdict) {
	for i, v := range verdicts {
		if v != nil {
			r.agent.publishRuns(hooks.PreToolUse, turn, &i, *v, r.agent.emit)
		}
	}
}

// applyPreHook applies a call's PreToolUse verdict: a rewrite is checked
// against the schema and footprinted again, a deny skips the call, and an
// allow or ask is left to the approval policy. It reports a flow that
// settles the call without the policy, when there is one.
func (r *run) applyPreHook(p *Prepared, v *hooks.Verdict) (*Prepared, *Flow) {
	if v == nil {
		return p, nil
	}
	if v.Decision == hooks.Deny {
		f := Skip(v.By, feedback.HookDenied(hookOf(hooks.PreToolUse, v.By, v.ByWorkspace), v.Reason))
		return p, &f
	}
	if len(v.UpdatedInput) > 0 {
		q, err := r.cat.rewrite(p, v.UpdatedInput)
		if err != nil {
			f := Skip(v.UpdatedBy, feedback.HookRewriteUnfit(hookOf(hooks.PreToolUse, v.UpdatedBy, v.UpdatedByWorkspace), err.Error()))
			return p, &f
		}
		q.rewrittenBy, q.rewrittenByWorkspace = v.UpdatedBy, v.UpdatedByWorkspace
		q.origins, q.sources = r.session.trace(q.Call.Name, q.Args)
		p = q
	}
	if v.Decision == hooks.Allow || v.Decision == hooks.Ask {
		p.hook = &HookDecision{Decision: v.Decision, By: v.By, Reason: v.Reason}
	}
	p.hookContext, p.contextOwners = v.Context, contextOwners(*v)
	return p, nil
}

// hookNotes returns what the model reads after a call's result about its
// PreToolUse hooks: that one rewrote the call, and the context they gave.
func hookNotes(p *Prepared) string {
	var notes []string
	if p.rewrittenBy != "" {
		notes = append(notes, feedback.HookRewritten(hookOf(hooks.PreToolUse, p.rewrittenBy, p.rewrittenByWorkspace), string(p.Args)))
	}
	if strings.TrimSpace(p.hookContext) != "" {
		notes = append(notes, feedback.HookContext(p.contextOwners, string(hooks.PreToolUse), p.hookContext))
	}
	return strings.Join(notes, "\n\n")
}

// postCallHook runs the PostToolUse hooks of a call that ran, from the call's
// goroutine, and returns what the model reads after the call's output: the
// hooks' context, and their block with its reason.
func (r *replyRun) postCallHook(ctx context.Context, index int, p *Prepared, ret tool.Return) string {
	a := r.agent
	if ctx.Err() != nil || !a.hooksFor(hooks.PostToolUse, p.Call.Name) {
		return ""
	}
	out := ret.Outcome()
	resp := &hooks.ToolResponse{Outcome: out.ID(), Output: boundHookOutput(feedback.OutputText(ret.Output))}
	if k, ok := out.ErrorKind(); ok {
		resp.Kind = k.String()
	}
	in := a.hookInput(hooks.PostToolUse, r.session)
	in.ToolName, in.ToolInput, in.ToolUseID, in.ToolResponse = p.Call.Name, p.Args, p.Call.ID, resp
	v := a.HookCommands.Run(ctx, in)
	a.publishRuns(hooks.PostToolUse, r.turn, &index, v, r.emitFromCall)
	var notes []string
	if strings.TrimSpace(v.Context) != "" {
		notes = append(notes, feedback.HookContext(contextOwners(v), string(hooks.PostToolUse), v.Context))
	}
	if v.Decision == hooks.Block {
		notes = append(notes, feedback.HookBlockedResult(hookOf(hooks.PostToolUse, v.By, v.ByWorkspace), v.Reason))
	}
	return strings.Join(notes, "\n\n")
}

// maxHookOutput bounds the output a PostToolUse hook reads of a call.
const maxHookOutput = 100 << 10

// boundHookOutput cuts a call's output to what a hook reads of it.
func boundHookOutput(s string) string {
	if cut, ok := feedback.Bound(s, maxHookOutput, ""); ok {
		return cut
	}
	return s
}

// startHooks runs the SessionStart hooks once per session and process, and
// the UserPromptSubmit hooks of the person's input. It returns the context
// the model reads with the input, and the verdict of the hooks that
// blocked the input, if one did (its By, ByWorkspace and Reason say which
// and why). A task's agent has neither: its input is its parent model's.
func (a *Agent) startHooks(ctx context.Context, s *Session, input string, resumed bool) (note string, blocked *hooks.Verdict) {
	if a.task != nil {
		return "", nil
	}
	var contexts []string
	if !s.hooksStarted {
		s.hooksStarted = true
		if a.hooksFor(hooks.SessionStart, "") {
			in := a.hookInput(hooks.SessionStart, s.ID)
			in.Source = "startup"
			if resumed || len(s.Messages) > 0 {
				in.Source = "resume"
			}
			v := a.runHooks(ctx, hooks.SessionStart, in)
			if strings.TrimSpace(v.Context) != "" {
				contexts = append(contexts, feedback.HookContext(contextOwners(v), string(hooks.SessionStart), v.Context))
			}
		}
	}
	if !resumed && a.hooksFor(hooks.UserPromptSubmit, "") {
		in := a.hookInput(hooks.UserPromptSubmit, s.ID)
		in.Prompt = input
		v := a.runHooks(ctx, hooks.UserPromptSubmit, in)
		if v.Decision == hooks.Block {
			// The session's context waits for the next input, which the
			// model will see.
			s.Note = joinNotes(s.Note, strings.Join(contexts, "\n\n"))
			return "", &v
		}
		if strings.TrimSpace(v.Context) != "" {
			contexts = append(contexts, feedback.HookContext(contextOwners(v), string(hooks.UserPromptSubmit), v.Context))
		}
	}
	return strings.Join(contexts, "\n\n"), nil
}

// runHooks runs the hooks of an event that is not about a call, publishing
// that they run and how each ran.
func (a *Agent) runHooks(ctx context.Context, ev hooks.Event, in hooks.Input) hooks.Verdict {
	a.emit(HooksRunning{Event: string(ev), At: Time{a.clock().Now()}})
	v := a.HookCommands.Run(ctx, in)
	a.publishRuns(ev, 0, nil, v, a.emit)
	return v
}

// stopHooks runs the Stop hooks when the agent would end its run with an
// answer. It reports the message that sends the agent on, when a hook
// objects and the run has not been sent on MaxStopContinues times in a row.
func (r *run) stopHooks(ctx context.Context, turn int) (string, bool) {
	a := r.agent
	if a.task != nil || ctx.Err() != nil || !a.hooksFor(hooks.Stop, "") {
		return "", false
	}
	in := a.hookInput(hooks.Stop, r.session.ID)
	active := r.stopContinues > 0
	in.StopHookActive = &active
	v := a.runHooks(ctx, hooks.Stop, in)
	if v.Decision != hooks.Block {
		return "", false
	}
	if r.stopContinues >= feedback.MaxStopContinues {
		a.emit(Notice{Level: "warning", Text: fmt.Sprintf("the Stop hook %s sent the agent on %d times in a row already; "+
			"the run ends", hookCommand(v.By), feedback.MaxStopContinues)})
		return "", false
	}
	r.stopContinues++
	text := feedback.StopHookGoOn(hookOf(hooks.Stop, v.By, v.ByWorkspace), v.Reason)
	a.emit(RunContinued{Turn: turn, By: v.By, Workspace: v.ByWorkspace, Reason: v.Reason, Text: text, At: Time{a.clock().Now()}})
	return text, true
}
