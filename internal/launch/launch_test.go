package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
)

// setup gives the test its own configuration and state folders and a
// workspace holding notes.txt, and writes scenario as a scenario file.
func setup(t *testing.T, scenario string) (ws, file string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws = t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, file
}

const writes = `{"steps": [
  {"calls": [{"name": "write_file", "args": {"path": "notes.txt", "content": "changed\n"}}]},
  {"calls": [{"name": "finish", "args": {"summary": "done", "data": {"n": 1}}}]}]}`

// TestOpenRunsAGoalJournaled checks that a session opened headless runs its
// goal to the outcome, applies the headless policy to what would ask, and
// is journaled.
func TestOpenRunsAGoalJournaled(t *testing.T) {
	ws, file := setup(t, writes)
	s := &Settings{Workspace: ws, Scenario: file, Mode: approval.ModeReads, MaxParallel: 8, Set: map[string]bool{}}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var finished []runtime.CallFinished
	hl, err := Open(context.Background(), s, HeadlessOptions{Goal: "change the notes", Show: func(e runtime.Event) {
		if f, ok := e.(runtime.CallFinished); ok {
			mu.Lock()
			finished = append(finished, f)
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	out := hl.Run(context.Background(), "change the notes")
	if err := hl.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusSucceeded || out.Summary != "done" {
		t.Fatalf("outcome %+v", out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(got) != "remember the milk\n" {
		t.Errorf("the write ran headless: %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(finished) == 0 || finished[0].Outcome != "skipped" || !strings.Contains(finished[0].Result, "headless") {
		t.Errorf("the write should be skipped by the headless policy: %+v", finished)
	}
	journal := filepath.Join(os.Getenv("XDG_STATE_HOME"), "agenttui", "sessions", hl.ID()+".jsonl")
	if _, err := os.Stat(journal); err != nil {
		t.Errorf("no journal: %v", err)
	}
	if hl.Goal() != "change the notes" || hl.Workspace() != s.Workspace {
		t.Errorf("goal %q, workspace %q", hl.Goal(), hl.Workspace())
	}
}

// TestOpenAsksTheApprover checks that an approver given to Open answers
// the calls that need approval, and that SetApprover(nil) makes the next
// run headless.
func TestOpenAsksTheApprover(t *testing.T) {
	ws, file := setup(t, writes)
	s := &Settings{Workspace: ws, Scenario: file, Mode: approval.ModeAsk, MaxParallel: 8, Set: map[string]bool{}}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	asked := 0
	hl, err := Open(context.Background(), s, HeadlessOptions{Goal: "g", Approver: approval.ApproverFunc(func(_ context.Context, req approval.Request) approval.Answer {
		asked++
		return approval.Answer{Approve: true, Digest: req.Preview.Digest}
	})})
	if err != nil {
		t.Fatal(err)
	}
	defer hl.Close()
	if out := hl.Run(context.Background(), "g"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(got) != "changed\n" || asked != 1 {
		t.Errorf("asked %d times; notes.txt is %q", asked, got)
	}
}

// TestSettingsErrorsAreOneLine checks what the person is told about
// settings that cannot work.
func TestSettingsErrorsAreOneLine(t *testing.T) {
	_, _ = setup(t, writes)
	s := &Settings{Workspace: "/no/such/folder", Set: map[string]bool{}}
	var bad *Error
	if err := s.Resolve(); !errors.As(err, &bad) || err.Error() != "--workspace /no/such/folder does not exist" {
		t.Errorf("missing workspace: %v", err)
	}
	s = &Settings{Workspace: t.TempDir(), Model: "gpt-5", Set: map[string]bool{}}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ChooseModel(s); !errors.As(err, &bad) || !strings.Contains(err.Error(), `unknown model "gpt-5"`) {
		t.Errorf("unknown model: %v", err)
	}
}

// TestCloneSharesNothing checks that a clone's settings can be changed for
// one session without changing the server's.
func TestCloneSharesNothing(t *testing.T) {
	s := &Settings{Allow: []string{"read_file"}, Set: map[string]bool{"mode": true}}
	c := s.Clone()
	c.Set["workspace"] = true
	c.Allow[0] = "write_file"
	if s.Set["workspace"] || s.Allow[0] != "read_file" {
		t.Errorf("the clone shares state: %+v", s)
	}
}
