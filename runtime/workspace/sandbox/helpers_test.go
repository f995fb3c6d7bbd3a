//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// This package's test binary is its own tiny helper: the package's init runs
// the helper when Wrap starts it, and a spare helper. Started with
// SANDBOX_PROBE set, it is a network probe instead, so the tests can try Go's
// own networking (which listens with Multipath TCP by default) from inside
// the sandbox; with SANDBOX_SPARE_CONSOLE set, a console that dies with a
// spare ready.
func TestMain(m *testing.M) {
	if probe := os.Getenv("SANDBOX_PROBE"); probe != "" {
		os.Exit(runProbe(probe))
	}
	if ws := os.Getenv("SANDBOX_SPARE_CONSOLE"); ws != "" {
		os.Exit(runSpareConsole(ws))
	}
	os.Exit(m.Run())
}

// runProbe tries one network operation and says how it went: "listen",
// "dial ADDR" (TCP) or "udp ADDR".
func runProbe(probe string) int {
	what, addr, _ := strings.Cut(probe, " ")
	var err error
	switch what {
	case "listen":
		var ln net.Listener
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err == nil {
			fmt.Println("listening on", ln.Addr())
			ln.Close()
		}
	case "dial":
		var c net.Conn
		if c, err = net.Dial("tcp", addr); err == nil {
			fmt.Println("connected to", addr)
			c.Close()
		}
	case "udp":
		var c net.Conn
		if c, err = net.Dial("udp", addr); err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
		if err == nil {
			fmt.Println("sent a datagram to", addr)
		}
	default:
		err = errors.New("unknown probe " + probe)
	}
	if err != nil {
		fmt.Println("probe failed:", err)
		return 1
	}
	return 0
}

// needLandlock skips a test that needs the kernel's Landlock, saying why.
func needLandlock(t *testing.T) Support {
	t.Helper()
	s := Detect()
	if s.ABI < 1 {
		t.Skip("this kernel has no Landlock, so the sandbox cannot be tried here")
	}
	return s
}

// fixture is a workspace beside folders that lie outside it: base/ws is the
// workspace, base/outside holds a file commands must not change, base/home
// is the commands' HOME. Its commands start as via says.
type fixture struct {
	t                       *testing.T
	base, ws, outside, home string
	victim                  string
	sb                      *Sandbox
	via                     via
}

// via is how a test starts a sandboxed command.
type via string

const (
	// viaSpare starts it on a spare helper that is ready, as run_shell's
	// commands usually start.
	viaSpare via = "spare"
	// viaHelper starts a helper for it alone (Wrap), as Start does when
	// there is no spare.
	viaHelper via = "helper"
	// viaStart calls Start without waiting for a spare.
	viaStart via = "start"
)

// bothWays are the ways to start a command, for the tests that check the
// sandbox holds whichever way its command started.
var bothWays = []via{viaSpare, viaHelper}

const victimText = "untouched\n"

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	support := needLandlock(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, via: viaSpare, base: base, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), home: filepath.Join(base, "home")}
	for _, d := range []string{f.ws, f.outside, f.home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.victim = filepath.Join(f.outside, "victim")
	f.writeFile(f.victim, victimText)
	f.sb, err = New(f.ws, cfg, support)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.sb.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

func (f *fixture) writeFile(p, content string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// run runs script with bash -c in the workspace, in the sandbox, and returns
// its output and exit code.
func (f *fixture) run(script string, env ...string) (string, int) {
	f.t.Helper()
	return runVia(f.t, f.sb, f.via, f.ws, script, append([]string{"HOME=" + f.home}, env...)...)
}

// runIn runs script with bash -c in dir, in the sandbox, on a spare helper,
// and returns its output and exit code.
func runIn(t *testing.T, sb *Sandbox, dir, script string, env ...string) (string, int) {
	t.Helper()
	return runVia(t, sb, viaSpare, dir, script, env...)
}

// runVia runs script with bash -c in dir, in the sandbox, started as how
// says, the way run_shell runs a command: in its own process group, its
// output and errors on one pipe. It returns the output and exit code.
func runVia(t *testing.T, sb *Sandbox, how via, dir, script string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := startAndWait(t, sb, how, cmd)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &exit):
		return out, exit.ExitCode()
	}
	t.Fatalf("running %q: %v", script, err)
	return "", 0
}

// startAndWait starts cmd in the sandbox as how says, with its output and
// errors on one pipe, and returns what it wrote and how it ended. With
// viaSpare, it first waits for the spare to be ready and fails the test
// unless cmd runs as that spare's process.
func startAndWait(t *testing.T, sb *Sandbox, how via, cmd *exec.Cmd) (string, error) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	var run *exec.Cmd
	switch how {
	case viaSpare:
		spare := readySpare(t, sb)
		run, err = sb.Start(cmd)
		if err == nil && run.Process.Pid != spare {
			t.Errorf("the command runs as process %d, not as the spare %d", run.Process.Pid, spare)
		}
	case viaStart:
		run, err = sb.Start(cmd)
	case viaHelper:
		if err = sb.Wrap(cmd); err == nil {
			run, err = cmd, cmd.Start()
		}
	default:
		t.Fatalf("no way to start a command called %q", how)
	}
	pw.Close()
	if err != nil {
		t.Fatalf("starting %q: %v", cmd.Args, err)
	}
	out, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), run.Wait()
}

// readySpare waits until sb has a spare helper ready and returns its
// process id.
func readySpare(t *testing.T, sb *Sandbox) int {
	t.Helper()
	if !sb.Warm() {
		t.Fatal("no spare helper became ready")
	}
	sb.spares.mu.Lock()
	defer sb.spares.mu.Unlock()
	if sb.spares.spare == nil {
		t.Fatal("the ready spare is gone")
	}
	return sb.spares.spare.cmd.Process.Pid
}

// mustFail fails the test unless script failed; it returns the output.
func (f *fixture) mustFail(script string, env ...string) string {
	f.t.Helper()
	out, code := f.run(script, env...)
	if code == 0 {
		f.t.Errorf("%q succeeded in the sandbox:\n%s", script, out)
	}
	return out
}

// mustSucceed fails the test unless script succeeded; it returns the output.
func (f *fixture) mustSucceed(script string, env ...string) string {
	f.t.Helper()
	out, code := f.run(script, env...)
	if code != 0 {
		f.t.Errorf("%q failed in the sandbox (exit %d):\n%s", script, code, out)
	}
	return out
}

// snapshot returns every entry under dir with what it holds, so a test can
// check that nothing there changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			got[p] = "link:" + target
			return err
		case d.IsDir():
			got[p] = "dir"
		default:
			data, err := os.ReadFile(p)
			got[p] = "file:" + string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: %s changed: %q → %q", what, p, v, after[p])
		}
	}
	for p, v := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared: %q", what, p, v)
		}
	}
}

func wantContains(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}
