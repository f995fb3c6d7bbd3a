package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace"
)

// sessionRestorer restores a real session, as the console's host does.
type sessionRestorer struct {
	agent   *runtime.Agent
	session *runtime.Session
}

func (r sessionRestorer) PlanUndo(ctx context.Context) (*runtime.Restore, error) {
	return r.session.PlanUndo(ctx)
}

func (r sessionRestorer) PlanRedo(ctx context.Context) (*runtime.Restore, error) {
	return r.session.PlanRedo(ctx)
}

func (r sessionRestorer) PlanRewind(ctx context.Context, point int, code, conversation bool) (*runtime.Restore, error) {
	return r.session.PlanRewind(ctx, point, code, conversation)
}

func (r sessionRestorer) Restore(ctx context.Context, rs *runtime.Restore, digest string, overwrite []string) (runtime.RestoreFinished, error) {
	return r.agent.Restore(ctx, r.session, rs, digest, overwrite)
}

func (r sessionRestorer) RewindPoints() []runtime.RewindPoint { return r.session.RewindPoints() }

// TestUndoPreviewShowsWhatItCannotRestore runs a reply that creates a
// 9 MiB file and a small one in a real workspace, then opens /undo: the
// preview removes the small file and lists the large one as not
// restorable, with its reason; confirming leaves the large file in place.
func TestUndoPreviewShowsWhatItCannotRestore(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(ws.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	args := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	scenario := &model.Scenario{Name: "big", Steps: []model.Step{
		{Calls: []model.ScriptedCall{
			{Name: "write_file", Args: args(map[string]string{"path": "big.bin", "content": strings.Repeat("x", 9<<20)})},
			{Name: "write_file", Args: args(map[string]string{"path": "new.txt", "content": "small\n"})}}},
		{Calls: []model.ScriptedCall{{Name: "finish", Args: args(map[string]string{"summary": "done"})}}},
	}}
	agent := &runtime.Agent{Model: model.NewScripted("test", scenario).WithoutDelays(), Catalog: cat}
	store, err := checkpoint.Open(checkpoint.Options{Dir: t.TempDir(), Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	session := runtime.NewSession("s1")
	session.Checkpoints = &runtime.CheckpointStore{Store: store, Workspace: dir}
	if out := agent.Run(context.Background(), session, "go"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}

	h := newHarness(t, Options{Restores: sessionRestorer{agent, session}})
	h.update(h.commandMsg("/undo"))
	mustContain(t, h.view(), "Undo turn 1: 1 file", "new.txt", "removed", "Not brought back (1):",
		"big.bin: not restorable, larger than 8 MiB after turn 1")
	h.clock.advance(time.Second)
	h.update(runCmd(h.update(keyMsg("y"))))
	mustContain(t, h.view(), "undo turn 1: 1 path(s) written")
	if st, err := os.Stat(filepath.Join(dir, "big.bin")); err != nil || st.Size() != 9<<20 {
		t.Fatalf("big.bin: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("new.txt: %v", err)
	}
	if strings.Contains(session.Note, "big.bin") {
		t.Fatalf("the note names big.bin: %s", session.Note)
	}
}
