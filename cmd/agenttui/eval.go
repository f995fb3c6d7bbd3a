package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/eval"
	"github.com/agenttui/agenttui/internal/launch"
	"github.com/agenttui/agenttui/runtime"
)

// runEval is "agenttui eval SUITE": each case runs the way agenttui run
// runs a goal, in a fresh copy of its workspace with its own journal.
func runEval(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), endSignals...)
	defer stop()
	return eval.Command(ctx, args, stdout, stderr, runCase, isTerminal(os.Stderr))
}

// runCase runs case c once in workspace: nobody can approve, so calls that
// would ask are skipped as in agenttui run, and the case's answers answer
// the agent's questions in order. A scenario plays its delays, which stand
// for the time a model takes to reply.
func runCase(ctx context.Context, c *eval.Case, workspace string) eval.Attempt {
	s := &launch.Settings{Workspace: workspace, Mode: approval.Mode(c.Mode),
		Set: map[string]bool{"workspace": true, "mode": true, "model": true}}
	if c.Scenario {
		s.Scenario = c.Model
	} else {
		s.Model = c.Model
	}
	if err := s.Resolve(); err != nil {
		return eval.Attempt{Err: err}
	}
	var (
		mu sync.Mutex // guards a, which the runtime's goroutines fill
		a  eval.Attempt
	)
	show := func(e runtime.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e := e.(type) {
		case runtime.TurnStarted:
			a.Turns++
		case runtime.RunFinished:
			if e.Usage != nil {
				a.Usage = *e.Usage
			}
		}
	}
	hl, err := launch.Open(ctx, s, launch.HeadlessOptions{Goal: c.Goal, Show: show, Speed: 1})
	if err != nil {
		return eval.Attempt{Err: err}
	}
	outcome := hl.Run(ctx, c.Goal)
	for _, answer := range c.Answers {
		if outcome.Status != runtime.StatusRefused || ctx.Err() != nil {
			break
		}
		outcome = hl.Run(ctx, answer)
	}
	closeErr := hl.Close()
	mu.Lock()
	defer mu.Unlock()
	a.Outcome, a.Session = outcome, hl.ID()
	if closeErr != nil {
		a.Err = closeErr
	}
	return a
}
