package runtime_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// TestInterruptedRestoreIsSettled cuts a journal after an undo's start, as
// a process killed during the undo leaves it, and loads it again: when the
// undo's files had been written the undo is recorded as finished (the model
// will read its note), and when none had, as rolled back (the reply's
// changes are still in effect and can be undone).
func TestInterruptedRestoreIsSettled(t *testing.T) {
	for _, written := range []bool{true, false} {
		t.Run(map[bool]string{true: "finished", false: "rolled back"}[written], func(t *testing.T) {
			dir, a, s, _ := setup(t, step("", call("write_file", map[string]any{"path": "b.txt", "content": "changed\n"})), finish("done"))
			jdir := t.TempDir()
			w, err := journal.Create(jdir, journal.Header{Session: "s1", Goal: "go", Workspace: dir}, redact.New())
			if err != nil {
				t.Fatal(err)
			}
			a.Sink = w.Event
			a.Run(context.Background(), s, "go")
			r, err := s.PlanUndo(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			restore(t, a, s, r)
			w.Close()
			if !written {
				write(t, dir, "b.txt", "changed\n")
			}
			path := journal.Path(jdir, "s1")
			data, _ := os.ReadFile(path)
			cut := bytes.Index(data, []byte(`{"type":"restore_finished"`))
			if cut < 0 {
				t.Fatalf("no restore_finished in\n%s", data)
			}
			os.WriteFile(path, data[:cut], 0o600)

			rp, err := journal.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			resumed := rp.Session
			if resumed.UnfinishedRestore() == nil {
				t.Fatal("the cut journal has no unfinished restore")
			}
			resumed.Checkpoints = s.Checkpoints
			jw, err := journal.Reopen(rp, redact.New())
			if err != nil {
				t.Fatal(err)
			}
			b := &runtime.Agent{Model: model.NewScripted("t", &model.Scenario{}), Sink: jw.Event}
			n, ok := b.SettleRestore(context.Background(), resumed)
			jw.Close()
			want := map[bool]string{true: "was finished", false: "was rolled back"}[written]
			if !ok || !strings.Contains(n.Text, want) {
				t.Fatalf("notice %q, want %q", n.Text, want)
			}
			if resumed.Changes[0].Live == written || (resumed.Note != "") != written {
				t.Fatalf("changes %+v, note %q", resumed.Changes, resumed.Note)
			}
			// The settlement is in the journal: loaded again, the session
			// has nothing left to settle.
			again, err := journal.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if again.Session.UnfinishedRestore() != nil || again.Session.Changes[0].Live == written {
				t.Fatalf("reloaded: unfinished %v, changes %+v", again.Session.UnfinishedRestore(), again.Session.Changes)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); (string(b) == "bravo\n") != written {
				t.Fatalf("b.txt = %q", b)
			}
		})
	}
}
