package journal

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// A session killed while a task ran: the parent's conversation is rebuilt
// without the task's, and the interrupted task call carries what the task
// had finished, for the model to read.
func TestJournalOfAnInterruptedTask(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, header("s1"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	at := runtime.Time{Time: time.Unix(100, 0)}
	writes := tool.Writes(tool.Paths("/ws/docs"))
	task := func(e runtime.Event) runtime.Event { return runtime.Tag("1.0", e) }
	for _, e := range []runtime.Event{
		runtime.RunStarted{Session: "s1", Goal: "g", Input: "g", At: at},
		runtime.TurnStarted{Turn: 1, At: at},
		runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
			{Index: 0, ID: "c0", Name: runtime.Task, Args: json.RawMessage(`{"description":"d","prompt":"p","agent":"general","writes":["docs"]}`), Touches: &writes, WaitsFor: []int{}, Batch: 1},
			{Index: 1, ID: "c1", Name: runtime.Task, Args: json.RawMessage(`{"description":"e","prompt":"q"}`), WaitsFor: []int{}, Batch: 1},
		}},
		runtime.CallStarted{Turn: 1, Index: 0, Name: runtime.Task, Attempt: 1, At: at},
		runtime.CallStarted{Turn: 1, Index: 1, Name: runtime.Task, Attempt: 1, At: at},
		task(runtime.RunStarted{Session: "s1/1.0", Goal: "p", Input: "p", At: at}),
		task(runtime.TurnStarted{Turn: 1, At: at}),
		task(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
			{Index: 0, ID: "t0", Name: "write_file", Args: json.RawMessage(`{"path":"docs/a.md"}`), WaitsFor: []int{}, Batch: 1},
			{Index: 1, ID: "t1", Name: "write_file", Args: json.RawMessage(`{"path":"docs/b.md"}`), WaitsFor: []int{}, Batch: 1},
		}}),
		task(runtime.CallStarted{Turn: 1, Index: 0, Name: "write_file", Attempt: 1, At: at}),
		task(runtime.CallFinished{Turn: 1, Index: 0, Name: "write_file", Outcome: "success", Result: "wrote", Started: true, At: at, Full: tool.Succeeded()}),
		task(runtime.CallStarted{Turn: 1, Index: 1, Name: "write_file", Attempt: 1, At: at}),
	} {
		w.Event(e)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rp, err := Load(Path(dir, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rp.Session.Messages); n != 2 {
		t.Fatalf("the conversation has %d messages, want the goal and the parent's reply: %+v", n, rp.Session.Messages)
	}
	if rp.Interrupted == nil || len(rp.Interrupted.Calls) != 2 {
		t.Fatalf("interrupted %+v", rp.Interrupted)
	}
	first, second := rp.Interrupted.Calls[0], rp.Interrupted.Calls[1]
	if !first.Started || first.Finished != nil {
		t.Fatalf("first task %+v", first)
	}
	if want := "Before it stopped, the task had finished 1 call:\n- write_file {\"path\":\"docs/a.md\"}: success"; first.Partial != want {
		t.Errorf("first task's partial:\n%s\nwant:\n%s", first.Partial, want)
	}
	if want := "Before it stopped, the task had finished no call."; second.Partial != want {
		t.Errorf("second task's partial: %q, want %q", second.Partial, want)
	}
	// Tagged lines keep their task in the file.
	var tagged int
	for _, e := range rp.Events {
		if te, ok := e.(runtime.TaskEvent); ok && strings.Join(te.Task, "/") == "1.0" {
			tagged++
		}
	}
	if tagged != 6 {
		t.Errorf("%d tagged events read back, want 6", tagged)
	}
}
