package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/internal/txtar"
	"github.com/agenttui/agenttui/runtime"
)

// Runs go side by side up to Parallel: every run blocks until Parallel of
// them are in flight at once, which a smaller pool never lets happen, and
// the most ever in flight is recorded, which a larger pool would push past
// Parallel while they wait.
func TestRunParallel(t *testing.T) {
	for _, parallel := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(parallel), func(t *testing.T) {
			var inFlight, peak atomic.Int32
			all := make(chan struct{})
			var once sync.Once
			run := func(ctx context.Context, c *Case, _ string) Attempt {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				if n == int32(parallel) {
					once.Do(func() {
						// Before letting them go, give a pool larger than
						// Parallel every chance to start one run more,
						// which the peak would then record.
						for range 1000 {
							goruntime.Gosched()
						}
						close(all)
					})
				}
				select {
				case <-all:
					return succeeded("")
				case <-ctx.Done():
					return Attempt{Err: fmt.Errorf("only %d runs were ever in flight", peak.Load())}
				}
			}
			var cases []*Case
			for i := range 3 * parallel {
				cases = append(cases, testCase(fmt.Sprintf("c%d", i)))
			}
			// The deadline only ends a test whose pool is too small, which
			// would otherwise wait for ever; a right one never meets it.
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			rep := Run(ctx, testSuite(cases...), Options{Parallel: parallel, Repeat: 2, Run: run})
			for _, c := range rep.Cases {
				if !c.Passed() {
					t.Fatalf("case %s: %s", c.Case.Name, c.FirstFailure())
				}
			}
			if got := peak.Load(); got != int32(parallel) {
				t.Errorf("at most %d runs were in flight at once, want %d", got, parallel)
			}
		})
	}
}

// lineSignal is a progress writer that tells, for each case, when the
// line of its finished run was written: by then Run has its result.
type lineSignal struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	chans map[string]chan struct{}
}

func (w *lineSignal) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for name, ch := range w.chans {
		if strings.Contains(string(p), "] "+name+": ") {
			close(ch)
			delete(w.chans, name)
		}
	}
	return len(p), nil
}

// The report is in case order whatever order the runs finished in: here
// the last case finishes first and the first last.
func TestRunReportOrder(t *testing.T) {
	prog := &lineSignal{chans: map[string]chan struct{}{"b": make(chan struct{}), "c": make(chan struct{})}}
	waitFor := map[string]chan struct{}{"a": prog.chans["b"], "b": prog.chans["c"]}
	run := func(ctx context.Context, c *Case, _ string) Attempt {
		if ch := waitFor[c.Name]; ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
				return Attempt{Err: ctx.Err()}
			}
		}
		a := succeeded("")
		a.Session = "session-" + c.Name
		return a
	}
	rep := Run(t.Context(), testSuite(testCase("a"), testCase("b"), testCase("c")),
		Options{Parallel: 3, Run: run, Progress: prog, Now: newClock().now})
	var order []string
	for _, c := range rep.Cases {
		order = append(order, c.Case.Name+"="+c.Runs[0].Attempt.Session)
	}
	if got, want := strings.Join(order, " "), "a=session-a b=session-b c=session-c"; got != want {
		t.Errorf("report order %s, want %s", got, want)
	}
	want := "[1/3] c: pass (0.0 s)\n[2/3] b: pass (0.0 s)\n[3/3] a: pass (0.0 s)\n"
	if got := prog.buf.String(); got != want {
		t.Errorf("progress (finish order):\n%s\nwant\n%s", got, want)
	}
}

