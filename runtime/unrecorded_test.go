package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
)

// bigFile is one MiB past the checkpoints' default size bound.
var bigFile = strings.Repeat("x", checkpoint.DefaultMaxFileBytes+1<<20)

// bigNotCovered is what the preview and the journal say of big.bin.
const bigNotCovered = "big.bin: not restorable, larger than 8 MiB after turn 1"

// events keeps the checkpoint and restore events an agent emits, as the
// journal writes them.
func events(a *runtime.Agent) *[]runtime.Event {
	var out []runtime.Event
	a.Sink = func(e runtime.Event) {
		switch e.(type) {
		case runtime.CheckpointTaken, runtime.CheckpointChanges, runtime.RestoreStarted, runtime.RestoreFinished:
			out = append(out, e)
		}
	}
	return &out
}

// A new file past the size bound cannot be recorded: it is in not_covered
// with its reason, the undo leaves it in place and lists it as not
// restorable, and the note the model reads names only what was restored.
func TestUndoSaysWhatItCouldNotRecord(t *testing.T) {
	dir, a, s, _ := setup(t,
		step("", call("write_file", map[string]any{"path": "big.bin", "content": bigFile}),
			call("write_file", map[string]any{"path": "new.txt", "content": "small\n"})),
		finish("done"))
	journal := events(a)
	if out := a.Run(context.Background(), s, "go"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	ch := s.Changes[0]
	if !slices.Contains(ch.NotCovered, bigNotCovered) || !slices.Equal(ch.Unrecorded, []string{"big.bin"}) {
		t.Fatalf("not covered %q, unrecorded %q", ch.NotCovered, ch.Unrecorded)
	}
	// The journal says it too: a session replayed from it knows the same.
	replayed := runtime.NewSession("s1")
	for _, e := range *journal {
		replayed.ReplayCheckpoint(e)
	}
	if got := replayed.Changes[0]; !slices.Equal(got.NotCovered, ch.NotCovered) || !slices.Equal(got.Unrecorded, ch.Unrecorded) {
		t.Fatalf("replayed not covered %q, unrecorded %q", got.NotCovered, got.Unrecorded)
	}

	r, err := s.PlanUndo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.NotCovered, bigNotCovered) {
		t.Fatalf("the preview's not covered %q lacks big.bin", r.NotCovered)
	}
	for _, st := range r.Plan.Steps {
		if st.Path == "big.bin" {
			t.Fatalf("the plan touches big.bin: %+v", st)
		}
	}
	fin := restore(t, a, s, r)
	if b, err := os.ReadFile(filepath.Join(dir, "big.bin")); err != nil || len(b) != len(bigFile) {
		t.Fatalf("big.bin is not as the reply left it: %d bytes, %v", len(b), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("new.txt was not removed: %v", err)
	}
	want := "[agenttui] The person undid the changes these earlier calls made to the workspace, so they are no longer in place: " +
		"turn 1 write_file (new.txt). Files put back as they were before those calls: new.txt (removed). " +
		"One file the turns being undone changed could not be recorded by its checkpoint (too large, unreadable, or changing " +
		"while it was read), so it was not taken back: it is as the turns being undone left it. " +
		"Read a file again before relying on what you knew of it."
	if fin.Note != want || strings.Contains(fin.Note, "big.bin") {
		t.Fatalf("note\n%s\nwant\n%s", fin.Note, want)
	}
}

// A reply whose only change is a file it could not record, in a folder it
// made, is still the one an undo takes back: the preview writes nothing
// and says why, the folder is not removed from under the file, and the
// model is not told of anything undone.
func TestUndoOfOnlyUnrecordedChangesWritesNothing(t *testing.T) {
	dir, a, s, _ := setup(t,
		step("", call("write_file", map[string]any{"path": "b.txt", "content": "changed\n"})),
		step("", call("run_shell", map[string]any{"command": "mkdir out && head -c 9437184 /dev/zero > out/big.bin"})),
		finish("done"))
	if out := a.Run(context.Background(), s, "go"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	r, err := s.PlanUndo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Title != "undo turn 2" || !slices.Contains(r.NotCovered, "out/big.bin: not restorable, larger than 8 MiB after turn 2") {
		t.Fatalf("%s, not covered %q", r.Title, r.NotCovered)
	}
	for _, st := range r.Plan.Steps {
		if st.Action != checkpoint.None {
			t.Fatalf("the plan writes %+v", st)
		}
	}
	fin := restore(t, a, s, r)
	if st, err := os.Stat(filepath.Join(dir, "out", "big.bin")); err != nil || st.Size() != 9<<20 {
		t.Fatalf("out/big.bin: %v", err)
	}
	if !strings.HasPrefix(fin.Note, "[agenttui] The person asked to undo earlier calls' changes to the workspace, but none was undone.") ||
		strings.Contains(fin.Note, "big.bin") || strings.Contains(fin.Note, "run_shell") {
		t.Fatalf("note %q", fin.Note)
	}
	// The next undo goes on to the reply before.
	if r, err = s.PlanUndo(context.Background()); err != nil || r.Title != "undo turn 1" {
		t.Fatalf("the next undo: %v", err)
	}
}

// A rewind of the code and the conversation says the workspace was
// rewound but for what the checkpoints could not record, without naming
// it as rewound.
func TestRewindLeavesWhatItCouldNotRecord(t *testing.T) {
	dir, a, s, _ := setup(t,
		step("", call("write_file", map[string]any{"path": "big.bin", "content": bigFile}),
			call("edit_file", map[string]any{"path": "a.txt", "old": "beta", "new": "gamma"})),
		finish("done"))
	a.Run(context.Background(), s, "goal")
	r, err := s.PlanRewind(context.Background(), 0, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.NotCovered, bigNotCovered) {
		t.Fatalf("not covered %q", r.NotCovered)
	}
	fin := restore(t, a, s, r)
	if _, err := os.Stat(filepath.Join(dir, "big.bin")); err != nil {
		t.Fatalf("big.bin: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha\nbeta\n" {
		t.Fatalf("a.txt: %q", b)
	}
	want := "[agenttui] The person rewound the conversation to before turn 1; what came after is gone from it. " +
		"The workspace was rewound with it. One file the later turns changed could not be recorded by its checkpoint " +
		"(too large, unreadable, or changing while it was read), so it was not taken back: it is as the later turns left it."
	if fin.Note != want {
		t.Fatalf("note\n%s\nwant\n%s", fin.Note, want)
	}
}
