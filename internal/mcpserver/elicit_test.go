package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestApprovalsAreElicited checks approvals through the client's user: one
// write approved, bound to the preview shown, and one skipped with a reason
// the model reads (the scenario expects it, and fails otherwise); each
// request shows the call's diff.
func TestApprovalsAreElicited(t *testing.T) {
	srv, l := newServer(t)
	var mu sync.Mutex // guards messages
	var messages []string
	cs := connect(t, srv, elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		mu.Lock()
		messages = append(messages, message)
		n := len(messages)
		mu.Unlock()
		switch {
		case n > 2:
			// An approval not bound to what it showed asks again; the
			// test ends that rather than approve for ever.
			return accept(map[string]any{"decision": "skip", "reason": "asked again"}), nil
		case strings.Contains(message, "Change to a.txt"):
			return accept(map[string]any{"decision": "approve"}), nil
		case strings.Contains(message, "Change to b.txt"):
			return accept(map[string]any{"decision": "skip", "reason": "b.txt is generated; leave it alone"}), nil
		}
		return nil, fmt.Errorf("unexpected request: %s", message)
	}), nil)
	res := call(t, cs, "run_goal", map[string]any{"goal": "write both"})
	if o := outcomeOf(t, res); o.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome = %+v", o)
	}
	id := sessionOf(t, res)
	ws := l.session(id).Workspace()
	if got := readFile(t, filepath.Join(ws, "a.txt")); got != "ALPHA\n" {
		t.Errorf("a.txt = %q: the approved write did not run", got)
	}
	if got := readFile(t, filepath.Join(ws, "b.txt")); got != "beta\n" {
		t.Errorf("b.txt = %q: the skipped write ran", got)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(messages) != 2 {
		t.Fatalf("%d approvals were asked, want 2 (an approval not bound to its preview asks again):\n%s",
			len(messages), strings.Join(messages, "\n---\n"))
	}
	for _, m := range messages {
		if strings.Contains(m, "Change to a.txt") {
			contains(t, "a.txt's approval", m, "agenttui asks to run write_file (turn 1, call 1)", "Why it asks: mode:reads",
				"Footprint: writes "+filepath.Join(ws, "a.txt"), `"content": "ALPHA\n"`,
				"--- a/a.txt\n+++ b/a.txt\n", "-alpha\n+ALPHA")
		}
	}

	// The approval carries the digest of the preview it was shown, as
	// the console's key press does; the skip carries the reason.
	previews := map[int]string{}
	decided := 0
	for _, e := range l.session(id).events.all() {
		switch e := e.(type) {
		case runtime.CallPreviewed:
			previews[e.Index] = e.Digest
		case runtime.CallDecision:
			if e.By != "user" {
				continue
			}
			decided++
			switch e.Index {
			case 0:
				if e.Decision != runtime.DecisionRun || e.Digest == "" || e.Digest != previews[0] {
					t.Errorf("a.txt's decision = %+v, want run bound to digest %q", e, previews[0])
				}
			case 1:
				if e.Decision != runtime.DecisionSkip || !strings.Contains(e.Reason, "b.txt is generated; leave it alone") {
					t.Errorf("b.txt's decision = %+v", e)
				}
			}
		}
	}
	if decided != 2 {
		t.Errorf("%d decisions by the user, want 2", decided)
	}
}

// TestAQuestionIsElicited checks that a refused run's question goes to the
// client's user, and their answer carries the run on to its end.
func TestAQuestionIsElicited(t *testing.T) {
	srv, _ := newServer(t)
	asked := make(chan string, 1)
	cs := connect(t, srv, elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		asked <- message
		return accept(map[string]any{"answer": "b.txt"}), nil
	}), nil)
	res := call(t, cs, "run_goal", map[string]any{"goal": "ask"})
	if o := outcomeOf(t, res); o.Status != runtime.StatusSucceeded || o.Summary != "I will change b.txt." {
		t.Fatalf("outcome = %+v", o)
	}
	if got := wait(t, asked, "the question"); got != "The agent asks: Which file should I change?" {
		t.Errorf("question = %q", got)
	}
}

// TestADeclinedQuestionComesBackRefused checks that a question the user
// declines comes back as the refused outcome.
func TestADeclinedQuestionComesBackRefused(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}), nil)
	res := call(t, cs, "run_goal", map[string]any{"goal": "ask"})
	if o := outcomeOf(t, res); o.Status != runtime.StatusRefused || texts(t, res)[0] != "Which file should I change?" {
		t.Fatalf("outcome = %+v, text %q", o, texts(t, res))
	}
}

