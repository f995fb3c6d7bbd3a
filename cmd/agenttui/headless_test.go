package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// binary is the agenttui binary built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agenttui-test-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "agenttui")
	// Keep the tests away from the user's own configuration and state, and
	// keep what a binary a test kills leaves behind (the shell sandbox's
	// temporary folder) in dir, which goes at the end.
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "TMPDIR"} {
		home := filepath.Join(dir, v)
		if err := os.MkdirAll(home, 0o755); err != nil {
			panic(err)
		}
		os.Setenv(v, home)
	}
	// Nor export traces to a collector the machine may name.
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "OTEL_") {
			os.Unsetenv(name)
		}
	}
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building agenttui: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// runBinary runs the built binary with args in dir, with stdin as given.
func runBinary(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	return execute(t, cmd)
}

// execute runs cmd to its end and returns its exit code and output; only a
// failure to start it fails the test.
func execute(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// workspaceWithNotes returns a workspace holding notes.txt.
func workspaceWithNotes(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func scenario(t testing.TB, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// events parses a --json stream, failing on any line that is not an object
// with a type.
func events(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		if _, ok := ev["type"].(string); !ok {
			t.Fatalf("event without a type: %q", sc.Text())
		}
		out = append(out, ev)
	}
	if len(out) == 0 {
		t.Fatal("no events")
	}
	return out
}

func lastOutcome(t *testing.T, evs []map[string]any) map[string]any {
	t.Helper()
	last := evs[len(evs)-1]
	if last["type"] != "run_finished" {
		t.Fatalf("the last event is %v, not run_finished", last["type"])
	}
	return last["outcome"].(map[string]any)
}

func TestHeadlessOutcomesAndExitCodes(t *testing.T) {
	ws := workspaceWithNotes(t)
	cases := []struct {
		scenario string
		code     int
		status   string
		check    func(t *testing.T, o map[string]any)
	}{
		{"succeeds.json", 0, "succeeded", func(t *testing.T, o map[string]any) {
			data, _ := json.Marshal(o["extracted_data"])
			if o["summary"] != "The note says to remember the milk." || string(data) != `{"item":"milk","source":"notes.txt"}` {
				t.Errorf("outcome %v", o)
			}
		}},
		{"fails.json", 1, "failed", func(t *testing.T, o map[string]any) {
			attempts, _ := o["attempts"].([]any)
			if len(attempts) != 3 || !strings.Contains(attempts[2].(string), `no tool named "no_such_tool"`) {
				t.Errorf("attempts %v", attempts)
			}
			if o["failing_sub_goal"] != "read the notes" {
				t.Errorf("outcome %v", o)
			}
		}},
		{"refuses.json", 3, "refused", func(t *testing.T, o map[string]any) {
			if o["summary"] != "Which of the two notes files did you mean?" {
				t.Errorf("outcome %v", o)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			r := runBinary(t, ws, "", "run", "--scenario", scenario(t, c.scenario), "--json", "read the notes")
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", r.code, c.code, r.stderr)
			}
			o := lastOutcome(t, events(t, r.stdout))
			if o["status"] != c.status {
				t.Fatalf("status %v, want %s", o["status"], c.status)
			}
			c.check(t, o)
		})
	}
}

func TestHeadlessHumanOutput(t *testing.T) {
	ws := workspaceWithNotes(t)
	r := runBinary(t, ws, "", "run", "--scenario", scenario(t, "succeeds.json"), "read the notes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "Succeeded: The note says to remember the milk.\nExtracted data:\n{\n  \"item\": \"milk\",") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "#1 read_file") || !strings.Contains(r.stderr, "→ success") {
		t.Errorf("no progress on stderr:\n%s", r.stderr)
	}
}

// TestHeadlessNamesThePlayground checks that a run whose scenario carries
// its workspace (the demo's is the sample project) names the folder it
// really works in, a temporary copy, and not the folder it was started in.
func TestHeadlessNamesThePlayground(t *testing.T) {
	dir := t.TempDir()
	r := runBinary(t, dir, "", "run", "fix it")
	first, _, _ := strings.Cut(r.stderr, "\n")
	_, ws, ok := strings.Cut(first, " · workspace ")
	if !ok || ws == dir || !filepath.IsAbs(ws) {
		t.Errorf("the session line names the workspace %q (started in %s):\n%s", ws, dir, r.stderr)
	}
}

func TestHeadlessAnswersClarification(t *testing.T) {
	ws := workspaceWithNotes(t)
	sc := scenario(t, "refuses.json")
	r := runBinary(t, ws, "", "run", "--scenario", sc, "--json", "--answer", "the first one", "read the notes")
	if r.code != 0 || lastOutcome(t, events(t, r.stdout))["status"] != "succeeded" {
		t.Fatalf("with --answer: exit %d, %s", r.code, r.stderr)
	}
	r = runBinary(t, ws, "the first one\n", "run", "--scenario", sc, "read the notes")
	if r.code != 0 {
		t.Fatalf("with the answer on stdin: exit %d, %s", r.code, r.stderr)
	}
}

func TestHeadlessSkipsWhatWouldAsk(t *testing.T) {
	ws := workspaceWithNotes(t)
	r := runBinary(t, ws, "", "run", "--scenario", scenario(t, "writes.json"), "--json", "write out.txt")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "out.txt")); !os.IsNotExist(err) {
		t.Error("a write that needed approval ran headless")
	}
	var decisions []string
	for _, ev := range events(t, r.stdout) {
		if ev["type"] == "call_decision" {
			decisions = append(decisions, ev["decision"].(string)+" by "+ev["by"].(string))
			if ev["decision"] == "skip" && !strings.Contains(ev["reason"].(string), "headless") {
				t.Errorf("the skip reason does not say why: %v", ev["reason"])
			}
		}
	}
	if strings.Join(decisions, ", ") != "skip by headless, run by mode:reads" {
		t.Errorf("decisions: %v", decisions)
	}
}

