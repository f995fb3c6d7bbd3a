package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
)

// sampleRun is what the sample's fake runner gives for one run of a case.
type sampleRun struct {
	attempt Attempt
	took    time.Duration
}

// sampleReport runs a suite of two files with a fake runner and a fake
// clock, repeat times: a case that always passes, one that passes once, a
// refusal that is wanted, a case that cannot run, and one whose failure
// carries an escape sequence.
func sampleReport(t *testing.T, repeat int) *Report {
	t.Helper()
	fix, find, ask, broken, noisy := testCase("fix-typo"), testCase("find-file"), testCase("ask-first"), testCase("broken"), testCase("noisy\x1b[31m")
	find.Expect.Data = dataCase(t, "/file", "equals", `"a.txt"`).Expect.Data
	ask.Expect.Status = runtime.StatusRefused
	ask.Suite, ask.File = "nightly", "nightly.json"
	broken.Suite, broken.File = "nightly", "nightly.json"
	fix.Expect.MaxTurns = 5
	runs := map[string][]sampleRun{
		"fix-typo": {
			{Attempt{Outcome: runtime.Succeeded("Fixed", nil), Turns: 3, Usage: usage(1000, 200, cost(0.01)), Session: "s-fix-1"}, 300 * time.Millisecond},
			{Attempt{Outcome: runtime.Succeeded("Fixed", nil), Turns: 4, Usage: usage(1100, 200, cost(0.0146)), Session: "s-fix-2"}, 500 * time.Millisecond},
		},
		"find-file": {
			{Attempt{Outcome: runtime.Succeeded("Found", json.RawMessage(`{"file":"b.txt"}`)), Turns: 2, Usage: usage(500, 50, nil), Session: "s-find-1"}, 1200 * time.Millisecond},
			{Attempt{Outcome: runtime.Succeeded("Found", json.RawMessage(`{"file":"a.txt"}`)), Turns: 2, Usage: usage(520, 50, nil), Session: "s-find-2"}, 1000 * time.Millisecond},
		},
		"ask-first": {
			{Attempt{Outcome: runtime.Refused("Which one?"), Turns: 1, Usage: usage(100, 10, cost(0)), Session: "s-ask-1"}, 100 * time.Millisecond},
			{Attempt{Outcome: runtime.Refused("Which one?"), Turns: 1, Usage: usage(100, 10, cost(0)), Session: "s-ask-2"}, 100 * time.Millisecond},
		},
		"broken": {
			{Attempt{Err: errors.New("OPENAI_API_KEY is not set")}, 0},
			{Attempt{Err: errors.New("OPENAI_API_KEY is not set")}, 0},
		},
		"noisy\x1b[31m": {
			{Attempt{Outcome: runtime.Failed("g", "turn 7: run_shell", []string{"\x1b[2Jgone\tfor\ngood"}), Turns: 7, Usage: usage(9000, 900, cost(0.2)), Session: "s-noisy-1"}, 2 * time.Second},
			{Attempt{Outcome: runtime.Failed("g", "turn 7: run_shell", []string{"again"}), Turns: 7, Usage: usage(9000, 900, cost(0.2)), Session: "s-noisy-2"}, 2 * time.Second},
		},
	}
	clock := newClock()
	calls := map[string]int{}
	run := func(_ context.Context, c *Case, _ string) Attempt {
		r := runs[c.Name][calls[c.Name]%2]
		calls[c.Name]++
		clock.advance(r.took)
		return r.attempt
	}
	return Run(t.Context(), testSuite(fix, find, noisy, ask, broken), Options{Repeat: repeat, Run: run, Now: clock.now})
}

func TestTableGolden(t *testing.T) {
	for _, repeat := range []int{1, 2} {
		var b bytes.Buffer
		sampleReport(t, repeat).Table(&b)
		golden := filepath.Join("testdata", map[int]string{1: "table.golden", 2: "table-repeat.golden"}[repeat])
		if *update {
			if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to write it)", err)
		}
		if b.String() != string(want) {
			t.Errorf("table (repeat %d):\n%s\nwant (%s):\n%s", repeat, b.String(), golden, want)
		}
		if strings.ContainsAny(b.String(), "\x1b\r") {
			t.Errorf("the table carries a control character from outside:\n%q", b.String())
		}
	}
}

// caseLine and summaryLine are the JSON Lines as a script reads them.
type (
	caseLine struct {
		Type         string       `json:"type"`
		Suite        string       `json:"suite"`
		Name         string       `json:"name"`
		Passed       bool         `json:"passed"`
		RunsPassed   int          `json:"runs_passed"`
		Runs         int          `json:"runs"`
		PassRate     float64      `json:"pass_rate"`
		FirstFailure *string      `json:"first_failure"`
		Results      []resultLine `json:"results"`
	}
	resultLine struct {
		Run        int                  `json:"run"`
		Passed     bool                 `json:"passed"`
		Failures   []string             `json:"failures"`
		Status     *string              `json:"status"`
		Outcome    *runtime.GoalOutcome `json:"outcome"`
		Error      string               `json:"error"`
		Turns      int                  `json:"turns"`
		Tokens     int                  `json:"tokens"`
		CostUSD    *float64             `json:"cost_usd"`
		DurationMS int64                `json:"duration_ms"`
		Session    string               `json:"session"`
	}
	summaryLine struct {
		Type        string  `json:"type"`
		Cases       int     `json:"cases"`
		CasesPassed int     `json:"cases_passed"`
		CasesFailed int     `json:"cases_failed"`
		Runs        int     `json:"runs"`
		RunsPassed  int     `json:"runs_passed"`
		PassRate    float64 `json:"pass_rate"`
		DurationMS  int64   `json:"duration_ms"`
	}
)

