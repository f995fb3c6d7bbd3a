//go:build unix

package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// workspaceHooks returns hooks of a workspace whose commands are marked as
// its own, and a Runner that runs them as trust allows.
func workspaceHooks(ws string, c Config, trust *Trust) *Runner {
	return &Runner{Config: c.MarkWorkspace(), Dir: ws, Trust: trust}
}

// TestRewrittenHookIsNotRun trusts a workspace whose PreToolUse hook runs
// ./hooks/pre.sh, rewrites the script (as a sandboxed command could, were
// the sandbox not to protect it) and runs the hook again: the new script
// does not run, the guard's on_error: deny blocks the call, the trust
// breaks once, saying why, and the workspace's other hooks stop too.
func TestRewrittenHookIsNotRun(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "pwned")
	if err := os.MkdirAll(filepath.Join(ws, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	script(t, filepath.Join(ws, "hooks"), "pre.sh", "cat >/dev/null\nexit 0\n")
	script(t, ws, "hook.sh", "cat >/dev/null\nexit 0\n")
	guard := Command{Type: "command", Command: "./hooks/pre.sh", OnError: OnErrorDeny}
	c := Config{
		PreToolUse:  {{Matcher: "run_shell", Hooks: []Command{guard}}},
		PostToolUse: {{Hooks: []Command{cmd("sh hook.sh")}}},
	}
	var mu sync.Mutex
	var breaks []string
	trust := NewTrust(func(why string) {
		mu.Lock()
		breaks = append(breaks, why)
		mu.Unlock()
	})
	r := workspaceHooks(ws, c, trust)
	if r.Has(PreToolUse, "run_shell") {
		t.Fatal("the workspace's hooks run before they are trusted")
	}
	trust.Grant(Take(ws, c.MarkWorkspace()))
	if v := r.Run(t.Context(), shellInput("ls")); v.Decision != None || len(v.Runs) != 1 || v.Runs[0].Error != "" {
		t.Fatalf("the trusted hook: %+v", v)
	}

	script(t, filepath.Join(ws, "hooks"), "pre.sh", "cat >/dev/null\ntouch "+marker+"\n")
	v := r.Run(t.Context(), shellInput("ls"))
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the rewritten hook ran")
	}
	if v.Decision != Deny || len(v.Runs) != 1 || !v.Runs[0].Refused ||
		!strings.Contains(v.Reason, "hooks/pre.sh, which changed since this workspace's hooks were trusted") ||
		!strings.Contains(v.Reason, "on_error: deny") {
		t.Fatalf("the rewritten guard: %+v", v)
	}
	mu.Lock()
	if len(breaks) != 1 || !strings.Contains(breaks[0], "./hooks/pre.sh") || !strings.Contains(breaks[0], "changed") {
		t.Errorf("the trust broke with %q", breaks)
	}
	mu.Unlock()

	// Broken, the trust keeps the guard refusing, so its calls stay
	// blocked, and leaves the hook that would let a call through out.
	if v := r.Run(t.Context(), shellInput("ls")); v.Decision != Deny || !strings.Contains(v.Reason, "off until they are trusted again") {
		t.Errorf("the guard after the trust broke: %+v", v)
	}
	if r.Has(PostToolUse, "read_file") {
		t.Error("a hook with on_error ignore still runs after the trust broke")
	}
	mu.Lock()
	if len(breaks) != 1 {
		t.Errorf("the trust broke %d times", len(breaks))
	}
	mu.Unlock()

	// Trusted again as it is now, the new script runs; withdrawn, nothing
	// of the workspace runs and nothing is refused.
	trust.Grant(Take(ws, c.MarkWorkspace()))
	if v := r.Run(t.Context(), shellInput("ls")); v.Decision != None || v.Runs[0].Error != "" {
		t.Errorf("the hook trusted again: %+v", v)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("the hook trusted again did not run")
	}
	trust.Withdraw()
	if r.Has(PreToolUse, "run_shell") || r.Has(PostToolUse, "read_file") {
		t.Error("the workspace's hooks run after the trust was withdrawn")
	}
}

// TestTrustNoticesEveryWayAFileChanges changes, in turn, the script named
// without a slash, the makefile, a script's presence and a file named by a
// word: each refuses the hook.
func TestTrustNoticesEveryWayAFileChanges(t *testing.T) {
	cases := []struct {
		name    string
		command string
		files   map[string]string
		change  func(ws string)
		want    string
	}{
		{"sh hook.sh edited", "sh hook.sh", map[string]string{"hook.sh": "exit 0\n"},
			func(ws string) { write(t, filepath.Join(ws, "hook.sh"), "exit 1\n") }, "hook.sh, which changed"},
		{"make -f hooks.mk edited", "make -s -f hooks.mk check", map[string]string{"hooks.mk": "check:\n\ttrue\n"},
			func(ws string) { write(t, filepath.Join(ws, "hooks.mk"), "check:\n\tfalse\n") }, "hooks.mk, which changed"},
		{"script removed", "./hooks/pre.sh", map[string]string{"hooks/pre.sh": "exit 0\n"},
			func(ws string) { os.Remove(filepath.Join(ws, "hooks", "pre.sh")) }, "hooks/pre.sh, which is gone"},
		{"script made unexecutable", "./hooks/pre.sh", map[string]string{"hooks/pre.sh": "exit 0\n"},
			func(ws string) { os.Chmod(filepath.Join(ws, "hooks", "pre.sh"), 0o644) }, "hooks/pre.sh, whose permissions changed"},
		{"script made", "sh later.sh", nil,
			func(ws string) { write(t, filepath.Join(ws, "later.sh"), "exit 0\n") }, "later.sh, which was not there"},
		{"named file made", "cat >/dev/null; sh -c 'echo ok' settings.conf", nil,
			func(ws string) { write(t, filepath.Join(ws, "settings.conf"), "x\n") }, "now runs settings.conf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			for name, body := range c.files {
				write(t, filepath.Join(ws, name), body)
			}
			hooks := one(PreToolUse, "", Command{Type: "command", Command: c.command})
			trust := NewTrust(nil)
			r := workspaceHooks(ws, hooks, trust)
			trust.Grant(Take(ws, hooks.MarkWorkspace()))
			c.change(ws)
			v := r.Run(t.Context(), shellInput("ls"))
			if len(v.Runs) != 1 || !v.Runs[0].Refused || !strings.Contains(v.Runs[0].Error, c.want) {
				t.Fatalf("runs %+v; want one refused, saying %q", v.Runs, c.want)
			}
			// Without on_error: deny, the call goes on, as for a hook that
			// could not start; the notice says why.
			if v.Decision != None {
				t.Errorf("decision %q", v.Decision)
			}
		})
	}
}

// TestSnapshotFiles lists the files a sandboxed command must not change:
// those that exist, whatever way the commands name them.
func TestSnapshotFiles(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "hooks", "pre.sh"), "exit 0\n")
	write(t, filepath.Join(ws, "hook.sh"), "exit 0\n")
	c := Config{
		PreToolUse: {{Hooks: []Command{cmd("./hooks/pre.sh > hooks.log"), cmd("sh hook.sh ./hooks/missing.sh")}}},
	}
	got := Take(ws, c).Files()
	want := []string{filepath.Join(ws, "hook.sh"), filepath.Join(ws, "hooks", "pre.sh")}
	if !slices.Equal(got, want) {
		t.Errorf("files %q; want %q", got, want)
	}
}
