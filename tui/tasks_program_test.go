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
	"github.com/agenttui/agenttui/runtime/agents"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace"
)

const tasksScenario = `{
  "name": "tasks-test",
  "steps": [
    {"text": "Two tasks at once.", "calls": [
      {"name": "task", "args": {"description": "Survey the docs", "prompt": "Read the index.", "agent": "explore"}},
      {"name": "task", "args": {"description": "Fix the API page", "prompt": "Rewrite docs/api.md.", "agent": "general", "writes": ["docs"]}}
    ]},
    {"calls": [{"name": "finish", "args": {"summary": "Both tasks are done."}}]}
  ],
  "tasks": {
    "Survey the docs": {"steps": [
      {"text": "Reading the index.", "calls": [{"name": "read_file", "args": {"path": "docs/index.md"}}]},
      {"calls": [{"name": "finish", "args": {"summary": "The index lists the API page."}}]}
    ]},
    "Fix the API page": {"steps": [
      {"text": "Rewriting the page.", "calls": [{"name": "write_file", "args": {"path": "docs/api.md", "content": "# API\n\nEvery call.\n"}}]},
      {"calls": [{"name": "finish", "args": {"summary": "Rewrote the API page."}}]}
    ]}
  }
}`

// TestProgramWithTasks runs the console as a bubbletea program over a real
// agent whose reply runs two tasks through the real task tool: the writing
// task's call asks (reads mode) and is approved on the session's board; the
// write its agent makes asks too, shows on the board under the task's row,
// and y approves it there; both tasks finish, and only then the run.
func TestProgramWithTasks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "docs", "index.md"), []byte("# Docs\n\n- api.md\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "docs", "api.md"), []byte("# API\n\nTODO\n"), 0o644)
	sc, err := model.ParseScenario([]byte(tasksScenario))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	taskTool := runtime.NewTaskTool(runtime.Tasks{
		Agents:    agents.Builtins(),
		Workspace: ws.Root(),
		Tools:     func(writes []string) ([]tool.Tool, []string) { return ws.Within(writes).Tools(), nil },
		Model: func(_ agents.Definition, description string, parent model.Model) (model.Model, error) {
			return parent.(*model.Scripted).ForTask(description)
		},
	})
	cat, err := runtime.NewCatalog(append(ws.Tools(), taskTool)...)
	if err != nil {
		t.Fatal(err)
	}
	bridge := NewBridge(nil)
	defer bridge.Close()
	policy := approval.NewPolicy(approval.ModeReads, bridge)
	agent := &runtime.Agent{Model: model.NewScripted("scenario:tasks-test", sc).WithoutDelays(), Catalog: cat,
		Hooks: []runtime.Hook{policy}, Sink: bridge.Sink, Mode: func() string { return string(policy.Mode()) }}
	session := runtime.NewSession("test")
	m := New(Options{
		Run:    func(ctx context.Context, input string) runtime.GoalOutcome { return agent.Run(ctx, session, input) },
		Bridge: bridge, Policy: policy, Model: "scenario:tasks-test", Workspace: ws.Root(), Goal: "mend the docs", Grace: -1,
	})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(140, 40))
	wait := func(s ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, x := range s {
				if !bytes.Contains(b, []byte(x)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	key := func(k tea.KeyMsg) { tm.Send(k) }
	// The writing task asks before it starts; the reading one runs.
	wait("general · Fix the API page · writes docs", "? needs approval")
	// Tab takes focus from the input to the board, onto the call that
	// waits.
	key(tea.KeyMsg{Type: tea.KeyTab})
	wait("▸ #2 task")
	key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	// Its agent's write asks in turn, under the task's row.
	wait("↳ task #2 general · write_file docs/api.md")
	key(tea.KeyMsg{Type: tea.KeyDown})
	wait("── task #2 general · #1 write_file")
	key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	wait("Both tasks are done.")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	out, ok := final.Outcome(time.Second)
	if !ok || out.Status != runtime.StatusSucceeded || out.Summary != "Both tasks are done." {
		t.Fatalf("outcome = %+v, %v", out, ok)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "docs", "api.md")); err != nil || string(b) != "# API\n\nEvery call.\n" {
		t.Fatalf("the approved write did not happen: %q, %v", b, err)
	}
	for _, path := range [][]string{{"1.0"}, {"1.1"}} {
		tk := final.tasks.Get(path)
		if tk == nil || tk.View.Outcome == nil || tk.View.Outcome.Status != runtime.StatusSucceeded {
			t.Fatalf("task %v: %+v", path, tk)
		}
	}
}