func TestJSONLines(t *testing.T) {
	var b bytes.Buffer
	sampleReport(t, 2).JSON(&b)
	var lines []string
	sc := bufio.NewScanner(&b)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 5 cases and a summary:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	cases := make([]caseLine, 5)
	for i := range cases {
		dec := json.NewDecoder(strings.NewReader(lines[i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cases[i]); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, lines[i])
		}
		if cases[i].Type != "case" || len(cases[i].Results) != 2 || cases[i].Runs != 2 {
			t.Errorf("line %d: %+v", i+1, cases[i])
		}
	}
	fix, find, noisy, ask, broken := cases[0], cases[1], cases[2], cases[3], cases[4]
	if fix.Name != "fix-typo" || fix.Suite != "smoke" || !fix.Passed || fix.RunsPassed != 2 || fix.PassRate != 1 || fix.FirstFailure != nil {
		t.Errorf("fix-typo: %+v", fix)
	}
	r := fix.Results[1]
	if r.Run != 2 || !r.Passed || len(r.Failures) != 0 || r.Failures == nil || *r.Status != "succeeded" || r.Turns != 4 ||
		r.Tokens != 1300 || *r.CostUSD != 0.0146 || r.DurationMS != 500 || r.Session != "s-fix-2" || r.Error != "" {
		t.Errorf("fix-typo run 2: %+v", r)
	}
	if r.Outcome == nil || r.Outcome.Status != runtime.StatusSucceeded || r.Outcome.Summary != "Fixed" {
		t.Errorf("fix-typo run 2 outcome: %+v", r.Outcome)
	}
	if find.Passed || find.RunsPassed != 1 || find.PassRate != 0.5 || *find.FirstFailure != `data /file: want "a.txt", got "b.txt"` {
		t.Errorf("find-file: %+v", find)
	}
	if r := find.Results[0]; r.Passed || r.CostUSD != nil || string(r.Outcome.ExtractedData) != `{"file":"b.txt"}` {
		t.Errorf("find-file run 1: %+v", r)
	}
	if noisy.Name != "noisy\x1b[31m" || !strings.Contains(*noisy.FirstFailure, "\x1b[2Jgone") {
		t.Errorf("noisy: JSON keeps text as it came: %+v", noisy)
	}
	if ask.Suite != "nightly" || !ask.Passed || *ask.Results[0].Status != "refused" || ask.Results[0].Outcome.Summary != "Which one?" {
		t.Errorf("ask-first: %+v", ask)
	}
	if r := broken.Results[0]; broken.Passed || r.Status != nil || r.Outcome != nil || r.Error != "OPENAI_API_KEY is not set" ||
		r.Failures[0] != "run: OPENAI_API_KEY is not set" {
		t.Errorf("broken run 1: %+v", r)
	}
	if !strings.Contains(lines[4], `"outcome":null`) || !strings.Contains(lines[4], `"status":null`) {
		t.Errorf("a run without an outcome has null status and outcome: %s", lines[4])
	}
	var sum summaryLine
	if err := json.Unmarshal([]byte(lines[5]), &sum); err != nil {
		t.Fatal(err)
	}
	want := summaryLine{Type: "summary", Cases: 5, CasesPassed: 2, CasesFailed: 3, Runs: 10, RunsPassed: 5, PassRate: 0.5, DurationMS: 7200}
	if sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
}

// An outcome written in the JSON Lines is the GoalOutcome's own JSON.
func TestJSONOutcomeShape(t *testing.T) {
	var b bytes.Buffer
	sampleReport(t, 1).JSON(&b)
	want, _ := runtime.Failed("g", "turn 7: run_shell", []string{"\x1b[2Jgone\tfor\ngood"}).MarshalJSON()
	var line struct {
		Results []struct {
			Outcome json.RawMessage `json:"outcome"`
		} `json:"results"`
	}
	third := strings.Split(b.String(), "\n")[2]
	if err := json.Unmarshal([]byte(third), &line); err != nil {
		t.Fatal(err)
	}
	if string(line.Results[0].Outcome) != string(want) {
		t.Errorf("outcome %s, want %s", line.Results[0].Outcome, want)
	}
}

func TestFailed(t *testing.T) {
	pass := Run(t.Context(), testSuite(testCase("a")), Options{Run: always(succeeded(""))})
	if pass.Failed() {
		t.Error("Failed() with every case passing")
	}
	fail := Run(t.Context(), testSuite(testCase("a"), testCase("b")), Options{Run: func(_ context.Context, c *Case, _ string) Attempt {
		if c.Name == "b" {
			return Attempt{Outcome: runtime.Refused("?")}
		}
		return succeeded("")
	}})
	if !fail.Failed() {
		t.Error("Failed() = false with a failing case")
	}
}
