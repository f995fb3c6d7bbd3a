package printer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// A run printed for a person: the session line once, each reply with its
// calls and footprints relative to the workspace, each result cut short,
// and nothing from the model or a tool reaching the terminal raw.
func TestProgressPrintsARunSafely(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, "/w")
	p.SetSession("/w", "shell: sandboxed (workspace-write, no network)", "")
	writes := tool.Writes(tool.Paths("/w/a.txt"))
	other := "other"
	for _, e := range []runtime.Event{
		runtime.RunStarted{Session: "s1", Goal: "go", Input: "go", Model: "demo", Mode: "reads"},
		runtime.ReplyReceived{Turn: 1, Text: "Writing \x1b[2Ja.", Calls: []runtime.PlannedCall{
			{Index: 0, Name: "write_file", Args: json.RawMessage(`{"path":"a.txt"}`), Touches: &writes, Batch: 1}}},
		runtime.CallFinished{Turn: 1, Index: 0, Name: "write_file", Outcome: "success", Result: "Created a.txt\x07", DurationMS: 3},
		runtime.CallFinished{Turn: 1, Index: 1, Name: "run_shell", Outcome: "error", Kind: &other, Code: tool.ExitCode(3),
			Result: "exit status: 3", DurationMS: 9},
		runtime.Notice{Level: "warning", Text: "careful"},
	} {
		p.Event(e)
	}
	got := b.String()
	for _, want := range []string{
		"agenttui: session s1 · model demo · mode reads · workspace /w\nagenttui: shell: sandboxed (workspace-write, no network)\n› go\n",
		"turn 1 · Writing",
		`  #1 write_file {"path":"a.txt"}  [writes a.txt] batch 1`,
		"  #1 write_file → success (3 ms): Created a.txt",
		"  #2 run_shell → error: exit 3 (9 ms): exit status: 3",
		"warning: careful",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the printout lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("a control character reached the printout: %q", got)
	}
}

// The JSON stream is one event per line, flushed as it comes.
func TestJSONWritesOneEventPerLine(t *testing.T) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	sink := JSON(w)
	sink(runtime.TurnStarted{Turn: 1})
	if got := b.String(); !strings.HasPrefix(got, `{"type":"turn_started","turn":1`) || !strings.HasSuffix(got, "}\n") {
		t.Fatalf("got %q", got)
	}
}

// The outcome for a person: the summary with its data, the failure report,
// or the question with how to answer it.
func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		o    runtime.GoalOutcome
		want string
	}{
		{runtime.Succeeded("done", json.RawMessage(`{"n":1}`)), "Succeeded: done\nExtracted data:\n{\n  \"n\": 1\n}\n"},
		{runtime.Failed("goal", "turn 2: model reply", []string{"boom"}), "Failed: goal\nFailing step: turn 2: model reply\n  - boom\n"},
		{runtime.Refused("which one?"), "The agent asks: which one?\n(answer it with --answer \"…\")\n"},
	} {
		var b bytes.Buffer
		Outcome(&b, c.o)
		if b.String() != c.want {
			t.Errorf("got %q, want %q", b.String(), c.want)
		}
	}
}

// A task's run prints inside its parent's, each line indented and marked
// with the call that runs it, and its run_finished is its own outcome line,
// never the session's.
func TestProgressIndentsTasks(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, "/w")
	reads := tool.Reads(tool.Paths("/w/a.txt"))
	task := func(e runtime.Event) runtime.Event { return runtime.Tag("1.1", e) }
	for _, e := range []runtime.Event{
		runtime.RunStarted{Session: "s1", Goal: "go", Input: "go", Model: "demo", Mode: "auto"},
		task(runtime.RunStarted{Session: "s1/1.1", Goal: "survey", Input: "survey \x1b[31mred", Model: "demo"}),
		task(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
			{Index: 0, Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`), Touches: &reads, Batch: 1}}}),
		task(runtime.CallFinished{Turn: 1, Index: 0, Name: "read_file", Outcome: "success", Result: "hello", DurationMS: 1}),
		task(runtime.RunFinished{Outcome: runtime.Succeeded("found it", nil)}),
	} {
		p.Event(e)
	}
	got := b.String()
	for _, want := range []string{
		"  task #2 │ › survey ",
		"  task #2 │ turn 1\n",
		"  task #2 │   #1 read_file {\"path\":\"a.txt\"}  [reads a.txt] batch 1\n",
		"  task #2 │   #1 read_file → success (1 ms): hello\n",
		"  task #2 │ succeeded: found it\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the printout lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "agenttui: session") != 1 || strings.Contains(got, "\x1b") {
		t.Errorf("a task printed a session line or raw escapes:\n%q", got)
	}
}
