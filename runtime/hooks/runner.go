package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/agenttui/agenttui/internal/ctrlchar"
)

// Runner runs the hooks of a configuration in one workspace. Its methods
// may be called from several goroutines at once, as long as its fields are
// not changed meanwhile.
type Runner struct {
	// Config is the hooks to run. The workspace's own commands among them
	// (Command.Workspace) run only as Trust allows.
	Config Config
	// Trust is the person's trust in the workspace's own commands, asked
	// before each of them runs; nil trusts none of them, which are then
	// left out.
	Trust *Trust
	// Dir is the workspace: the commands' working folder, and
	// CLAUDE_PROJECT_DIR and AGENTTUI_PROJECT_DIR in their environment.
	Dir string
	// Transcript returns the journal's path for a session, for
	// Input.TranscriptPath; nil leaves it empty.
	Transcript func(session string) string
	// Mode returns the approval mode, for Input.PermissionMode; nil leaves
	// it empty.
	Mode func() string
	// Env is extra environment for the commands, "NAME=value", after
	// os.Environ() and the project variables, so it may override them.
	Env []string
	// Timeout is a command's time limit when its entry gives none; zero
	// means DefaultTimeout.
	Timeout time.Duration
	// MaxOutput is how many bytes are kept of each of a command's standard
	// output and standard error; zero means DefaultMaxOutput.
	MaxOutput int
}

// waitDelay is how long a command's output may stay open after it exits or
// is killed: a process it started and that escaped its process group may
// hold the pipes, and must not hold Run with them.
const waitDelay = time.Second

// maxReason bounds a reason or message taken from a hook's output, in
// bytes; maxErrorLine bounds the line of standard error an Error quotes.
const (
	maxReason    = 2000
	maxErrorLine = 200
)

// Has reports whether any command would run for the event ev, and for a
// tool event, for the tool named tool; false for a nil Runner. It lets the
// caller skip building an Input no hook reads.
func (r *Runner) Has(ev Event, tool string) bool {
	return r != nil && len(r.commands(ev, tool)) > 0
}

// commands returns the commands that run, or are refused, for ev and
// tool: the workspace's own only as far as Trust keeps them.
func (r *Runner) commands(ev Event, tool string) []Command {
	return slices.DeleteFunc(r.Config.commands(ev, tool), func(c Command) bool {
		return c.Workspace && !r.Trust.keeps(c)
	})
}

// Run runs every command attached to in.HookEventName, for a tool event
// those whose group matches in.ToolName, and returns what they decided
// together. A nil Runner, or an event without commands, gives the zero
// Verdict.
//
// Run fills in in.Cwd, in.TranscriptPath and in.PermissionMode when they
// are empty. The commands run side by side, each with its own time limit,
// so that several slow hooks cost the time of the slowest, not their sum;
// Run returns once all have ended. When ctx ends, the commands still
// running are killed, with everything they started.
func (r *Runner) Run(ctx context.Context, in Input) Verdict {
	if r == nil {
		return Verdict{}
	}
	ev := in.HookEventName
	cmds := r.commands(ev, in.ToolName)
	if len(cmds) == 0 {
		return Verdict{}
	}
	if in.Cwd == "" {
		in.Cwd = r.Dir
	}
	if in.TranscriptPath == "" && r.Transcript != nil {
		in.TranscriptPath = r.Transcript(in.SessionID)
	}
	if in.PermissionMode == "" && r.Mode != nil {
		in.PermissionMode = r.Mode()
	}
	stdin, encErr := encodeInput(in)
	runs := make([]Run, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		if encErr != nil {
			runs[i] = failed(ev, c, Run{Command: c.Command, Workspace: c.Workspace, Exit: -1, Error: "could not start: " + encErr.Error()})
			continue
		}
		wg.Go(func() { runs[i] = r.runOne(ctx, ev, c, stdin) })
	}
	wg.Wait()
	return combine(runs)
}

// encodeInput returns in as one line of JSON and a newline. HTML escaping
// is off, so a script that looks for "&&" or ">" in a command with grep
// finds them as written.
func encodeInput(in Input) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return nil, fmt.Errorf("its input does not encode as JSON: %s", ctrlchar.ToSpaces(err.Error()))
	}
	return b.Bytes(), nil
}

// limit returns c's time limit.
func (r *Runner) limit(c Command) time.Duration {
	if c.Timeout > 0 {
		// A limit past what a Duration holds is no limit worth keeping
		// apart from the largest one.
		if s := c.Timeout * float64(time.Second); s < math.MaxInt64 {
			return max(time.Duration(s), time.Nanosecond)
		}
		return math.MaxInt64
	}
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultTimeout
}

