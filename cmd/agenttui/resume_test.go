package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// journaledSession runs a scenario in a fresh workspace and state folder and
// returns the trial and the session id.
func journaledSession(t *testing.T, scenarioFile string, args ...string) (crashTrial, string) {
	t.Helper()
	c := newCrashTrial(t, scenario(t, scenarioFile))
	all := append([]string{"run", "--json", "--scenario", c.scenario}, args...)
	out, _ := c.command(append(all, "read the notes")...).Output()
	evs := events(t, string(out))
	return c, evs[0]["session"].(string)
}

func (c crashTrial) journalPath(id string) string {
	return filepath.Join(c.state, "agenttui", "sessions", id+".jsonl")
}

func (c crashTrial) run(t *testing.T, args ...string) result {
	t.Helper()
	return execute(t, c.command(args...))
}

func TestResumeTornJournal(t *testing.T) {
	c, id := journaledSession(t, "succeeds.json")
	path := c.journalPath(id)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	// Drop the run's last two lines and tear the one before them in half,
	// as a crash while writing would.
	keep := strings.Join(lines[:len(lines)-4], "") + lines[len(lines)-4][:10]
	os.WriteFile(path, []byte(keep), 0o600)
	r := c.run(t, "run", "--resume", id, "--json", "--scenario", c.scenario)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `"type":"notice","level":"warning","text":"journal: the last line of the journal (line`) ||
		!strings.Contains(r.stdout, "was cut off when the session stopped while writing it; it was ignored") {
		t.Errorf("no warning about the torn line:\n%s", r.stdout)
	}
	if o := lastOutcome(t, events(t, r.stdout)); o["status"] != "succeeded" {
		t.Errorf("outcome %v", o)
	}
}

func TestResumeErrors(t *testing.T) {
	c, id := journaledSession(t, "succeeds.json")
	other := t.TempDir()
	r := c.run(t, "run", "--resume", id, "--workspace", other, "--scenario", c.scenario)
	if r.code != 2 || !strings.Contains(r.stderr, "belongs to the workspace "+c.ws+", not "+other) {
		t.Errorf("different workspace: exit %d, %q", r.code, r.stderr)
	}
	r = c.run(t, "run", "--resume", id)
	if r.code != 2 || !strings.Contains(r.stderr, "was played from a scenario file: pass --scenario FILE again") {
		t.Errorf("scenario not given again: exit %d, %q", r.code, r.stderr)
	}
	r = c.run(t, "run", "--resume", "no-such-session", "--scenario", c.scenario)
	if r.code != 2 || !strings.Contains(r.stderr, "no such session no-such-session") {
		t.Errorf("unknown id: exit %d, %q", r.code, r.stderr)
	}
	path := c.journalPath(id)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), `"version":1`, `"version":2`, 1)), 0o600)
	r = c.run(t, "run", "--resume", id, "--scenario", c.scenario)
	if r.code != 2 || !strings.Contains(r.stderr, "written in journal format version 2, and this agenttui reads version 1") {
		t.Errorf("other version: exit %d, %q", r.code, r.stderr)
	}
	os.WriteFile(path, data[:20], 0o600)
	r = c.run(t, "run", "--resume", id, "--scenario", c.scenario)
	if r.code != 2 || !strings.Contains(r.stderr, "is truncated: its header line is incomplete") {
		t.Errorf("truncated: exit %d, %q", r.code, r.stderr)
	}
	fresh := newCrashTrial(t, c.scenario)
	r = fresh.run(t, "run", "--continue", "--scenario", c.scenario)
	if r.code != 2 || !strings.Contains(r.stderr, "there is nothing to continue") {
		t.Errorf("--continue with no session: exit %d, %q", r.code, r.stderr)
	}
}

func TestResumeAtRestAndFollowUp(t *testing.T) {
	c, id := journaledSession(t, "refuses.json")
	// At rest after a question: an answer continues the same conversation.
	r := c.run(t, "run", "--resume", id, "--json", "--scenario", c.scenario, "--answer", "the first one")
	if r.code != 0 || lastOutcome(t, events(t, r.stdout))["status"] != "succeeded" {
		t.Fatalf("answering a resumed question: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	// At rest after success: without input it says how the session ended.
	r = c.run(t, "run", "--resume", id, "--scenario", c.scenario)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Succeeded: Thanks, done.") {
		t.Errorf("at rest: exit %d, %q", r.code, r.stdout)
	}
	// The sessions command lists it.
	r = c.run(t, "sessions")
	if r.code != 0 || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "succeeded") || !strings.Contains(r.stdout, "read the notes") {
		t.Errorf("sessions:\n%s", r.stdout)
	}
}

// A journal that stops taking lines in the middle of a session (here the
// file size limit, as a full disk would) stops the session before anything
// unrecorded is performed, says how to carry on, and the journal it leaves
// resumes honestly once the cause is gone.
func TestJournalThatFillsUpStopsAndResumes(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "fill.json")
	writeFile(t, sc, `{"name": "fill", "steps": [
		{"calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
		{"calls": [{"name": "run_shell", "args": {"command": "echo one >> count.txt"}}]},
		{"calls": [{"name": "run_shell", "args": {"command": "echo two >> count.txt"}}]},
		{"calls": [{"name": "finish", "args": {"summary": "done"}}]}
	]}`)
	c := newCrashTrial(t, sc)
	// ulimit -f counts 1024-byte blocks: two hold the header and the first
	// turns, and the journal fills up in the middle of the second reply.
	limited := c.program("bash", "-c", `ulimit -f 2 && exec "$0" "$@"`, binary,
		"run", "--mode", "auto", "--scenario", sc, "count")
	r := execute(t, limited)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (failed); stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if !strings.Contains(r.stdout, "the session record cannot be written") {
		t.Errorf("the outcome does not say the record failed:\n%s", r.stdout)
	}
	m := regexp.MustCompile(`resume with agenttui --resume (\S+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("stderr does not say how to resume:\n%s", r.stderr)
	}
	before := markers(t, c.ws)

	r = c.run(t, "run", "--resume", m[1], "--mode", "auto", "--scenario", sc)
	if r.code != 0 {
		t.Fatalf("resume: exit %d; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if !strings.Contains(r.stderr, "agenttui: resuming session "+m[1]) {
		t.Errorf("the resumed run does not say so:\n%s", r.stderr)
	}
	after := markers(t, c.ws)
	seen := map[string]int{}
	for _, w := range after {
		seen[w]++
		if seen[w] > 1 {
			t.Errorf("%q was written %d times: %v (before the resume: %v)", w, seen[w], after, before)
		}
	}
	if seen["two"] != 1 && len(before) < 2 {
		t.Errorf("the resumed run did not carry on to the second write: %v", after)
	}
	if strings.Contains(r.stderr, "9223372036854") {
		t.Errorf("a call caught by the restart shows a nonsense duration:\n%s", r.stderr)
	}
}
