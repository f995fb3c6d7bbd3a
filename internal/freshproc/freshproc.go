// Package freshproc times work done for the first time in a process: the
// first Markdown answer drawn, the first diff laid out. Work of that kind
// pays for what the program sets up on first use (a lexer registry, a
// lexer's rules, a renderer's styles), which a benchmark loop pays once and
// then never again, so each measurement runs in a fresh process: the test
// binary started again to run one test, which does the work once and
// prints how long it took.
package freshproc

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv is set in the environment of the test binary started again; its
// value is the name of the test that does the work.
const childEnv = "AGENTTUI_FRESHPROC_CHILD"

// marker starts the line on which a child prints its time.
const marker = "freshproc-ns "

// Child is the body of the test named test: started by Measure, it runs
// work once and prints how long it took; in an ordinary test run it skips.
func Child(t *testing.T, test string, work func()) { ChildAfter(t, test, nil, work) }

// ChildAfter is Child with setup, when not nil, run first and not timed:
// what a process has done by the time the work comes.
func ChildAfter(t *testing.T, test string, setup, work func()) {
	if os.Getenv(childEnv) != test {
		t.Skip("runs only when started by freshproc.Measure")
	}
	if setup != nil {
		setup()
	}
	start := time.Now()
	work()
	fmt.Printf("%s%d\n", marker, time.Since(start).Nanoseconds())
}

// Measure starts the test binary b.N times to run the test named test,
// whose body must call Child, and reports the median time of the work as
// ms/first (and the range in the log).
func Measure(b *testing.B, test string) {
	var times []float64
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"="+test)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%s: %v\n%s", test, err, out)
		}
		_, after, ok := strings.Cut(string(out), marker)
		if !ok {
			b.Fatalf("%s printed no time:\n%s", test, out)
		}
		line, _, _ := strings.Cut(after, "\n")
		ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			b.Fatalf("%s: %v", test, err)
		}
		times = append(times, float64(ns)/1e6)
	}
	slices.Sort(times)
	b.ReportMetric(times[len(times)/2], "ms/first")
	b.Logf("%s: %.2f ms", test, times)
}
