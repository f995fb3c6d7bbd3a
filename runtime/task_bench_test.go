package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agenttui/agenttui/runtime/agents"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// noopCalls is one reply of n no-op reads of separate paths.
func noopCalls(n int) model.Step {
	step := model.Step{}
	for i := range n {
		step.Calls = append(step.Calls, call("read_file", fmt.Sprintf(`{"path":"f%d"}`, i)))
	}
	return step
}

func benchScript(steps ...model.Step) model.Model {
	return model.NewScripted("bench", &model.Scenario{Name: "bench", Steps: steps}).WithoutDelays()
}

// runInGoroutine runs a on a fresh goroutine and waits for its outcome, as
// the console and agenttui run start a run: each run then grows its
// goroutine's stack from the start, as a task's call does.
func runInGoroutine(a *Agent) GoalOutcome {
	done := make(chan GoalOutcome, 1)
	go func() { done <- a.Run(context.Background(), NewSession("s"), "go") }()
	return <-done
}

// BenchmarkTaskOverhead compares 50 no-op calls made by the session's own
// run with the same calls made by a task's run: the task's cost is its own
// run (a session, a catalogue, two more model turns) and the tagging of its
// events.
func BenchmarkTaskOverhead(b *testing.B) {
	noop := pathTool("read_file", false, okBody("ok"))
	finish := model.Step{Calls: []model.ScriptedCall{call("finish", `{"summary":"done"}`)}}
	b.Run("parent", func(b *testing.B) {
		m := benchScript(noopCalls(50), finish)
		cat, _ := NewCatalog(noop)
		a := &Agent{Model: m, Catalog: cat, Sink: func(Event) {}}
		for b.Loop() {
			if out := runInGoroutine(a); out.Status != StatusSucceeded {
				b.Fatal(out)
			}
		}
	})
	b.Run("task", func(b *testing.B) {
		args, _ := json.Marshal(map[string]string{"description": "fifty", "prompt": "read fifty"})
		m := benchScript(model.Step{Calls: []model.ScriptedCall{call(Task, string(args))}}, finish)
		sub := benchScript(noopCalls(50), finish)
		task := NewTaskTool(Tasks{
			Agents: agents.Builtins(), Workspace: "/w",
			Tools: func([]string) ([]tool.Tool, []string) { return []tool.Tool{noop}, nil },
			Model: func(agents.Definition, string, model.Model) (model.Model, error) { return sub, nil },
		})
		cat, _ := NewCatalog(task)
		a := &Agent{Model: m, Catalog: cat, Sink: func(Event) {}}
		for b.Loop() {
			if out := runInGoroutine(a); out.Status != StatusSucceeded {
				b.Fatal(out)
			}
		}
	})
}
