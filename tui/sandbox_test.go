package tui

import (
	"strings"
	"testing"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

const shellTemp = "/tmp/agenttui-shell-1"

var (
	sandboxedShell = &tool.Sandbox{Sandboxed: true, Mode: "workspace-write", Writable: []string{ws, shellTemp}, Temp: shellTemp}
	escapingShell  = &tool.Sandbox{Escalated: true, Why: "it asked to run unsandboxed (sandbox: false)"}
)

// shellPC is a planned run_shell call with its sandbox.
func shellPC(index int, command string, sb *tool.Sandbox) runtime.PlannedCall {
	touches := tool.Writes(tool.Paths(ws, shellTemp))
	args := `{"command":"` + command + `"}`
	if !sb.Sandboxed {
		touches = tool.Writes(tool.Anything())
	}
	if sb.Escalated {
		args = `{"command":"` + command + `","sandbox":false}`
	}
	p := pc(index, "run_shell", args, &touches, 1)
	p.Sandbox = sb
	return p
}

// shellRequest is an approval request for run_shell call index.
func shellRequest(id uint64, index int, sb *tool.Sandbox, by string) approvalRequest {
	r := request(id, 1, index, "run_shell", t0)
	r.Req.Sandbox, r.Req.By = sb, by
	r.Req.Touches = tool.Writes(tool.Paths(ws, shellTemp))
	if !sb.Sandboxed {
		r.Req.Touches = tool.Writes(tool.Anything())
	}
	return r
}

// TestBoardAndDetailsSaySandboxed checks that the board's badge and the
// detail pane say whether a shell call runs in the sandbox and what it may
// write, and that the header says whether shell commands are sandboxed.
func TestBoardAndDetailsSaySandboxed(t *testing.T) {
	h := newHarness(t, Options{Shell: "shell: sandboxed (workspace-write, no network)"})
	mustContain(t, h.view(), "shell: sandboxed (workspace-write, no network) · Goal: ")
	h.startRun("goal")
	noLandlock := &tool.Sandbox{Why: "this kernel has no Landlock"}
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		shellPC(0, "go test ./...", sandboxedShell),
		shellPC(1, "curl example.com", escapingShell),
		shellPC(2, "make", noLandlock),
		pc(3, "write_file", `{"path":"a.txt","content":"x"}`, writes("a.txt"), 1),
	}})
	s := h.view()
	if rows := rowsWith(s, "#1 run_shell", "S . +1"); len(rows) != 1 {
		t.Errorf("the sandboxed call's badge is not S . +1:\n%s", s)
	}
	if rows := rowsWith(s, "#2 run_shell", "W * unsandboxed"); len(rows) != 1 {
		t.Errorf("the call leaving the sandbox is not marked unsandboxed:\n%s", s)
	}
	if rows := rowsWith(s, "#3 run_shell", "W * unsandboxed"); len(rows) != 1 {
		t.Errorf("the call with no sandbox is not marked unsandboxed:\n%s", s)
	}
	if rows := rowsWith(s, "#4 write_file", "W a.txt"); len(rows) != 1 {
		t.Errorf("a tool with no sandbox changed its badge:\n%s", s)
	}

	if h.m.focus != focusBoard {
		t.Fatalf("focus on the %s, want the board", h.m.focus)
	}
	mustContain(t, h.view(), "sandbox: workspace-write · may write only ., $TMPDIR ("+shellTemp+") · no network")
	h.key("down")
	mustContain(t, h.view(), "sandbox: none: it asked to run unsandboxed (sandbox: false); the person decides, since it may change anything")
	h.key("down")
	mustContain(t, h.view(), "sandbox: none: this kernel has no Landlock; it may change anything")
	h.key("down")
	mustNotContain(t, h.view(), "sandbox: ")
}

