package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// roundTripScenario scripts only the model; the person of the original
// session is the test, pressing keys.
const roundTripScenario = `{"name": "tidy", "steps": [
  {"text": "Reading the notes, clearing the build and writing a.", "calls": [
    {"name": "read_file", "args": {"path": "notes.txt"}},
    {"name": "run_shell", "args": {"command": "rm -rf build"}},
    {"name": "write_file", "raw_args": "{\"path\": \"a.txt\",  \"content\": \"a\\n\"}"}]},
  {"expect": ["Skipped by the person: keep the build folder"], "calls": [{"name": "ask_user", "args": {"question": "Which file next?"}}]},
  {"expect": ["b please"], "text": "Writing the docs.", "calls": [
    {"name": "write_file", "args": {"path": "docs/b.txt", "content": "b\n"}},
    {"name": "write_file", "args": {"path": "docs/c.txt", "content": "c\n"}}]},
  {"calls": [{"name": "finish", "args": {"summary": "Wrote a, docs/b and docs/c."}}]},
  {"expect": ["also d"], "calls": [{"name": "write_file", "args": {"path": "d.txt", "content": "d\n"}}]},
  {"text": "Done with d."}]}`

// startState writes the folder the session starts from.
func startState(t *testing.T, dir string) {
	t.Helper()
	for name, text := range map[string]string{"notes.txt": "remember the milk\n", "build/out.txt": "built\n",
		".git/HEAD": "ref: refs/heads/main\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, text)
	}
}

