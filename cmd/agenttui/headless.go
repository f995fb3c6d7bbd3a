package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/agenttui/agenttui/internal/launch"
	"github.com/agenttui/agenttui/internal/printer"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
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
	traceEnv, err := traces.FromEnv(os.Getenv)
	if err != nil {
		return 2, err
	}
	// The first interrupt stops the run the way Esc does in the console:
	// running calls are cancelled and every call gets an honest result. A
	// second one kills the process.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, endSignals...)
	defer signal.Stop(signals)
	go func() {
		if _, ok := <-signals; ok {
			cancel(runtime.Stop("the run was interrupted"))
		}
	}()
	var rp *journal.Replay
	if o.resume != "" || o.cont {
		if rp, err = loadSession(o); err != nil {
			return 2, err
		}
	}
	out := bufio.NewWriter(stdout)
	prog := printer.New(stderr, o.Workspace)
	show := prog.Event
	if o.jsonOut {
		show = printer.JSON(out)
	}
	// Delays in a scenario are for a person watching the console, unless
	// --speed asks for them (a demo of tasks side by side).
	speed := 0.0
	if o.speedSet {
		speed = o.speed
	}
	hl, err := launch.Open(ctx, &o.Settings, launch.HeadlessOptions{Goal: o.goal, Replay: rp, Show: show, Traces: traceEnv, Speed: speed,
		Started: func(h *session.Host) { prog.SetSession(o.Workspace, o.Shell().Status(), h.TraceID()) }})
	if err != nil {
		return 2, err
	}
	defer func() {
		// The outcome is out before the traces are flushed, which may
		// take a while.
		out.Flush()
		journalErr, tracesErr := hl.CloseSession()
		if journalErr != nil {
			fmt.Fprintf(stderr, "agenttui: %s\n", session.JournalLost(hl.ID(), journalErr).Text)
		}
		if tracesErr != nil {
			fmt.Fprintf(stderr, "agenttui: %v\n", tracesErr)
		}
	}()
	h, carry := hl.Host, hl.Carry

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
				printer.Outcome(out, outcome)
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
		printer.Outcome(out, outcome)
	}
	return outcome.ExitCode(), nil
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
