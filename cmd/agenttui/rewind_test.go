package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rewindScenario changes notes.txt and adds new.txt in its first run, and in
// a follow-up after a rewind checks that the model reads the note.
const rewindScenario = `{"name": "rewind", "steps": [
  {"calls": [{"name": "write_file", "args": {"path": "new.txt", "content": "fresh\n"}},
             {"name": "run_shell", "args": {"command": "echo changed >> notes.txt"}}]},
  {"text": "Changed."},
  {"expect": ["[agenttui] The person undid", "new.txt (removed)", "notes.txt (restored)", "go on"], "text": "I see the undo."}]}`

// rewindReport is the part of agenttui sessions rewind's JSON the tests read.
type rewindReport struct {
	Points []struct {
		Point int    `json:"point"`
		Kind  string `json:"kind"`
		Turn  int    `json:"turn"`
		Files []struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"files"`
	} `json:"points"`
	Steps []struct {
		Path     string `json:"path"`
		Action   string `json:"action"`
		Conflict bool   `json:"conflict"`
	} `json:"steps"`
	Conflicts []string `json:"conflicts"`
	Done      bool     `json:"done"`
	Written   []string `json:"written"`
	Note      string   `json:"note"`
}

func readReport(t *testing.T, r result) rewindReport {
	t.Helper()
	var rep rewindReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("not JSON (exit %d): %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	return rep
}

// TestSessionsRewindHeadless rewinds the code of a journaled session from the
// command line: the points are listed, --dry-run writes nothing, a file
// changed since stops it with exit 1 and nothing written, and once the file
// is as the session left it the rewind is made, and the next --resume's
// request carries the note.
func TestSessionsRewindHeadless(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rewind.json")
	if err := os.WriteFile(path, []byte(rewindScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCrashTrial(t, path)
	original := readWorkspaceFile(t, c.ws, "notes.txt")
	out, err := c.command("run", "--json", "--mode", "auto", "--scenario", c.scenario, "change the notes").Output()
	if err != nil {
		t.Fatalf("the run: %v\n%s", err, out)
	}
	id := events(t, string(out))[0]["session"].(string)
	changed := readWorkspaceFile(t, c.ws, "notes.txt")

	rep := readReport(t, c.run(t, "sessions", "rewind", id))
	if len(rep.Points) != 3 || rep.Points[0].Kind != "goal" || rep.Points[1].Kind != "reply" || len(rep.Points[1].Files) != 2 ||
		rep.Points[2].Turn != 2 || len(rep.Points[2].Files) != 0 {
		t.Fatalf("points %+v", rep.Points)
	}

	r := c.run(t, "sessions", "rewind", id, "--to", "turn:1", "--code", "--dry-run")
	rep = readReport(t, r)
	if r.code != 0 || rep.Done || len(rep.Steps) != 2 || len(rep.Conflicts) != 0 {
		t.Fatalf("dry run: exit %d, %+v", r.code, rep)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "new.txt")); err != nil {
		t.Fatal("the dry run removed new.txt")
	}

	// A file changed since the session: exit 1, nothing written.
	writeFile(t, filepath.Join(c.ws, "notes.txt"), "the person's own notes\n")
	r = c.run(t, "sessions", "rewind", id, "--to", "turn:1", "--code")
	rep = readReport(t, r)
	if r.code != 1 || !slices.Equal(rep.Conflicts, []string{"notes.txt"}) || rep.Done || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("conflict: exit %d, %+v, %s", r.code, rep, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "new.txt")); err != nil {
		t.Fatal("a refused rewind removed new.txt")
	}

	writeFile(t, filepath.Join(c.ws, "notes.txt"), changed)
	r = c.run(t, "sessions", "rewind", id, "--to", "turn:1", "--code")
	rep = readReport(t, r)
	if r.code != 0 || !rep.Done || !strings.Contains(rep.Note, "new.txt (removed)") {
		t.Fatalf("rewind: exit %d, %+v, %s", r.code, rep, r.stderr)
	}
	if got := readWorkspaceFile(t, c.ws, "notes.txt"); got != original {
		t.Fatalf("notes.txt = %q, want %q", got, original)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("new.txt is still there: %v", err)
	}

	r = c.run(t, "run", "--resume", id, "--json", "--scenario", c.scenario, "go on")
	if o := lastOutcome(t, events(t, r.stdout)); r.code != 0 || o["summary"] != "I see the undo." {
		t.Fatalf("the follow-up: exit %d, %v\n%s", r.code, o, r.stderr)
	}

	// The sessions list shows the checkpoints' size.
	r = c.run(t, "sessions")
	row := ""
	for line := range strings.SplitSeq(r.stdout, "\n") {
		if strings.HasPrefix(line, id) {
			row = line
		}
	}
	if !strings.Contains(r.stdout, "CHECKPOINTS") || !strings.Contains(row, "KiB") && !strings.Contains(row, " B ") {
		t.Fatalf("sessions does not show the checkpoints' size:\n%s", r.stdout)
	}
	// Usage errors exit 2.
	if r := c.run(t, "sessions", "rewind", id, "--to", "turn:9"); r.code != 2 || !strings.Contains(r.stderr, "no such point") {
		t.Fatalf("unknown point: exit %d, %s", r.code, r.stderr)
	}
	if r := c.run(t, "sessions", "rewind", id, "--to", "1", "--code", "--conversation"); r.code != 2 {
		t.Fatalf("two choices: exit %d, %s", r.code, r.stderr)
	}

	// Deleting the session deletes its checkpoints with it.
	sessions := filepath.Join(c.state, "agenttui", "sessions")
	if _, err := os.Stat(filepath.Join(sessions, id+".checkpoints")); err != nil {
		t.Fatalf("no checkpoints folder beside the journal: %v", err)
	}
	if r := c.run(t, "sessions", "rm", id); r.code != 0 || !strings.Contains(r.stdout, "Deleted session "+id) {
		t.Fatalf("rm: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	if left, _ := os.ReadDir(sessions); len(left) != 0 {
		t.Fatalf("left in the sessions folder: %v", left)
	}
	if r := c.run(t, "sessions", "rm", id); r.code != 2 || !strings.Contains(r.stderr, "no such session") {
		t.Fatalf("rm again: exit %d, %s", r.code, r.stderr)
	}
}