// TestHeaderSaysNotSandboxed checks the header's plain words when shell
// commands run unsandboxed.
func TestHeaderSaysNotSandboxed(t *testing.T) {
	h := newHarness(t, Options{Shell: "shell: not sandboxed: this kernel has no Landlock"})
	mustContain(t, h.view(), "shell: not sandboxed: this kernel has no Landlock · Goal: none yet")
	readOnly := &tool.Sandbox{Sandboxed: true, Mode: "read-only", Writable: []string{shellTemp}, Temp: shellTemp, Protected: nil, Network: true}
	h.startRun("goal")
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{shellPC(0, "ls", readOnly)}})
	s := h.view()
	if rows := rowsWith(s, "#1 run_shell", "S $TMPDIR"); len(rows) != 1 {
		t.Errorf("a read-only call's badge is not S $TMPDIR:\n%s", s)
	}
	mustContain(t, s, "sandbox: read-only · may write only $TMPDIR ("+shellTemp+") · network allowed")
}

// TestGrantSandboxedShellCommands checks the grant chooser of a sandboxed
// shell call ("allow sandboxed run_shell commands for this session"), and
// that a call leaving the sandbox offers no grant.
func TestGrantSandboxedShellCommands(t *testing.T) {
	policy := approval.NewPolicy(approval.ModeReads, nil)
	policy.SetWorkspace(ws)
	h := newHarness(t, Options{Policy: policy})
	h.startRun("goal")
	reqs := []approvalRequest{shellRequest(1, 0, sandboxedShell, "mode:reads"), shellRequest(2, 1, escapingShell, "sandbox:false")}
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		shellPC(0, "go test ./...", sandboxedShell), shellPC(1, "curl example.com", escapingShell),
	}}, decide(1, 0, "ask", "mode:reads", "asks"), decide(1, 1, "ask", "sandbox:false", "run_shell asks to run outside its sandbox"),
		reqs[0], reqs[1])
	h.clock.advance(DefaultGrace)
	h.key("g")
	if !h.m.grant.Shown() {
		t.Fatalf("g did not open the chooser; note %q", h.m.note)
	}
	mustContain(t, h.view(), "1  allow sandboxed run_shell commands for this session")
	mustNotContain(t, h.view(), "2  allow")
	h.key("esc")

	h.key("down")
	h.clock.advance(DefaultGrace)
	h.key("g")
	if h.m.grant.Shown() {
		t.Fatal("a call leaving the sandbox opened the grant chooser")
	}
	mustContain(t, h.view(), "no grant covers a call that asks to run outside its sandbox")
	if len(policy.Grants()) != 0 {
		t.Errorf("grants %+v", policy.Grants())
	}
}

// rowsWith returns the screen's rows that hold every one of want.
func rowsWith(s string, want ...string) []string {
	var out []string
	for _, row := range strings.Split(s, "\n") {
		all := true
		for _, w := range want {
			all = all && strings.Contains(row, w)
		}
		if all {
			out = append(out, row)
		}
	}
	return out
}

// TestDetailsNameTheToolchainCaches checks that the detail pane of a
// sandboxed command that may write the toolchains' caches names them apart
// from the workspace and its temporary folder, and that the header says
// the caches are writable.
func TestDetailsNameTheToolchainCaches(t *testing.T) {
	h := newHarness(t, Options{Shell: "shell: sandboxed (workspace-write + caches, no network)"})
	mustContain(t, h.view(), "shell: sandboxed (workspace-write + caches, no network) · Goal: ")
	caches := []string{"/home/u/.cache", "/home/u/go/pkg/mod"}
	sb := &tool.Sandbox{Sandboxed: true, Mode: "workspace-write", Writable: []string{ws, caches[0], caches[1], shellTemp}, Temp: shellTemp, Caches: caches}
	h.startRun("goal")
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{shellPC(0, "go test ./...", sb)}})
	s := h.view()
	if rows := rowsWith(s, "#1 run_shell", "S . +3"); len(rows) != 1 {
		t.Errorf("the badge does not count the caches:\n%s", s)
	}
	// The line wraps at the harness's width.
	mustContain(t, s, "sandbox: workspace-write · may write only ., $TMPDIR ("+shellTemp+") · and the toolchain caches /home/u/.cache,")
	mustContain(t, s, "/home/u/go/pkg/mod · no network")
}