// Repeat runs each case that many times; a case passes only when all its
// runs do, and the pass rate counts runs.
func TestRunRepeat(t *testing.T) {
	var calls sync.Map // case name → *atomic.Int32
	run := func(_ context.Context, c *Case, _ string) Attempt {
		n, _ := calls.LoadOrStore(c.Name, new(atomic.Int32))
		k := n.(*atomic.Int32).Add(1)
		if c.Name == "flaky" && k == 2 {
			return Attempt{Outcome: runtime.Failed("g", "turn 1: model reply", []string{"overloaded"})}
		}
		return succeeded("")
	}
	rep := Run(t.Context(), testSuite(testCase("steady"), testCase("flaky")), Options{Repeat: 3, Run: run, Now: newClock().now})
	steady, flaky := rep.Cases[0], rep.Cases[1]
	if len(steady.Runs) != 3 || !steady.Passed() || steady.RunsPassed() != 3 {
		t.Errorf("steady: %d runs, %d passed", len(steady.Runs), steady.RunsPassed())
	}
	if flaky.Passed() || flaky.RunsPassed() != 2 {
		t.Errorf("flaky: passed %v, %d/3 runs", flaky.Passed(), flaky.RunsPassed())
	}
	for i, r := range flaky.Runs {
		if r.Run != i+1 {
			t.Errorf("flaky.Runs[%d].Run = %d", i, r.Run)
		}
	}
	if flaky.Runs[1].Passed() || !flaky.Runs[0].Passed() || !flaky.Runs[2].Passed() {
		t.Errorf("flaky runs passed: %v %v %v, want true false true", flaky.Runs[0].Passed(), flaky.Runs[1].Passed(), flaky.Runs[2].Passed())
	}
	if got, want := flaky.FirstFailure(), "status: want succeeded, got failed (turn 1: model reply: overloaded)"; got != want {
		t.Errorf("first failure %q, want %q", got, want)
	}
	if !rep.Failed() {
		t.Error("Failed() = false with a failing case")
	}
	if got, want := rep.summary(), "2 cases, 3 runs each: 1 passed, 1 failed · runs passed 5/6 (83.3%) · 0.0 s"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// A runner that panics fails its run; the suite goes on.
func TestRunPanic(t *testing.T) {
	run := func(_ context.Context, c *Case, _ string) Attempt {
		if c.Name == "boom" {
			panic("index out of range")
		}
		return succeeded("")
	}
	rep := Run(t.Context(), testSuite(testCase("before"), testCase("boom"), testCase("after")), Options{Parallel: 2, Run: run})
	if !rep.Cases[0].Passed() || !rep.Cases[2].Passed() {
		t.Error("the cases beside the panic did not pass")
	}
	if got, want := rep.Cases[1].FirstFailure(), "run: the runner panicked: index out of range"; got != want {
		t.Errorf("first failure %q, want %q", got, want)
	}
}

// A provider's missing API key fails the run with what a case's model can
// be instead, not the command line's --model demo, which no case takes.
func TestRunMissingKeyHint(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	run := func(context.Context, *Case, string) Attempt {
		_, err := providers.Open("anthropic:claude-opus-4-7", providers.Settings{})
		return Attempt{Err: err}
	}
	rep := Run(t.Context(), testSuite(testCase("keyless")), Options{Parallel: 1, Run: run})
	got := rep.Cases[0].FirstFailure()
	want := `run: ANTHROPIC_API_KEY is not set: export it, or make the case's "model" a .json scenario file`
	if got != want || strings.Contains(got, "--model demo") {
		t.Errorf("first failure %q, want %q", got, want)
	}
}

// Every run gets a fresh folder holding the case's workspace, the checks
// read what the run left there, and the folder is removed afterwards, even
// when the run left a folder it cannot write in.
func TestRunWorkspace(t *testing.T) {
	ws, err := txtar.Parse([]byte("-- README.md --\nrecieve\n-- docs/a.md --\na\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := testCase("fix")
	c.Workspace = ws
	text := "receive"
	c.Expect.Files = []FileCheck{{Path: "README.md", Contains: &text}}
	var mu sync.Mutex
	var dirs []string
	run := func(_ context.Context, c *Case, dir string) Attempt {
		mu.Lock()
		dirs = append(dirs, dir)
		mu.Unlock()
		data, err := os.ReadFile(filepath.Join(dir, "README.md"))
		if err != nil || string(data) != "recieve\n" {
			return Attempt{Err: fmt.Errorf("workspace not unpacked: %q, %v", data, err)}
		}
		if _, err := os.Stat(filepath.Join(dir, "docs", "a.md")); err != nil {
			return Attempt{Err: err}
		}
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("receive\n"), 0o644); err != nil {
			return Attempt{Err: err}
		}
		locked := filepath.Join(dir, "locked")
		if err := os.MkdirAll(filepath.Join(locked, "inner"), 0o755); err != nil {
			return Attempt{Err: err}
		}
		if err := os.WriteFile(filepath.Join(locked, "inner", "f"), nil, 0o644); err != nil {
			return Attempt{Err: err}
		}
		if err := os.Chmod(filepath.Join(locked, "inner"), 0o500); err != nil {
			return Attempt{Err: err}
		}
		return succeeded("")
	}
	rep := Run(t.Context(), testSuite(c), Options{Parallel: 2, Repeat: 2, Run: run})
	if !rep.Cases[0].Passed() {
		t.Fatalf("case failed: %s", rep.Cases[0].FirstFailure())
	}
	if len(dirs) != 2 || dirs[0] == dirs[1] {
		t.Errorf("workspaces %q, want two different folders", dirs)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("workspace %s is still there (%v)", d, err)
		}
	}
}

// A cancelled context starts no more runs; those not started fail saying
// so.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var called atomic.Bool
	run := func(context.Context, *Case, string) Attempt {
		called.Store(true)
		return succeeded("")
	}
	rep := Run(ctx, testSuite(testCase("a"), testCase("b")), Options{Run: run})
	if called.Load() {
		t.Error("a run started after the context was cancelled")
	}
	for _, c := range rep.Cases {
		if got, want := c.FirstFailure(), "run: not started: context canceled"; got != want {
			t.Errorf("case %s: %q, want %q", c.Case.Name, got, want)
		}
	}
}

