package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// sandboxEnv is an env whose run_shell runs in a sandbox made with cfg,
// given what the kernel offers.
func sandboxEnv(t *testing.T, cfg sandbox.Config, support sandbox.Support) *env {
	t.Helper()
	e := newEnv(t)
	sb, err := sandbox.New(e.root, cfg, support)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	e.ws.SetSandbox(sb)
	for _, tl := range e.ws.Tools() {
		e.tools[tl.Declaration().Name] = tl
	}
	return e
}

// needLandlock skips a test that runs commands in the sandbox where the
// kernel has no Landlock.
func needLandlock(t *testing.T) sandbox.Support {
	t.Helper()
	s := sandbox.Detect()
	if s.ABI < 1 {
		t.Skip("this kernel has no Landlock, so sandboxed commands cannot be run here")
	}
	return s
}

func (e *env) sandboxOf(args any) *tool.Sandbox {
	e.t.Helper()
	return e.tools["run_shell"].(tool.Sandboxer).Sandbox(mustJSON(e.t, args))
}

// TestShellFootprintFollowsTheSandbox is the Touches test of run_shell: a
// sandboxed command writes only its writable roots, so it runs beside calls
// outside them; any other command may write anything.
func TestShellFootprintFollowsTheSandbox(t *testing.T) {
	e := sandboxEnv(t, sandbox.Config{}, sandbox.Support{ABI: 7})
	temp := e.ws.Sandbox().TempDir()
	cmd := map[string]any{"command": "make"}
	got := e.footprint("run_shell", cmd)
	want := tool.Writes(tool.Paths(e.root, temp)).Normalized()
	if got.String() != want.String() {
		t.Fatalf("sandboxed footprint %v, want %v", got, want)
	}
	for _, c := range []struct {
		other    tool.Touches
		conflict bool
	}{
		{tool.Writes(tool.Paths(filepath.Join(e.root, "a.go"))), true},
		{tool.Reads(tool.Paths(filepath.Join(e.root, "a.go"))), true},
		{tool.Reads(tool.Paths(e.outside)), false},
		{tool.Writes(tool.Paths("/mem/notes")), false},
		{tool.Writes(tool.Anything()), true},
		{tool.Independent(), true},
	} {
		if got.ConflictsWith(c.other) != c.conflict {
			t.Errorf("sandboxed shell against %v: conflict %v, want %v", c.other, !c.conflict, c.conflict)
		}
	}
	sandboxed := e.sandboxOf(cmd)
	if sandboxed == nil || !sandboxed.Sandboxed || sandboxed.Mode != "workspace-write" || sandboxed.Temp != temp ||
		!slices.Equal(sandboxed.Writable, []string{e.root, temp}) || sandboxed.Network {
		t.Errorf("sandbox of a sandboxed call: %+v", sandboxed)
	}

	out := map[string]any{"command": "make", "sandbox": false}
	if got := e.footprint("run_shell", out); !got.Scope.IsAnything() || got.Access != tool.AccessWrites {
		t.Errorf("a call that leaves the sandbox: %v, want writes anything", got)
	}
	if s := e.sandboxOf(out); s == nil || s.Sandboxed || !s.Escalated || s.Why != "it asked to run unsandboxed (sandbox: false)" {
		t.Errorf("sandbox of a call leaving it: %+v", s)
	}
	if s := e.sandboxOf(map[string]any{"command": "make", "sandbox": true}); !s.Sandboxed {
		t.Errorf("sandbox: true is the sandbox: %+v", s)
	}

	ro := sandboxEnv(t, sandbox.Config{Mode: sandbox.ReadOnly}, sandbox.Support{ABI: 7})
	roTemp := ro.ws.Sandbox().TempDir()
	// Read-only commands change only their temporary folder, but read the
	// workspace, so a write there must not run beside them.
	if got, want := ro.footprint("run_shell", cmd), tool.Writes(tool.Paths(ro.root, roTemp)).Normalized(); got.String() != want.String() {
		t.Errorf("read-only footprint %v, want %v", got, want)
	}
	if s := ro.sandboxOf(cmd); !slices.Equal(s.Writable, []string{roTemp}) || s.Mode != "read-only" {
		t.Errorf("read-only sandbox %+v", s)
	}

	off := sandboxEnv(t, sandbox.Config{}, sandbox.Support{})
	if got := off.footprint("run_shell", cmd); !got.Scope.IsAnything() {
		t.Errorf("without Landlock: %v, want writes anything", got)
	}
	if s := off.sandboxOf(cmd); s == nil || s.Sandboxed || s.Escalated || s.Why != "this kernel has no Landlock" {
		t.Errorf("sandbox without Landlock: %+v", s)
	}
	if s := newEnv(t).sandboxOf(cmd); s != nil {
		t.Errorf("a workspace given no sandbox says %+v", s)
	}
}

