package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// damagedSession journals a second session beside the trial's and gives its
// first call_started the index -1, as a hand-edited journal might, and
// returns its id and the words that name the damage.
func damagedSession(t *testing.T, c crashTrial) (id, where string) {
	t.Helper()
	out, _ := c.command("run", "--json", "--scenario", c.scenario, "read the notes").Output()
	id = events(t, string(out))[0]["session"].(string)
	path := c.journalPath(id)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"type":"call_started"`) && strings.Contains(l, `"index":0`) {
			lines[i] = strings.Replace(l, `"index":0`, `"index":-1`, 1)
			where = fmt.Sprintf("line %d: call index -1", i+1)
			break
		}
	}
	if where == "" {
		t.Fatalf("the session has no call to damage:\n%s", data)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return id, where
}

// A journal whose call_started says index -1 is refused in words that name
// the line by every command that reads it, the console's --resume
// included, and agenttui sessions still lists the workspace's other
// session, with the damaged one marked; agenttui sessions rm deletes it.
func TestDamagedJournalIsRefusedAndListed(t *testing.T) {
	c, good := journaledSession(t, "succeeds.json")
	bad, where := damagedSession(t, c)

	r := c.run(t, "sessions")
	rows := map[string]string{}
	for line := range strings.SplitSeq(r.stdout, "\n") {
		if id, _, ok := strings.Cut(line, " "); ok {
			rows[id] = line
		}
	}
	if r.code != 0 || !strings.Contains(rows[good], "succeeded") || !strings.Contains(rows[good], "read the notes") {
		t.Fatalf("the sound session is not listed as before (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	if row := rows[bad]; !strings.Contains(row, " damaged ") || !strings.HasSuffix(row, "damaged: "+where) {
		t.Fatalf("the damaged session's row does not say %q:\n%s", where, r.stdout)
	}
	if !strings.Contains(r.stdout, "delete one with: agenttui sessions rm ID") {
		t.Errorf("the listing does not say what to do with a damaged journal:\n%s", r.stdout)
	}

	for _, args := range [][]string{
		{"run", "--resume", bad, "--scenario", c.scenario},
		{"sessions", "export", bad},
		{"sessions", "rewind", bad},
		{"sessions", "rewind", bad, "--to", "1"},
	} {
		r := c.run(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "is damaged ("+where+")") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, want 2 and one line saying %q:\n%s", strings.Join(args, " "), r.code, where, r.stderr)
		}
	}

	term := startConsole(t, e2eCols, e2eRows, []string{"XDG_STATE_HOME=" + c.state}, "--workspace", c.ws, "--resume", bad, "--scenario", c.scenario)
	term.WaitForFunc("the damage said on screen", func(s string) bool {
		return strings.Contains(strings.Join(strings.Fields(s), " "), "is damaged ("+where+")")
	}, e2eStep)
	if code := quitConsole(t, term); code != 2 {
		t.Errorf("the console exits %d after a damaged session, want 2", code)
	}

	r = c.run(t, "sessions", "rm", bad)
	if r.code != 0 || !strings.Contains(r.stdout, "Deleted session "+bad) {
		t.Fatalf("rm of the damaged session: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(c.journalPath(bad)); !os.IsNotExist(err) {
		t.Errorf("the damaged journal is still there: %v", err)
	}
	if r = c.run(t, "sessions"); !strings.Contains(r.stdout, good) || strings.Contains(r.stdout, "damaged") {
		t.Errorf("after rm, the listing:\n%s", r.stdout)
	}
}
