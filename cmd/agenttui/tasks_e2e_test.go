package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tasksWorkspace returns a workspace with notes, docs and src folders.
func tasksWorkspace(t *testing.T) string {
	t.Helper()
	ws := workspaceWithNotes(t)
	for _, d := range []string{"docs/api", "src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(ws, "docs", "index.md"), "# Docs\n")
	return ws
}

// fiveTasks is the scenario of the issue: two explorers, a docs writer, a
// docs/api writer and a src writer in one reply, each task scripted.
const fiveTasks = `{
  "name": "tasks",
  "steps": [
    {"calls": [
      {"name": "task", "args": {"description": "survey notes", "prompt": "What do the notes say?"}},
      {"name": "task", "args": {"description": "survey docs", "prompt": "List the docs.", "agent": "explore"}},
      {"name": "task", "args": {"description": "write guide", "prompt": "Write a guide.", "agent": "general", "writes": ["docs"]}},
      {"name": "task", "args": {"description": "write api", "prompt": "Write the API reference.", "agent": "general", "writes": ["docs/api"]}},
      {"name": "task", "args": {"description": "write main", "prompt": "Write main.go.", "agent": "general", "writes": ["src"]}}
    ]},
    {"expect": ["Its summary: the notes say milk", "Its summary: one doc", "Its summary: guide written",
                "Its summary: api written", "Its summary: main written"],
     "calls": [{"name": "finish", "args": {"summary": "all five done"}}]}
  ],
  "tasks": {
    "survey notes": {"steps": [
      {"delay_ms": 700, "calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
      {"expect": ["milk"], "calls": [{"name": "finish", "args": {"summary": "the notes say milk"}}]}]},
    "survey docs": {"steps": [
      {"delay_ms": 700, "calls": [{"name": "list_dir", "args": {"path": "docs"}}]},
      {"expect": ["index.md"], "calls": [{"name": "finish", "args": {"summary": "one doc"}}]}]},
    "write guide": {"steps": [
      {"delay_ms": 700, "calls": [{"name": "write_file", "args": {"path": "docs/guide.md", "content": "# Guide\n"}}]},
      {"calls": [{"name": "finish", "args": {"summary": "guide written"}}]}]},
    "write api": {"steps": [
      {"calls": [{"name": "write_file", "args": {"path": "docs/api/ref.md", "content": "# API\n"}}]},
      {"calls": [{"name": "finish", "args": {"summary": "api written"}}]}]},
    "write main": {"steps": [
      {"delay_ms": 700, "calls": [{"name": "write_file", "args": {"path": "src/main.go", "content": "package main\n"}}]},
      {"calls": [{"name": "finish", "args": {"summary": "main written"}}]}]}
  }
}`

// callSpan is when a call of the parent's first reply started and ended.
type callSpan struct{ start, end time.Time }

func at(t *testing.T, ev map[string]any) time.Time {
	t.Helper()
	s, _ := ev["at"].(string)
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("event %v has no time: %v", ev, err)
	}
	return v
}