// TestCancellingStopsTheRun checks that a client that cancels its call
// stops the run as Esc does: the session's outcome says it failed because
// the request was cancelled, the write never ran, and the session can be
// continued afterwards.
func TestCancellingStopsTheRun(t *testing.T) {
	srv, l := newServer(t)
	asked := make(chan struct{}, 1)
	withdrawn := make(chan struct{}, 1)
	cs := connect(t, srv, elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		<-ctx.Done()
		withdrawn <- struct{}{}
		return nil, ctx.Err()
	}), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_goal", Arguments: map[string]any{"goal": "write one"}})
		done <- err
	}()
	wait(t, asked, "the approval")
	list := listSessions(t, cs)
	if len(list.Sessions) != 1 || list.Sessions[0].State != "running" || string(list.Sessions[0].Outcome) != "null" {
		t.Fatalf("while it runs, list_sessions = %+v", list)
	}
	id := list.Sessions[0].Session
	res := call(t, cs, "continue_session", map[string]any{"session": id, "input": "hurry"})
	if want := "session " + id + " is running; its result comes back to the call that started it"; !res.IsError || texts(t, res)[0] != want {
		t.Errorf("continuing a running session = %q, want %q", texts(t, res), want)
	}

	cancel()
	if err := wait(t, done, "the cancelled call"); err == nil {
		t.Error("the cancelled call returned no error")
	}
	wait(t, srv.idleOf(id), "the run to stop")
	wait(t, withdrawn, "the approval request to be withdrawn")
	list = listSessions(t, cs)
	var o runtime.GoalOutcome
	if err := o.UnmarshalJSON(list.Sessions[0].Outcome); err != nil {
		t.Fatalf("outcome %s: %v", list.Sessions[0].Outcome, err)
	}
	if list.Sessions[0].State != "idle" || o.Status != runtime.StatusFailed ||
		!strings.Contains(strings.Join(o.Attempts, "\n"), "stopped: the MCP client cancelled the request") {
		t.Errorf("after the cancel, the session is %s with %+v", list.Sessions[0].State, o)
	}
	if got := readFile(t, filepath.Join(l.session(id).Workspace(), "a.txt")); got != "alpha\n" {
		t.Errorf("a.txt = %q: the unapproved write ran", got)
	}
	var finished bool
	for _, e := range l.session(id).events.all() {
		if f, ok := e.(runtime.CallFinished); ok && f.Name == "write_file" {
			finished = true
			if f.Outcome == "success" {
				t.Errorf("the write succeeded: %+v", f)
			}
		}
	}
	if !finished {
		t.Error("the write got no result")
	}
}

// TestCloseStopsRuns checks that closing the server stops a run waiting
// for an approval, returns its outcome to the client, and closes the
// session.
func TestCloseStopsRuns(t *testing.T) {
	srv, l := newServer(t)
	asked := make(chan struct{}, 1)
	cs := connect(t, srv, elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	results := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_goal", Arguments: map[string]any{"goal": "write one"}})
		if err != nil {
			res = toolError(err.Error())
		}
		results <- res
	}()
	wait(t, asked, "the approval")
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	if err := wait(t, closed, "Close to stop the run"); err != nil {
		t.Fatal(err)
	}
	res := wait(t, results, "the result")
	o := outcomeOf(t, res)
	if !res.IsError || o.Status != runtime.StatusFailed || !strings.Contains(strings.Join(o.Attempts, "\n"), "stopped: the MCP server is shutting down") {
		t.Errorf("result = %+v, %q", o, texts(t, res))
	}
	if !l.session(sessionOf(t, res)).closed.Load() {
		t.Error("Close left the session open")
	}
	if res := call(t, cs, "run_goal", map[string]any{"goal": "read a"}); !res.IsError || texts(t, res)[0] != "run_goal: the MCP server is shutting down" {
		t.Errorf("after Close, run_goal = %q", texts(t, res))
	}
}

