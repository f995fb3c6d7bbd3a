package openai_test

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
)

// TestResponsesResumeSendsTheSameBytes runs the tool loop with a journal,
// kills the session while its third request waits for the reply (nothing
// more reaches the journal), and resumes it from the journal with a new
// model: the resumed request is the one the killed session sent, byte for
// byte, reasoning items included, and the run then succeeds against the
// server that checks every reasoning item.
func TestResponsesResumeSendsTheSameBytes(t *testing.T) {
	const id = "sess-r"
	rs := newRulesServer(t, id, loopTurns()...)
	rs.blockAt, rs.arrived = 3, make(chan struct{})
	dir := t.TempDir()
	w, err := journal.Create(dir, journal.Header{Session: id, Goal: "look up alpha and beta", Model: "openai:test-model", Started: time.Now()}, redact.New(testKey))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(wiretest.Lookup{})
	if err != nil {
		t.Fatal(err)
	}
	var dead atomic.Bool
	a := &runtime.Agent{Model: newResponsesModel(t, rs.BaseURL()), Catalog: cat, Sink: func(e runtime.Event) {
		if !dead.Load() {
			w.Event(e)
		}
	}}
	ctx, cancel := context.WithCancel(wiretest.Context(t))
	done := make(chan runtime.GoalOutcome, 1)
	go func() { done <- a.Run(ctx, runtime.NewSession(id), "look up alpha and beta") }()
	select {
	case <-rs.arrived:
	case out := <-done:
		t.Fatalf("the run ended before its third request: %+v; refusals %q", out, rs.Refusals())
	}
	dead.Store(true) // the process dies: nothing more is written
	cancel()
	<-done
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	rp, err := journal.Load(journal.Path(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	if rp.AtRest || rp.Session.ID != id {
		t.Fatalf("the journal's session %q is at rest: %v", rp.Session.ID, rp.AtRest)
	}
	b := &runtime.Agent{Model: newResponsesModel(t, rs.BaseURL()), Catalog: cat}
	out := b.Resume(wiretest.Context(t), rp.Session, rp.Interrupted)
	if out.Status != runtime.StatusSucceeded || out.Summary != "alpha and beta found" {
		t.Fatalf("the resumed run: %+v; refusals %q", out, rs.Refusals())
	}
	bodies := rs.Bodies()
	if len(bodies) != 4 {
		t.Fatalf("%d requests, want 4", len(bodies))
	}
	if !bytes.Equal(bodies[2], bodies[3]) {
		t.Errorf("the resumed request differs from the one the killed session sent:\n%s\nwant\n%s", bodies[3], bodies[2])
	}
	// The server escaped "<&>" in the item, and the item goes back with
	// the bytes it came with.
	if !bytes.Contains(bodies[3], []byte(`"encrypted_content":"gAAAAB1+/x==\u003c\u0026\u003e"`)) {
		t.Errorf("the first reasoning item did not go back as it came:\n%s", bodies[3])
	}
}
