package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rewindCrashFiles is how many files the killed rewind writes back: enough
// that a restore takes long enough to be killed in the middle of.
const rewindCrashFiles = 1500

// TestRewindKilledMidwayIsFinishedOrRolledBack kills agenttui sessions
// rewind with SIGKILL at random points while it restores 1,500 files, then
// starts the session again (agenttui run --resume). Whenever it was killed,
// no file is ever half-written, and after the next start the workspace is
// wholly as before the reply (the restore was finished) or wholly as the
// reply left it (it had not begun, or was rolled back), and the notice
// says which.
func TestRewindKilledMidwayIsFinishedOrRolledBack(t *testing.T) {
	if testing.Short() {
		t.Skip("the rewind crash test restores 1,500 files several times")
	}
	dir := t.TempDir()
	sc := filepath.Join(dir, "many.json")
	body := `{"name": "many", "steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "for f in d/*.txt; do echo changed >> \"$f\"; done && touch d/new.txt"}}]},
	  {"text": "Changed them all."},
	  {"text": "Carried on."}]}`
	if err := os.WriteFile(sc, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCrashTrial(t, sc)
	if err := os.Mkdir(filepath.Join(c.ws, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range rewindCrashFiles {
		writeFile(t, filepath.Join(c.ws, "d", fmt.Sprintf("f%04d.txt", i)), fmt.Sprintf("file %d\n", i))
	}
	before := folderState(t, c.ws)
	out, err := c.command("run", "--json", "--mode", "auto", "--scenario", sc, "change them all").Output()
	if err != nil {
		t.Fatalf("the run: %v\n%s", err, out)
	}
	id := events(t, string(out))[0]["session"].(string)
	after := folderState(t, c.ws)
	wsTemplate, stateTemplate := filepath.Join(dir, "ws"), filepath.Join(dir, "state")
	copyTree(t, c.ws, wsTemplate)
	copyTree(t, c.state, stateTemplate)

	// How long an uninterrupted rewind takes bounds the kill points.
	start := time.Now()
	if r := c.run(t, "sessions", "rewind", id, "--to", "turn:1", "--code"); r.code != 0 {
		t.Fatalf("uninterrupted rewind: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	full := time.Since(start)
	if got := folderState(t, c.ws); got != before {
		t.Fatal("the uninterrupted rewind did not restore the workspace")
	}

	rng := rand.New(rand.NewPCG(2026, 25))
	outcomes := map[string]int{}
	for trial := range 5 {
		os.RemoveAll(c.ws)
		os.RemoveAll(c.state)
		copyTree(t, wsTemplate, c.ws)
		copyTree(t, stateTemplate, c.state)
		at := time.Duration(rng.Int64N(int64(full)))
		cmd := c.command("sessions", "rewind", id, "--to", "turn:1", "--code")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The sleep is the crash point itself, chosen at random, not a
		// wait for something to happen.
		time.Sleep(at)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		wholeFiles(t, c.ws, trial, true)

		r := c.run(t, "run", "--resume", id, "--json", "--scenario", sc, "carry on")
		if r.code != 0 {
			t.Fatalf("trial %d: the next start: exit %d\n%s", trial, r.code, r.stderr)
		}
		finished := strings.Contains(r.stdout, "was interrupted when agenttui stopped; it was finished")
		rolledBack := strings.Contains(r.stdout, "was interrupted when agenttui stopped; it was rolled back")
		wholeFiles(t, c.ws, trial, false)
		got := folderState(t, c.ws)
		switch {
		case got == before && !rolledBack:
			outcomes[map[bool]string{true: "finished at the next start", false: "done before the kill"}[finished]]++
		case got == after && !finished:
			outcomes[map[bool]string{true: "rolled back at the next start", false: "not begun"}[rolledBack]]++
		default:
			t.Fatalf("trial %d (kill at %v of %v): the workspace is neither wholly before nor wholly after the rewind "+
				"(finished notice %v, rolled back notice %v)", trial, at, full, finished, rolledBack)
		}
	}
	t.Logf("a rewind of %d files took %v; 5 kills: %v", rewindCrashFiles, full, outcomes)
}

// wholeFiles checks that every file of the workspace's d/ is either as it
// was before the reply or as the reply left it. A killed restore may leave
// the temporary file it was writing beside them (withTemp), never once the
// session has started again.
func wholeFiles(t *testing.T, ws string, trial int, withTemp bool) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(ws, "d"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == "new.txt" || withTemp && strings.HasPrefix(name, ".ckpt-") && strings.HasSuffix(name, ".tmp") {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(name, "f%04d.txt", &i); err != nil {
			t.Fatalf("trial %d: a stray file %s in the workspace", trial, name)
		}
		b, err := os.ReadFile(filepath.Join(ws, "d", name))
		if err != nil {
			t.Fatal(err)
		}
		if was := fmt.Sprintf("file %d\n", i); string(b) != was && string(b) != was+"changed\n" {
			t.Fatalf("trial %d: %s is half-written: %q", trial, name, b)
		}
	}
}

// copyTree copies the folder from to to, modes and links included.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
