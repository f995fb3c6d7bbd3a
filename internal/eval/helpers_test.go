package eval

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// scenarioJSON is the smallest scenario file LoadScenario accepts.
const scenarioJSON = `{"steps": [{"text": "done"}]}`

// writeTree writes files (slash-separated paths relative to dir, and their
// contents) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeClock is a clock that moves only when told, so durations are exact
// without waiting.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testCase returns a case of suite "smoke" that wants a succeeded run.
func testCase(name string) *Case {
	return &Case{Suite: "smoke", File: "smoke.json", Name: name, Goal: "do " + name, Mode: "auto",
		Model: "openai:test", Expect: Expect{Status: runtime.StatusSucceeded}}
}

// testSuite returns suite "smoke" of the given cases.
func testSuite(cases ...*Case) *Suite { return &Suite{Name: "smoke", Cases: cases} }

// succeeded returns an attempt that succeeded with data.
func succeeded(data string) Attempt {
	var raw json.RawMessage
	if data != "" {
		raw = json.RawMessage(data)
	}
	return Attempt{Outcome: runtime.Succeeded("done", raw), Turns: 1, Session: "s1"}
}

// cost returns a pointer to c, for a Usage's CostUSD.
func cost(c float64) *float64 { return &c }

// always returns a RunFunc that gives a every time.
func always(a Attempt) RunFunc {
	return func(context.Context, *Case, string) Attempt { return a }
}

// usage returns a usage of in and out tokens and cost c (nil: unknown).
func usage(in, out int, c *float64) model.Usage {
	return model.Usage{InputTokens: in, OutputTokens: out, CostUSD: c}
}
