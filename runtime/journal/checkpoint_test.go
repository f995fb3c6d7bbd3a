package journal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace"
)

// TestCheckpointsAndRestoresReplay journals a session whose reply changes
// files, then an undo, a redo, an undo again and a rewind of the
// conversation: the session loaded from the journal has the same changes,
// points, conversation and pending note as the live one, so a resumed
// session can undo, redo and rewind as it could before, and its next
// request carries the same note.
func TestCheckpointsAndRestoresReplay(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tools, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(tools.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	args := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	steps := []model.Step{
		{Calls: []model.ScriptedCall{{Name: "write_file", Args: args(map[string]string{"path": "a.txt", "content": "two\n"})},
			{Name: "write_file", Args: args(map[string]string{"path": "b.txt", "content": "new\n"})}}},
		{Text: "Done."},
		{Text: "Again."},
	}
	dir := t.TempDir()
	w, err := Create(dir, header("cp"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	a := &runtime.Agent{Model: model.NewScripted("test", &model.Scenario{Name: "t", Steps: steps}).WithoutDelays(), Catalog: cat, Sink: w.Event}
	store, err := checkpoint.Open(checkpoint.Options{Dir: t.TempDir(), Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s := runtime.NewSession("cp")
	s.Checkpoints = &runtime.CheckpointStore{Store: store, Workspace: ws}
	ctx := context.Background()
	a.Run(ctx, s, "change a")
	a.Run(ctx, s, "and more")
	for _, plan := range []func(context.Context) (*runtime.Restore, error){s.PlanUndo, s.PlanRedo, s.PlanUndo,
		func(ctx context.Context) (*runtime.Restore, error) { return s.PlanRewind(ctx, 2, false, true) }} {
		r, err := plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		digest := ""
		if r.Plan != nil {
			digest = r.Plan.Digest
		}
		if _, err := a.Restore(ctx, s, r, digest, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rp, err := Load(Path(dir, "cp"))
	if err != nil {
		t.Fatal(err)
	}
	got := rp.Session
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"changes", got.Changes, s.Changes},
		{"points", got.Points, s.Points},
		{"messages", got.Messages, s.Messages},
		{"note", got.Note, s.Note},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("replayed %s\n%+v\nwant\n%+v", c.what, c.got, c.want)
		}
	}
	if len(s.Changes) != 5 || s.Changes[0].Live || !s.Changes[3].Live || s.Note == "" || len(s.Messages) != 3 {
		t.Errorf("the live session is not as the test meant: %d changes %+v, %d messages, note %q", len(s.Changes), s.Changes, len(s.Messages), s.Note)
	}
	if got.UnfinishedRestore() != nil || !rp.AtRest {
		t.Errorf("a finished restore reads as unfinished, or the session is not at rest")
	}
}
