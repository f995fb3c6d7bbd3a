package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/playground"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// runHeadless runs "agenttui run": the agent without the console. Calls that
// would ask for approval are skipped, because nobody can answer. A
// clarification question is answered from --answer, in order; once those are
// used up, from the next line of standard input (with a prompt on stderr when
// stdin is a terminal). No answer (end of input or an empty line) ends the
// run as refused.
func runHeadless(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	o, err := parseOptions("agenttui run", args, true, stdout)
	if err != nil {
		return 2, err
	}
	defer o.closeShell()
	traceEnv, err := traces.FromEnv(os.Getenv)
	if err != nil {
		return 2, err
	}
	var rp *journal.Replay
	if o.resume != "" || o.cont {
		if rp, err = loadSession(o); err != nil {
			return 2, err
		}
	}
	m, demo, err := chooseModel(o)
	if err != nil {
		return 2, err
	}
	if s, ok := m.(*model.Scripted); ok {
		// Delays in a scenario are for a person watching the console.
		m = s.WithoutDelays()
	}
	// A scenario that carries its workspace (the demo's is the sample
	// project) plays in it; a resumed session stays in its own.
	unjournaled := demo
	var pg *playground.Playground
	if rp == nil {
		if pg, err = preparePlayground(o, scenarioOf(m), demo); err != nil {
			return 2, err
		}
		if pg != nil {
			defer pg.Cleanup()
			unjournaled = unjournaled || pg.Temp
		}
	}
	out := bufio.NewWriter(stdout)
	prog := &progress{w: stderr, workspace: o.workspace}
	show := prog.event
	if o.jsonOut {
		show = jsonSink(out)
	}
	so, err := o.sessionOptions(m, approval.NewPolicy(o.mode, nil), traceEnv)
	if err != nil {
		return 2, err
	}
	so.Unjournaled, so.Show = unjournaled, show
	h, err := session.New(so)
	if err != nil {
		return 2, err
	}
	defer func() {
		// The outcome is out before the traces are flushed, which may
		// take a while.
		out.Flush()
		journalErr, tracesErr := h.Close()
		if journalErr != nil {
			fmt.Fprintf(stderr, "agenttui: %s\n", session.JournalLost(h.Session().ID, journalErr).Text)
		}
		if tracesErr != nil {
			fmt.Fprintf(stderr, "agenttui: %v\n", tracesErr)
		}
	}()
	// MCP servers start first, so a bad configuration stops the command
	// before anything else happens.
	if err := h.Start(rp); err != nil {
		return 2, err
	}
	prog.shell, prog.trace = o.shell.Status(), h.TraceID()
	if pg != nil && pg.Temp && !demo {
		h.Say(runtime.Notice{Level: "info", Text: pg.Note()})
	}

	// The first interrupt stops the run the way Esc does in the console:
	// running calls are cancelled and every call gets an honest result. A
	// second one kills the process.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	go func() {
		if _, ok := <-signals; ok {
			cancel(runtime.Stop("the run was interrupted"))
		}
	}()
	// A headless run waits for the servers, so its first reply can use
	// every tool. The journal is opened once they are attached, so that
	// its header records the tools the run really offers.
	h.WaitServers(ctx)
	h.Attach()
	var carry session.Resumption
	if rp != nil {
		if carry, err = h.Adopt(rp, nil); err != nil {
			return 1, err
		}
	} else if err := h.StartJournal(o.goal); err != nil {
		return 1, err
	}
	for _, n := range carry.Notices {
		h.Say(n)
	}

	var outcome runtime.GoalOutcome
	switch {
	case rp == nil:
		outcome = h.Run(ctx, o.goal)
	case carry.Run != nil:
		outcome = carry.Run(ctx)
	case o.goal != "":
		outcome = h.Run(ctx, o.goal)
	default:
		// The session ended; without new input there is nothing to do but
		// say how it ended.
		outcome = *rp.LastOutcome
		if outcome.Status == runtime.StatusRefused && len(o.answers) == 0 {
			break
		}
		if outcome.Status != runtime.StatusRefused {
			if o.jsonOut {
				show(runtime.RunFinished{Outcome: outcome})
			} else {
				writeOutcome(out, outcome)
			}
			return outcome.ExitCode(), nil
		}
	}
	answers := &answerSource{given: o.answers, stdin: stdin, prompt: stderr}
	for outcome.Status == runtime.StatusRefused && ctx.Err() == nil {
		answer, ok := answers.next(outcome.Summary)
		if !ok {
			break
		}
		outcome = h.Run(ctx, answer)
	}
	if !o.jsonOut {
		writeOutcome(out, outcome)
	}
	return outcome.ExitCode(), nil
}