// TestExportRoundTrip journals a console session in which a person skips a
// call with a reason, approves one, answers a question, gives a grant and
// sends a follow-up; exports it with the folder it started from; and plays
// the export with --autopilot in a pty, in an empty folder. The replay ends
// as the original did, with the same decisions, and leaves the same files.
func TestExportRoundTrip(t *testing.T) {
	original, start, replayed := t.TempDir(), t.TempDir(), t.TempDir()
	startState(t, original)
	startState(t, start)
	sc := writeScenario(t, roundTripScenario)

	// The original session, played by a person.
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", original, "--scenario", sc)
	term.WaitFor("Goal ›", e2eStep)
	command(t, term, "tidy the project")
	// Tab reaches the board on the first call that waits, the shell's,
	// once both ask.
	term.WaitFor("2 calls to approve", e2eStep)
	toBoard(t, term)
	pressWhenReady(t, term, "#2 run_shell", "n")
	term.WaitFor("Skip #2 run_shell · reason ›", e2eStep)
	term.Type("keep the build folder")
	term.WaitFor("keep the build folder", e2eStep)
	term.Key("enter")
	term.WaitFor("skipped #2 run_shell", e2eStep)
	term.Key("down")
	approveWhenReady(t, term, "#3 write_file")
	term.WaitForFunc("the question, with the input focused", func(s string) bool {
		return strings.Contains(s, "Answer ›") && strings.Contains(s, "? question │") && strings.Contains(s, "focus input")
	}, e2eStep)
	command(t, term, "b please")
	term.WaitFor("2 calls to approve", e2eStep)
	toBoard(t, term)
	term.WaitForFunc("both docs asking, #1 focused", func(s string) bool {
		return strings.Contains(s, "2 need(s) approval") && strings.Contains(s, "── #1 write_file") && strings.Contains(s, "g grant")
	}, e2eStep)
	term.Key("g")
	term.WaitFor("2  allow write_file within docs/", e2eStep)
	term.Key("2")
	term.WaitForFunc("the run to succeed, with the input focused", func(s string) bool {
		return strings.Contains(s, "Wrote a, docs/b and docs/c.") && strings.Contains(s, "✓ succeeded │") && strings.Contains(s, "focus input")
	}, e2eStep)
	command(t, term, "also d")
	toBoard(t, term)
	approveWhenReady(t, term, "#1 write_file")
	s := term.WaitFor("Done with d.", e2eStep)
	id := sessionID(t, s)
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("the original console exited %d", code)
	}

	// The export, with the folder the session started from.
	out := filepath.Join(t.TempDir(), "tidy.json")
	r := runBinary(t, t.TempDir(), "", "sessions", "export", id, "--out", out, "--workspace-from", start)
	if r.code != 0 {
		t.Fatalf("export: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"6 step(s), 3 input(s), 2 approval(s), 1 skip(s), 1 grant(s)",
		"packed the workspace into " + strings.TrimSuffix(out, ".json") + ".txtar: 2 file(s)",
		"left out of the workspace (1):\n  .git/: version control history",
		"play it with: agenttui --scenario " + out + " --autopilot\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the export's report lacks %q:\n%s", want, r.stderr)
		}
	}
	exported, err := model.LoadScenario(out)
	if err != nil {
		t.Fatal(err)
	}
	if raw := exported.Steps[0].Calls[2].RawArgs; raw == nil || *raw != `{"path": "a.txt",  "content": "a\n"}` {
		t.Errorf("the write's arguments are not the model's exact text: %v", raw)
	}
	if d := exported.Steps[0].Calls[1].Decision; d == nil || d.String() != `{"skip":"keep the build folder"}` {
		t.Errorf("the skip was exported as %v", d)
	}
	// Running the export again keeps the files it wrote.
	if r := runBinary(t, t.TempDir(), "", "sessions", "export", id, "--out", out); r.code != 2 || !strings.Contains(r.stderr, out+" exists") {
		t.Errorf("exporting over an existing file: exit %d, %s", r.code, r.stderr)
	}

	// The replay: nobody presses a key until it has ended.
	term = startConsole(t, e2eCols, e2eRows, nil, "--scenario", out, "--autopilot", "--speed", pilotSpeed, "--workspace", replayed)
	s = term.WaitForFunc("the replay to end", func(s string) bool {
		return strings.Contains(s, "Done with d.") && strings.Contains(s, "autopilot: the scenario is played out")
	}, 4*e2eStep)
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("the replay's console exited %d", code)
	}
	dir, _ := journal.Dir()
	replays, _, _ := journal.List(dir, replayed)
	if len(replays) != 1 {
		t.Fatalf("%d sessions journaled in the replay's folder", len(replays))
	}
	replayID := replays[0].Header.Session

	want, got := sessionRecord(t, id), sessionRecord(t, replayID)
	if !reflect.DeepEqual(got.outcomes, want.outcomes) {
		t.Errorf("the replay's outcomes:\n%v\nthe original's:\n%v", got.outcomes, want.outcomes)
	}
	if !reflect.DeepEqual(got.decisions, want.decisions) || len(want.decisions) != 5 {
		t.Errorf("the replay's decisions:\n%v\nthe original's:\n%v", strings.Join(got.decisions, "\n"), strings.Join(want.decisions, "\n"))
	}
	if a, b := tree(t, original), tree(t, replayed); !reflect.DeepEqual(a, b) {
		t.Errorf("the replay left the files\n%v\nthe original left\n%v", b, a)
	}
}

// record is what a session did that a replay must do again.
type record struct {
	outcomes, decisions []string
}

// sessionRecord reads session id's journal: each run's outcome, and every
// decision a person (or their grant) made.
func sessionRecord(t *testing.T, id string) record {
	t.Helper()
	dir, _ := journal.Dir()
	rp, err := journal.Load(journal.Path(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	var rec record
	for _, e := range rp.Events {
		switch ev := e.(type) {
		case runtime.RunFinished:
			b, _ := json.Marshal(ev.Outcome)
			rec.outcomes = append(rec.outcomes, string(b))
		case runtime.CallDecision:
			if ev.By == "user" || strings.HasPrefix(ev.By, "grant:") {
				rec.decisions = append(rec.decisions, strings.Join([]string{
					fmt.Sprintf("turn %d #%d", ev.Turn, ev.Index+1), ev.Decision, ev.By, ev.Reason}, " | "))
			}
		}
	}
	// One grant releases the calls it covers in no particular order.
	slices.Sort(rec.decisions)
	return rec
}

// tree returns the files under dir and their contents, .git aside.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
