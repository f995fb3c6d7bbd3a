package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/internal/sanitize"
)

// Report is what a suite's runs gave.
type Report struct {
	// Suite is the suite's name.
	Suite string
	// Repeat is how many times each case ran.
	Repeat int
	// Cases are in the suite's order.
	Cases []*CaseResult
	// Duration is the wall time of the whole suite.
	Duration time.Duration
}

// CaseResult is what a case's runs gave.
type CaseResult struct {
	// Case is the case that ran.
	Case *Case
	// Runs are in run order: Runs[k-1] is run k.
	Runs []RunResult
}

// RunResult is one run of a case and its checks.
type RunResult struct {
	// Run is the run's number, from 1.
	Run int
	// Attempt is what the runner reported.
	Attempt Attempt
	// Failures are the failing checks in words, in the order they were
	// checked; none when the run passed.
	Failures []string
	// Duration is how long the runner took.
	Duration time.Duration
}

// Passed reports whether every check of the run passed.
func (r RunResult) Passed() bool { return len(r.Failures) == 0 }

// Passed reports whether every run of the case passed: a case that passes
// only sometimes is flaky, and flaky is not passing.
func (c *CaseResult) Passed() bool { return c.RunsPassed() == len(c.Runs) }

// RunsPassed returns how many of the case's runs passed.
func (c *CaseResult) RunsPassed() int {
	n := 0
	for _, r := range c.Runs {
		if r.Passed() {
			n++
		}
	}
	return n
}

// FirstFailure returns the first failing check of the case's first
// failing run, or "" when every run passed.
func (c *CaseResult) FirstFailure() string {
	for _, r := range c.Runs {
		if !r.Passed() {
			return r.Failures[0]
		}
	}
	return ""
}

// Failed reports whether any case failed.
func (r *Report) Failed() bool {
	for _, c := range r.Cases {
		if !c.Passed() {
			return true
		}
	}
	return false
}

// totals counts the report's cases and runs, and those that passed.
func (r *Report) totals() (cases, casesPassed, runs, runsPassed int) {
	for _, c := range r.Cases {
		cases++
		if c.Passed() {
			casesPassed++
		}
		runs += len(c.Runs)
		runsPassed += c.RunsPassed()
	}
	return
}

