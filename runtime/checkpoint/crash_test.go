package checkpoint

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The crash test runs Apply in a child process (this test binary again),
// which kills itself with SIGKILL after performing k steps of the undo;
// the parent then checks the workspace and reopens the store.
const (
	envCrashDir = "CHECKPOINT_CRASH_DIR"
	envCrashWS  = "CHECKPOINT_CRASH_WS"
	envCrashK   = "CHECKPOINT_CRASH_K"
	envCrashT1  = "CHECKPOINT_CRASH_T1"
	envCrashT2  = "CHECKPOINT_CRASH_T2"
)

// TestCrashChild is the child's side; it does nothing in a normal run.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(envCrashDir)
	if dir == "" {
		t.Skip("only run by TestApplyKilledMidwayIsFinishedByOpen")
	}
	k, _ := strconv.Atoi(os.Getenv(envCrashK))
	s, err := Open(Options{Dir: dir, Workspace: os.Getenv(envCrashWS)})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.Diff(os.Getenv(envCrashT1), os.Getenv(envCrashT2))
	if err != nil {
		t.Fatal(err)
	}
	p := plan(t, s, undoWants(cs))
	afterStep = func(i int) {
		if i == k {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	if _, err := s.Apply(context.Background(), p, ApplyOptions{Label: "undo of turn 1"}); err != nil {
		t.Fatal(err)
	}
	t.Fatal("Apply finished: the hook did not kill the process")
}

func TestApplyKilledMidwayIsFinishedByOpen(t *testing.T) {
	// The two states, to tell a whole file from a half-written one: after
	// the kill every file must be as in one of them.
	ws := t.TempDir()
	seed(t, ws, true)
	stateA := folderState(t, ws, skipUnder(untouchable...))
	agent(t, ws, true)
	stateB := folderState(t, ws, skipUnder(untouchable...))
	whole := map[string]bool{}
	for _, l := range strings.Split(stateA+"\n"+stateB, "\n") {
		whole[l] = true
	}
	// TestUndoRedoRoundTrip pins the undo's steps; none is None.
	n := len(strings.Split(agentUndoSteps, "\n"))

	for k := range n {
		t.Run("killed after step "+strconv.Itoa(k+1), func(t *testing.T) {
			ws, dir := t.TempDir(), t.TempDir()
			seed(t, ws, true)
			s, err := Open(Options{Dir: dir, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			t1 := snap(t, s, ".")
			agent(t, ws, true)
			t2 := snap(t, s, ".")
			s.Close()

			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), envCrashDir+"="+dir, envCrashWS+"="+ws, envCrashK+"="+strconv.Itoa(k),
				envCrashT1+"="+t1.ID, envCrashT2+"="+t2.ID)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed: %v\n%s", err, out)
			}

			killed := folderState(t, ws, skipUnder(untouchable...))
			if k < n-1 && (killed == stateA || killed == stateB) {
				t.Fatal("the kill did not interrupt the restore")
			}
			for _, l := range strings.Split(killed, "\n") {
				if strings.Contains(l, " file ") && !whole[l] {
					t.Errorf("after the kill, a file is in neither state: %s", l)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "pending.json")); err != nil {
				t.Fatalf("no pending record after the kill: %v", err)
			}

			s, err = Open(Options{Dir: dir, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r := s.Recovered()
			if r == nil || !r.Finished || r.Label != "undo of turn 1" {
				t.Fatalf("Recovered() = %+v", r)
			}
			var want []string
			for _, c := range diff(t, s, t1, t2) {
				want = append(want, c.Path)
			}
			if !slices.Equal(r.Paths, want) {
				t.Errorf("Recovered().Paths = %v, want %v", r.Paths, want)
			}
			if got := folderState(t, ws, skipUnder(untouchable...)); got != stateA {
				t.Fatalf("after recovery:\n%s\nwant:\n%s", got, stateA)
			}
			if tf := append(tempFiles(t, ws), tempFiles(t, dir)...); len(tf) != 0 {
				t.Errorf("temporary files left behind: %v", tf)
			}
			if _, err := os.Stat(filepath.Join(dir, "pending.json")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the pending record is still there: %v", err)
			}
			if s2, err := Open(Options{Dir: dir, Workspace: ws}); err != nil || s2.Recovered() != nil {
				t.Errorf("a second Open recovered again: %v", err)
			} else {
				s2.Close()
			}
		})
	}
}
