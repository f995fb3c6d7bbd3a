package main

import (
	"os"
	"path/filepath"
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
