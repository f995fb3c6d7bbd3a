package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/journal"
)

// crashScenario writes a scenario whose writes are shell calls that append a
// unique marker to count.txt, so the file counts how often each was
// performed, interleaved with reads.
func crashScenario(t *testing.T, dir string) string {
	t.Helper()
	var steps []string
	for i := 1; i <= 8; i++ {
		steps = append(steps, fmt.Sprintf(`{"calls": [
			{"name": "run_shell", "args": {"command": "echo w%d >> count.txt; sleep 0.02"}},
			{"name": "read_file", "args": {"path": "notes.txt"}},
			{"name": "run_shell", "args": {"command": "sleep 0.01; echo x%d >> count.txt"}}
		]}`, i, i))
	}
	steps = append(steps, `{"calls": [{"name": "finish", "args": {"summary": "all written"}}]}`)
	path := filepath.Join(dir, "crash.json")
	body := `{"name": "crash", "steps": [` + strings.Join(steps, ",") + `]}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type crashTrial struct {
	ws, state, scenario string
}

func newCrashTrial(t *testing.T, scenario string) crashTrial {
	ws := workspaceWithNotes(t)
	return crashTrial{ws: ws, state: t.TempDir(), scenario: scenario}
}

func (c crashTrial) command(args ...string) *exec.Cmd { return c.program(binary, args...) }

// program runs name with args in the trial's workspace and state folder.
func (c crashTrial) program(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = c.ws
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+c.state)
	return cmd
}

// runToEnd runs the scenario headless without interruption and returns how
// long it took.
func (c crashTrial) runToEnd(t *testing.T) time.Duration {
	start := time.Now()
	out, err := c.command("run", "--mode", "auto", "--json", "--scenario", c.scenario, "write markers").Output()
	if err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	return time.Since(start)
}

func TestCrashAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test runs the binary 100 times")
	}
	scenario := crashScenario(t, t.TempDir())
	base := newCrashTrial(t, scenario)
	full := base.runToEnd(t)
	if got := markers(t, base.ws); len(got) != 16 {
		t.Fatalf("an uninterrupted run wrote %d markers, want 16", len(got))
	}

	// CRASH_SEED picks other kill points when exploring by hand; CI keeps
	// the fixed seed so that a failure can be replayed.
	seed := uint64(2026)
	if v := os.Getenv("CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CRASH_SEED=%q is not a number", v)
		}
		seed = n
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	points := make([]time.Duration, 50)
	for i := range points {
		points[i] = time.Duration(rng.Int64N(int64(full)))
	}
	var mu sync.Mutex // guards the counts below
	var killedMidRun, inDoubt int
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, at := range points {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			mid, doubt := crashOnce(t, i, at, scenario)
			mu.Lock()
			defer mu.Unlock()
			if mid {
				killedMidRun++
			}
			inDoubt += doubt
		}()
	}
	wg.Wait()
	t.Logf("seed %d, 50 kills: %d mid-run, %d in-doubt calls reported as not finished", seed, killedMidRun, inDoubt)
	if killedMidRun < 25 {
		t.Errorf("only %d of 50 kills landed mid-run; the test is not exercising resume", killedMidRun)
	}
}

// crashOnce kills a run at the given point, resumes it to the end, and
// checks the rules. It reports whether the kill landed mid-run and how many
// in-doubt writes the resume reported.
func crashOnce(t *testing.T, trial int, at time.Duration, scenario string) (midRun bool, inDoubtWrites int) {
	c := newCrashTrial(t, scenario)
	fail := func(format string, args ...any) {
		t.Errorf("trial %d (kill at %v): %s", trial, at, fmt.Sprintf(format, args...))
	}
	cmd := c.command("run", "--mode", "auto", "--json", "--scenario", scenario, "write markers")
	var first bytes.Buffer
	cmd.Stdout = &first
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The sleep is the crash point itself, chosen at random, not a wait for
	// something to happen.
	time.Sleep(at)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()

	// What the journal held at the moment of the crash.
	dir := filepath.Join(c.state, "agenttui", "sessions")
	before, _, _ := journal.List(dir, c.ws)
	var doubted []string
	finishedBefore := map[string]string{}
	if len(before) == 1 {
		rp := before[0]
		midRun = !rp.AtRest
		for _, e := range rp.Events {
			if f, ok := e.(interface{ EventType() string }); ok && f.EventType() == "call_finished" {
				b, _ := json.Marshal(e)
				var ev struct {
					Key    string `json:"key"`
					Result string `json:"result"`
				}
				json.Unmarshal(b, &ev)
				finishedBefore[ev.Key] = ev.Result
			}
		}
		if rp.Interrupted != nil {
			for i, ic := range rp.Interrupted.Calls {
				call := rp.Session.Messages[len(rp.Session.Messages)-1].Calls[i]
				if ic.Started && ic.Finished == nil && call.Name == "run_shell" {
					doubted = append(doubted, fmt.Sprintf("%d/%d", rp.Interrupted.Turn, i))
				}
			}
		}
	}

	// Resume to the end; with no journal yet, start again.
	args := []string{"run", "--continue", "--json", "--mode", "auto", "--scenario", scenario}
	if len(before) == 0 {
		args = []string{"run", "--json", "--mode", "auto", "--scenario", scenario, "write markers"}
	}
	out, err := c.command(args...).Output()
	if err != nil {
		fail("resume: %v\n%s", err, out)
		return
	}
	evs := events(t, string(out))
	if o := lastOutcome(t, evs); o["status"] != "succeeded" {
		fail("the resumed run ended %v", o)
	}
	// No write performed twice.
	seen := map[string]int{}
	for _, m := range markers(t, c.ws) {
		seen[m]++
		if seen[m] > 1 {
			fail("marker %s was written %d times", m, seen[m])
		}
	}
	// In-doubt writes reach the model as not finished and started, and
	// completed results are never produced again.
	for _, ev := range evs {
		if ev["type"] != "call_finished" {
			continue
		}
		id := fmt.Sprintf("%v/%v", ev["turn"], ev["index"])
		if prev, ok := finishedBefore[ev["key"].(string)]; ok {
			fail("call %s finished before the crash (%q) and was settled again", id, prev)
		}
		for _, d := range doubted {
			if d == id {
				inDoubtWrites++
				if ev["not_finished"] != true || ev["started"] != true || !strings.Contains(ev["result"].(string), "may have partly run") {
					fail("in-doubt write %s reached the model as %v", id, ev)
				}
			}
		}
	}
	if inDoubtWrites != len(doubted) {
		fail("%d in-doubt writes, %d reported", len(doubted), inDoubtWrites)
	}
	// Every completed result is still in the conversation after the resume.
	after, _, _ := journal.List(dir, c.ws)
	if len(after) != 1 {
		fail("%d sessions after the resume", len(after))
		return
	}
	contents := map[string]bool{}
	for _, m := range after[0].Session.Messages {
		for _, r := range m.Results {
			contents[r.Content] = true
		}
	}
	for key, result := range finishedBefore {
		if !contents[result] {
			fail("the completed result of %s (%q) is missing after the resume", key, result)
		}
	}
	return midRun, inDoubtWrites
}

func markers(t *testing.T, ws string) []string {
	data, err := os.ReadFile(filepath.Join(ws, "count.txt"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}
