package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// noopReply returns a scripted model whose first reply makes n no-op calls,
// each reading its own path, and whose second reply finishes.
func noopReply(n int) model.Model {
	calls := make([]model.ScriptedCall, n)
	for i := range calls {
		calls[i] = call("noop", fmt.Sprintf(`{"path":"f%d"}`, i))
	}
	return model.NewScripted("bench", &model.Scenario{Steps: []model.Step{{Calls: calls}, finishStep("done")}})
}

// BenchmarkPerCallOverhead measures what the runtime adds to each call of a
// 1,000-call reply of tools that do nothing: validation against the schema,
// footprinting, planning, hooks, scheduling, events and results.
func BenchmarkPerCallOverhead(b *testing.B) {
	const calls = 1000
	noop := pathTool("noop", false, okBody("ok"))
	cat, err := NewCatalog(noop)
	if err != nil {
		b.Fatal(err)
	}
	m := noopReply(calls)
	hook := HookFunc(func(context.Context, CallInfo) Flow { return Continue("mode:auto", "") })
	var events int
	a := &Agent{Model: m, Catalog: cat, Hooks: []Hook{hook}, Sink: func(Event) { events++ }}
	b.ResetTimer()
	for b.Loop() {
		out := a.Run(context.Background(), NewSession("b"), "go")
		if out.Status != StatusSucceeded {
			b.Fatalf("outcome %+v", out)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
}

// workloadCall is one call of the makespan workload.
type workloadCall struct {
	Path  string `json:"path"`
	Write bool   `json:"write"`
	MS    int    `json:"ms"`
}

// makespanWorkload returns 64 calls with random footprints (a third write,
// over twelve paths) and random durations, the same for every seed.
func makespanWorkload(seed uint64) []workloadCall {
	r := rand.New(rand.NewPCG(seed, seed))
	calls := make([]workloadCall, 64)
	for i := range calls {
		calls[i] = workloadCall{Path: fmt.Sprintf("p%d", r.IntN(12)), Write: r.IntN(3) == 0, MS: 2 + r.IntN(19)}
	}
	return calls
}

func (w workloadCall) touches() tool.Touches {
	s := tool.Paths("/w/" + w.Path)
	if w.Write {
		return tool.Writes(s)
	}
	return tool.Reads(s)
}

// criticalPath returns the longest chain of dependent calls, by duration:
// no schedule can finish sooner.
func criticalPath(calls []workloadCall) time.Duration {
	touches := make([]tool.Touches, len(calls))
	for i, c := range calls {
		touches[i] = c.touches()
	}
	plan := planCalls(touches)
	finish := make([]time.Duration, len(calls))
	var longest time.Duration
	for j, c := range calls {
		var start time.Duration
		for _, i := range plan.deps[j] {
			start = max(start, finish[i])
		}
		finish[j] = start + time.Duration(c.MS)*time.Millisecond
		longest = max(longest, finish[j])
	}
	return longest
}

func sleepTool() *fakeTool {
	return &fakeTool{
		decl: tool.Declaration{Name: "work", Parameters: json.RawMessage(
			`{"type":"object","properties":{"path":{"type":"string"},"write":{"type":"boolean"},"ms":{"type":"integer"}},"additionalProperties":false}`)},
		foot: func(args map[string]any) tool.Touches {
			b, _ := json.Marshal(args)
			var w workloadCall
			_ = json.Unmarshal(b, &w)
			return w.touches()
		},
		body: func(_ context.Context, args map[string]any) tool.Return {
			time.Sleep(time.Duration(args["ms"].(float64)) * time.Millisecond)
			return tool.Ok("done")
		},
	}
}

// BenchmarkMakespan runs the 64-call workload through the scheduler and
// reports its makespan against the critical-path bound, beside the same
// workload run serially and under one global read/write lock (calls that
// only read share it, every other call takes it alone), which is how most
// agent consoles run parallel calls.
func BenchmarkMakespan(b *testing.B) {
	calls := makespanWorkload(42)
	bound := criticalPath(calls)
	steps := make([]model.ScriptedCall, len(calls))
	var serial time.Duration
	for i, c := range calls {
		args, _ := json.Marshal(c)
		steps[i] = model.ScriptedCall{Name: "work", Args: args}
		serial += time.Duration(c.MS) * time.Millisecond
	}
	cat, err := NewCatalog(sleepTool())
	if err != nil {
		b.Fatal(err)
	}
	m := model.NewScripted("bench", &model.Scenario{Steps: []model.Step{{Calls: steps}, finishStep("done")}})
	// The makespan is the schedule's length: from the reply's arrival to
	// the end of its last call. The model's own time (building a 64-call
	// reply, the finish turn) is no part of it.
	var replied, ended time.Time
	a := &Agent{Model: m, Catalog: cat, MaxParallel: len(calls), Sink: func(e Event) {
		switch ev := e.(type) {
		case ReplyReceived:
			if ev.Turn == 1 {
				replied = time.Now()
			}
		case TurnEnded:
			if ev.Turn == 1 {
				ended = time.Now()
			}
		}
	}}
	var scheduled, ideal, locked, sequential time.Duration
	for b.Loop() {
		a.Run(context.Background(), NewSession("b"), "go")
		scheduled += ended.Sub(replied)
		ideal += runIdeally(calls)
		locked += runUnderGlobalLock(calls)
		sequential += runSerially(calls)
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
	b.ReportMetric(float64(bound.Microseconds())/1000, "bound-ms")
	b.ReportMetric(ms(scheduled), "footprint-ms")
	b.ReportMetric(ms(scheduled)/(float64(bound.Microseconds())/1000), "footprint/bound")
	b.ReportMetric(ms(ideal), "ideal-ms")
	b.ReportMetric(ms(locked), "rwlock-ms")
	b.ReportMetric(ms(sequential), "serial-ms")
	_ = serial
}

// runIdeally runs calls as an ideal scheduler would, with nothing between
// them but the dependencies: each call is a goroutine that sleeps as soon as
// the calls it depends on have closed their channels. What it takes beyond
// the critical-path bound is the operating system's timer slack, which no
// scheduler can avoid.
func runIdeally(calls []workloadCall) time.Duration {
	touches := make([]tool.Touches, len(calls))
	for i, c := range calls {
		touches[i] = c.touches()
	}
	plan := planCalls(touches)
	done := make([]chan struct{}, len(calls))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var wg sync.WaitGroup
	start := time.Now()
	for j, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, i := range plan.deps[j] {
				<-done[i]
			}
			time.Sleep(time.Duration(c.MS) * time.Millisecond)
			close(done[j])
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// runUnderGlobalLock runs calls in order under one read/write lock: a call
// that only reads takes a read lock, any other the write lock.
func runUnderGlobalLock(calls []workloadCall) time.Duration {
	var lock sync.RWMutex
	var wg sync.WaitGroup
	start := time.Now()
	for _, c := range calls {
		d := time.Duration(c.MS) * time.Millisecond
		if c.Write {
			lock.Lock()
			wg.Add(1)
			go func() { defer wg.Done(); time.Sleep(d); lock.Unlock() }()
		} else {
			lock.RLock()
			wg.Add(1)
			go func() { defer wg.Done(); time.Sleep(d); lock.RUnlock() }()
		}
	}
	wg.Wait()
	return time.Since(start)
}

func runSerially(calls []workloadCall) time.Duration {
	start := time.Now()
	for _, c := range calls {
		time.Sleep(time.Duration(c.MS) * time.Millisecond)
	}
	return time.Since(start)
}
