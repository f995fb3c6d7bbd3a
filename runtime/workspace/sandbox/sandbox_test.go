package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	_, err := ParseMode("strict")
	if err == nil || err.Error() != `unknown sandbox mode "strict": use workspace-write, read-only or off` {
		t.Errorf("error: %v", err)
	}
}

// TestWithoutLandlock checks, through an injected kernel without Landlock,
// that the default turns the sandbox off and says so, and that asking for a
// sandbox explicitly is an error, never a silent downgrade.
func TestWithoutLandlock(t *testing.T) {
	ws := t.TempDir()
	none := Support{ABI: 0}

	sb, err := New(ws, Config{}, none)
	if err != nil {
		t.Fatal(err)
	}
	if sb.Enabled() || sb.Mode() != Off || sb.Writable() != nil || sb.TempDir() != "" {
		t.Errorf("default without Landlock: enabled %v, mode %s, writable %v", sb.Enabled(), sb.Mode(), sb.Writable())
	}
	if got := sb.Status(); got != "shell: not sandboxed: this kernel has no Landlock" {
		t.Errorf("status %q", got)
	}
	if sb.Why() != "this kernel has no Landlock" {
		t.Errorf("why %q", sb.Why())
	}

	for _, m := range []Mode{WorkspaceWrite, ReadOnly} {
		_, err := New(ws, Config{Mode: m}, none)
		var unavailable *UnavailableError
		if !errors.As(err, &unavailable) || unavailable.Mode != m {
			t.Fatalf("--sandbox %s without Landlock: %v, want an UnavailableError", m, err)
		}
		want := "the " + string(m) + " sandbox cannot be had: this kernel has no Landlock; " +
			"run with --sandbox off to run shell commands unsandboxed"
		if err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	}

	off, err := New(ws, Config{Mode: Off}, none)
	if err != nil || off.Enabled() || off.Status() != "shell: not sandboxed: the sandbox is off" {
		t.Errorf("--sandbox off: %v %v %q", off.Enabled(), err, off.Status())
	}
	if err := off.Wrap(exec.Command("true")); err == nil {
		t.Error("an off sandbox wrapped a command")
	}
}

