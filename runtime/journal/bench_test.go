package journal

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// writeSyntheticJournal records a session of about n events: turns of four
// calls each, with realistic results.
func writeSyntheticJournal(b *testing.B, dir string, n int) string {
	w, err := Create(dir, header("bench"), redact.FromEnv())
	if err != nil {
		b.Fatal(err)
	}
	at := runtime.Time{Time: time.Now()}
	w.Event(runtime.RunStarted{Session: "bench", Goal: "g", Input: "g", Model: "m", Mode: "auto", At: at})
	events := 1
	result := "     1\tpackage main\n     2\t\n     3\tfunc main() {}\n"
	for turn := 1; events < n; turn++ {
		w.Event(runtime.TurnStarted{Turn: turn, At: at})
		reads := tool.Reads(tool.Paths("/ws/a.go"))
		var calls []runtime.PlannedCall
		for i := range 4 {
			calls = append(calls, runtime.PlannedCall{Index: i, ID: fmt.Sprintf("c%d_%d", turn, i), Name: "read_file",
				Args: json.RawMessage(`{"path":"a.go"}`), Touches: &reads, WaitsFor: []int{}, Batch: 1})
		}
		w.Event(runtime.UsageReported{Turn: turn, Usage: model.Usage{InputTokens: 100, OutputTokens: 20}})
		w.Event(runtime.ReplyReceived{Turn: turn, Text: "Reading.", Calls: calls, Stop: "tool_calls"})
		events += 3
		for i := range 4 {
			w.Event(runtime.CallDecision{Turn: turn, Index: i, Decision: "run", By: "mode:auto"})
			w.Event(runtime.CallStarted{Turn: turn, Index: i, Name: "read_file", Attempt: 1, Key: "k", At: at})
			w.Event(runtime.CallFinished{Turn: turn, Index: i, Name: "read_file", Key: "k", Outcome: "success",
				Result: result, Started: true, Attempts: 1, At: at, Full: tool.Succeeded()})
			events += 3
		}
		w.Event(runtime.TurnEnded{Turn: turn})
		events++
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return Path(dir, "bench")
}

// BenchmarkResume10000 measures loading and rebuilding a session journal of
// 10,000 events, the work a resume does before the model is asked again.
func BenchmarkResume10000(b *testing.B) {
	path := writeSyntheticJournal(b, b.TempDir(), 10000)
	b.ResetTimer()
	for b.Loop() {
		rp, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(rp.Events) < 10000 {
			b.Fatalf("%d events", len(rp.Events))
		}
	}
}

// BenchmarkSyncedEffect measures recording an effect's intent: one line
// written and synced to disk before the effect may be performed.
func BenchmarkSyncedEffect(b *testing.B) {
	w, err := Create(b.TempDir(), header("sync"), redact.FromEnv())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	ev := runtime.CallStarted{Turn: 1, Index: 0, Name: "write_file", Attempt: 1, Key: "0123456789abcdef01234567", At: runtime.Time{Time: time.Now()}}
	for b.Loop() {
		w.Event(ev)
	}
}

// BenchmarkUnsyncedEvent is the same line without the sync, for comparison.
func BenchmarkUnsyncedEvent(b *testing.B) {
	w, err := Create(b.TempDir(), header("nosync"), redact.FromEnv())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	ev := runtime.CallDecision{Turn: 1, Index: 0, Decision: "run", By: "mode:auto", Reason: "auto mode runs every call"}
	for b.Loop() {
		w.Event(ev)
	}
}