// runOne runs one command and reads its answer. A command of the
// workspace's own runs only once Trust finds it, and the files it may
// run, as the person trusted them; otherwise it is refused, which its
// on_error decides about as about a command that cannot start.
func (r *Runner) runOne(ctx context.Context, ev Event, c Command, stdin []byte) Run {
	if c.Workspace {
		if err := r.Trust.check(ev, c); err != nil {
			return failed(ev, c, Run{Command: c.Command, Exit: -1, Refused: true, Error: "was not run: " + err.Error()})
		}
	}
	limit := r.limit(c)
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	keep := r.MaxOutput
	if keep <= 0 {
		keep = DefaultMaxOutput
	}
	stdout, stderr := &capped{max: keep}, &capped{max: keep}
	cmd := exec.CommandContext(cctx, "/bin/sh", "-c", c.Command)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+r.Dir, "AGENTTUI_PROJECT_DIR="+r.Dir)
	cmd.Env = append(cmd.Env, r.Env...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownProcessGroup(cmd)
	// killed says the command was ended by its time limit or by ctx,
	// rather than by itself: a command that exits as the limit passes
	// has still answered.
	var killed atomic.Bool
	cmd.Cancel = func() error {
		killed.Store(true)
		return killGroup(cmd)
	}
	cmd.WaitDelay = waitDelay

	run := Run{Command: c.Command, Workspace: c.Workspace, Exit: -1}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		// Start fails with ctx's error when ctx ended before it.
		run.Error = "could not start: " + ctrlchar.ToSpaces(err.Error())
		if ctx.Err() != nil {
			run.Error = "stopped with the run"
		}
		return failed(ev, c, run)
	}
	err := cmd.Wait()
	run.Duration = time.Since(start)

	var exitErr *exec.ExitError
	switch {
	case killed.Load() && ctx.Err() != nil:
		run.Error = "stopped with the run"
	case killed.Load():
		run.TimedOut = true
		run.Error = fmt.Sprintf("ran past its time limit of %s and was killed", limit)
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay: the command exited by itself, with status 0,
		// but something it left behind held its output open.
		run.Exit = 0
	case errors.As(err, &exitErr):
		run.Exit = exitErr.ExitCode()
		if run.Exit < 0 {
			run.Error = "ended by a signal: " + ctrlchar.ToSpaces(exitErr.String())
		}
	default:
		run.Error = "could not wait for it: " + ctrlchar.ToSpaces(err.Error())
	}
	if run.Error == "" {
		answer(ev, &run, stdout.Bytes(), stderr.Bytes())
	}
	return failed(ev, c, run)
}

// answer reads a command's answer from its exit status and output into run.
func answer(ev Event, run *Run, stdout, stderr []byte) {
	switch run.Exit {
	case 0:
		answerOutput(ev, run, stdout)
	case 2:
		reason := clip(strings.TrimSpace(string(stderr)), maxReason)
		if ev == SessionStart {
			// A session cannot be blocked from starting; the person
			// reads why the hook wanted to.
			run.Message = reason
			return
		}
		if reason == "" {
			reason = "the hook exited with status 2"
		}
		run.Decision, run.Reason = blocking(ev), reason
	default:
		run.Error = fmt.Sprintf("exited with status %d", run.Exit)
		line, _, _ := strings.Cut(strings.TrimSpace(string(stderr)), "\n")
		if line = clip(strings.TrimSpace(ctrlchar.ToSpaces(line)), maxErrorLine); line != "" {
			run.Error += ": " + line
		}
	}
}

