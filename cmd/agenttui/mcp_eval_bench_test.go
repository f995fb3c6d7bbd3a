package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkRunGoalOverhead measures what a scripted goal costs through
// agenttui mcp's run_goal against agenttui run --json of the same scenario
// in the same workspace, the two alternated in one run. It reports the
// medians of agenttui run (a process per goal: run-ms), of run_goal on a
// server already up (run_goal-ms) and of a server started for the goal,
// initialised, and the goal run (cold-ms), and their ratios to run-ms.
//
//	go test -run XXX -bench RunGoalOverhead -benchtime 20x ./cmd/agenttui/
func BenchmarkRunGoalOverhead(b *testing.B) {
	sc := scenario(b, "succeeds.json")
	goal := "What do the notes say?"
	ws := b.TempDir()
	writeFile(b, filepath.Join(ws, "notes.txt"), "remember the milk\n")
	ctx := context.Background()
	connect := func() *mcp.ClientSession {
		cmd := exec.Command(binary, "mcp", "--scenario", sc, "--workspace", ws)
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	runGoal := func(cs *mcp.ClientSession) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_goal", Arguments: map[string]any{"goal": goal}})
		if err != nil || res.IsError {
			b.Fatalf("run_goal: %v %+v", err, res)
		}
	}
	headless := func() {
		cmd := exec.Command(binary, "run", "--json", "--scenario", sc, "--workspace", ws, goal)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("agenttui run: %v\n%s", err, out)
		}
	}
	warm := connect()
	defer warm.Close()
	runGoal(warm)
	headless()
	var run, served, cold []float64
	for b.Loop() {
		start := time.Now()
		headless()
		run = append(run, ms(time.Since(start)))

		start = time.Now()
		runGoal(warm)
		served = append(served, ms(time.Since(start)))

		start = time.Now()
		cs := connect()
		runGoal(cs)
		cold = append(cold, ms(time.Since(start)))
		cs.Close()
	}
	b.ReportMetric(median(run), "run-ms")
	b.ReportMetric(median(served), "run_goal-ms")
	b.ReportMetric(median(cold), "cold-ms")
	b.ReportMetric(median(served)/median(run), "run_goal/run")
	b.ReportMetric(median(cold)/median(run), "cold/run")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkEvalParallel runs an eval suite of 50 scripted cases with
// --parallel 4 and one after another (--parallel 1), alternated in one
// run, and reports both medians and their ratio (target: at most 0.4). Each
// case reads a file, writes one and finishes; its scenario waits delay_ms
// before each of its three replies, standing for the time a real model
// takes to answer, which is what an eval mostly waits on.
// BENCH_EVAL_DELAY_MS changes the delay (0 measures the harness alone).
//
//	go test -run XXX -bench EvalParallel -benchtime 3x ./cmd/agenttui/
func BenchmarkEvalParallel(b *testing.B) {
	delay := 20
	if v := os.Getenv("BENCH_EVAL_DELAY_MS"); v != "" {
		fmt.Sscan(v, &delay)
	}
	dir := b.TempDir()
	scenarioJSON := fmt.Sprintf(`{"name": "bench", "steps": [
  {"delay_ms": %[1]d, "calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
  {"delay_ms": %[1]d, "expect": ["milk"], "calls": [{"name": "write_file", "args": {"path": "out.txt", "content": "bread\n"}}]},
  {"delay_ms": %[1]d, "calls": [{"name": "finish", "args": {"summary": "done", "data": {"wrote": "out.txt"}}}]}]}`, delay)
	writeFile(b, filepath.Join(dir, "cases", "bench.json"), scenarioJSON)
	writeFile(b, filepath.Join(dir, "cases", "notes.txtar"), "-- notes.txt --\nremember the milk\n")
	var cases []map[string]any
	for i := range 50 {
		cases = append(cases, map[string]any{"name": fmt.Sprintf("case-%02d", i), "goal": "Copy the list.",
			"workspace": "cases/notes.txtar", "model": "cases/bench.json",
			"expect": map[string]any{"files": []any{map[string]any{"path": "out.txt", "contains": "bread"}}}})
	}
	data, _ := json.Marshal(map[string]any{"name": "bench", "cases": cases})
	suite := filepath.Join(dir, "suite.json")
	writeFile(b, suite, string(data))
	eval := func(parallel string) float64 {
		start := time.Now()
		cmd := exec.Command(binary, "eval", "--parallel", parallel, suite)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("agenttui eval --parallel %s: %v\n%s", parallel, err, out)
		}
		return ms(time.Since(start))
	}
	eval("4")
	var serial, parallel []float64
	for b.Loop() {
		serial = append(serial, eval("1"))
		parallel = append(parallel, eval("4"))
	}
	b.ReportMetric(median(serial), "serial-ms")
	b.ReportMetric(median(parallel), "parallel4-ms")
	b.ReportMetric(median(parallel)/median(serial), "parallel/serial")
}
