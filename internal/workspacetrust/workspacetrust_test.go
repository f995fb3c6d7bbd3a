//go:build unix

package workspacetrust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/mcp"
)

// home gives the test a config and a state folder of its own, so that it
// reads no person's configuration and keeps its trust to itself.
func home(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
}

func write(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// load loads the workspace ws as a session there does: its agenttui.json,
// if it has one, is the configuration read.
func load(t *testing.T, ws string) *Workspace {
	t.Helper()
	var c *config.Config
	if path := filepath.Join(ws, "agenttui.json"); fileExists(path) {
		var err error
		if c, err = config.Load(path); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Load(ws, c, "")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// serverJSON is a .mcp.json whose server would leave marker if it started.
func serverJSON(marker string) string {
	return `{"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch ` + marker + `"], "env": {"T": "${X_TOKEN:-none}"}}}}`
}

// TestServersWaitForTrust loads a workspace whose .mcp.json defines a
// server: nothing of it starts until the person trusts it, the question
// shows its command, the trust is kept for the next session, and a change
// to the file asks again.
func TestServersWaitForTrust(t *testing.T) {
	home(t)
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	write(t, filepath.Join(ws, ".mcp.json"), serverJSON(marker), 0o644)

	w := load(t, ws)
	if !w.Pending() {
		t.Fatal("an untrusted .mcp.json does not wait for the person")
	}
	if c, err := w.Servers(); c != nil || err != nil {
		t.Fatalf("servers to start before trust: %v, %v", c, err)
	}
	if err := w.Verify(c0(t, w)); err == nil {
		t.Error("Verify lets an untrusted server start")
	}
	if n := w.UntrustedNotice().Text; !strings.Contains(n, ".mcp.json defines 1 MCP server that this workspace has not been trusted to run") ||
		!strings.Contains(n, "so it does not run; open the console here (agenttui) once to review and trust it") {
		t.Errorf("notice %q", n)
	}
	q := w.Ask()
	if q.ServersFile != filepath.Join(ws, ".mcp.json") || !slices.Equal(q.Servers, []string{`MCP server x: sh -c "touch ` + marker + `" (env T=${X_TOKEN:-none})`}) ||
		q.Changed || q.HooksOnly || len(q.Hooks) != 0 {
		t.Errorf("question %+v", q)
	}
	if err := q.Grant(); err != nil {
		t.Fatal(err)
	}
	c, err := w.Servers()
	if err != nil || c == nil || len(c.Servers) != 1 || c.Servers[0].Env["T"] != "none" {
		t.Fatalf("servers to start once trusted: %+v, %v", c, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("something started a server")
	}

	if w := load(t, ws); w.Pending() {
		t.Error("the next session asks again about the same servers")
	}
	write(t, filepath.Join(ws, ".mcp.json"), strings.Replace(serverJSON(marker), "touch", "touch -c", 1), 0o644)
	w = load(t, ws)
	if !w.Pending() || !w.Ask().Changed {
		t.Error("a changed server does not ask again, saying it changed")
	}
}

// c0 returns the workspace's first server, as written.
func c0(t *testing.T, w *Workspace) mcp.ServerConfig {
	t.Helper()
	if w.servers == nil || len(w.servers.Servers) == 0 {
		t.Fatal("no server")
	}
	return w.servers.Servers[0]
}

// TestTrustGivenToHooksAloneBefore loads a workspace whose hooks were
// trusted before servers needed trust, as the store then recorded it: it
// stays trusted while it has no servers, and once it has, the person is
// asked again and told that their trust covered the hooks alone.
func TestTrustGivenToHooksAloneBefore(t *testing.T) {
	home(t)
	ws := t.TempDir()
	write(t, filepath.Join(ws, "hooks", "pre.sh"), "#!/bin/sh\nexit 0\n", 0o755)
	write(t, filepath.Join(ws, "agenttui.json"), `{"hooks": {"PreToolUse": [{"matcher": "run_shell", "hooks": [{"type": "command", "command": "./hooks/pre.sh"}]}]}}`, 0o644)
	c, err := config.Load(filepath.Join(ws, "agenttui.json"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := config.TrustStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(ws, hooks.Digest(ws, c.Hooks.MarkWorkspace())); err != nil {
		t.Fatal(err)
	}
	if w := load(t, ws); w.Pending() {
		t.Fatal("hooks trusted before are asked about again")
	}
	write(t, filepath.Join(ws, ".mcp.json"), serverJSON(filepath.Join(t.TempDir(), "m")), 0o644)
	w := load(t, ws)
	if !w.Pending() {
		t.Fatal("servers added to a workspace whose hooks alone were trusted start without asking")
	}
	if q := w.Ask(); !q.HooksOnly || !q.Changed || len(q.Hooks) != 1 || len(q.Servers) != 1 {
		t.Errorf("question %+v", q)
	}
}

// TestVerifyChecksAServersFiles trusts a server that runs a script of the
// workspace, then changes the script: the server may no longer start.
func TestVerifyChecksAServersFiles(t *testing.T) {
	home(t)
	ws := t.TempDir()
	write(t, filepath.Join(ws, "server.sh"), "exec cat\n", 0o644)
	write(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {"s": {"command": "sh", "args": ["server.sh"]}}}`, 0o644)
	w := load(t, ws)
	if err := w.Ask().Grant(); err != nil {
		t.Fatal(err)
	}
	c, err := w.Servers()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Verify(c.Servers[0]); err != nil {
		t.Fatalf("the trusted server: %v", err)
	}
	write(t, filepath.Join(ws, "server.sh"), "touch pwned\n", 0o644)
	if err := w.Verify(c.Servers[0]); err == nil || !strings.Contains(err.Error(), "server.sh, which changed since this workspace was trusted") {
		t.Errorf("the changed server: %v", err)
	}
	if w := load(t, ws); !w.Pending() {
		t.Error("the next session does not ask about the changed server script")
	}
}

// TestABrokenTrustAsksAgain trusts a workspace's hook, changes its script
// and runs the hook as the session would: it is refused, OnBreak hears why,
// the question asked again says the hooks changed, and trusting it again
// runs and protects the new script; declining protects nothing.
func TestABrokenTrustAsksAgain(t *testing.T) {
	home(t)
	ws := t.TempDir()
	pre := filepath.Join(ws, "hooks", "pre.sh")
	write(t, pre, "#!/bin/sh\ncat >/dev/null\nexit 0\n", 0o755)
	write(t, filepath.Join(ws, "agenttui.json"), `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./hooks/pre.sh", "on_error": "deny"}]}]}}`, 0o644)
	w := load(t, ws)
	var mu sync.Mutex
	var protected [][]string
	var breaks []string
	w.SetProtect(func(p []string) {
		mu.Lock()
		protected = append(protected, p)
		mu.Unlock()
	})
	w.OnBreak(func(why string) {
		mu.Lock()
		breaks = append(breaks, why)
		mu.Unlock()
	})
	if len(protected) != 0 {
		t.Errorf("untrusted files were protected: %q", protected)
	}
	if err := w.Ask().Grant(); err != nil {
		t.Fatal(err)
	}
	r := &hooks.Runner{Config: w.Hooks(), Trust: w.Trust(), Dir: ws}
	in := hooks.Input{HookEventName: hooks.PreToolUse, ToolName: "run_shell"}
	if v := r.Run(t.Context(), in); v.Decision != hooks.None || len(v.Runs) != 1 || v.Runs[0].Error != "" {
		t.Fatalf("the trusted hook: %+v", v)
	}
	write(t, pre, "#!/bin/sh\ncat >/dev/null\ntouch pwned\n", 0o755)
	if v := r.Run(t.Context(), in); v.Decision != hooks.Deny || !v.Runs[0].Refused {
		t.Fatalf("the changed hook: %+v", v)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("the changed hook ran")
	}
	q := w.Ask()
	mu.Lock()
	if len(breaks) != 1 || !strings.Contains(breaks[0], "hooks/pre.sh, which changed") {
		t.Errorf("breaks %q", breaks)
	}
	mu.Unlock()
	if !q.Changed || q.HooksOnly {
		t.Errorf("the question asked again: %+v", q)
	}
	if err := q.Grant(); err != nil {
		t.Fatal(err)
	}
	if v := r.Run(t.Context(), in); v.Decision != hooks.None || v.Runs[0].Error != "" {
		t.Errorf("the hook trusted again: %+v", v)
	}
	w.Ask().Decline()
	mu.Lock()
	defer mu.Unlock()
	if len(protected) != 3 || !slices.Equal(protected[0], []string{pre}) || !slices.Equal(protected[1], []string{pre}) || len(protected[2]) != 0 {
		t.Errorf("protected %q; want the script at each trust, then nothing", protected)
	}
}
