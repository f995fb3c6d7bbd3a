package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n got: %s\nwant: %s", name, got, want)
	}
}

func TestGoalOutcomeJSON(t *testing.T) {
	cases := map[string]GoalOutcome{
		"succeeded":         Succeeded("Fixed the off-by-one in pager.go", json.RawMessage(`{"file":"pager.go","line":42}`)),
		"succeeded_no_data": Succeeded("Nothing to extract", nil),
		"failed": Failed("fix the build", "turn 4: run_shell (call 1)",
			[]string{"one", "two", "three", "four"}),
		"refused": Refused("Which of the two config files should I change?"),
	}
	var all bytes.Buffer
	for _, name := range []string{"succeeded", "succeeded_no_data", "failed", "refused"} {
		b, err := json.Marshal(cases[name])
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
		all.WriteByte('\n')
		var back GoalOutcome
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(again, b) {
			t.Errorf("%s does not round trip: %s vs %s", name, b, again)
		}
	}
	golden(t, "goal_outcomes.jsonl", all.Bytes())
	if cases["failed"].Attempts[0] != "two" {
		t.Error("only the last three attempts are kept, oldest first")
	}
}

func TestEventStreamGolden(t *testing.T) {
	var out bytes.Buffer
	sink := func(e Event) {
		b, err := EncodeEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	m := script(t,
		model.Step{Text: "Reading first.", Calls: []model.ScriptedCall{call("read", `{"path":"a"}`), call("write", `{"path":"a"}`)}},
		model.Step{Calls: []model.ScriptedCall{rawCall("read", `{"path":`)}},
		model.Step{Calls: []model.ScriptedCall{
			call("remember", `{"key":"lines","value":3}`),
			call("finish", `{"summary":"Read and wrote a","data":{"file":"a"}}`),
		}},
	)
	cat, err := NewCatalog(pathTool("read", false, okBody("1\tfirst line")), pathTool("write", true, okBody("wrote 3 bytes")))
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{Model: m, Catalog: cat, Sink: sink, Clock: newFixedClock(), Mode: func() string { return "auto" },
		Hooks: []Hook{HookFunc(func(context.Context, CallInfo) Flow { return Continue("mode:auto", "auto mode runs every call") })}}
	outcome := a.Run(context.Background(), NewSession("s-1"), "read and write a")
	if outcome.Status != StatusSucceeded || string(outcome.ExtractedData) != `{"file":"a","lines":3}` {
		t.Fatalf("outcome %+v data %s", outcome, outcome.ExtractedData)
	}
	golden(t, "event_stream.jsonl", out.Bytes())
}

func TestFinishMergesDataOverMemory(t *testing.T) {
	a := newAgent(t, script(t,
		model.Step{Calls: []model.ScriptedCall{call("remember", `{"key":"a","value":1}`), call("remember", `{"key":"b","value":2}`)}},
		model.Step{Calls: []model.ScriptedCall{call("finish", `{"summary":"done","data":{"b":"over","c":3}}`)}},
	), nil)
	out := a.Run(context.Background(), NewSession("s"), "go")
	if out.Status != StatusSucceeded || out.Summary != "done" || string(out.ExtractedData) != `{"a":1,"b":"over","c":3}` {
		t.Errorf("outcome %+v data %s", out, out.ExtractedData)
	}
}

func TestTextOnlyReplySucceedsWithMemory(t *testing.T) {
	a := newAgent(t, script(t,
		model.Step{Calls: []model.ScriptedCall{call("remember", `{"key":"k","value":"v"}`)}},
		model.Step{Text: "All done."},
	), nil)
	out := a.Run(context.Background(), NewSession("s"), "go")
	if out.Status != StatusSucceeded || out.Summary != "All done." || string(out.ExtractedData) != `{"k":"v"}` {
		t.Errorf("outcome %+v data %s", out, out.ExtractedData)
	}
}

func TestAskUserRefusesAndAnswerContinues(t *testing.T) {
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{call("ask_user", `{"question":"Which file?"}`), call("finish", `{"summary":"too early"}`)}},
		model.Step{Expect: []string{"b.txt"}, Calls: []model.ScriptedCall{call("finish", `{"summary":"Changed b.txt"}`)}},
	)
	a := newAgent(t, m, nil)
	s := NewSession("s")
	out := a.Run(context.Background(), s, "change the file")
	if out.Status != StatusRefused || out.Summary != "Which file?" {
		t.Fatalf("outcome %+v", out)
	}
	res := resultsOf(t, s, 1)
	if !strings.Contains(res[1].Content, "Not used") || !strings.Contains(res[1].Content, "ask_user") {
		t.Errorf("the second ender should be told it was not used: %q", res[1].Content)
	}
	out = a.Run(context.Background(), s, "b.txt, please")
	if out.Status != StatusSucceeded || out.Summary != "Changed b.txt" || s.Goal != "change the file" {
		t.Fatalf("after the answer: %+v (goal %q)", out, s.Goal)
	}
}