// jsonSink writes one JSON object per event line to w, flushing after each
// so that a reader sees events as they happen.
func jsonSink(w *bufio.Writer) runtime.Sink {
	return func(e runtime.Event) {
		b, err := runtime.EncodeEvent(e)
		if err != nil {
			b, _ = json.Marshal(map[string]string{"type": "error", "error": err.Error()})
		}
		w.Write(b)
		w.WriteByte('\n')
		w.Flush()
	}
}

// writeOutcome prints the outcome for a person: the summary and extracted
// data, the failure report, or the question.
func writeOutcome(w io.Writer, o runtime.GoalOutcome) {
	switch o.Status {
	case runtime.StatusSucceeded:
		fmt.Fprintf(w, "Succeeded: %s\n", sanitize.Text(o.Summary))
		if len(o.ExtractedData) > 0 {
			var pretty strings.Builder
			var v any
			if json.Unmarshal(o.ExtractedData, &v) == nil {
				b, _ := json.MarshalIndent(v, "", "  ")
				pretty.Write(b)
			} else {
				pretty.Write(o.ExtractedData)
			}
			fmt.Fprintf(w, "Extracted data:\n%s\n", sanitize.Text(pretty.String()))
		}
	case runtime.StatusFailed:
		fmt.Fprintf(w, "Failed: %s\nFailing step: %s\n", sanitize.Text(o.FailingSubGoal), sanitize.Text(o.FailingStep))
		for _, a := range o.Attempts {
			fmt.Fprintf(w, "  - %s\n", sanitize.Line(a))
		}
	case runtime.StatusRefused:
		fmt.Fprintf(w, "The agent asks: %s\n(answer it with --answer \"…\")\n", sanitize.Text(o.Summary))
	}
}

// progress prints the run's events for a person on stderr. Everything that
// comes from the model or a tool is sanitised first.
type progress struct {
	mu        sync.Mutex // guards names, which the runtime fills while calls finish
	w         io.Writer
	workspace string
	// shell says whether shell commands run in a sandbox; it is printed
	// with the session line.
	shell string
	// trace is the session's trace id, said at the first run; empty when
	// traces are off.
	trace     string
	traceSaid bool
	names     map[int]string
}

