package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// fakeHooks answers each hook event with a function of its input, and
// records every input it was given.
type fakeHooks struct {
	answer func(in hooks.Input) hooks.Verdict

	mu     sync.Mutex // guards inputs
	inputs []hooks.Input
}

func (f *fakeHooks) Has(ev hooks.Event, tool string) bool { return true }

func (f *fakeHooks) Run(_ context.Context, in hooks.Input) hooks.Verdict {
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	f.mu.Unlock()
	v := f.answer(in)
	if len(v.Runs) == 0 && v.Decision != hooks.None {
		v.Runs = []hooks.Run{{Command: strings.TrimPrefix(v.By, "hook:"), Decision: v.Decision, Reason: v.Reason}}
	}
	return v
}

func (f *fakeHooks) of(ev hooks.Event) []hooks.Input {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []hooks.Input
	for _, in := range f.inputs {
		if in.HookEventName == ev {
			out = append(out, in)
		}
	}
	return out
}

// shellTool is a test tool with run_shell's name and a command argument.
func shellTool(ran *[]string, mu *sync.Mutex) *fakeTool {
	return &fakeTool{
		decl: tool.Declaration{Name: "run_shell", Parameters: json.RawMessage(
			`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)},
		body: func(_ context.Context, args map[string]any) tool.Return {
			mu.Lock()
			*ran = append(*ran, args["command"].(string))
			mu.Unlock()
			return tool.Ok("ran " + args["command"].(string))
		},
	}
}

func TestPreToolUseHookDeniesRewritesAndAddsContext(t *testing.T) {
	var ran []string
	var mu sync.Mutex
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{
			call("run_shell", `{"command":"rm -rf /"}`),
			call("run_shell", `{"command":"ls"}`),
			call("run_shell", `{"command":"make"}`),
			call("run_shell", `{"command":"go vet"}`),
		}},
		finishStep("done"))
	rec := newRecorder()
	a := newAgent(t, m, rec, shellTool(&ran, &mu))
	fh := &fakeHooks{answer: func(in hooks.Input) hooks.Verdict {
		if in.HookEventName != hooks.PreToolUse {
			return hooks.Verdict{}
		}
		var args struct{ Command string }
		_ = json.Unmarshal(in.ToolInput, &args)
		switch args.Command {
		case "rm -rf /":
			return hooks.Verdict{Decision: hooks.Deny, By: "hook:./guard.sh", Reason: "no recursive deletes"}
		case "make":
			return hooks.Verdict{UpdatedInput: json.RawMessage(`{"command":"make -n"}`), UpdatedBy: "hook:./dry.sh"}
		case "go vet":
			return hooks.Verdict{UpdatedInput: json.RawMessage(`{"cmd":"go vet"}`), UpdatedBy: "hook:./bad.sh"}
		}
		return hooks.Verdict{Context: "the tree is clean"}
	}}
	a.HookCommands = fh
	s := NewSession("s")
	out := a.Run(context.Background(), s, "tidy up")
	if out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	res := resultsOf(t, s, 1)
	if !strings.Contains(res[0].Content, "hook `./guard.sh` did not allow this call") || !strings.Contains(res[0].Content, "no recursive deletes") {
		t.Errorf("the denied call's result does not give the hook's reason: %q", res[0].Content)
	}
	if !strings.Contains(res[1].Content, "ran ls") || !strings.Contains(res[1].Content, "Context from the person's PreToolUse hooks:\nthe tree is clean") {
		t.Errorf("the context is not in what the model reads: %q", res[1].Content)
	}
	if !strings.Contains(res[2].Content, "ran make -n") || !strings.Contains(res[2].Content, "rewrote this call's arguments") {
		t.Errorf("the rewritten call did not run as rewritten, or the model is not told: %q", res[2].Content)
	}
	if !strings.Contains(res[3].Content, "new ones do not fit") || !strings.Contains(res[3].Content, "cmd") {
		t.Errorf("an unfit rewrite is not refused with the schema's feedback: %q", res[3].Content)
	}
	if strings.Join(ran, ",") != "ls,make -n" {
		t.Errorf("ran %v, want ls and make -n only", ran)
	}
	var reply ReplyReceived
	decisions := map[int]CallDecision{}
	for _, e := range rec.snapshot() {
		switch ev := e.(type) {
		case ReplyReceived:
			if ev.Turn == 1 {
				reply = ev
			}
		case CallDecision:
			if ev.Turn == 1 {
				decisions[ev.Index] = ev
			}
		}
	}
	if got := reply.Calls[2]; string(got.Args) != `{"command":"make -n"}` || got.RewrittenBy != "hook:./dry.sh" || got.Raw != `{"command":"make"}` {
		t.Errorf("the reply event does not show the rewrite: %+v", got)
	}
	if d := decisions[0]; d.Decision != DecisionSkip || d.By != "hook:./guard.sh" {
		t.Errorf("the deny's decision is %+v", d)
	}
}

func TestPostToolUseHookAddsContextAndBlocks(t *testing.T) {
	var ran []string
	var mu sync.Mutex
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{call("run_shell", `{"command":"gofmt -l ."}`), call("run_shell", `{"command":"cat .env"}`)}},
		finishStep("done"))
	a := newAgent(t, m, nil, shellTool(&ran, &mu))
	fh := &fakeHooks{answer: func(in hooks.Input) hooks.Verdict {
		if in.HookEventName != hooks.PostToolUse {
			return hooks.Verdict{}
		}
		if strings.Contains(string(in.ToolInput), ".env") {
			return hooks.Verdict{Decision: hooks.Block, By: "hook:./secrets.sh", Reason: "the output holds a secret"}
		}
		return hooks.Verdict{Context: "formatted 2 files"}
	}}
	a.HookCommands = fh
	s := NewSession("s")
	if out := a.Run(context.Background(), s, "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	res := resultsOf(t, s, 1)
	if !strings.Contains(res[0].Content, "ran gofmt -l .\n\nContext from the person's PostToolUse hooks:\nformatted 2 files") {
		t.Errorf("post context missing: %q", res[0].Content)
	}
	if !strings.Contains(res[1].Content, "PostToolUse hook `./secrets.sh` blocked this result: the output holds a secret") {
		t.Errorf("block missing: %q", res[1].Content)
	}
	posts := fh.of(hooks.PostToolUse)
	if len(posts) != 2 || posts[0].ToolResponse == nil || posts[0].ToolResponse.Outcome != "success" ||
		!strings.HasPrefix(posts[0].ToolResponse.Output, "ran ") {
		t.Errorf("post hook input: %+v", posts)
	}
}

func TestStopHookSendsTheAgentOnAtMostThreeTimes(t *testing.T) {
	steps := []model.Step{}
	for i := 0; i < 5; i++ {
		steps = append(steps, model.Step{Text: "all done"})
	}
	rec := newRecorder()
	a := newAgent(t, script(t, steps...), rec)
	fh := &fakeHooks{answer: func(in hooks.Input) hooks.Verdict {
		if in.HookEventName != hooks.Stop {
			return hooks.Verdict{}
		}
		return hooks.Verdict{Decision: hooks.Block, By: "hook:./tests.sh", Reason: "the tests fail"}
	}}
	a.HookCommands = fh
	s := NewSession("s")
	out := a.Run(context.Background(), s, "fix it")
	if out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	stops := fh.of(hooks.Stop)
	if len(stops) != 4 {
		t.Fatalf("Stop hooks ran %d times, want 4 (3 that sent it on, then the one that could not)", len(stops))
	}
	if *stops[0].StopHookActive || !*stops[1].StopHookActive {
		t.Errorf("stop_hook_active: %v then %v", *stops[0].StopHookActive, *stops[1].StopHookActive)
	}
	if s.Turns() != 4 {
		t.Errorf("the model was asked %d times, want 4", s.Turns())
	}
	user := 0
	for _, msg := range s.Messages {
		if msg.Role == model.RoleUser && strings.Contains(msg.Text, "Stop hook `./tests.sh` did not let the run end yet: the tests fail") {
			user++
		}
	}
	if user != 3 {
		t.Errorf("the model read the Stop hook's reason %d times, want 3", user)
	}
	continued := 0
	for _, e := range rec.snapshot() {
		if _, ok := e.(RunContinued); ok {
			continued++
		}
	}
	if continued != 3 {
		t.Errorf("%d run_continued events, want 3", continued)
	}
}

func TestUserPromptSubmitBlocksAndSessionStartAddsContext(t *testing.T) {
	rec := newRecorder()
	a := newAgent(t, script(t, model.Step{Text: "hello"}), rec)
	fh := &fakeHooks{answer: func(in hooks.Input) hooks.Verdict {
		switch in.HookEventName {
		case hooks.UserPromptSubmit:
			if strings.Contains(in.Prompt, "password") {
				return hooks.Verdict{Decision: hooks.Block, By: "hook:./prompt.sh", Reason: "no secrets in prompts"}
			}
			return hooks.Verdict{Context: "branch: main"}
		case hooks.SessionStart:
			return hooks.Verdict{Context: "3 open issues"}
		}
		return hooks.Verdict{}
	}}
	a.HookCommands = fh
	s := NewSession("s")
	out := a.Run(context.Background(), s, "my password is hunter2")
	if out.Status != StatusFailed || len(out.Attempts) != 1 || !strings.Contains(out.Attempts[0], "no secrets in prompts") {
		t.Fatalf("a blocked input gives %+v", out)
	}
	if len(s.Messages) != 0 || s.Goal != "" {
		t.Errorf("the blocked input reached the conversation: %+v", s.Messages)
	}
	out = a.Run(context.Background(), s, "say hello")
	if out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	first := s.Messages[0].Text
	for _, want := range []string{"SessionStart hooks:\n3 open issues", "UserPromptSubmit hooks:\nbranch: main", "say hello"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first message lacks %q: %q", want, first)
		}
	}
	if n := len(fh.of(hooks.SessionStart)); n != 1 {
		t.Errorf("SessionStart ran %d times, want once", n)
	}
	if src := fh.of(hooks.SessionStart)[0].Source; src != "startup" {
		t.Errorf("source %q", src)
	}
}

func TestTaskCallsFireHooksWithTheTask(t *testing.T) {
	fh := &fakeHooks{answer: func(in hooks.Input) hooks.Verdict { return hooks.Verdict{} }}
	sub := &Agent{HookCommands: fh, task: []string{"1.0"}, taskAgent: "explore"}
	in := sub.hookInput(hooks.PreToolUse, "s/1.0")
	if len(in.Task) != 1 || in.Task[0] != "1.0" || in.Agent != "explore" {
		t.Errorf("a task's hook input is %+v", in)
	}
	if sub.hooksFor(hooks.PreToolUse, Finish) {
		t.Error("control tools are hooked")
	}
}

// handshakeHooks holds each PreToolUse hook until every call's hook of the
// reply has started, so a reply whose hooks ran one after another would
// never get past its first.
type handshakeHooks struct {
	all   chan struct{}
	calls int

	mu   sync.Mutex // guards seen
	seen int
}

func (h *handshakeHooks) Has(hooks.Event, string) bool { return true }

func (h *handshakeHooks) Run(ctx context.Context, in hooks.Input) hooks.Verdict {
	if in.HookEventName != hooks.PreToolUse {
		return hooks.Verdict{}
	}
	h.mu.Lock()
	h.seen++
	if h.seen == h.calls {
		close(h.all)
	}
	h.mu.Unlock()
	select {
	case <-h.all:
		return hooks.Verdict{}
	case <-ctx.Done():
		return hooks.Verdict{Decision: hooks.Deny, By: "hook:test", Reason: "the hooks ran one after another"}
	}
}

func TestPreToolUseHooksOfAReplyRunSideBySide(t *testing.T) {
	var ran []string
	var mu sync.Mutex
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{call("run_shell", `{"command":"a"}`), call("run_shell", `{"command":"b"}`),
			call("run_shell", `{"command":"c"}`)}},
		finishStep("done"))
	a := newAgent(t, m, nil, shellTool(&ran, &mu))
	a.HookCommands = &handshakeHooks{all: make(chan struct{}), calls: 3}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := NewSession("s")
	if out := a.Run(ctx, s, "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if len(ran) != 3 {
		t.Errorf("ran %v: the hooks of the reply's calls did not run side by side", ran)
	}
}
