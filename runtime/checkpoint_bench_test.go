package runtime_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace"
)

// BenchmarkDiskAfter50Replies runs 50 replies, each a one-line edit_file of
// one file of a 1,000-file workspace (the first a shell command, so the
// whole workspace is recorded once), and reports what the session's
// checkpoint store holds: after the first reply, and what the 50 edits
// added against the bytes of the files they edited (before and after).
func BenchmarkDiskAfter50Replies(b *testing.B) {
	for range b.N {
		ws := b.TempDir()
		for i := range 1000 {
			p := filepath.Join(ws, fmt.Sprintf("pkg%02d", i%10), fmt.Sprintf("f%04d.go", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(fmt.Sprintf("package p\n\n// File %d.\nvar V%d = %d\n", i, i, i)), 0o644)
		}
		steps := []model.Step{{Calls: []model.ScriptedCall{call("run_shell", map[string]any{"command": "true"})}}}
		edited := 0
		for i := range 50 {
			path := fmt.Sprintf("pkg%02d/f%04d.go", (i*7)%10, (i*7)%1000)
			old, _ := os.ReadFile(filepath.Join(ws, path))
			edited += 2*len(old) + 1
			steps = append(steps, model.Step{Calls: []model.ScriptedCall{call("edit_file",
				map[string]any{"path": path, "old": fmt.Sprintf("// File %d.", (i*7)%1000), "new": fmt.Sprintf("// File %d, edited.", (i*7)%1000)})}})
		}
		steps = append(steps, finish("done"))
		tools, _ := workspace.New(ws)
		cat, _ := runtime.NewCatalog(tools.Tools()...)
		a := &runtime.Agent{Model: model.NewScripted("t", &model.Scenario{Name: "t", Steps: steps}).WithoutDelays(), Catalog: cat,
			Budgets: runtime.Budgets{MaxTurns: 100}}
		store, err := checkpoint.Open(checkpoint.Options{Dir: b.TempDir(), Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		s := runtime.NewSession("bench")
		s.Checkpoints = &runtime.CheckpointStore{Store: store, Workspace: ws}
		var first int64
		a.Sink = func(e runtime.Event) {
			if c, ok := e.(runtime.CheckpointChanges); ok && c.Seq == 1 {
				first, _ = store.Size()
			}
		}
		if out := a.Run(context.Background(), s, "edit"); out.Status != runtime.StatusSucceeded {
			b.Fatalf("%+v", out)
		}
		size, _ := store.Size()
		store.Close()
		if len(s.Changes) != 51 {
			b.Fatalf("%d changes", len(s.Changes))
		}
		b.ReportMetric(float64(first), "first-B")
		b.ReportMetric(float64(size-first), "50-edits-B")
		b.ReportMetric(float64(edited), "edited-files-B")
	}
}
