package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// lastRequest wraps a model and keeps the last request it was sent.
type lastRequest struct {
	model.Model
	mu  sync.Mutex // guards req
	req model.Request
}

func (l *lastRequest) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	l.mu.Lock()
	l.req = req
	l.mu.Unlock()
	return l.Model.Reply(ctx, req, onDelta)
}

// compactingScenario echoes a long text for n turns and finishes.
func compactingScenario(n int) *model.Scenario {
	var steps []model.Step
	for i := range n {
		steps = append(steps, model.Step{Calls: []model.ScriptedCall{call("echo", fmt.Sprintf(`{"text":"%d %s"}`, i, strings.Repeat("text ", 300)))}})
	}
	steps = append(steps, model.Step{Calls: []model.ScriptedCall{call("finish", `{"summary":"done"}`)}})
	return &model.Scenario{Name: "c", Steps: steps}
}

// TestJournalRebuildsACompactedConversation runs a session that compacts
// several times and checks that the journal rebuilds the conversation the
// model last saw, exactly; and that a compaction whose result was never
// recorded (the process died while the summary was being written) leaves
// the conversation as it was before it.
func TestJournalRebuildsACompactedConversation(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, header("c1"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	var compactions int
	a := &runtime.Agent{Model: model.NewScripted("c", compactingScenario(14)), Catalog: cat,
		Context: runtime.ContextPolicy{Window: 3000, AutoCompact: runtime.DefaultAutoCompact},
		Sink: func(e runtime.Event) {
			if _, ok := e.(runtime.Compacted); ok {
				compactions++
			}
			w.Event(e)
		}}
	s := runtime.NewSession("c1")
	if out := a.Run(context.Background(), s, "echo at length"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("run: %+v", out)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if compactions < 2 {
		t.Fatalf("%d compactions; the test needs several", compactions)
	}
	rp, err := Load(Path(dir, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rp.Session.Messages, s.Messages) {
		t.Fatalf("the rebuilt conversation differs from the session's:\nrebuilt %d messages, session %d", len(rp.Session.Messages), len(s.Messages))
	}
	if rp.Session.Turns() != s.Turns() {
		t.Errorf("turns %d, want %d", rp.Session.Turns(), s.Turns())
	}

	// Cut the journal just after the last compaction's intent: the
	// rebuilt conversation is the one before it.
	data, _ := os.ReadFile(Path(dir, "c1"))
	lines := strings.SplitAfter(string(data), "\n")
	lastIntent, lastResult := -1, -1
	for i, l := range lines {
		switch {
		case strings.Contains(l, `"type":"compaction_started"`):
			lastIntent = i
		case strings.Contains(l, `"type":"compacted"`):
			lastResult = i
		}
	}
	cut := strings.Join(lines[:lastIntent+1], "")
	os.WriteFile(Path(dir, "c1"), []byte(cut), 0o600)
	before, err := Load(Path(dir, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	withResult := strings.Join(lines[:lastResult+1], "")
	os.WriteFile(Path(dir, "c1"), []byte(withResult), 0o600)
	after, err := Load(Path(dir, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	var ev runtime.Compacted
	json.Unmarshal([]byte(lines[lastResult]), &ev)
	bm := before.Session.Messages
	if len(bm) < ev.To {
		t.Fatalf("before the result: %d messages, fewer than the %d the compaction replaced", len(bm), ev.To)
	}
	want := append(append([]model.Message{bm[0]}, model.Message{Role: model.RoleUser, Text: ev.Text, Summarizes: ev.Summarizes}), bm[ev.To:]...)
	if !reflect.DeepEqual(after.Session.Messages, want) {
		t.Fatalf("after the result, the conversation is not the old one with the summary in place:\n%+v", after.Session.Messages)
	}
	if before.Session.Turns() != after.Session.Turns() {
		t.Errorf("the turn count changed across the compaction: %d and %d", before.Session.Turns(), after.Session.Turns())
	}
}

// TestResumeAfterACompactionSendsWhatTheModelLastSaw resumes a session that
// stopped right after a compaction: its next request carries the compacted
// conversation.
func TestResumeAfterACompactionSendsWhatTheModelLastSaw(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, header("c2"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := runtime.NewCatalog(echoTool{})
	policy := runtime.ContextPolicy{Window: 3000, AutoCompact: runtime.DefaultAutoCompact}
	full := &lastRequest{Model: model.NewScripted("c", compactingScenario(14))}
	ctx, stop := context.WithCancel(context.Background())
	a := &runtime.Agent{Model: full, Catalog: cat, Context: policy, Sink: func(e runtime.Event) {
		w.Event(e)
		if _, ok := e.(runtime.Compacted); ok {
			stop() // the process dies once the compaction is recorded
		}
	}}
	a.Run(ctx, runtime.NewSession("c2"), "echo at length")
	w.Close()
	rp, err := Load(Path(dir, "c2"))
	if err != nil {
		t.Fatal(err)
	}
	resumed := &lastRequest{Model: model.NewScripted("c", compactingScenario(14))}
	b := &runtime.Agent{Model: resumed, Catalog: cat, Context: policy}
	b.Resume(context.Background(), rp.Session, rp.Interrupted)
	if len(resumed.req.Messages) < 2 || resumed.req.Messages[1].Summarizes == 0 {
		t.Fatalf("the resumed request does not start from the compacted conversation: %+v", resumed.req.Messages[:2])
	}
}

// BenchmarkResumeWithCompactions loads a session journal of about 10,000
// events holding ten compactions.
func BenchmarkResumeWithCompactions(b *testing.B) {
	dir := b.TempDir()
	w, err := Create(dir, header("bc"), redact.FromEnv())
	if err != nil {
		b.Fatal(err)
	}
	at := runtime.Time{Time: time.Now()}
	w.Event(runtime.RunStarted{Session: "bc", Goal: "g", Input: "g", Model: "m", Mode: "auto", At: at})
	result := strings.Repeat("     1\tpackage main\n", 20)
	messages := 1
	for turn := 1; turn <= 1000; turn++ {
		if turn%100 == 0 {
			w.Event(runtime.CompactionStarted{Turn: turn, Reason: "auto", At: at})
			w.Event(runtime.Compacted{Turn: turn, Reason: "auto", From: 1, To: messages, Text: strings.Repeat("summary ", 200), Summarizes: turn - 1, At: at})
			messages = 2
		}
		w.Event(runtime.TurnStarted{Turn: turn, At: at})
		reads := tool.Reads(tool.Paths("/ws/a.go"))
		var calls []runtime.PlannedCall
		for i := range 2 {
			calls = append(calls, runtime.PlannedCall{Index: i, ID: fmt.Sprintf("c%d_%d", turn, i), Name: "read_file",
				Args: json.RawMessage(`{"path":"a.go"}`), Touches: &reads, WaitsFor: []int{}, Batch: 1})
		}
		w.Event(runtime.ReplyReceived{Turn: turn, Text: "Reading.", Calls: calls, Stop: "tool_calls"})
		for i := range 2 {
			w.Event(runtime.CallStarted{Turn: turn, Index: i, Name: "read_file", Attempt: 1, Key: "k", At: at})
			w.Event(runtime.CallFinished{Turn: turn, Index: i, Name: "read_file", Key: "k", Outcome: "success",
				Result: result, Started: true, Attempts: 1, At: at, Full: tool.Succeeded()})
		}
		w.Event(runtime.TurnEnded{Turn: turn})
		messages += 2
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	path := Path(dir, "bc")
	b.ResetTimer()
	for b.Loop() {
		rp, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if rp.Session.Turns() != 1000 || len(rp.Warnings) > 0 {
			b.Fatalf("turns %d, warnings %v", rp.Session.Turns(), rp.Warnings)
		}
	}
}