// TestShellSchemaOffersSandboxFalseOnlyWithASandbox checks what the model is
// told: with a sandbox, what it allows and how to leave it; without one,
// nothing about it.
func TestShellSchemaOffersSandboxFalseOnlyWithASandbox(t *testing.T) {
	e := sandboxEnv(t, sandbox.Config{}, sandbox.Support{ABI: 7})
	decl := e.tools["run_shell"].Declaration()
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(decl.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if _, ok := schema.Properties["sandbox"]; !ok {
		t.Errorf("no sandbox argument: %s", decl.Parameters)
	}
	wantContains(t, decl.Description, "Commands run in a sandbox: they can read every file but can change files only in the workspace, "+
		"$TMPDIR, and cannot open network connections.", `call run_shell again with "sandbox": false`)
	// Nothing of this process: a resumed session declares the same bytes.
	if strings.Contains(decl.Description, e.ws.Sandbox().TempDir()) {
		t.Errorf("the description names the process's temporary folder:\n%s", decl.Description)
	}

	// The toolchains' caches are named, not listed: finding them starts
	// programs, which telling the model about them must not wait for.
	caches := sandboxEnv(t, sandbox.Config{ToolchainCaches: true}, sandbox.Support{ABI: 7})
	wantContains(t, caches.tools["run_shell"].Declaration().Description, "only in the workspace, $TMPDIR, the toolchains' caches (Go's, npm's, pip's, cargo's registry, and $XDG_CACHE_HOME or ~/.cache), and cannot open network connections.")

	plain := newEnv(t).tools["run_shell"].Declaration()
	if strings.Contains(string(plain.Parameters), "sandbox") || strings.Contains(plain.Description, "sandbox") {
		t.Errorf("without a sandbox the model still reads of one:\n%s\n%s", plain.Parameters, plain.Description)
	}
}

// TestSandboxedShellRuns runs real commands through run_shell in the
// sandbox: they work in the workspace and their temporary folder; a write
// outside fails, nothing outside changes, and the model reads that the
// sandbox blocked it and how to ask for an unsandboxed run, which then
// works.
func TestSandboxedShellRuns(t *testing.T) {
	e := sandboxEnv(t, sandbox.Config{}, needLandlock(t))
	temp := e.ws.Sandbox().TempDir()
	got := wantSuccess(t, e.call("run_shell", map[string]any{"command": `printf hi > made.txt && echo "$TMPDIR" && echo t > "$TMPDIR/t"`}))
	if got != temp+"\nexit status: 0" || e.read("made.txt") != "hi" {
		t.Errorf("inside the sandbox: %q", got)
	}

	victim := filepath.Join(e.outside, "victim")
	writeAt(t, victim, "untouched")
	before := snapshot(t, e.base)
	got = wantKind(t, e.call("run_shell", map[string]any{"command": "echo pwned > ../outside/victim"}), tool.KindOther,
		"../outside/victim: Permission denied\nexit status: 1\n\n",
		"The sandbox may have blocked this command. It ran in a sandbox in which commands can change files only in the workspace, $TMPDIR ("+temp+"), "+
			"and cannot open network connections; these lines look like the sandbox refusing something:\n",
		`If the command really needs that, call run_shell again with the same command and "sandbox": false; `+
			"the person will be asked to approve running it unsandboxed.")
	sameSnapshot(t, before, snapshot(t, e.base))

	// A failure that is not the sandbox's gets no note.
	got = wantKind(t, e.call("run_shell", map[string]any{"command": "echo no such thing; exit 2"}), tool.KindOther)
	if strings.Contains(got, "sandbox") {
		t.Errorf("a plain failure reads as the sandbox's: %q", got)
	}

	wantSuccess(t, e.call("run_shell", map[string]any{"command": "echo changed > ../outside/victim", "sandbox": false}))
	if data, _ := os.ReadFile(victim); string(data) != "changed\n" {
		t.Errorf("the unsandboxed run did not write: %q", data)
	}
}

// TestSandboxedShellTimeoutKillsTheGroup checks that a sandboxed command is
// still ended whole: the helper becomes the command, so its process group is
// the command's.
func TestSandboxedShellTimeoutKillsTheGroup(t *testing.T) {
	e := sandboxEnv(t, sandbox.Config{}, needLandlock(t))
	r := e.call("run_shell", map[string]any{"command": "echo started; sleep 1000 & echo $! > pid; wait", "timeout_s": 1})
	wantKind(t, r, tool.KindTimeout, "started\n", "… timed out after 1s; the command and every process it started were killed")
	waitGone(t, readPID(t, filepath.Join(e.root, "pid")))
}

// TestSandboxedShellOnASpare checks that run_shell behaves alike when its
// command starts on the sandbox's spare helper, which is ready here before
// each call: the command runs as the spare's process, in the workspace, with
// empty input; stdout and stderr come in order, long output is cut, a
// signal is reported, a refusal gets the sandbox's note, and a timeout or a
// cancellation kills the whole group.
func TestSandboxedShellOnASpare(t *testing.T) {
	e := sandboxEnv(t, sandbox.Config{}, needLandlock(t))
	sb := e.ws.Sandbox()
	call := func(args map[string]any) tool.Return {
		t.Helper()
		if !sb.Warm() {
			t.Fatal("no spare helper became ready")
		}
		return e.tools["run_shell"].Call(context.Background(), mustJSON(t, args))
	}

	if !sb.Warm() {
		t.Fatal("no spare helper became ready")
	}
	spare := spareProcess(t)
	if got := wantSuccess(t, e.tools["run_shell"].Call(context.Background(), mustJSON(t, map[string]any{"command": "echo $$; pwd"}))); got != fmt.Sprintf("%d\n%s\nexit status: 0", spare, e.root) {
		t.Errorf("got %q, want the spare's process %d in the workspace", got, spare)
	}
	if got := wantSuccess(t, call(map[string]any{"command": "echo out; echo err >&2; cat; echo again"})); got != "out\nerr\nagain\nexit status: 0" {
		t.Errorf("output: %q", got)
	}
	got := wantSuccess(t, call(map[string]any{"command": "echo first; head -c 200000 /dev/zero | tr '\\0' a; echo; echo last"}))
	wantContains(t, got, fmt.Sprintf("\n… %d bytes cut …\n", 200000+len("first\n\nlast\n")-shellHeadBytes-shellTailBytes), "aaa\nlast\nexit status: 0")
	got = wantKind(t, call(map[string]any{"command": "kill -SEGV $$"}), tool.KindOther)
	wantContains(t, got, "exit status: killed by signal segmentation fault")
	wantKind(t, call(map[string]any{"command": "echo pwned > ../outside/victim"}), tool.KindOther,
		"../outside/victim: Permission denied\nexit status: 1\n\nThe sandbox may have blocked this command.")

	wantKind(t, call(map[string]any{"command": "echo started; sleep 1000 & echo $! > pid; wait", "timeout_s": 1}), tool.KindTimeout,
		"started\n", "… timed out after 1s; the command and every process it started were killed")
	waitGone(t, readPID(t, filepath.Join(e.root, "pid")))

	if !sb.Warm() {
		t.Fatal("no spare helper became ready")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan tool.Return, 1)
	go func() {
		done <- e.tools["run_shell"].Call(ctx, mustJSON(t, map[string]any{"command": "sleep 1000 & echo $! > pid2; wait"}))
	}()
	pid := readPID(t, filepath.Join(e.root, "pid2"))
	cancel()
	select {
	case r := <-done:
		wantKind(t, r, tool.KindCancelled, "… cancelled; the command and every process it started were killed")
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return after its context was cancelled")
	}
	waitGone(t, pid)
}

// spareProcess returns the process id of this program's one spare sandbox
// helper, found as ps would find it.
func spareProcess(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := strconv.Itoa(os.Getpid())
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if len(fields) > 1 && fields[1] == self && bytes.HasPrefix(cmdline, []byte("agenttui-sandbox\x00__agenttui_sandbox_spare")) {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("spare helpers %v, want one", found)
	}
	return found[0]
}
