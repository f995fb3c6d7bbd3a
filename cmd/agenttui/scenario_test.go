package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/journal"
)

// carriedScenario writes a scenario that carries its workspace as
// ws.txtar beside it: it reads notes.txt, writes done.txt and finishes.
func carriedScenario(t *testing.T, archive string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ws.txtar"), archive)
	sc := filepath.Join(dir, "carried.json")
	writeFile(t, sc, `{"name": "carried", "workspace": "ws.txtar", "steps": [
	  {"input": "Read the notes.", "text": "Reading.", "calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
	  {"expect": ["remember the milk"], "calls": [{"name": "write_file", "args": {"path": "done.txt", "content": "done\n"}, "decision": "approve"}]},
	  {"calls": [{"name": "finish", "args": {"summary": "Read the notes."}}]}]}`)
	return sc
}

// TestScenarioCarriesItsWorkspace plays a scenario whose workspace comes
// from its txtar archive: in a temporary folder that is said and not
// journaled, or in an empty --workspace, which keeps the files and the
// journal.
func TestScenarioCarriesItsWorkspace(t *testing.T) {
	sc := carriedScenario(t, "the project\n-- notes.txt --\nremember the milk\n-- docs/a.md --\n# a\n")
	cwd := t.TempDir()

	r := runBinary(t, cwd, "", "run", "--json", "--mode", "auto", "--scenario", sc, "read the notes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if n := evs[0]; n["type"] != "notice" || !strings.Contains(n["text"].(string), "temporary folder made from its workspace archive") {
		t.Errorf("the first event does not say where the scenario plays: %v", n)
	}
	var session string
	for _, ev := range evs {
		switch ev["type"] {
		case "run_started":
			session = ev["session"].(string)
		case "call_finished":
			if ev["name"] == "read_file" && !strings.Contains(ev["result"].(string), "remember the milk") {
				t.Errorf("read_file read %v", ev["result"])
			}
		}
	}
	if o := lastOutcome(t, evs); o["status"] != "succeeded" {
		t.Fatalf("outcome %v", o)
	}
	dir, _ := journal.Dir()
	if _, err := os.Stat(journal.Path(dir, session)); !os.IsNotExist(err) {
		t.Errorf("a session in a temporary folder was journaled: %v", err)
	}
	if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
		t.Errorf("the scenario wrote into the current folder: %v", entries)
	}

	ws := t.TempDir()
	r = runBinary(t, cwd, "", "run", "--json", "--mode", "auto", "--scenario", sc, "--workspace", ws, "read the notes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for name, want := range map[string]string{"notes.txt": "remember the milk\n", "docs/a.md": "# a\n", "done.txt": "done\n"} {
		if b, err := os.ReadFile(filepath.Join(ws, name)); string(b) != want {
			t.Errorf("%s in --workspace: %q, %v", name, b, err)
		}
	}
	session = events(t, r.stdout)[0]["session"].(string)
	if _, err := os.Stat(journal.Path(dir, session)); err != nil {
		t.Errorf("a session in --workspace was not journaled: %v", err)
	}

	// Once it holds files, the scenario will not unpack over them.
	r = runBinary(t, cwd, "", "run", "--scenario", sc, "--workspace", ws, "again")
	if r.code != 2 || !strings.Contains(r.stderr, "is not empty: the scenario brings its own workspace") {
		t.Errorf("unpacking into a folder with files: exit %d, %s", r.code, r.stderr)
	}
}

// TestScenarioWorkspaceErrors refuses archives that are missing or that
// name files outside the folder, before anything starts.
func TestScenarioWorkspaceErrors(t *testing.T) {
	bad := carriedScenario(t, "-- ../escape.txt --\nx\n")
	r := runBinary(t, t.TempDir(), "", "run", "--scenario", bad, "go")
	if r.code != 2 || !strings.Contains(r.stderr, `ws.txtar: file "../escape.txt": the name leaves the folder`) {
		t.Errorf("an archive that leaves its folder: exit %d, %s", r.code, r.stderr)
	}
	missing := carriedScenario(t, "")
	os.Remove(filepath.Join(filepath.Dir(missing), "ws.txtar"))
	r = runBinary(t, t.TempDir(), "", "run", "--scenario", missing, "go")
	if r.code != 2 || !strings.Contains(r.stderr, "ws.txtar cannot be read: no such file or directory") {
		t.Errorf("a missing archive: exit %d, %s", r.code, r.stderr)
	}
}

// TestAutopilotAndSpeedUsageErrors checks --autopilot and --speed are
// refused, with what to do instead, wherever they cannot work; nothing
// starts, and the exit code is 2.
func TestAutopilotAndSpeedUsageErrors(t *testing.T) {
	dir := t.TempDir()
	silent := filepath.Join(dir, "silent.json")
	writeFile(t, silent, `{"name": "silent", "steps": [{"text": "Done."}]}`)
	noGoal := filepath.Join(dir, "nogoal.json")
	writeFile(t, noGoal, `{"name": "nogoal", "steps": [{"calls": [{"name": "write_file", "args": {"path": "a"}, "decision": "approve"}]}, {"text": "ok"}]}`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--speed", "fast"}, `--speed must be a number from 0.1 to 1000, such as 2 (twice as fast) or 0.5 (half as fast), not "fast"`},
		{[]string{"--speed", "0"}, `--speed must be a number from 0.1 to 1000`},
		{[]string{"--speed", "NaN"}, `--speed must be a number from 0.1 to 1000`},
		{[]string{"--autopilot", "--continue"}, "--autopilot plays a scenario from its first step, so it cannot be used with --resume or --continue"},
		{[]string{"--autopilot", "--scenario", silent}, "records no person: none of its steps has an input, and none of its calls a decision"},
		{[]string{"--autopilot", "--scenario", noGoal}, `has no input, so give the goal: agenttui --scenario ` + noGoal + ` --autopilot "goal"`},
		{[]string{"--autopilot", "--model", "openai:gpt-4o"}, "--autopilot plays the person a scenario records: give --scenario FILE, or no model for the built-in demo (not openai:gpt-4o)"},
		{[]string{"--speed", "2", "--model", "openai:gpt-4o"}, "--speed plays a scripted model (the built-in demo, or --scenario FILE) faster or slower; openai:gpt-4o is not one"},
		{[]string{"run", "--autopilot", "goal"}, "unknown flag --autopilot"},
	}
	for _, c := range cases {
		cmd := exec.Command(binary, c.args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-test")
		r := execute(t, cmd)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("agenttui %s: exit %d, stderr %q; want 2 and one line with %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}