// TestTurnBudgetFails ends a run that uses up its turns, saying how many
// in words that agree with the number.
func TestTurnBudgetFails(t *testing.T) {
	step := model.Step{Calls: []model.ScriptedCall{call("remember", `{"key":"k","value":1}`)}}
	for turns, want := range map[int]string{1: "the run used up its 1 model turn without finishing", 2: "the run used up its 2 model turns without finishing"} {
		a := newAgent(t, script(t, step, step, step, step), nil)
		a.Budgets = Budgets{MaxTurns: turns}
		out := a.Run(context.Background(), NewSession("s"), "loop")
		if out.Status != StatusFailed || out.Attempts[len(out.Attempts)-1] != want {
			t.Errorf("%d turns: outcome %+v, want %q last", turns, out, want)
		}
	}
}

func TestScriptEndFails(t *testing.T) {
	a := newAgent(t, script(t, model.Step{Expect: []string{"never said"}, Text: "x"}), nil)
	out := a.Run(context.Background(), NewSession("s"), "go")
	if out.Status != StatusFailed || !strings.Contains(out.Attempts[0], `step 1 expected the model to have read "never said"`) {
		t.Errorf("outcome %+v", out)
	}
}

// flaky fails with the given failure until it has been called n times.
func flaky(name string, write, idempotent bool, f tool.Failure, n int) *fakeTool {
	t := pathTool(name, write, nil)
	t.decl.Annotations.Idempotent = idempotent
	t.decl.Retry = &tool.RetryPolicy{Attempts: 3, InitialBackoff: time.Second, MaxBackoff: 4 * time.Second}
	t.body = func(context.Context, map[string]any) tool.Return {
		if t.count() <= n {
			return tool.Fail(f, "try "+f.Kind.String())
		}
		return tool.Ok("worked")
	}
	return t
}

func TestRetries(t *testing.T) {
	cases := []struct {
		name      string
		tool      *fakeTool
		wantCalls int
		wantOK    bool
	}{
		{"a read retries a retryable failure", flaky("t", false, false, tool.Timeout("slow"), 2), 3, true},
		{"a read does not retry a permanent failure", flaky("t", false, false, tool.NotFound("gone"), 2), 1, false},
		{"a write does not retry", flaky("t", true, false, tool.Network("down"), 1), 1, false},
		{"an idempotent write retries", flaky("t", true, true, tool.Network("down"), 1), 2, true},
		{"attempts are bounded", flaky("t", false, false, tool.Timeout("slow"), 10), 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := newRecorder()
			clock := newFixedClock()
			a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{call("t", `{"path":"x"}`)}}, finishStep("ok")), rec, c.tool)
			a.Clock = clock
			s := NewSession("s")
			a.Run(context.Background(), s, "go")
			if c.tool.count() != c.wantCalls {
				t.Errorf("body ran %d times, want %d", c.tool.count(), c.wantCalls)
			}
			res := resultsOf(t, s, 1)[0]
			if (res.Content == "worked") != c.wantOK {
				t.Errorf("result %q", res.Content)
			}
			retried := 0
			for _, e := range rec.snapshot() {
				if r, ok := e.(CallRetried); ok {
					retried++
					if r.MaxAttempts != 3 || r.Attempt != retried+1 {
						t.Errorf("retry event %+v, want attempt %d of 3", r, retried+1)
					}
				}
			}
			if retried != c.wantCalls-1 {
				t.Errorf("%d retry events for %d attempts", retried, c.wantCalls)
			}
			if c.wantCalls == 3 && (len(clock.waits) < 2 || clock.waits[0] != time.Second || clock.waits[1] != 2*time.Second) {
				t.Errorf("backoffs %v, want 1s then 2s", clock.waits)
			}
		})
	}
}

