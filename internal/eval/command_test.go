package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agenttui/agenttui/runtime"
)

// commandSuite writes a suite of cases "good" and "bad" into a fresh
// folder, makes it the current folder, and returns a runner under which
// good passes and bad passes only when pass is set, counting its calls.
func commandSuite(t *testing.T, pass bool) (RunFunc, *atomic.Int32) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"suite.json": `{"name": "smoke", "cases": [
			{"name": "good", "goal": "g", "model": "openai:x"},
			{"name": "bad", "goal": "g", "model": "openai:x"}]}`,
		"blocker": "a file, so nothing can be made below it",
	})
	t.Chdir(dir)
	var calls atomic.Int32
	return func(_ context.Context, c *Case, _ string) Attempt {
		calls.Add(1)
		if c.Name == "bad" && !pass {
			return Attempt{Outcome: runtime.Failed("g", "turn 1: model reply", []string{"boom"})}
		}
		return succeeded("")
	}, &calls
}

func runCommand(t *testing.T, run RunFunc, terminal bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Command(t.Context(), args, &out, &errOut, run, terminal)
	return code, out.String(), errOut.String()
}

func TestCommandPasses(t *testing.T) {
	run, calls := commandSuite(t, true)
	code, stdout, stderr := runCommand(t, run, false, "suite.json", "--repeat", "2", "--parallel=2")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	if calls.Load() != 4 {
		t.Errorf("%d runs, want 2 cases × 2", calls.Load())
	}
	if !strings.HasPrefix(stdout, "CASE ") || !strings.Contains(stdout, "2 cases, 2 runs each: 2 passed, 0 failed · runs passed 4/4 (100.0%)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if n := strings.Count(stderr, "\n"); n != 4 || !strings.Contains(stderr, "good run 1: pass") {
		t.Errorf("stderr has %d progress lines, want 4:\n%s", n, stderr)
	}
}

func TestCommandFails(t *testing.T) {
	run, _ := commandSuite(t, false)
	code, stdout, stderr := runCommand(t, run, true, "suite.json")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "bad   FAIL    0/1     status: want succeeded, got failed (turn 1: model reply: boom)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.HasPrefix(stderr, "\r[") || !strings.HasSuffix(stderr, "2/2 runs · 1 failing\r\x1b[K") {
		t.Errorf("stderr on a terminal is the bar:\n%q", stderr)
	}
}

func TestCommandJSON(t *testing.T) {
	run, _ := commandSuite(t, false)
	code, stdout, stderr := runCommand(t, run, false, "--json", "suite.json")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("stdout has %d lines, want 3:\n%s", len(lines), stdout)
	}
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("stdout line %d is not JSON: %v\n%s", i+1, err, l)
		}
	}
	if !strings.Contains(lines[2], `"type":"summary"`) || !strings.Contains(lines[2], `"cases_failed":1`) {
		t.Errorf("summary line: %s", lines[2])
	}
	if !strings.Contains(stderr, "] bad: FAIL: status:") {
		t.Errorf("progress stays on stderr with --json:\n%s", stderr)
	}
}

func TestCommandJUnit(t *testing.T) {
	run, _ := commandSuite(t, false)
	path := filepath.Join("reports", "ci", "eval.xml")
	code, _, stderr := runCommand(t, run, false, "suite.json", "--junit", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out xSuites
	if err := xml.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if out.Tests != 2 || out.Failures != 1 || out.Suites[0].Cases[1].Failure == nil {
		t.Errorf("junit: %+v", out)
	}
}

// A JUnit file that cannot be written is found before anything runs.
func TestCommandJUnitUnwritable(t *testing.T) {
	run, calls := commandSuite(t, true)
	code, stdout, stderr := runCommand(t, run, false, "suite.json", "--junit", "blocker/eval.xml")
	if code != 2 || calls.Load() != 0 || stdout != "" {
		t.Errorf("exit %d after %d runs, stdout %q; want 2, none, empty", code, calls.Load(), stdout)
	}
	if want := "agenttui eval: --junit blocker/eval.xml: not a directory\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

func TestCommandUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "needs a suite, a suite file or a folder of them, for example: agenttui eval evals/smoke.json"},
		{[]string{"a.json", "b.json"}, "takes one suite, not 2 (a.json b.json)"},
		{[]string{"--parallel", "0", "suite.json"}, `--parallel needs a whole number of at least 1, not "0"`},
		{[]string{"--repeat=x", "suite.json"}, `--repeat needs a whole number of at least 1, not "x"`},
		{[]string{"--verbose", "suite.json"}, "unknown flag --verbose (see agenttui eval --help)"},
		{[]string{"suite.json", "--junit"}, "flag --junit needs a value"},
		{[]string{"nope.json"}, "nope.json: no such file or folder"},
		{[]string{"blocker"}, `blocker: line 1, column 1: invalid character 'a' looking for beginning of value`},
	} {
		run, calls := commandSuite(t, true)
		code, stdout, stderr := runCommand(t, run, false, tc.args...)
		if code != 2 || stdout != "" || calls.Load() != 0 {
			t.Errorf("%q: exit %d, stdout %q, %d runs; want 2, nothing, none", tc.args, code, stdout, calls.Load())
		}
		if want := "agenttui eval: " + tc.want + "\n"; stderr != want {
			t.Errorf("%q: stderr\n got %q\nwant %q", tc.args, stderr, want)
		}
	}
}

func TestCommandMalformedSuite(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"suite.json": `{"cases": [{"name": "fix-typo", "gaol": "x", "model": "openai:x"}]}`})
	t.Chdir(dir)
	code, stdout, stderr := runCommand(t, always(succeeded("")), false, "suite.json")
	if code != 2 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
	}
	if want := "agenttui eval: suite.json: case \"fix-typo\": unknown field \"gaol\"\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

func TestCommandHelp(t *testing.T) {
	for _, flag := range []string{"-h", "--help"} {
		code, stdout, stderr := runCommand(t, always(succeeded("")), false, flag)
		if code != 0 || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q", flag, code, stderr)
		}
		for _, want := range []string{"Usage: agenttui eval [flags] SUITE", "-parallel N", "-repeat K", "-json", "-junit FILE", "Exit codes: 0"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: usage lacks %q:\n%s", flag, want, stdout)
			}
		}
	}
}

func TestCommandWithoutRunner(t *testing.T) {
	commandSuite(t, true)
	code, _, stderr := runCommand(t, nil, false, "suite.json")
	if code != 2 || stderr != "agenttui eval: no runner is wired to run cases\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
