package journal

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// countingEcho is echoTool that counts how often its body ran.
type countingEcho struct {
	echoTool
	runs *atomic.Int32
}

func (c countingEcho) Call(ctx context.Context, args json.RawMessage) tool.Return {
	c.runs.Add(1)
	return c.echoTool.Call(ctx, args)
}

// A disk that fills up after the model's first reply was recorded: the
// intents of that reply's calls cannot be written, so none of them may run,
// and the run must end failed saying so instead of going on unrecorded.
func TestAFullDiskStopsEffects(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("this system has no /dev/full to fill the disk with: %v", err)
	}
	defer full.Close()

	dir := t.TempDir()
	w, err := Create(dir, header("s9"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	cat, err := runtime.NewCatalog(countingEcho{runs: &runs})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, nil)
	a.Catalog = cat
	a.Sink = func(e runtime.Event) {
		w.Event(e)
		if _, ok := e.(runtime.ReplyReceived); ok {
			// The disk fills up once the reply is on it.
			w.mu.Lock()
			w.f, w.buf = full, bufio.NewWriterSize(full, 64<<10)
			w.mu.Unlock()
		}
	}
	a.Durable = w.Err

	out := a.Run(context.Background(), runtime.NewSession("s9"), "echo things")
	if out.Status != runtime.StatusFailed || !strings.Contains(strings.Join(out.Attempts, "\n"), syscall.ENOSPC.Error()) {
		t.Fatalf("outcome %+v, want failed naming the full disk", out)
	}
	if n := runs.Load(); n != 0 {
		t.Errorf("%d calls ran without a recorded intent", n)
	}
	if w.Err() == nil {
		t.Error("the writer did not report the full disk")
	}
	// What reached the disk is an honest record: the reply, and no call of
	// it started, so a resume reports them as not run.
	rp, err := Load(Path(dir, "s9"))
	if err != nil {
		t.Fatal(err)
	}
	if rp.Interrupted == nil || len(rp.Interrupted.Calls) != 2 {
		t.Fatalf("interrupted reply %+v, want the first reply's two calls", rp.Interrupted)
	}
	for i, c := range rp.Interrupted.Calls {
		if c.Started || c.Finished != nil {
			t.Errorf("call %d is recorded as %+v, want never started", i, c)
		}
	}
}