// The runner gets the context Run was given, so a stopped eval stops the
// run under way.
func TestRunPassesContext(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(t.Context(), key{}, "mine")
	run := func(ctx context.Context, _ *Case, _ string) Attempt {
		if ctx.Value(key{}) != "mine" {
			return Attempt{Err: errors.New("not the caller's context")}
		}
		return succeeded("")
	}
	if rep := Run(ctx, testSuite(testCase("a")), Options{Run: run}); rep.Failed() {
		t.Error(rep.Cases[0].FirstFailure())
	}
}

// Durations come from the clock Options gives: each run's is the time its
// runner took, and the report's the whole suite's.
func TestRunDurations(t *testing.T) {
	clock := newClock()
	took := map[string]time.Duration{"a": 300 * time.Millisecond, "b": 1200 * time.Millisecond}
	run := func(_ context.Context, c *Case, _ string) Attempt {
		clock.advance(took[c.Name])
		return succeeded("")
	}
	var prog bytes.Buffer
	rep := Run(t.Context(), testSuite(testCase("a"), testCase("b")), Options{Run: run, Now: clock.now, Progress: &prog})
	if rep.Cases[0].Runs[0].Duration != took["a"] || rep.Cases[1].Runs[0].Duration != took["b"] {
		t.Errorf("durations %v %v, want %v %v", rep.Cases[0].Runs[0].Duration, rep.Cases[1].Runs[0].Duration, took["a"], took["b"])
	}
	if rep.Duration != 1500*time.Millisecond {
		t.Errorf("suite duration %v, want 1.5s", rep.Duration)
	}
	if got, want := prog.String(), "[1/2] a: pass (0.3 s)\n[2/2] b: pass (1.2 s)\n"; got != want {
		t.Errorf("progress:\n%q\nwant\n%q", got, want)
	}
}

func TestProgressLines(t *testing.T) {
	var cases []*Case
	for i := range 5 {
		cases = append(cases, testCase(fmt.Sprintf("c%d", i)))
	}
	run := func(_ context.Context, c *Case, _ string) Attempt {
		if c.Name == "c3" {
			return Attempt{Outcome: runtime.Failed("g", "turn 2: run_shell", []string{"exit 1: \x1b[2Jcleared\nnext"})}
		}
		return succeeded("")
	}
	var prog bytes.Buffer
	Run(t.Context(), testSuite(cases...), Options{Repeat: 2, Run: run, Progress: &prog, Now: newClock().now})
	lines := strings.Split(strings.TrimSuffix(prog.String(), "\n"), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d progress lines, want 10:\n%s", len(lines), prog.String())
	}
	if want := "[ 1/10] c0 run 1: pass (0.0 s)"; lines[0] != want {
		t.Errorf("line 1 %q, want %q", lines[0], want)
	}
	if want := "[ 7/10] c3 run 1: FAIL: status: want succeeded, got failed (turn 2: run_shell: exit 1: ␛cleared⏎ next) (0.0 s)"; lines[6] != want {
		t.Errorf("line 7 %q, want %q", lines[6], want)
	}
	if want := "[10/10] c4 run 2: pass (0.0 s)"; lines[9] != want {
		t.Errorf("line 10 %q, want %q", lines[9], want)
	}
	if strings.ContainsRune(prog.String(), '\x1b') {
		t.Error("an escape sequence from the outcome reached the progress")
	}
}

func TestProgressBar(t *testing.T) {
	run := func(_ context.Context, c *Case, _ string) Attempt {
		if c.Name == "bad" {
			return Attempt{Outcome: runtime.Failed("g", "s", nil)}
		}
		return succeeded("")
	}
	var prog bytes.Buffer
	Run(t.Context(), testSuite(testCase("bad"), testCase("good")), Options{Repeat: 2, Run: run, Progress: &prog, ProgressBar: true})
	want := "\r[░░░░░░░░░░░░░░░░░░░░] 0/4 runs · 0 failing" +
		"\r[█████░░░░░░░░░░░░░░░] 1/4 runs · 1 failing" +
		"\r[██████████░░░░░░░░░░] 2/4 runs · 2 failing" +
		"\r[███████████████░░░░░] 3/4 runs · 2 failing" +
		"\r[████████████████████] 4/4 runs · 2 failing" +
		"\r\x1b[K"
	if got := prog.String(); got != want {
		t.Errorf("bar:\n%q\nwant\n%q", got, want)
	}
}

// Without a runner every run fails, rather than the suite crashing.
func TestRunWithoutRunner(t *testing.T) {
	rep := Run(t.Context(), testSuite(testCase("a")), Options{})
	if got, want := rep.Cases[0].FirstFailure(), "run: no runner"; got != want {
		t.Errorf("first failure %q, want %q", got, want)
	}
}

// The runner gets the workspace's real path, even when the temporary
// folder is reached through a symbolic link (as /tmp is on macOS), so the
// paths the agent reports compare with it.
func TestRunWorkspaceRealPath(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "tmp")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", link)
	var got string
	run := func(_ context.Context, _ *Case, dir string) Attempt {
		got = dir
		return succeeded("")
	}
	Run(t.Context(), testSuite(testCase("a")), Options{Run: run})
	if filepath.Dir(got) != real {
		t.Errorf("workspace %s, want one in %s", got, real)
	}
}
