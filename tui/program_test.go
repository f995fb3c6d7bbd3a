package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace"
)

const programScenario = `{
  "name": "program-test",
  "description": "a write that needs approval, a question, then finish",
  "steps": [
    {"text": "Writing the note.", "calls": [
      {"name": "write_file", "args": {"path": "note.txt", "content": "hello\n"}},
      {"name": "read_file", "args": {"path": "seed.txt"}}
    ]},
    {"expect": ["Created note.txt"], "calls": [{"name": "ask_user", "args": {"question": "Which colour?"}}]},
    {"expect": ["teal"], "calls": [{"name": "finish", "args": {"summary": "Wrote the note.", "data": {"colour": "teal"}}}]}
  ]
}`

// TestProgramWithRealAgent runs the console as a bubbletea program over a
// real agent, policy and workspace: the write waits for approval while the
// read runs, y approves it, the question becomes a prompt, and the answer
// finishes the run.
func TestProgramWithRealAgent(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "seed.txt"), []byte("seed"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := model.ParseScenario([]byte(programScenario))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := workspace.Tools(dir)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(tools...)
	if err != nil {
		t.Fatal(err)
	}
	bridge := NewBridge(nil)
	defer bridge.Close()
	policy := approval.NewPolicy(approval.ModeReads, bridge)
	agent := &runtime.Agent{Model: model.NewScripted("scenario:program-test", sc).WithoutDelays(), Catalog: cat,
		Hooks: []runtime.Hook{policy}, Sink: bridge.Sink, Mode: func() string { return string(policy.Mode()) }}
	session := runtime.NewSession("test")
	m := New(Options{
		Run:    func(ctx context.Context, input string) runtime.GoalOutcome { return agent.Run(ctx, session, input) },
		Bridge: bridge, Policy: policy, Model: "scenario:program-test", Workspace: dir,
		Description: sc.Description, Goal: "write the note", Grace: -1,
	})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	// Focus stays in the input; the hints say tab reaches the call.
	wait("tab approve on the board")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	wait("y approve · n skip")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	wait("Which colour?")
	tm.Type("teal")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("Wrote the note.")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	out, ok := final.Outcome(time.Second)
	if !ok || out.Status != runtime.StatusSucceeded || string(out.ExtractedData) != `{"colour":"teal"}` {
		t.Fatalf("outcome = %+v, %v", out, ok)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("the approved write did not happen: %q, %v", b, err)
	}
}