func TestHeadlessTasksRunByWhatTheyMayWrite(t *testing.T) {
	ws := tasksWorkspace(t)
	sc := filepath.Join(t.TempDir(), "tasks.json")
	writeFile(t, sc, fiveTasks)
	res := runBinary(t, ws, "", "run", "--json", "--mode", "auto", "--speed", "1", "--scenario", sc, "do five things")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	evs := events(t, res.stdout)
	if out := lastOutcome(t, evs); out["summary"] != "all five done" {
		t.Fatalf("outcome %v", out)
	}
	spans := map[int]*callSpan{}
	taskCalls := map[string][]string{} // task id → tools its calls used
	for _, ev := range evs {
		task, tagged := ev["task"].([]any)
		turn, _ := ev["turn"].(float64)
		index, _ := ev["index"].(float64)
		switch {
		case tagged && ev["type"] == "call_started":
			id := task[0].(string)
			taskCalls[id] = append(taskCalls[id], ev["name"].(string))
		case !tagged && turn == 1 && ev["type"] == "call_started":
			spans[int(index)] = &callSpan{start: at(t, ev)}
		case !tagged && turn == 1 && ev["type"] == "call_finished":
			spans[int(index)].end = at(t, ev)
		}
	}
	overlap := func(a, b int) bool { return spans[a].start.Before(spans[b].end) && spans[b].start.Before(spans[a].end) }
	after := func(a, b int) bool { return !spans[a].start.Before(spans[b].end) }
	if !overlap(0, 1) {
		t.Error("the two explorers did not overlap")
	}
	for _, w := range []int{2, 3, 4} {
		if !after(w, 0) || !after(w, 1) {
			t.Errorf("writer #%d started before the explorers finished", w+1)
		}
	}
	if overlap(2, 3) {
		t.Error("the docs and docs/api writers overlapped")
	}
	if !overlap(2, 4) {
		t.Error("the src writer did not run beside the docs writer")
	}
	want := map[string][]string{"1.0": {"read_file", "finish"}, "1.1": {"list_dir", "finish"},
		"1.2": {"write_file", "finish"}, "1.3": {"write_file", "finish"}, "1.4": {"write_file", "finish"}}
	for id, tools := range want {
		if !slices.Equal(taskCalls[id], tools) {
			t.Errorf("task %s made calls %v, want %v", id, taskCalls[id], tools)
		}
	}
	for _, f := range []string{"docs/guide.md", "docs/api/ref.md", "src/main.go"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
}

// The human-readable progress indents each task's lines under its call.
func TestHeadlessProgressIndentsTasks(t *testing.T) {
	ws := tasksWorkspace(t)
	sc := filepath.Join(t.TempDir(), "tasks.json")
	writeFile(t, sc, fiveTasks)
	res := runBinary(t, ws, "", "run", "--mode", "auto", "--scenario", sc, "do five things")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, want := range []string{"  task #1 │ › What do the notes say?", "  task #3 │ succeeded: guide written"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}

// killTasks is a parent whose two writing tasks (of separate folders, so
// they run side by side) each finish one call and then think for a minute:
// the test kills the process while they think.
const killTasks = `{
  "name": "kill",
  "steps": [
    {"calls": [
      {"name": "task", "args": {"description": "write guide", "prompt": "Write a guide.", "agent": "general", "writes": ["docs"]}},
      {"name": "task", "args": {"description": "write main", "prompt": "Write main.go.", "agent": "general", "writes": ["src"]}}
    ]},
    {"expect": ["Before it stopped, the task had finished 1 call:\n- write_file {\"path\":\"docs/guide.md\",\"content\":\"# Guide\\n\"}: success",
                "Before it stopped, the task had finished 1 call:\n- write_file {\"path\":\"src/main.go\",\"content\":\"package main\\n\"}: success"],
     "calls": [{"name": "finish", "args": {"summary": "resumed without running the tasks again"}}]}
  ],
  "tasks": {
    "write guide": {"steps": [
      {"calls": [{"name": "write_file", "args": {"path": "docs/guide.md", "content": "# Guide\n"}}]},
      {"delay_ms": 60000, "calls": [{"name": "finish", "args": {"summary": "never"}}]}]},
    "write main": {"steps": [
      {"calls": [{"name": "write_file", "args": {"path": "src/main.go", "content": "package main\n"}}]},
      {"delay_ms": 60000, "calls": [{"name": "finish", "args": {"summary": "never"}}]}]}
  }
}`

func TestKilledTasksAreNotRunAgain(t *testing.T) {
	sc := filepath.Join(t.TempDir(), "kill.json")
	writeFile(t, sc, killTasks)
	trial := newCrashTrial(t, sc)
	for _, d := range []string{"docs", "src"} {
		if err := os.MkdirAll(filepath.Join(trial.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := trial.command("run", "--json", "--mode", "auto", "--speed", "1", "--scenario", sc, "two tasks")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Both tasks have finished their first call once their second turn
	// has started: the model request's intent is on disk.
	session := ""
	thinking := map[string]bool{}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for len(thinking) < 2 && lines.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON: %q", lines.Text())
		}
		if ev["type"] == "run_started" && ev["task"] == nil {
			session, _ = ev["session"].(string)
		}
		if task, ok := ev["task"].([]any); ok && ev["type"] == "turn_started" && ev["turn"] == 2.0 {
			thinking[task[0].(string)] = true
		}
	}
	if len(thinking) < 2 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the tasks never reached their second turn")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for _, f := range []string{"docs/guide.md", "src/main.go"} {
		if err := os.Remove(filepath.Join(trial.ws, f)); err != nil {
			t.Fatalf("a task's write did not happen before the kill: %v", err)
		}
	}

	out, err := trial.command("run", "--json", "--mode", "auto", "--resume", session, "--scenario", sc).Output()
	if err != nil {
		jl, _ := os.ReadFile(filepath.Join(trial.state, "agenttui", "sessions", session+".jsonl"))
		t.Fatalf("resume: %v\n%s\njournal:\n%s", err, out, jl)
	}
	evs := events(t, string(out))
	if o := lastOutcome(t, evs); o["summary"] != "resumed without running the tasks again" {
		t.Fatalf("outcome %v", o)
	}
	for _, ev := range evs {
		if ev["task"] != nil {
			t.Fatalf("a task ran again after the restart: %v", ev)
		}
	}
	for _, f := range []string{"docs/guide.md", "src/main.go"} {
		if _, err := os.Stat(filepath.Join(trial.ws, f)); err == nil {
			t.Errorf("%s was written again after the restart", f)
		}
	}
}

// A malformed agent file is one notice naming it; the other agents load.
func TestMalformedAgentFileIsANotice(t *testing.T) {
	ws := workspaceWithNotes(t)
	writeAgent := func(name, body string) {
		dir := filepath.Join(ws, ".agenttui", "agents")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), body)
	}
	writeAgent("bad.md", "---\nname: [unclosed\n---\nbody\n")
	writeAgent("reviewer.md", "---\nname: reviewer\ndescription: Reviews notes.\ntools: Read, Grep\n---\nYou review.\n")
	sc := filepath.Join(t.TempDir(), "agents.json")
	writeFile(t, sc, `{"name": "agents", "steps": [
	  {"calls": [{"name": "task", "args": {"description": "review", "prompt": "Review the notes.", "agent": "reviewer"}}]},
	  {"expect": ["Its summary: fine notes"], "calls": [{"name": "finish", "args": {"summary": "reviewed"}}]}],
	 "tasks": {"review": {"steps": [
	  {"calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
	  {"calls": [{"name": "finish", "args": {"summary": "fine notes"}}]}]}}}`)
	res := runBinary(t, ws, "", "run", "--mode", "reads", "--scenario", sc, "review")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	bad := filepath.Join(ws, ".agenttui", "agents", "bad.md")
	if n := strings.Count(res.stderr, "agent file "+bad); n != 1 {
		t.Errorf("the bad file is named %d times, want once:\n%s", n, res.stderr)
	}
	if !strings.Contains(res.stdout, "Succeeded: reviewed") {
		t.Errorf("the good agent did not run:\n%s", res.stdout)
	}
}
