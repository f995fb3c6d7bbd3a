package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui"
)

// demoPace is how long each demo tool call pauses in the console, so a person
// can watch calls wait, run side by side and finish.
const demoPace = 350 * time.Millisecond

// stopWait bounds how long quitting waits for a stopped run to return, so
// its outcome can be printed; the runtime gives running calls two seconds.
const stopWait = 5 * time.Second

// runConsole opens the interactive console. With a goal it starts a run at
// once; without one it waits for the person to type a goal (in the demo the
// input holds the demo's goal, and Enter starts it).
//
// When the console closes, the outcome of the last run that ended is printed
// to the normal screen, so it stays in the scrollback. The exit code is 0
// whatever that outcome was: the console is an interactive session, not a
// check; "agenttui run" is the command whose exit code follows the outcome.
// It is 1 only when the console itself could not run, and 2 for usage
// errors.
func runConsole(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	o, err := parseOptions("agenttui", args, false, stdout)
	if err != nil {
		return 2, err
	}
	in, inOK := stdin.(*os.File)
	out, outOK := stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return 2, usagef(`the console needs a terminal; for a run without one use: agenttui run "goal"`)
	}
	m, demo, err := chooseModel(o)
	if err != nil {
		return 2, err
	}
	var wrap func(tool.Tool) tool.Tool
	if demo {
		ws, cleanup, err := prepareDemoWorkspace()
		if err != nil {
			return 1, err
		}
		defer cleanup()
		o.workspace = ws
		wrap = func(t tool.Tool) tool.Tool { return pace(t, demoPace) }
	}
	description := ""
	if s, ok := m.(*model.Scripted); ok {
		description = s.Scenario().Description
	}

	bridge := tui.NewBridge(nil)
	defer bridge.Close()
	policy := approval.NewPolicy(o.mode, bridge)
	agent, err := newAgent(o, m, policy, bridge.Sink, wrap)
	if err != nil {
		return 2, err
	}
	session := runtime.NewSession(newSessionID(time.Now()))

	opts := tui.Options{
		Run: func(ctx context.Context, input string) runtime.GoalOutcome {
			return agent.Run(ctx, session, input)
		},
		Bridge:      bridge,
		Policy:      policy,
		Model:       m.Name(),
		Demo:        demo,
		Description: description,
		Workspace:   o.workspace,
		Goal:        o.goal,
	}
	if demo && o.goal == "" {
		opts.Prefill = assets.DemoGoal
	}
	final, err := tui.Run(tui.New(opts), in, out)
	if err != nil {
		return 1, fmt.Errorf("the console failed: %w", err)
	}
	// The alternate screen is gone: the outcome goes to the normal screen,
	// where it stays in the scrollback.
	if outcome, ok := final.Outcome(stopWait); ok {
		fmt.Fprint(stdout, tui.PlainOutcome(outcome))
	}
	return 0, nil
}
