package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// evalSuite is the suite of six scripted cases the eval tests run: four
// that pass, two that fail on purpose, and one whose expected end is a
// question.
var evalSuite = filepath.Join("testdata", "eval", "suite.json")

// wantEval is each case's expected result: whether it passes, and a piece
// of its first failing check.
var wantEval = map[string]string{
	"reads-notes":                       "pass",
	"writes-list":                       "pass",
	"asks-which-file":                   "pass",
	"answered-question":                 "pass",
	"wrong-data-on-purpose":             "/item",
	"plan-mode-cannot-write-on-purpose": "notes.txt",
}

// TestEvalTable runs the suite with --parallel 3 --repeat 2 and checks the
// table, the exit code and the JUnit XML it writes.
func TestEvalTable(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "reports", "eval.xml")
	r := runBinary(t, ".", "", "eval", "--parallel", "3", "--repeat", "2", "--junit", junit, evalSuite)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (two cases fail on purpose)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	rows := map[string]string{}
	for line := range strings.Lines(r.stdout) {
		fields := strings.Fields(line)
		if len(fields) > 2 {
			rows[fields[0]] = line
		}
	}
	for name, want := range wantEval {
		row := rows[name]
		switch {
		case row == "":
			t.Errorf("no row for %s:\n%s", name, r.stdout)
		case want == "pass" && !strings.Contains(row, " pass ") || want == "pass" && !strings.Contains(row, "2/2"):
			t.Errorf("%s should pass both runs: %s", name, row)
		case want != "pass" && (!strings.Contains(row, "FAIL") || !strings.Contains(row, want) || !strings.Contains(row, "0/2")):
			t.Errorf("%s should fail both runs, naming %q: %s", name, want, row)
		}
	}
	if !strings.Contains(r.stdout, "6 cases") || !strings.Contains(r.stdout, "8/12") {
		t.Errorf("no summary of 6 cases and 8 of 12 runs passed:\n%s", r.stdout)
	}
	// The progress went to stderr, a line per finished run.
	if n := strings.Count(r.stderr, "/12]"); n != 12 {
		t.Errorf("%d progress lines, want 12:\n%s", n, r.stderr)
	}

	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("the JUnit XML does not parse: %v\n%s", err, data)
	}
	if suites.Tests != 12 || suites.Failures != 4 || len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 12 {
		t.Fatalf("JUnit: %d tests, %d failures, suites %+v", suites.Tests, suites.Failures, suites.Suites)
	}
	for _, c := range suites.Suites[0].Cases {
		name, _, _ := strings.Cut(c.Name, " (run ")
		want, ok := wantEval[name]
		switch {
		case !ok:
			t.Errorf("JUnit names an unknown case %q", c.Name)
		case want == "pass" && c.Failure != nil:
			t.Errorf("JUnit: %s failed: %s", c.Name, c.Failure.Message)
		case want != "pass" && (c.Failure == nil || !strings.Contains(c.Failure.Message, want)):
			t.Errorf("JUnit: %s should fail naming %q: %+v", c.Name, want, c.Failure)
		}
	}
}

// TestEvalJSON checks the JSON report: an object per case, each run's
// outcome as agenttui run --json prints it, and a summary.
func TestEvalJSON(t *testing.T) {
	r := runBinary(t, ".", "", "eval", "--json", "--parallel", "3", "--repeat", "2", evalSuite)
	if r.code != 1 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lines := events(t, r.stdout)
	if len(lines) != 7 || lines[6]["type"] != "summary" {
		t.Fatalf("%d lines, the last %v", len(lines), lines[len(lines)-1])
	}
	for _, c := range lines[:6] {
		name, _ := c["name"].(string)
		want, ok := wantEval[name]
		if !ok || c["type"] != "case" {
			t.Errorf("unexpected line %v", c)
			continue
		}
		if passed, _ := c["passed"].(bool); passed != (want == "pass") {
			t.Errorf("%s passed=%v", name, passed)
		}
		results, _ := c["results"].([]any)
		if len(results) != 2 {
			t.Errorf("%s has %d results", name, len(results))
			continue
		}
		outcome, _ := results[0].(map[string]any)["outcome"].(map[string]any)
		if name == "asks-which-file" && (outcome["status"] != "refused" || outcome["summary"] != "Which of the two notes files did you mean?") {
			t.Errorf("the refused case's outcome is %v", outcome)
		}
	}
	s := lines[6]
	if s["cases"] != 6.0 || s["cases_passed"] != 4.0 || s["runs"] != 12.0 || s["runs_passed"] != 8.0 {
		t.Errorf("summary %v", s)
	}
}

// TestEvalAllPassExitsZero checks that a suite whose cases all pass exits
// 0, from a folder of suites.
func TestEvalAllPassExitsZero(t *testing.T) {
	dir := t.TempDir()
	cases, err := filepath.Abs(filepath.Join("testdata", "eval", "cases"))
	if err != nil {
		t.Fatal(err)
	}
	suite := map[string]any{"cases": []any{map[string]any{
		"name": "reads", "goal": "What do the notes say?", "workspace": filepath.Join(cases, "notes.txtar"),
		"model": filepath.Join(cases, "reads-notes.json"), "expect": map[string]any{"status": "succeeded"},
	}}}
	data, _ := json.Marshal(suite)
	writeFile(t, filepath.Join(dir, "one.json"), string(data))
	if r := runBinary(t, ".", "", "eval", dir); r.code != 0 || !strings.Contains(r.stdout, "reads") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestEvalMissingKeyHint checks that a case whose provider has no API key
// fails with a hint an eval case can follow: a scenario file as its model,
// not the command line's --model demo, which a case refuses.
func TestEvalMissingKeyHint(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "keys.json")
	writeFile(t, suite, `{"cases": [{"name": "keyless", "goal": "g", "model": "anthropic:claude-opus-4-7"}]}`)
	cmd := exec.Command(binary, "eval", suite)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasSuffix(name, "_API_KEY") && !strings.HasSuffix(name, "_BASE_URL") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	r := execute(t, cmd)
	want := `ANTHROPIC_API_KEY is not set: export it, or make the case's "model" a .json scenario file`
	if r.code != 1 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout+r.stderr, "--model demo") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestEvalMalformedSuite checks that a malformed suite is refused before
// anything runs, with exit 2 and one line naming the file and the problem.
func TestEvalMalformedSuite(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	writeFile(t, bad, `{"cases": [{"name": "a", "gaol": "typo", "model": "openai:gpt-5"}]}`)
	r := runBinary(t, ".", "", "eval", bad)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], "bad.json") || !strings.Contains(lines[0], "gaol") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
