package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
)

// failingRecord is a Durable check that starts failing once the run has
// published a given number of call intents, as a journal does when the disk
// fills up in the middle of a reply.
type failingRecord struct {
	mu      sync.Mutex // guards starts
	starts  int
	failAt  int
	rec     *recorder
	failure error
}

func (f *failingRecord) sink(e Event) {
	if _, ok := e.(CallStarted); ok {
		f.mu.Lock()
		f.starts++
		f.mu.Unlock()
	}
	f.rec.sink(e)
}

func (f *failingRecord) durable() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.starts >= f.failAt {
		return f.failure
	}
	return nil
}

func TestNothingRunsOnceTheRecordFails(t *testing.T) {
	write := pathTool("write", true, okBody("written"))
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{
			call("write", `{"path":"a"}`), call("write", `{"path":"b"}`),
			call("write", `{"path":"c"}`), call("write", `{"path":"d"}`),
		}},
		finishStep("must not be reached"),
	)
	rec := newRecorder()
	record := &failingRecord{failAt: 2, rec: rec, failure: errors.New("no space left on device")}
	a := newAgent(t, m, nil, write)
	a.Sink = record.sink
	a.Durable = record.durable
	a.MaxParallel = 1
	// The last call waits for a person who never answers: once the record
	// fails its approval must be withdrawn, or the run would hang.
	a.Hooks = []Hook{HookFunc(func(_ context.Context, info CallInfo) Flow {
		if info.Index == 3 {
			return Ask("test", "needs a person", func(ctx context.Context, _ AskRequest) Flow {
				<-ctx.Done()
				return Skip("test", "withdrawn")
			})
		}
		return Continue("test", "")
	})}

	s := NewSession("s")
	out := awaitOutcome(t, runAsync(context.Background(), a, s, "go"))
	if out.Status != StatusFailed || !strings.Contains(strings.Join(out.Attempts, "\n"), "no space left on device") {
		t.Fatalf("outcome %+v, want failed naming the record's error", out)
	}
	if out.FailingStep != "turn 1: the reply's calls" {
		t.Errorf("failing step %q", out.FailingStep)
	}
	if write.count() != 1 {
		t.Errorf("%d writes ran, want 1: none may run after its intent failed to be recorded", write.count())
	}
	res := resultsOf(t, s, 1)
	if res[0].Content != "written" {
		t.Errorf("the write recorded before the failure reads %q", res[0].Content)
	}
	for i := 1; i < 4; i++ {
		if !strings.Contains(res[i].Content, "was not run: the session record cannot be written") {
			t.Errorf("call %d reads %q", i, res[i].Content)
		}
	}
	events := rec.snapshot()
	if f, _ := finishedOf(events, 1); !f.NotFinished || f.Started {
		t.Errorf("the call whose intent failed is reported as %+v, want not finished and not started", f)
	}
	for _, e := range events {
		if ts, ok := e.(TurnStarted); ok && ts.Turn > 1 {
			t.Errorf("the model was asked again after the record failed")
		}
	}
}

func TestNoModelRequestWithoutARecord(t *testing.T) {
	m := script(t, finishStep("must not be reached"))
	a := newAgent(t, m, nil)
	a.Durable = func() error { return errors.New("read-only file system") }
	out := a.Run(context.Background(), NewSession("s"), "go")
	if out.Status != StatusFailed || !strings.Contains(strings.Join(out.Attempts, "\n"), "read-only file system") {
		t.Fatalf("outcome %+v", out)
	}
}
