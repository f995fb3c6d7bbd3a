package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agenttui/agenttui/internal/termtest"
)

// agenttuiTemp lists the folders agenttui made in dir (the demo's copy,
// a scenario's, the shell's).
func agenttuiTemp(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "agenttui-") {
			names = append(names, e.Name())
		}
	}
	return names
}

// ending is a way a terminal program is told to end.
type ending struct {
	name string
	end  func(term *termtest.Term)
}

var endings = []ending{
	// Closing the terminal window: the kernel hangs the terminal up and
	// sends the session SIGHUP.
	{"window closed", func(term *termtest.Term) { term.Hangup() }},
	{"SIGHUP", func(term *termtest.Term) { _ = syscall.Kill(term.Pid(), syscall.SIGHUP) }},
	{"SIGTERM", func(term *termtest.Term) { _ = syscall.Kill(term.Pid(), syscall.SIGTERM) }},
}

// TestConsoleHangupCleansUp checks that the console ends the way SIGTERM
// ends it when its terminal is closed (SIGHUP): the demo's copy of the
// sample project and the shell's temporary folder are removed from
// $TMPDIR, which holds nothing of agenttui's afterwards.
func TestConsoleHangupCleansUp(t *testing.T) {
	for _, e := range endings {
		t.Run(e.name, func(t *testing.T) {
			tmp := t.TempDir()
			term := startConsole(t, e2eCols, e2eRows, []string{"TMPDIR=" + tmp})
			term.WaitFor("Enter starts the demo", e2eStep)
			if got := agenttuiTemp(t, tmp); len(got) < 2 {
				t.Fatalf("while the demo is open, $TMPDIR holds %q; want its copy and the shell's folder", got)
			}
			e.end(term)
			if _, err := term.Wait(e2eStep); err != nil {
				t.Fatal(err)
			}
			if got := agenttuiTemp(t, tmp); len(got) != 0 {
				t.Errorf("after %s, $TMPDIR still holds %q", e.name, got)
			}
		})
	}
}

// TestHeadlessHangupCleansUp checks the same of agenttui run: a run in a
// terminal that is closed stops as on SIGTERM, and removes the scenario's
// workspace copy and the shell's folder.
func TestHeadlessHangupCleansUp(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ws.txtar"), "-- notes.txt --\nremember the milk\n")
	// The model thinks for a minute before its first reply, which the
	// run is stopped in.
	sc := filepath.Join(dir, "slow.json")
	writeFile(t, sc, `{"name": "slow", "workspace": "ws.txtar", "steps": [{"delay_ms": 60000, "text": "Done."}]}`)
	for _, e := range endings {
		t.Run(e.name, func(t *testing.T) {
			tmp := t.TempDir()
			term := startConsole(t, e2eCols, e2eRows, []string{"TMPDIR=" + tmp}, "run", "--scenario", sc, "--speed", "1", "read the notes")
			term.WaitFor("› read the notes", e2eStep)
			if got := agenttuiTemp(t, tmp); len(got) < 2 {
				t.Fatalf("while the run goes, $TMPDIR holds %q; want the scenario's copy and the shell's folder", got)
			}
			e.end(term)
			if _, err := term.Wait(e2eStep); err != nil {
				t.Fatal(err)
			}
			if got := agenttuiTemp(t, tmp); len(got) != 0 {
				t.Errorf("after %s, $TMPDIR still holds %q", e.name, got)
			}
		})
	}
}
