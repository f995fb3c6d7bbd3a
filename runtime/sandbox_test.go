package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// sandboxedTool is a fake tool that says its calls run in a sandbox, unless
// their path is "out", which asks to leave it.
type sandboxedTool struct{ *fakeTool }

func (s sandboxedTool) Sandbox(raw json.RawMessage) *tool.Sandbox {
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	if args["path"] == "out" {
		return &tool.Sandbox{Escalated: true, Why: "it asked to run unsandboxed"}
	}
	return &tool.Sandbox{Sandboxed: true, Mode: "workspace-write", Writable: []string{"/w", "/tmp/t"}, Temp: "/tmp/t"}
}

// TestSandboxReachesHooksAndEvents checks that what a tool says about its
// calls' sandbox reaches the hooks (approval reads it) and the reply event
// (the console and the JSON stream show it), call by call.
func TestSandboxReachesHooksAndEvents(t *testing.T) {
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{call("sh", `{"path":"in"}`), call("sh", `{"path":"out"}`), call("read", `{"path":"a"}`)}},
		model.Step{Text: "done"},
	)
	rec := newRecorder()
	a := newAgent(t, m, rec, sandboxedTool{pathTool("sh", true, okBody("ran"))}, pathTool("read", false, okBody("read")))
	var mu sync.Mutex // guards seen
	seen := map[int]*tool.Sandbox{}
	a.Hooks = []Hook{HookFunc(func(_ context.Context, c CallInfo) Flow {
		mu.Lock()
		seen[c.Index] = c.Sandbox
		mu.Unlock()
		return Continue("test", "")
	})}
	if out := a.Run(context.Background(), NewSession("s"), "go"); out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if s := seen[0]; s == nil || !s.Sandboxed || s.Temp != "/tmp/t" {
		t.Errorf("hook saw %+v for the sandboxed call", s)
	}
	if s := seen[1]; s == nil || !s.Escalated || s.Sandboxed {
		t.Errorf("hook saw %+v for the call leaving the sandbox", s)
	}
	if seen[2] != nil {
		t.Errorf("a tool that never sandboxes got %+v", seen[2])
	}
	reply := rec.await(t, "the reply", func(e Event) bool { _, ok := e.(ReplyReceived); return ok }).(ReplyReceived)
	b, err := EncodeEvent(reply)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"sandbox":{"sandboxed":true,"mode":"workspace-write","writable":["/w","/tmp/t"],"temp":"/tmp/t"}`,
		`"sandbox":{"sandboxed":false,"escalated":true,"why":"it asked to run unsandboxed"}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the reply event lacks %s:\n%s", want, b)
		}
	}
	if strings.Count(string(b), `"sandbox"`) != 2 {
		t.Errorf("only the sandboxing tool's calls carry a sandbox:\n%s", b)
	}
}

// TestCheckpointsLeaveTheCachesOut checks that a checkpoint before a
// sandboxed command records only the workspace, and that of what the
// command may change outside it only the person's own folders are named as
// not covered: the command's temporary folder and the toolchains' caches
// are not the person's files.
func TestCheckpointsLeaveTheCachesOut(t *testing.T) {
	store := &CheckpointStore{Workspace: "/w"}
	writable := []string{"/w", "/srv/out", "/home/u/.cache", "/home/u/go/pkg/mod", "/tmp/t"}
	p := &Prepared{
		Call:    tool.Call{Name: "run_shell"},
		Touches: tool.Writes(tool.Paths(writable...)),
		Sandbox: &tool.Sandbox{Sandboxed: true, Mode: "workspace-write", Writable: writable, Temp: "/tmp/t",
			Caches: []string{"/home/u/.cache", "/home/u/go/pkg/mod"}},
	}
	roots, notCovered := store.reach(p)
	if len(roots) != 1 || roots[0] != "." {
		t.Errorf("the checkpoint records %q, want only the workspace", roots)
	}
	if want := "run_shell: /srv/out, outside the workspace"; len(notCovered) != 1 || notCovered[0] != want {
		t.Errorf("not covered: %q, want only %q", notCovered, want)
	}
}