func TestHeadlessBadInput(t *testing.T) {
	ws := workspaceWithNotes(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"run", "--frobnicate", "goal"}, "unknown flag --frobnicate"},
		{"unknown mode", []string{"run", "--mode", "yolo", "goal"}, `--mode: unknown mode "yolo": use ask, reads, auto or plan`},
		{"missing scenario", []string{"run", "--scenario", "nope.json", "goal"}, "scenario file nope.json does not exist"},
		{"scenario not JSON", []string{"run", "--scenario", scenario(t, "not_json.json"), "goal"}, "not a valid scenario: invalid JSON: it ends in the middle of a value"},
		{"scenario an array", []string{"run", "--scenario", writeScenario(t, "[]"), "goal"},
			`not a valid scenario: it is an array; a scenario is a JSON object such as {"steps": [{"text": "Done."}]}`},
		{"scenario empty", []string{"run", "--scenario", writeScenario(t, ""), "goal"}, "not a valid scenario: it is empty; a scenario is a JSON object"},
		{"scenario step without a name", []string{"run", "--scenario", scenario(t, "bad_step.json"), "goal"}, "step 2: calls[0]: field name is missing"},
		{"scenario unknown field", []string{"run", "--scenario", scenario(t, "unknown_field.json"), "goal"}, `step 1: unknown field "delay"`},
		{"no goal", []string{"run", "--scenario", scenario(t, "succeeds.json")}, "needs a goal"},
		{"flag without value", []string{"run", "goal", "--mode"}, "flag --mode needs a value"},
		{"unknown model", []string{"run", "--model", "gpt-9", "goal"}, `unknown model "gpt-9"`},
		{"missing workspace", []string{"run", "--workspace", "/nonexistent/ws", "goal"}, "--workspace /nonexistent/ws does not exist"},
		{"bad max parallel", []string{"run", "--max-parallel", "0", "goal"}, "--max-parallel must be at least 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runBinary(t, ws, "", c.args...)
			if r.code != 2 {
				t.Errorf("exit %d, want 2", r.code)
			}
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "agenttui: ") || !strings.Contains(lines[0], c.want) {
				t.Errorf("stderr %q, want one line containing %q", r.stderr, c.want)
			}
			if r.stdout != "" {
				t.Errorf("something started: stdout %q", r.stdout)
			}
		})
	}
}
