package tui

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
)

// fakeRestorer plans an undo of one file and records what it is asked to
// restore; stale makes its first Restore find the workspace moved.
type fakeRestorer struct {
	mu       sync.Mutex // guards everything below
	plans    int
	restored []string // the digests confirmed
	stale    bool
}

func (f *fakeRestorer) PlanUndo(context.Context) (*runtime.Restore, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plans++
	return &runtime.Restore{Kind: "undo", Title: "undo turn 4", Messages: -1, Plan: &checkpoint.Plan{
		Digest: "digest-" + string(rune('0'+f.plans)),
		Steps: []checkpoint.Step{{Path: "notes.txt", Action: checkpoint.Remove, Current: &checkpoint.Entry{Path: "notes.txt", Type: checkpoint.File}},
			{Path: "mine.txt", Action: checkpoint.Write, Conflict: true,
				Current: &checkpoint.Entry{Path: "mine.txt", Type: checkpoint.File}, Target: &checkpoint.Entry{Path: "mine.txt", Type: checkpoint.File}}},
	}}, nil
}

func (f *fakeRestorer) PlanRedo(context.Context) (*runtime.Restore, error) {
	return nil, runtime.ErrNothingToRestore
}

func (f *fakeRestorer) PlanRewind(context.Context, int, bool, bool) (*runtime.Restore, error) {
	return nil, runtime.ErrNothingToRestore
}

func (f *fakeRestorer) Restore(_ context.Context, r *runtime.Restore, digest string, overwrite []string) (runtime.RestoreFinished, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stale {
		f.stale = false
		return runtime.RestoreFinished{}, runtime.ErrRestoreStale
	}
	f.restored = append(f.restored, digest)
	return runtime.RestoreFinished{Written: []string{"notes.txt"}, Kept: []string{"mine.txt"}, Note: "told"}, nil
}

func (f *fakeRestorer) RewindPoints() []runtime.RewindPoint { return nil }

// TestUndoIsConfirmedOnItsPreview opens /undo's preview: a y in the grace
// period after it appears restores nothing, a y after it restores the plan
// the person saw (its digest), the conflict is kept, and the console says
// so. A preview the workspace moved under is shown again, and only its new
// digest is restored.
func TestUndoIsConfirmedOnItsPreview(t *testing.T) {
	f := &fakeRestorer{stale: true}
	h := newHarness(t, Options{Restores: f})
	h.update(h.commandMsg("/undo"))
	mustContain(t, h.view(), "Undo turn 4", "notes.txt", "removed", "mine.txt", "changed since — kept", "keys paused")
	launch(h.update(keyMsg("y")))
	if len(f.restored) != 0 {
		t.Fatal("a y in the grace period restored")
	}
	h.clock.advance(time.Second)
	mustContain(t, h.view(), "y confirm · n cancel")
	// The workspace moved under the preview: it is planned and shown again.
	h.update(runCmd(h.update(runCmd(h.update(keyMsg("y"))))))
	mustContain(t, h.view(), "the workspace changed since the preview", "Undo turn 4", "keys paused")
	if f.plans != 2 || len(f.restored) != 0 {
		t.Fatalf("planned %d times, restored %v", f.plans, f.restored)
	}
	h.clock.advance(time.Second)
	h.update(runCmd(h.update(keyMsg("y"))))
	if len(f.restored) != 1 || f.restored[0] != "digest-2" {
		t.Fatalf("restored %v, want the digest of the preview shown last", f.restored)
	}
	mustContain(t, h.view(), "undo turn 4: 1 path(s) written, 1 kept as they are (changed since): mine.txt")
}