// answerOutput reads the standard output of a command that exited with
// status 0: a JSON object (Output), or plain text that is context for the
// events whose plain output Claude Code adds to what the model reads. An
// answer with a mistake in it is not used at all, only reported: acting on
// the half of it that could be read could do what the hook did not mean.
func answerOutput(ev Event, run *Run, stdout []byte) {
	text := strings.TrimSpace(string(stdout))
	if !strings.HasPrefix(text, "{") {
		if ev == UserPromptSubmit || ev == SessionStart {
			run.Context = strings.ToValidUTF8(text, "\uFFFD")
		}
		return
	}
	var out Output
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		run.Error = "printed JSON that does not parse: " + ctrlchar.ToSpaces(err.Error())
		return
	}
	var a Run
	a.Message = clip(out.SystemMessage, maxReason)
	// Candidates for the decision, strongest kept: an answer that says
	// both "allow" and "block" is read as the block.
	decide := func(d Decision, reason string) {
		if rank(d) > rank(a.Decision) {
			a.Decision, a.Reason = d, clip(reason, maxReason)
		}
	}
	switch out.Decision {
	case "":
	case "block":
		switch {
		case ev == SessionStart:
		case ev == Stop && strings.TrimSpace(out.Reason) == "":
			// The reason is what the agent is told to go on with;
			// without one it would go on blind.
			run.Error = "asked to go on without a reason"
			return
		default:
			decide(blocking(ev), orDefault(out.Reason, `the hook answered decision "block"`))
		}
	case "approve":
		if ev == PreToolUse {
			decide(Allow, out.Reason)
		}
	default:
		run.Error = fmt.Sprintf("answered an unknown decision %q", clip(out.Decision, 50))
		return
	}
	if so := out.HookSpecificOutput; so != nil {
		if ev == PreToolUse {
			switch so.PermissionDecision {
			case "":
			case "allow":
				decide(Allow, so.PermissionDecisionReason)
			case "ask":
				decide(Ask, so.PermissionDecisionReason)
			case "deny":
				decide(Deny, orDefault(so.PermissionDecisionReason, `the hook answered permissionDecision "deny"`))
			default:
				run.Error = fmt.Sprintf("answered an unknown permissionDecision %q", clip(so.PermissionDecision, 50))
				return
			}
			if len(so.UpdatedInput) > 0 && !isNull(so.UpdatedInput) {
				if !bytes.HasPrefix(bytes.TrimSpace(so.UpdatedInput), []byte("{")) {
					run.Error = "answered an updatedInput that is not a JSON object"
					return
				}
				a.updated = string(so.UpdatedInput)
			}
		}
		if ev != Stop {
			a.Context = strings.ToValidUTF8(so.AdditionalContext, "\uFFFD")
		}
	}
	if out.Continue != nil && !*out.Continue {
		switch ev {
		case SessionStart:
		case Stop:
			// In Claude Code, continue false stops the agent whatever
			// else the answer says, so it cannot send the agent on;
			// the agent stops, as it would without the hook, and the
			// person reads the stop reason.
			a.Decision, a.Reason = None, ""
			if a.Message == "" {
				a.Message = clip(out.StopReason, maxReason)
			}
		default:
			decide(blocking(ev), orDefault(out.StopReason, "the hook answered continue: false"))
		}
	}
	run.Decision, run.Reason, run.Context, run.Message, run.updated = a.Decision, a.Reason, a.Context, a.Message, a.updated
}

// failed applies a command's on_error to a run that went wrong: with
// "deny", the run blocks what the event is about. A session's start cannot
// be blocked, so there the error is only reported.
func failed(ev Event, c Command, run Run) Run {
	if run.Error == "" || c.OnError != OnErrorDeny || ev == SessionStart {
		return run
	}
	run.Decision = blocking(ev)
	run.Reason = "the hook failed (" + run.Error + ") and its entry says on_error: deny"
	if run.Refused {
		run.Reason = "the hook " + run.Error + ", and its entry says on_error: deny"
	}
	return run
}

// blocking returns the decision that blocks for ev: Deny before a call,
// Block otherwise.
func blocking(ev Event) Decision {
	if ev == PreToolUse {
		return Deny
	}
	return Block
}

// rank orders the decisions by strength.
func rank(d Decision) int {
	switch d {
	case Deny, Block:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// combine returns the Verdict of runs, which are in the configuration's
// order. Where runs agree in strength, the first in the configuration's
// order speaks for them, so that the Verdict does not depend on which
// command happened to finish first.
func combine(runs []Run) Verdict {
	v := Verdict{Runs: runs}
	var contexts []string
	for _, run := range runs {
		if rank(run.Decision) > rank(v.Decision) {
			v.Decision, v.By, v.ByWorkspace, v.Reason = run.Decision, By(run.Command), run.Workspace, run.Reason
		}
		if run.updated != "" && v.UpdatedInput == nil {
			v.UpdatedInput, v.UpdatedBy, v.UpdatedByWorkspace = json.RawMessage(run.updated), By(run.Command), run.Workspace
		}
		if run.Context != "" {
			contexts = append(contexts, run.Context)
		}
	}
	if v.Decision == Deny {
		// A call that does not run has no arguments to rewrite.
		v.UpdatedInput, v.UpdatedBy, v.UpdatedByWorkspace = nil, "", false
	}
	v.Context = strings.Join(contexts, "\n\n")
	if len(v.Context) > MaxContext {
		v.Context = clip(v.Context, MaxContext) + fmt.Sprintf("\n[hook context cut at %d bytes]", MaxContext)
	}
	return v
}

// orDefault returns s, or def when s is blank.
func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// clip returns s as valid UTF-8 cut to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// capped keeps the first max bytes written to it and drops the rest,
// always reporting the whole write as done: a command that prints a lot
// must not block on a full pipe, and must not fill memory either.
type capped struct {
	buf []byte
	max int
}

// Write keeps what fits of p.
func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Bytes returns what was kept.
func (c *capped) Bytes() []byte { return c.buf }