// rate returns part/whole, or 0 for nothing at all.
func rate(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// Table writes the report for a person: one row per case, then a summary
// line. Text from outside (failure messages quoting model output, case
// names) is made safe for a terminal first. Write errors are not reported:
// the table goes to a terminal or a pipe, where nobody could act on one.
func (r *Report) Table(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRESULT\tPASSED\tFIRST FAILING CHECK\tTURNS\tTOKENS\tCOST\tDURATION")
	for _, c := range r.Cases {
		result, first := "pass", "—"
		if !c.Passed() {
			result, first = "FAIL", clip(sanitize.Line(c.FirstFailure()), 100)
		}
		turns, tokens, cost, dur := c.means()
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\n",
			clip(sanitize.Line(c.Case.Name), 40), result, c.RunsPassed(), len(c.Runs), first,
			formatMean(turns), strconv.Itoa(int(math.Round(tokens))), cost, seconds(dur))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\n%s\n", r.summary())
}

// means returns the mean turns, tokens, cost and duration of the case's
// runs; the cost is "—" when any run's is not known, since a mean that
// leaves some out would mislead.
func (c *CaseResult) means() (turns, tokens float64, cost string, dur time.Duration) {
	if len(c.Runs) == 0 {
		return 0, 0, "—", 0
	}
	var sumCost float64
	known := true
	var sumDur time.Duration
	for _, r := range c.Runs {
		turns += float64(r.Attempt.Turns)
		tokens += float64(r.Attempt.Usage.Tokens())
		if r.Attempt.Usage.CostUSD == nil {
			known = false
		} else {
			sumCost += *r.Attempt.Usage.CostUSD
		}
		sumDur += r.Duration
	}
	n := float64(len(c.Runs))
	cost = "—"
	if known {
		cost = dollars(sumCost / n)
	}
	return turns / n, tokens / n, cost, sumDur / time.Duration(len(c.Runs))
}

// formatMean writes a mean as a whole number when it is one, else to one
// decimal.
func formatMean(v float64) string {
	if v == math.Trunc(v) {
		return strconv.Itoa(int(v))
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// seconds writes a duration in seconds to a tenth, the precision a person
// compares runs by.
func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// summary returns the report's last line, such as "6 cases, 2 runs each: 4
// passed, 2 failed · runs passed 8/12 (66.7%) · 1.2 s".
func (r *Report) summary() string {
	cases, casesPassed, runs, runsPassed := r.totals()
	return fmt.Sprintf("%s, %s each: %d passed, %d failed · runs passed %d/%d (%.1f%%) · %s",
		plural.Of(cases, "case"), plural.Of(r.Repeat, "run"), casesPassed, cases-casesPassed,
		runsPassed, runs, 100*rate(runsPassed, runs), seconds(r.Duration))
}

// The JSON Lines forms of a case and of the summary.
type (
	caseJSON struct {
		Type         string       `json:"type"`
		Suite        string       `json:"suite"`
		Name         string       `json:"name"`
		Passed       bool         `json:"passed"`
		RunsPassed   int          `json:"runs_passed"`
		Runs         int          `json:"runs"`
		PassRate     float64      `json:"pass_rate"`
		FirstFailure *string      `json:"first_failure"`
		Results      []resultJSON `json:"results"`
	}
	resultJSON struct {
		Run        int              `json:"run"`
		Passed     bool             `json:"passed"`
		Failures   []string         `json:"failures"`
		Status     *string          `json:"status"`
		Outcome    *json.RawMessage `json:"outcome"`
		Error      string           `json:"error,omitempty"`
		Turns      int              `json:"turns"`
		Tokens     int              `json:"tokens"`
		CostUSD    *float64         `json:"cost_usd"`
		DurationMS int64            `json:"duration_ms"`
		Session    string           `json:"session"`
	}
	summaryJSON struct {
		Type        string  `json:"type"`
		Suite       string  `json:"suite"`
		Cases       int     `json:"cases"`
		CasesPassed int     `json:"cases_passed"`
		CasesFailed int     `json:"cases_failed"`
		Runs        int     `json:"runs"`
		RunsPassed  int     `json:"runs_passed"`
		PassRate    float64 `json:"pass_rate"`
		DurationMS  int64   `json:"duration_ms"`
	}
)

// JSON writes the report as JSON Lines, for scripts: one "case" object per
// case, in suite order, then one "summary" object. Strings are written as
// they came (JSON escapes control characters), so nothing is lost. Write
// errors are not reported, as with Table.
func (r *Report) JSON(w io.Writer) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, c := range r.Cases {
		cj := caseJSON{Type: "case", Suite: c.Case.Suite, Name: c.Case.Name, Passed: c.Passed(),
			RunsPassed: c.RunsPassed(), Runs: len(c.Runs), PassRate: rate(c.RunsPassed(), len(c.Runs)),
			Results: make([]resultJSON, len(c.Runs))}
		if f := c.FirstFailure(); f != "" {
			cj.FirstFailure = &f
		}
		for i, run := range c.Runs {
			cj.Results[i] = run.json()
		}
		if enc.Encode(cj) != nil {
			return
		}
	}
	cases, casesPassed, runs, runsPassed := r.totals()
	_ = enc.Encode(summaryJSON{Type: "summary", Suite: r.Suite, Cases: cases, CasesPassed: casesPassed,
		CasesFailed: cases - casesPassed, Runs: runs, RunsPassed: runsPassed,
		PassRate: rate(runsPassed, runs), DurationMS: r.Duration.Milliseconds()})
}

// json returns the run's JSON form. A run that could not be run has no
// outcome: its status and outcome are null, and error says why.
func (r RunResult) json() resultJSON {
	a := r.Attempt
	j := resultJSON{Run: r.Run, Passed: r.Passed(), Failures: r.Failures, Turns: a.Turns,
		Tokens: a.Usage.Tokens(), CostUSD: a.Usage.CostUSD, DurationMS: r.Duration.Milliseconds(), Session: a.Session}
	if j.Failures == nil {
		j.Failures = []string{}
	}
	if a.Err != nil {
		j.Error = a.Err.Error()
	}
	if out, err := a.Outcome.MarshalJSON(); err == nil {
		raw := json.RawMessage(out)
		status := string(a.Outcome.Status)
		j.Outcome, j.Status = &raw, &status
	}
	return j
}
