package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/playground"
	"github.com/agenttui/agenttui/internal/printer"
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
		// Delays in a scenario are for a person watching the console,
		// unless --speed asks for them (a demo of tasks side by side).
		if o.speedSet {
			m = s.WithSpeed(o.speed)
		} else {
			m = s.WithoutDelays()
		}
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
	prog := printer.New(stderr, o.workspace)
	show := prog.Event
	if o.jsonOut {
		show = printer.JSON(out)
	}
	so, err := o.sessionOptions(m, approval.NewPolicy(o.mode, nil), traceEnv)
	if err != nil {
		return 2, err
	}
	so.Unjournaled, so.Show = unjournaled, show
	hp, err := planHooks(o, demo)
	if err != nil {
		return 2, err
	}
	so.Hooks = hp.run
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
	prog.SetSession(o.shell.Status(), h.TraceID())
	if !hp.waiting.Empty() {
		// Nobody can be asked here, so the workspace's own hooks do not
		// run; the person's own do.
		h.Say(hp.untrustedNotice())
	}
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