func TestUntrustedHintsNeverRetry(t *testing.T) {
	hinted := flaky("t", false, true, tool.Timeout("slow"), 1)
	hinted.decl.Untrusted = true
	hinted.foot = nil
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{call("t", `{"path":"x"}`)}}, finishStep("ok")), nil, hinted)
	a.Clock = newFixedClock()
	a.Run(context.Background(), NewSession("s"), "go")
	if hinted.count() != 1 {
		t.Errorf("an untrusted tool was retried (%d calls)", hinted.count())
	}
}

func TestCallTimeout(t *testing.T) {
	slow := pathTool("slow", false, func(ctx context.Context, _ map[string]any) tool.Return {
		<-ctx.Done()
		return tool.Ok("partial output")
	})
	a := newAgent(t, script(t, model.Step{Calls: []model.ScriptedCall{call("slow", `{"path":"x"}`)}}, finishStep("ok")), nil, slow)
	a.Budgets = Budgets{CallTimeout: time.Millisecond}
	s := NewSession("s")
	a.Run(context.Background(), s, "go")
	res := resultsOf(t, s, 1)[0]
	if !res.IsError || !strings.Contains(res.Content, "partial output") || !strings.Contains(res.Content, "time limit of 1ms") {
		t.Errorf("result %+v", res)
	}
}