// TestAnswers checks how each response to an approval request becomes an
// answer: only an accepted approve approves, bound to the preview's digest.
func TestAnswers(t *testing.T) {
	withPreview := approval.Request{Preview: &tool.Preview{Digest: "sha256:abc"}}
	for _, c := range []struct {
		name string
		req  approval.Request
		res  *mcp.ElicitResult
		want approval.Answer
	}{
		{"approve", withPreview, accept(map[string]any{"decision": "approve"}), approval.Answer{Approve: true, Digest: "sha256:abc"}},
		{"approve without preview", approval.Request{}, accept(map[string]any{"decision": "approve"}), approval.Answer{Approve: true}},
		{"skip", withPreview, accept(map[string]any{"decision": "skip", "reason": " not now "}), approval.SkipWith("not now")},
		{"skip without reason", withPreview, accept(map[string]any{"decision": "skip"}), approval.SkipWith("")},
		{"odd decision", withPreview, accept(map[string]any{"decision": "maybe"}), approval.SkipWith(unaskedReason)},
		{"decline", withPreview, &mcp.ElicitResult{Action: "decline"}, approval.SkipWith(declinedReason)},
		{"decline with reason", withPreview, &mcp.ElicitResult{Action: "decline", Content: map[string]any{"reason": "no"}}, approval.SkipWith("no")},
		{"cancel", withPreview, &mcp.ElicitResult{Action: "cancel"}, approval.SkipWith(dismissedReason)},
	} {
		if got := answerOf(c.req, c.res); got != c.want {
			t.Errorf("%s: answer = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestApprovalMessage checks what an approval request shows of a task's
// shell command and of a long diff, which is bounded.
func TestApprovalMessage(t *testing.T) {
	req := approval.Request{
		Turn: 3, Index: 1, Task: []string{"2.0"}, By: "mode:ask", Reason: "every call asks",
		Call: tool.Call{Name: "run_shell"}, Args: []byte(`{"command":"make test"}`),
		Touches: tool.Writes(tool.Anything()),
		Sandbox: &tool.Sandbox{Sandboxed: true, Mode: "workspace-write", Writable: []string{"/w", "/tmp/x"}, Temp: "/tmp/x"},
		Preview: &tool.Preview{Kind: tool.PreviewCommand, Command: "make test\x1b[2J", Dir: "src", TimeoutS: 120},
	}
	got := approvalMessage(req)
	contains(t, "the message", got, "agenttui asks to run run_shell (turn 3, call 2, in task 2.0).", "Why it asks: mode:ask: every call asks",
		"Footprint: writes anything", "Sandbox: workspace-write; it may write only /w, $TMPDIR (/tmp/x); no network",
		"Command: make test␛\n", "In folder: src", "Time limit: 120s", `"command": "make test"`)
	if strings.Contains(got, "\x1b") {
		t.Errorf("the message carries an escape sequence: %q", got)
	}

	var old, neu strings.Builder
	for i := range 500 {
		fmt.Fprintf(&old, "line %d\n", i)
		fmt.Fprintf(&neu, "LINE %d\n", i)
	}
	req = approval.Request{Call: tool.Call{Name: "write_file"}, Args: []byte(`{}`),
		Preview: &tool.Preview{Kind: tool.PreviewFile, Path: "big.txt", Old: old.String(), New: neu.String(), Added: 500, Removed: 500}}
	got = approvalMessage(req)
	contains(t, "the message", got, "--- a/big.txt", "-line 0\n", "more lines", "of the diff left out")
	if strings.Count(got, "\n") > maxDiffLines+20 || len(got) > maxDiffBytes+2048 {
		t.Errorf("the message is not bounded: %d lines, %d bytes", strings.Count(got, "\n"), len(got))
	}
}

// TestAnotherClientContinues checks that the client that continues a
// session answers its approvals, though the one that began it could not,
// and that a session a continue_session call runs cannot be continued by
// another call meanwhile.
func TestAnotherClientContinues(t *testing.T) {
	srv, l := newServer(t)
	headless := connect(t, srv, nil, nil)
	res := call(t, headless, "run_goal", map[string]any{"goal": "ask then write"})
	if o := outcomeOf(t, res); o.Status != runtime.StatusRefused {
		t.Fatalf("outcome = %+v", o)
	}
	id := sessionOf(t, res)

	asked := make(chan struct{}, 1)
	release := make(chan struct{})
	asking := connect(t, srv, elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		select {
		case asked <- struct{}{}:
		default:
			return accept(map[string]any{"decision": "skip", "reason": "asked again"}), nil
		}
		select {
		case <-release:
			return accept(map[string]any{"decision": "approve"}), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}), nil)
	results := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := asking.CallTool(context.Background(), &mcp.CallToolParams{Name: "continue_session", Arguments: map[string]any{"session": id, "input": "a.txt"}})
		if err != nil {
			res = toolError(err.Error())
		}
		results <- res
	}()
	wait(t, asked, "the approval")
	res = call(t, headless, "continue_session", map[string]any{"session": id, "input": "b.txt"})
	if want := "session " + id + " is running; its result comes back to the call that started it"; !res.IsError || texts(t, res)[0] != want {
		t.Errorf("continuing a session another call runs = %q, want %q", texts(t, res), want)
	}
	close(release)
	res = wait(t, results, "the continued run")
	if o := outcomeOf(t, res); o.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome = %+v", o)
	}
	if got := readFile(t, filepath.Join(l.session(id).Workspace(), "a.txt")); got != "ALPHA\n" {
		t.Errorf("a.txt = %q", got)
	}
}
