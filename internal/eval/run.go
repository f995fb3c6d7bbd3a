package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// Attempt is what one run of a case gave, as the runner reports it.
type Attempt struct {
	// Outcome is how the run ended.
	Outcome runtime.GoalOutcome
	// Usage is the session's total: tokens and cost.
	Usage model.Usage
	// Turns is how many model turns the run asked.
	Turns int
	// Session is the session's id, so the report can point at its journal.
	Session string
	// Err says the case could not be run at all (a model that cannot be
	// opened, a session that cannot start); the run then fails with it,
	// and nothing else of the attempt is checked.
	Err error
}

// RunFunc runs case c once in workspace, a fresh folder holding the case's
// workspace unpacked, and reports what the run gave. It must honour ctx:
// when ctx is done, the run ends as soon as it can. It runs c.Goal with
// c.Model (a scenario file when c.Scenario) in approval mode c.Mode, with
// nobody to approve a call, and answers a refused outcome's question with
// the next of c.Answers while any are left. Run calls it from several
// goroutines at once when Options.Parallel is above 1.
type RunFunc func(ctx context.Context, c *Case, workspace string) Attempt

// Options say how Run runs a suite.
type Options struct {
	// Parallel is how many runs go at once; less than 1 means 1.
	Parallel int
	// Repeat is how many times each case runs; less than 1 means 1.
	Repeat int
	// Run runs one case.
	Run RunFunc
	// Progress is where progress is written as runs finish; nil for none.
	Progress io.Writer
	// ProgressBar draws one bar redrawn in place with \r, for a terminal;
	// otherwise Progress gets one line per finished run, for a log.
	ProgressBar bool
	// Now tells the time, for durations; nil means time.Now. Tests give a
	// fake clock, so durations are known without waiting.
	Now func() time.Time
}

// job is one run to make: the index of its case and its run number, from 1.
type job struct{ caseIndex, run int }

// finished is a job's result, sent back to the goroutine that called Run.
type finished struct {
	job
	result RunResult
}

// Run runs every case of the suite Options.Repeat times, Options.Parallel
// runs at once, each in a fresh temporary folder holding the case's
// workspace, checks each run, and reports. The report is in case order and
// run order, whatever order runs finished in. When ctx is done, runs not
// yet started are not started, and fail saying so.
func Run(ctx context.Context, s *Suite, o Options) *Report {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	parallel, repeat := max(o.Parallel, 1), max(o.Repeat, 1)
	rep := &Report{Suite: s.Name, Repeat: repeat, Cases: make([]*CaseResult, len(s.Cases))}
	for i, c := range s.Cases {
		rep.Cases[i] = &CaseResult{Case: c, Runs: make([]RunResult, repeat)}
	}
	total := len(s.Cases) * repeat
	started := now()
	prog := newProgress(o.Progress, o.ProgressBar, total, repeat)
	prog.start()

	jobs := make(chan job)
	results := make(chan finished)
	go func() {
		defer close(jobs)
		for i := range s.Cases {
			for k := 1; k <= repeat; k++ {
				jobs <- job{i, k}
			}
		}
	}()
	var workers sync.WaitGroup
	for range min(parallel, total) {
		workers.Go(func() {
			for j := range jobs {
				results <- finished{j, runOnce(ctx, s.Cases[j.caseIndex], j.run, o.Run, now)}
			}
		})
	}
	go func() {
		workers.Wait()
		close(results)
	}()
	// Only this goroutine writes to Progress and to the report, so neither
	// needs a lock: workers hand their results over the channel.
	for f := range results {
		rep.Cases[f.caseIndex].Runs[f.run-1] = f.result
		prog.finished(s.Cases[f.caseIndex], f.result)
	}
	prog.end()
	rep.Duration = now().Sub(started)
	return rep
}

// runOnce makes run k of case c: a fresh folder with the case's workspace,
// the runner, the checks, and the folder removed again.
func runOnce(ctx context.Context, c *Case, k int, run RunFunc, now func() time.Time) RunResult {
	res := RunResult{Run: k}
	fail := func(err error) RunResult {
		res.Attempt = Attempt{Err: err}
		res.Failures = checkRun(c, res.Attempt, "")
		return res
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("not started: %w", err))
	}
	if run == nil {
		return fail(errors.New("no runner"))
	}
	dir, err := os.MkdirTemp("", "agenttui-eval-")
	if err != nil {
		return fail(fmt.Errorf("cannot make a workspace: %w", err))
	}
	defer removeAll(dir)
	// The runner and the checks get the folder's real path, so paths the
	// agent reports compare with it even where the temporary folder is
	// reached through a symbolic link.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if c.Workspace != nil {
		if err := c.Workspace.Unpack(dir); err != nil {
			return fail(fmt.Errorf("cannot unpack the workspace: %w", err))
		}
	}
	start := now()
	res.Attempt = callRunner(ctx, run, c, dir)
	res.Attempt.Err = caseProblem(res.Attempt.Err)
	res.Duration = now().Sub(start)
	res.Failures = checkRun(c, res.Attempt, dir)
	return res
}

// caseProblem words a runner's error for a case. A provider's missing API
// key says what a case's model can be instead: the command line's answer,
// --model demo, is no model a case takes.
func caseProblem(err error) error {
	var pe *providers.Error
	if errors.As(err, &pe) && pe.MissingKey() != "" {
		return fmt.Errorf(`%s is not set: export it, or make the case's "model" a .json scenario file`, pe.MissingKey())
	}
	return err
}

// callRunner calls run, turning a panic into a run that could not be
// made, so one broken case cannot end the suite. A panic in a goroutine
// the runner started cannot be caught here.
func callRunner(ctx context.Context, run RunFunc, c *Case, dir string) (a Attempt) {
	defer func() {
		if p := recover(); p != nil {
			a = Attempt{Err: fmt.Errorf("the runner panicked: %v", p)}
		}
	}()
	return run(ctx, c, dir)
}

// removeAll removes a run's folder. A run may leave folders it made
// read-only, which os.RemoveAll cannot empty, so after a failure it makes
// every folder writable and tries again.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}