func TestCatalogRefusesBadTools(t *testing.T) {
	if _, err := NewCatalog(pathTool("finish", false, okBody(""))); err == nil || !strings.Contains(err.Error(), "control tool") {
		t.Errorf("a tool named finish: %v", err)
	}
	if _, err := NewCatalog(pathTool("a", false, okBody("")), pathTool("a", true, okBody(""))); err == nil {
		t.Error("duplicate names accepted")
	}
	bad := pathTool("bad", false, okBody(""))
	bad.decl.Parameters = json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"https://example.com/s.json"}}}`)
	if _, err := NewCatalog(bad); err == nil {
		t.Error("a schema with a remote $ref was accepted")
	}
	cat, _ := NewCatalog(pathTool("read", false, okBody("")))
	_, err := cat.Prepare(tool.Call{Name: "Read", Arguments: `{"path":"a"}`})
	if err == nil || !strings.Contains(err.Error(), "no tool named") {
		t.Errorf("names must match exactly: %v", err)
	}
}

func TestBuildCatalogLeavesOutBadTools(t *testing.T) {
	bad := pathTool("bad", false, okBody(""))
	bad.decl.Parameters = json.RawMessage(`{"type":"object","properties":{"p":{"type":"nonsense"}}}`)
	cat, left := BuildCatalog(pathTool("good", false, okBody("")), bad)
	if len(left) != 1 || !strings.Contains(left[0].Error(), "bad") {
		t.Fatalf("left out: %v", left)
	}
	if _, ok := cat.Lookup("good"); !ok {
		t.Error("the good tool was not kept")
	}
	if _, ok := cat.Lookup("bad"); ok {
		t.Error("the bad tool was kept")
	}
}

func TestSetCatalogTakesEffectNextTurn(t *testing.T) {
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{call("late", `{"path":"x"}`)}},
		model.Step{Expect: []string{"no tool named"}, Calls: []model.ScriptedCall{call("late", `{"path":"x"}`)}},
		model.Step{Expect: []string{"arrived"}, Text: "done"},
	)
	a := newAgent(t, m, nil)
	late := pathTool("late", false, okBody("arrived"))
	a.Hooks = []Hook{HookFunc(func(_ context.Context, c CallInfo) Flow {
		return Continue("test", "")
	})}
	s := NewSession("s")
	// The first turn runs with the old catalogue; swap it before the second.
	a.Sink = func(e Event) {
		if te, ok := e.(TurnEnded); ok && te.Turn == 1 {
			cat, _ := NewCatalog(late)
			a.SetCatalog(cat)
		}
	}
	if out := a.Run(context.Background(), s, "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
}

func TestDecodeEventRoundTrip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "event_stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		e, err := DecodeEvent(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		again, err := EncodeEvent(e)
		if err != nil || !bytes.Equal(again, line) {
			t.Errorf("round trip changed the event:\n got %s\nwant %s", again, line)
		}
		if f, ok := e.(CallFinished); ok && f.Full.ID() != f.Outcome {
			t.Errorf("decoded outcome %v for %s", f.Full, f.Outcome)
		}
	}
	if _, err := DecodeEvent([]byte(`{"type":"mystery"}`)); err == nil {
		t.Error("an unknown event type was accepted")
	}
}

// TestCallFinishedCarriesTheFailureCode checks that a failed call's code
// (how a shell command ended) reaches the event stream and the journal, and
// comes back from them, so a resumed session's console can still say
// "exit 3".
func TestCallFinishedCarriesTheFailureCode(t *testing.T) {
	m := script(t, model.Step{Calls: []model.ScriptedCall{call("sh", `{"path":"a"}`)}}, finishStep("done"))
	rec := newRecorder()
	exited := pathTool("sh", true, func(context.Context, map[string]any) tool.Return {
		f := tool.Other("command exited with status 3")
		f.Code = tool.ExitCode(3)
		return tool.Fail(f, "exit status: 3")
	})
	a := newAgent(t, m, rec, exited)
	a.Run(context.Background(), NewSession("s"), "go")
	fin, ok := finishedOf(rec.snapshot(), 0)
	if !ok || fin.Code != "exit:3" {
		t.Fatalf("the call's end: %+v", fin)
	}
	line, err := EncodeEvent(fin)
	if err != nil || !bytes.Contains(line, []byte(`"outcome":"error","kind":"other","code":"exit:3"`)) {
		t.Fatalf("encoded %s (%v)", line, err)
	}
	back, err := DecodeEvent(line)
	if err != nil {
		t.Fatal(err)
	}
	if f := back.(CallFinished).Full.Failure(); f == nil || f.Code != "exit:3" {
		t.Errorf("decoded failure %+v", f)
	}
}

// cutText is a model whose first reply is text cut by the output limit.
type cutText struct{ model.Model }

func (c cutText) Reply(ctx context.Context, req model.Request, d func(model.Delta)) (model.Reply, error) {
	r, err := c.Model.Reply(ctx, req, d)
	if len(req.Messages) == 1 {
		r.Stop = model.StopOutputLimit
	}
	return r, err
}

func TestTextCutByOutputLimitDoesNotEndTheRun(t *testing.T) {
	m := cutText{script(t, model.Step{Text: "The answer is that the first"},
		model.Step{Expect: []string{"cut off by the output limit"}, Text: "Short answer."})}
	a := newAgent(t, m, nil)
	s := NewSession("s")
	out := a.Run(context.Background(), s, "go")
	if out.Status != StatusSucceeded || out.Summary != "Short answer." {
		t.Errorf("outcome %+v", out)
	}
}

// TestLazyCatalogCompilesOnFirstCall checks NewLazyCatalog: it checks the
// names now, as NewCatalog does, but compiles a schema only when its tool
// is first called, so a schema that does not compile is found then, and
// refuses its tool's calls only; the other tools' calls are judged exactly
// as by an eager catalogue.
func TestLazyCatalogCompilesOnFirstCall(t *testing.T) {
	if _, err := NewLazyCatalog(pathTool("a", false, okBody("")), pathTool("a", true, okBody(""))); err == nil {
		t.Error("duplicate names accepted")
	}
	bad := pathTool("bad", false, okBody(""))
	bad.decl.Parameters = json.RawMessage(`{"type":"object","properties":{"p":{"type":"nonsense"}}}`)
	lazy, err := NewLazyCatalog(pathTool("read", false, okBody("")), bad)
	if err != nil {
		t.Fatalf("the lazy catalogue compiled a schema when it was built: %v", err)
	}
	_, err = lazy.Prepare(tool.Call{Name: "bad", Arguments: `{"p":1}`})
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.HasPrefix(refused.Feedback, "The call to bad did not run: its arguments could not be checked: ") ||
		!strings.Contains(refused.Feedback, "/properties/p/type") {
		t.Fatalf("a call to the tool whose schema does not compile: %v", err)
	}
	eager, err := NewCatalog(pathTool("read", false, okBody("")))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"path":"a"}`, `{"path":1}`, `{"paht":"a"}`, `[]`} {
		call := tool.Call{Name: "read", Arguments: args}
		lp, lerr := lazy.Prepare(call)
		ep, eerr := eager.Prepare(call)
		if fmt.Sprint(lerr) != fmt.Sprint(eerr) || (lp == nil) != (ep == nil) {
			t.Errorf("arguments %s: lazy %v, eager %v", args, lerr, eerr)
		}
	}
	if _, err := lazy.Prepare(tool.Call{Name: "finish", Arguments: `{"summary":1}`}); err == nil {
		t.Error("the control tools' schemas are not checked in a lazy catalogue")
	}
}
