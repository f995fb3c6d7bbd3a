package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressClient returns client options that pass every progress
// notification to the returned channel.
func progressClient(opts *mcp.ClientOptions) (*mcp.ClientOptions, <-chan *mcp.ProgressNotificationParams) {
	ch := make(chan *mcp.ProgressNotificationParams, 1024)
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.ProgressNotificationHandler = func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
		ch <- req.Params
	}
	return opts, ch
}

// progressUntil collects the progress notifications for token until one
// says last, checking that their progress goes up by one each time.
func progressUntil(t *testing.T, ch <-chan *mcp.ProgressNotificationParams, token any, last string) []string {
	t.Helper()
	var msgs []string
	for {
		p := wait(t, ch, "progress saying "+last+"; so far "+strings.Join(msgs, " | "))
		if p.ProgressToken != token {
			t.Fatalf("progress for token %v, want %v", p.ProgressToken, token)
		}
		if p.Progress != float64(len(msgs)+1) || p.Total != 0 {
			t.Errorf("progress %v of %v after %d messages", p.Progress, p.Total, len(msgs))
		}
		msgs = append(msgs, p.Message)
		if p.Message == last {
			return msgs
		}
	}
}

// TestProgressFollowsTheRun checks that a call with a progress token hears
// of each model turn and each call's steps.
func TestProgressFollowsTheRun(t *testing.T) {
	srv, _ := newServer(t)
	opts, ch := progressClient(nil)
	cs := connect(t, srv, opts, nil)
	params := &mcp.CallToolParams{Name: "run_goal", Arguments: map[string]any{"goal": "read a"}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("run_goal = %v, %v", res, err)
	}
	got := progressUntil(t, ch, "tok", "turn 2: finish a.txt says alpha. succeeded")
	want := []string{
		"turn 1: asking the model",
		"turn 1: read_file a.txt running",
		"turn 1: read_file a.txt succeeded",
		"turn 2: asking the model",
		"turn 2: finish a.txt says alpha. running",
		"turn 2: finish a.txt says alpha. succeeded",
	}
	if !slices.Equal(got, want) {
		t.Errorf("progress:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A call without a token hears nothing.
	if res := call(t, cs, "run_goal", map[string]any{"goal": "read a"}); res.IsError {
		t.Fatal(texts(t, res))
	}
	select {
	case p := <-ch:
		t.Errorf("progress without a token: %+v", p)
	default:
	}
}

// TestProgressSaysApprovalsAndSkips checks the messages of calls that ask
// and are skipped.
func TestProgressSaysApprovalsAndSkips(t *testing.T) {
	srv, _ := newServer(t)
	var asked atomic.Int32
	opts, ch := progressClient(elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		if asked.Add(1) > 2 {
			// An approval that did not hold asks again; end it.
			return accept(map[string]any{"decision": "skip", "reason": "asked again"}), nil
		}
		if strings.Contains(message, "a.txt") {
			return accept(map[string]any{"decision": "approve"}), nil
		}
		return accept(map[string]any{"decision": "skip", "reason": "b.txt is generated; leave it alone"}), nil
	}))
	cs := connect(t, srv, opts, nil)
	params := &mcp.CallToolParams{Name: "run_goal", Arguments: map[string]any{"goal": "write both"}}
	params.SetProgressToken(7)
	if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
		t.Fatalf("run_goal = %v, %v", res, err)
	}
	got := progressUntil(t, ch, float64(7), "turn 2: finish Changed a.txt only. succeeded")
	for _, want := range []string{
		"turn 1: write_file a.txt needs approval",
		"turn 1: write_file b.txt needs approval",
		"turn 1: write_file a.txt running",
		"turn 1: write_file a.txt succeeded",
		"turn 1: write_file b.txt skipped",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no progress %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
}

// TestProgressMessages checks the messages made of events: a task's are
// prefixed with its path, failures name their kind, and calls are named by
// their tool and a short form of their arguments.
func TestProgressMessages(t *testing.T) {
	p := newProgress()
	kind := "timeout"
	long := strings.Repeat("x", 100)
	events := []runtime.Event{
		runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{
			{Index: 0, Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)},
			{Index: 1, Name: "run_shell", Args: json.RawMessage(`{"timeout_s":5,"command":"go test\n./..."}`)},
			{Index: 2, Name: "grep", Args: json.RawMessage(`{"pattern":"` + long + `","path":""}`)},
			{Index: 3, Name: "list_dir", Args: json.RawMessage(`{}`)},
		}},
		runtime.Tag("2.1", runtime.TurnStarted{Turn: 1}),
		runtime.Tag("2.1", runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{{Index: 0, Name: "edit_file", Args: json.RawMessage(`{"path":"pager.go","old":"a","new":"b"}`)}}}),
		runtime.Tag("2.1", runtime.CallDecision{Turn: 1, Index: 0, Decision: runtime.DecisionAsk}),
		runtime.CallStarted{Turn: 2, Index: 1, Name: "run_shell", Attempt: 2},
		runtime.CallFinished{Turn: 2, Index: 1, Name: "run_shell", Outcome: "error", Kind: &kind, Code: "timeout:5s"},
		runtime.CallFinished{Turn: 2, Index: 0, Name: "read_file", Outcome: "error", NotFinished: true},
		runtime.CallFinished{Turn: 2, Index: 2, Name: "grep", Outcome: "denied"},
		runtime.CallFinished{Turn: 2, Index: 3, Name: "list_dir", Outcome: "success"},
		runtime.CallFinished{Turn: 9, Index: 0, Name: "glob", Outcome: "skipped"},
		runtime.CallDecision{Turn: 2, Index: 0, Decision: runtime.DecisionRun},
		runtime.TextDelta{Turn: 2, Text: "hello"},
	}
	for _, e := range events {
		p.hear(e)
	}
	var got []string
	go p.send(func(n int, msg string) { got = append(got, msg) })
	p.stop()
	want := []string{
		"task 2.1: turn 1: asking the model",
		"task 2.1: turn 1: edit_file pager.go needs approval",
		"turn 2: run_shell go test ./... running (attempt 2)",
		"turn 2: run_shell go test ./... failed (timed out after 5s)",
		"turn 2: read_file a.txt not finished",
		"turn 2: grep " + strings.Repeat("x", shortArgsRunes-1) + "… denied",
		"turn 2: list_dir succeeded",
		"turn 9: glob skipped",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Once stopped, events are not heard.
	p.hear(runtime.TurnStarted{Turn: 3})
}