// TestOffMode checks that --sandbox off turns the sandbox off even where the
// kernel has Landlock, and makes no temporary folder.
func TestOffMode(t *testing.T) {
	sb, err := New(t.TempDir(), Config{Mode: Off, Writable: []string{"/nonexistent"}}, Support{ABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	if sb.Enabled() || sb.TempDir() != "" || sb.Status() != "shell: not sandboxed: the sandbox is off" {
		t.Errorf("off: enabled %v, temp %q, status %q", sb.Enabled(), sb.TempDir(), sb.Status())
	}
	var nilSandbox *Sandbox
	if nilSandbox.Enabled() || nilSandbox.Mode() != Off || nilSandbox.Why() != "the sandbox is off" || nilSandbox.Close() != nil {
		t.Error("a nil sandbox is not off")
	}
}

// TestNewResolvesAndChecks checks the roots New works out, without running
// anything: the workspace, extra folders taken from the workspace, the
// temporary folder; and that a missing extra folder is an error.
func TestNewResolvesAndChecks(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, extra := filepath.Join(base, "ws"), filepath.Join(base, "extra")
	for _, d := range []string{ws, extra} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := New(ws, Config{Writable: []string{"../extra"}, ProtectGit: true}, Support{ABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	temp := sb.TempDir()
	if info, err := os.Stat(temp); err != nil || !info.IsDir() {
		t.Fatalf("temporary folder %q: %v", temp, err)
	}
	if got, want := sb.Writable(), []string{ws, extra, temp}; !slices.Equal(got, want) {
		t.Errorf("writable %v, want %v", got, want)
	}
	if got := sb.Status(); got != "shell: sandboxed (workspace-write, no network)" {
		t.Errorf("status %q", got)
	}
	for path, want := range map[string]bool{
		filepath.Join(ws, "a/b"): true, filepath.Join(extra, "x"): true, filepath.Join(temp, "t"): true,
		filepath.Join(ws, ".git/config"): false, filepath.Join(base, "other"): false, "/dev/null": true, "/etc/passwd": false,
	} {
		if sb.CanWrite(path) != want {
			t.Errorf("CanWrite(%s) = %v", path, !want)
		}
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(temp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Close left the temporary folder: %v", err)
	}

	_, err = New(ws, Config{Writable: []string{"missing"}}, Support{ABI: 7})
	if err == nil || err.Error() != "sandbox writable missing: "+filepath.Join(ws, "missing")+" does not exist" {
		t.Errorf("missing extra folder: %v", err)
	}
}

// TestWrapKeepsTheCommand checks what Wrap changes in a command: the program
// becomes the helper, which is handed the policy and the command; TMPDIR
// names the temporary folder; the rest is kept.
func TestWrapKeepsTheCommand(t *testing.T) {
	ws := t.TempDir()
	sb, err := New(ws, Config{}, Support{ABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	cmd := exec.Command("bash", "-c", "echo hi")
	cmd.Dir = ws
	cmd.Env = []string{"TMPDIR=/elsewhere", "KEEP=1"}
	bash := cmd.Path
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Path != "/proc/self/exe" || cmd.Dir != ws {
		t.Errorf("path %q, dir %q", cmd.Path, cmd.Dir)
	}
	if len(cmd.Args) != 7 || cmd.Args[1] != helperCommand || cmd.Args[3] != bash ||
		!slices.Equal(cmd.Args[4:], []string{"bash", "-c", "echo hi"}) {
		t.Errorf("args %q", cmd.Args)
	}
	p, err := decodePolicy(cmd.Args[2])
	if err != nil || !slices.Equal(p.Write, []string{ws, sb.TempDir()}) || p.Network || p.Protected != nil {
		t.Errorf("policy %+v, %v", p, err)
	}
	if !slices.Equal(cmd.Env, []string{"KEEP=1", "TMPDIR=" + sb.TempDir()}) {
		t.Errorf("env %q", cmd.Env)
	}
	missing := exec.Command("no-such-program-anywhere")
	if err := sb.Wrap(missing); err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("a missing program: %v", err)
	}
}

// TestRefusals checks which lines of a failed command's output read as the
// sandbox refusing something.
func TestRefusals(t *testing.T) {
	ws := "/w/ws"
	sb := &Sandbox{mode: WorkspaceWrite, workspace: ws, temp: "/tmp/agenttui-shell-1"}
	output := strings.Join([]string{
		"building…",
		"bash: line 1: /tmp/x: Permission denied",
		"touch: cannot touch 'own.txt': Permission denied", // inside: the file's own permissions
		"mv: cannot move ‘a.txt’ to ‘../outside/a.txt’: Permission denied",
		"ln: failed to create hard link 'hard' => '../outside/victim': Invalid cross-device link",
		"PermissionError: [Errno 13] Permission denied", // no path: a refused socket
		"curl: (7) Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server",
	}, "\n")
	got := sb.Refusals(output, ws)
	want := []string{
		"bash: line 1: /tmp/x: Permission denied",
		"mv: cannot move ‘a.txt’ to ‘../outside/a.txt’: Permission denied",
		"ln: failed to create hard link 'hard' => '../outside/victim': Invalid cross-device link",
	}
	if !slices.Equal(got, want) {
		t.Errorf("refusals:\n%q\nwant\n%q", got, want)
	}
	rest := "PermissionError: [Errno 13] Permission denied\n" +
		"curl: (7) Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server\n" +
		"curl: (6) Could not resolve host: example.com\n"
	if got := sb.Refusals(rest, ws); len(got) != 3 {
		t.Errorf("network refusals: %q", got)
	}
	sb.network = true
	if got := sb.Refusals(rest, ws); len(got) != 1 {
		t.Errorf("with the network allowed, only the path-less permission error counts: %q", got)
	}
	if got := sb.Refusals("all good\nexit 1\n", ws); got != nil {
		t.Errorf("no refusal: %q", got)
	}
	long := "cannot write /etc/" + strings.Repeat("é", 300) + ": Permission denied"
	if got := sb.Refusals(long, ws); len(got) != 1 || len(got[0]) > 204 || !strings.HasSuffix(got[0], "…") {
		t.Errorf("a long line is not cut: %q", got)
	}
}