func (p *progress) event(e runtime.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := e.(type) {
	case runtime.RunStarted:
		switch {
		case ev.Resumed:
			// A resumed run carries on where the journal ends; it has no
			// input of its own.
			fmt.Fprintf(p.w, "agenttui: resuming session %s · model %s · mode %s · workspace %s\n",
				ev.Session, sanitize.Line(ev.Model), ev.Mode, sanitize.Line(p.workspace))
			p.shellLine()
			p.sayTrace()
			return
		case ev.Input == ev.Goal:
			fmt.Fprintf(p.w, "agenttui: session %s · model %s · mode %s · workspace %s\n",
				ev.Session, sanitize.Line(ev.Model), ev.Mode, sanitize.Line(p.workspace))
			p.shellLine()
		}
		p.sayTrace()
		fmt.Fprintf(p.w, "› %s\n", sanitize.Line(ev.Input))
	case runtime.ReplyReceived:
		p.names = map[int]string{}
		for _, r := range ev.Reasoning {
			if r.Hidden() {
				fmt.Fprintf(p.w, "turn %d · thinking: reasoning hidden by the provider\n", ev.Turn)
			} else if t := strings.TrimSpace(r.Text); t != "" {
				fmt.Fprintf(p.w, "turn %d · thinking: %s\n", ev.Turn, short(sanitize.Line(t), 100))
			}
		}
		if t := strings.TrimSpace(ev.Text); t != "" {
			fmt.Fprintf(p.w, "turn %d · %s\n", ev.Turn, sanitize.Line(t))
		} else {
			fmt.Fprintf(p.w, "turn %d\n", ev.Turn)
		}
		for _, c := range ev.Calls {
			p.names[c.Index] = c.Name
			fp := "invalid"
			if c.Touches != nil {
				fp = p.relative(c.Touches.String())
			}
			switch {
			case c.Sandbox == nil:
			case c.Sandbox.Sandboxed:
				fp += " · sandboxed"
			case c.Sandbox.Escalated:
				fp += " · asks to run unsandboxed"
			default:
				fp += " · not sandboxed"
			}
			fmt.Fprintf(p.w, "  #%d %s %s  [%s] batch %d\n", c.Index+1, sanitize.Line(c.Name),
				short(sanitize.Line(string(c.Args)), 60), sanitize.Line(fp), c.Batch)
		}
		if ev.Cut != nil {
			fmt.Fprintf(p.w, "  (cut by the output limit inside a call to %s)\n", sanitize.Line(ev.Cut.Name))
		}
	case runtime.InvalidReply:
		fmt.Fprintf(p.w, "  invalid reply, nothing ran:\n")
		for i, r := range ev.Results {
			fmt.Fprintf(p.w, "    #%d %s\n", i+1, short(sanitize.Line(r), 160))
		}
	case runtime.CallDecision:
		if ev.Decision == runtime.DecisionRun {
			return
		}
		fmt.Fprintf(p.w, "  #%d %s: %s by %s\n", ev.Index+1, sanitize.Line(p.names[ev.Index]), ev.Decision, sanitize.Line(ev.By))
	case runtime.CallRetried:
		fmt.Fprintf(p.w, "  #%d retry: attempt %d of %d in %d ms after %s\n", ev.Index+1, ev.Attempt, ev.MaxAttempts, ev.BackoffMS,
			sanitize.Line(ev.Failure))
	case runtime.CallFinished:
		status := ev.Outcome
		if ev.Kind != nil {
			status += " " + *ev.Kind
		}
		if ev.NotFinished {
			status = "not finished"
		}
		if d := ev.Diffstat; d != nil {
			status += fmt.Sprintf(", +%d −%d", d.Added, d.Removed)
		}
		fmt.Fprintf(p.w, "  #%d %s → %s (%d ms): %s\n", ev.Index+1, sanitize.Line(ev.Name), status, ev.DurationMS,
			short(sanitize.Line(ev.Result), 100))
	case runtime.Notice:
		fmt.Fprintf(p.w, "%s: %s\n", ev.Level, sanitize.Line(ev.Text))
	case runtime.CompactionStarted:
		fmt.Fprintf(p.w, "compacting the conversation (%s, about %d tokens of a %d-token window)…\n", ev.Reason, ev.Tokens, ev.Window)
	case runtime.Compacted:
		fmt.Fprintf(p.w, "context compacted: %d turns → a summary of about %d tokens; the next request is about %d tokens; "+
			"the prompt cache starts again\n", ev.Replies, (len(ev.Summary)+3)/4, ev.TokensAfter)
	case runtime.RunFinished:
		if ev.Usage != nil && ev.Usage.Tokens() > 0 {
			fmt.Fprintf(p.w, "agenttui: %s\n", ev.Usage)
		}
	case runtime.CompactionFailed:
		fmt.Fprintf(p.w, "the conversation could not be compacted: %s\n", sanitize.Line(ev.Error))
	case runtime.ModelRetry:
		// The reply text is printed only once whole, so nothing the failed
		// attempt streamed was shown.
		fmt.Fprintf(p.w, "turn %d · retrying: %s (attempt %d of %d, in %.1f s)\n", ev.Turn, sanitize.Line(ev.Why),
			ev.Attempt, ev.Max, float64(ev.WaitMS)/1000)
	}
}

// shellLine says whether shell commands run in a sandbox, once per session.
func (p *progress) shellLine() {
	if p.shell != "" {
		fmt.Fprintf(p.w, "agenttui: %s\n", p.shell)
		p.shell = ""
	}
}

// sayTrace names the session's trace, once, when it is traced.
func (p *progress) sayTrace() {
	if p.trace != "" && !p.traceSaid {
		fmt.Fprintf(p.w, "agenttui: trace %s\n", p.trace)
		p.traceSaid = true
	}
}

// short cuts s to n runes with an ellipsis.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// relative shortens workspace paths in s for display.
func (p *progress) relative(s string) string {
	s = strings.ReplaceAll(s, p.workspace+"/", "")
	return strings.ReplaceAll(s, p.workspace, ".")
}

// answerSource hands out answers to clarification questions: the --answer
// flags first, then lines of standard input.
type answerSource struct {
	given  []string
	stdin  io.Reader
	lines  *bufio.Scanner
	prompt io.Writer
}

// next returns the answer to question, or false when there is none.
func (a *answerSource) next(question string) (string, bool) {
	if len(a.given) > 0 {
		answer := a.given[0]
		a.given = a.given[1:]
		return answer, true
	}
	if a.stdin == nil {
		return "", false
	}
	if a.lines == nil {
		a.lines = bufio.NewScanner(a.stdin)
	}
	if f, ok := a.stdin.(*os.File); ok && isTerminal(f) {
		fmt.Fprintf(a.prompt, "The agent asks: %s\nanswer › ", sanitize.Text(question))
	}
	if !a.lines.Scan() {
		return "", false
	}
	answer := strings.TrimSpace(a.lines.Text())
	return answer, answer != ""
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
