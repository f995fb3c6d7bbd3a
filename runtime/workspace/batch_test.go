package workspace_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace"
)

// TestFootprintsDecideBatches runs real workspace tools through the
// runtime: two reads of different files and a write of a third share one
// batch, and a write of a file after a read of it waits for the read.
func TestFootprintsDecideBatches(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tools, err := workspace.Tools(dir)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(tools...)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) model.ScriptedCall {
		return model.ScriptedCall{Name: name, Args: json.RawMessage(args)}
	}
	m := model.NewScripted("t", &model.Scenario{Steps: []model.Step{
		{Calls: []model.ScriptedCall{
			call("read_file", `{"path":"a.txt"}`),
			call("read_file", `{"path":"b.txt"}`),
			call("write_file", `{"path":"c.txt","content":"c"}`),
			call("write_file", `{"path":"a.txt","content":"new a"}`),
		}},
		{Text: "done"},
	}})
	var reply runtime.ReplyReceived
	a := &runtime.Agent{Model: m, Catalog: cat, Sink: func(e runtime.Event) {
		if r, ok := e.(runtime.ReplyReceived); ok && r.Turn == 1 {
			reply = r
		}
	}}
	if out := a.Run(context.Background(), runtime.NewSession("s"), "go"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	wantBatch := []int{1, 1, 1, 2}
	wantWaits := [][]int{{}, {}, {}, {0}}
	for i, c := range reply.Calls {
		if c.Batch != wantBatch[i] || len(c.WaitsFor) != len(wantWaits[i]) || (len(c.WaitsFor) == 1 && c.WaitsFor[0] != wantWaits[i][0]) {
			t.Errorf("call %d %s %s: batch %d waits for %v; want batch %d waits for %v",
				i, c.Name, c.Args, c.Batch, c.WaitsFor, wantBatch[i], wantWaits[i])
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "new a" {
		t.Errorf("a.txt = %q", got)
	}
}
