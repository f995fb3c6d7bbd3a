package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/tool"
)

func TestRunShell(t *testing.T) {
	e := newEnv(t)
	got := wantSuccess(t, e.call("run_shell", map[string]any{"command": "echo out; echo err >&2; echo again"}))
	if got != "out\nerr\nagain\nexit status: 0" {
		t.Errorf("output: %q", got)
	}
	if got := wantSuccess(t, e.call("run_shell", map[string]any{"command": "pwd"})); got != e.root+"\nexit status: 0" {
		t.Errorf("working folder: %q", got)
	}
	// Standard input is empty: cat ends at once instead of waiting.
	if got := wantSuccess(t, e.call("run_shell", map[string]any{"command": "cat; true"})); got != "(no output)\nexit status: 0" {
		t.Errorf("stdin: %q", got)
	}
	r := e.call("run_shell", map[string]any{"command": "echo failing; exit 3"})
	got = wantKind(t, r, tool.KindOther)
	if got != "failing\nexit status: 3" {
		t.Errorf("non-zero exit: %q", got)
	}
	// How the command ended is also the failure's code, which the
	// console shows without reading the output.
	if code := r.Outcome().Failure().Code; code != "exit:3" {
		t.Errorf("non-zero exit: code %q, want exit:3", code)
	}
	r = e.call("run_shell", map[string]any{"command": "kill -SEGV $$"})
	got = wantKind(t, r, tool.KindOther)
	wantContains(t, got, "exit status: killed by signal segmentation fault")
	if code := r.Outcome().Failure().Code; code != "signal:SIGSEGV" {
		t.Errorf("killed: code %q, want signal:SIGSEGV", code)
	}
	if code := e.call("run_shell", map[string]any{"command": "true"}).Outcome().Failure(); code != nil {
		t.Errorf("a command that exited 0 failed: %+v", code)
	}

	// The command runs in the workspace, so its writes land there.
	wantSuccess(t, e.call("run_shell", map[string]any{"command": "printf hi > made.txt"}))
	if e.read("made.txt") != "hi" {
		t.Error("the command did not run in the workspace")
	}
}

func TestRunShellBoundsOutput(t *testing.T) {
	e := newEnv(t)
	got := wantSuccess(t, e.call("run_shell", map[string]any{
		"command": "echo first; head -c 200000 /dev/zero | tr '\\0' a; echo; echo last",
	}))
	if !strings.HasPrefix(got, "first\naaa") || !strings.HasSuffix(got, "aaa\nlast\nexit status: 0") {
		t.Errorf("head or tail lost: %q … %q", got[:20], got[len(got)-40:])
	}
	wantContains(t, got, fmt.Sprintf("\n… %d bytes cut …\n", 200000+len("first\n\nlast\n")-shellHeadBytes-shellTailBytes))
	if len(got) > shellHeadBytes+shellTailBytes+100 {
		t.Errorf("output is %d bytes", len(got))
	}
}

func TestHeadTailKeepsRunes(t *testing.T) {
	var h headTail
	s := strings.Repeat("é", shellHeadBytes) // twice the head in bytes
	h.Write([]byte(s))
	h.Write([]byte(s))
	got := h.String()
	if strings.Contains(got, "\uFFFD") {
		t.Error("a character was cut in half")
	}
	wantContains(t, got, " bytes cut …\n")
}

// alive reports whether the process pid still runs. A zombie has ended; it
// only waits for a parent to collect it, and in a container nobody may.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// waitGone waits until pid has ended, polling with a deadline.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs: its process group was not killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPID waits for the file p to hold a process id and returns it.
func readPID(t *testing.T, p string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := os.ReadFile(p)
		if err == nil && strings.HasSuffix(string(data), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("pid file holds %q", data)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", p)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunShellTimeoutKillsTheGroup(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	r := e.call("run_shell", map[string]any{"command": "echo started; sleep 1000 & echo $! > pid; wait", "timeout_s": 1})
	got := wantKind(t, r, tool.KindTimeout, "started\n",
		"… timed out after 1s; the command and every process it started were killed")
	if strings.Contains(got, "exit status") {
		t.Errorf("a timed out command has no exit status: %q", got)
	}
	if f := r.Outcome().Failure(); !f.IsRetryable() || f.Code != "timeout:1s" {
		t.Errorf("a timeout should be retryable and say its limit: %+v", f)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the call took %v", d)
	}
	waitGone(t, readPID(t, filepath.Join(e.root, "pid")))
}

func TestRunShellCancelKillsTheGroup(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan tool.Return, 1)
	go func() {
		done <- e.tools["run_shell"].Call(ctx, mustJSON(t, map[string]any{
			"command": "sleep 1000 & echo $! > pid; wait",
		}))
	}()
	pid := readPID(t, filepath.Join(e.root, "pid"))
	cancel()
	var r tool.Return
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return after its context was cancelled")
	}
	wantKind(t, r, tool.KindCancelled, "… cancelled; the command and every process it started were killed")
	waitGone(t, pid)
}

func TestRunShellDoesNotWaitForBackgroundJobs(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	// The background sleep holds the output pipe open; the call must still
	// return when bash exits, and end the sleep.
	got := wantSuccess(t, e.call("run_shell", map[string]any{"command": "sleep 1000 & echo $! > pid; echo done"}))
	if got != "done\nexit status: 0" {
		t.Errorf("output: %q", got)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the call took %v", d)
	}
	waitGone(t, readPID(t, filepath.Join(e.root, "pid")))
}

// TestBinaryShellOutputIsSummarised runs a command that prints random
// bytes: the model reads a one-line description and the exit status, not
// mojibake.
func TestBinaryShellOutputIsSummarised(t *testing.T) {
	e := newEnv(t)
	out := wantSuccess(t, e.call("run_shell", map[string]any{"command": "head -c 300000 /dev/urandom"}))
	wantContains(t, out, "[The output is binary, not text (293 KiB), so it is not shown. Its first bytes, in hex: ", "exit status: 0")
	if len(out) > 1000 || strings.ContainsRune(out, '\uFFFD') {
		t.Errorf("the model reads %d bytes of it: %q", len(out), out)
	}
	text := wantSuccess(t, e.call("run_shell", map[string]any{"command": "printf 'plain text\\n'"}))
	if !strings.HasPrefix(text, "plain text\n") {
		t.Errorf("text output: %q", text)
	}
}
