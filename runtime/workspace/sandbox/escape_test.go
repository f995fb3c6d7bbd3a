//go:build linux

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEscapesFail runs real commands that try to change something outside
// the workspace and checks, on the filesystem, that each failed and that
// nothing outside changed: started on a spare helper and on a helper of
// their own.
func TestEscapesFail(t *testing.T) {
	for _, how := range bothWays {
		t.Run(string(how), func(t *testing.T) { testEscapesFail(t, how) })
	}
}

func testEscapesFail(t *testing.T, how via) {
	f := newFixture(t, Config{})
	f.via = how
	var tag [6]byte
	rand.Read(tag[:])
	inTmp := filepath.Join(os.TempDir(), "agenttui-escape-"+hex.EncodeToString(tag[:]))
	t.Cleanup(func() { os.Remove(inTmp) })
	f.writeFile(filepath.Join(f.ws, "mine.txt"), "mine\n")
	if err := os.Symlink(f.outside, filepath.Join(f.ws, "out-link")); err != nil {
		t.Fatal(err)
	}

	cases := []struct{ name, script string }{
		{"write to /tmp/x", "echo pwned > " + inTmp},
		{"write to $HOME/x", "echo pwned > $HOME/x"},
		{"write to ../x", "echo pwned > ../x"},
		{"append to a file outside", "echo pwned >> ../outside/victim"},
		{"truncate a file outside", ": > ../outside/victim"},
		{"write through a symlink inside that points outside", "echo pwned > out-link/victim"},
		{"create through a symlink inside that points outside", "echo pwned > out-link/new"},
		{"a symlink the command makes", "ln -s ../outside made-link && echo pwned > made-link/new2"},
		{"mv a workspace file to outside", "mv mine.txt ../outside/"},
		{"hard link to a file outside", "ln ../outside/victim hard && echo pwned >> hard"},
		{"rename a file outside", "mv ../outside/victim ../outside/moved"},
		{"delete a file outside", "rm -f ../outside/victim"},
		{"make a folder outside", "mkdir ../outside/made"},
		{"copy over a file outside", "cp /dev/null ../outside/victim"},
	}
	before := snapshot(t, f.base)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.t = t
			out := f.mustFail(c.script)
			if !strings.Contains(out, "Permission denied") && !strings.Contains(out, "cross-device") {
				t.Errorf("the refusal does not read as one:\n%s", out)
			}
		})
	}
	f.t = t
	after := snapshot(t, f.base)
	// The command that made a symlink inside the workspace did so, and
	// nothing else changed anywhere: not outside, not in the home folder,
	// not the workspace file that was to be moved.
	delete(after, filepath.Join(f.ws, "made-link"))
	sameSnapshot(t, "after the escapes", before, after)
	if _, err := os.Lstat(inTmp); err == nil {
		t.Errorf("%s was created", inTmp)
	}
}

// TestNetworkIsRefused checks that a sandboxed command can neither connect
// to a TCP listener on 127.0.0.1 nor listen on a port — with bash's
// /dev/tcp and with Go, whose listeners use Multipath TCP when they can,
// which Landlock does not cover — and that UDP is refused too, on a spare
// helper and on a helper of its own.
func TestNetworkIsRefused(t *testing.T) {
	for _, how := range bothWays {
		t.Run(string(how), func(t *testing.T) { testNetworkIsRefused(t, how) })
	}
}

func testNetworkIsRefused(t *testing.T, how via) {
	f := newFixture(t, Config{})
	f.via = how
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr)
	probe := probeCommand(t)

	out := f.mustFail("echo hello > /dev/tcp/127.0.0.1/" + strconv.Itoa(addr.Port))
	wantContains(t, out, "Permission denied")
	out = f.mustFail(probe, "SANDBOX_PROBE=dial "+addr.String())
	wantContains(t, out, "probe failed", "permission denied")
	out = f.mustFail(probe, "SANDBOX_PROBE=listen")
	wantContains(t, out, "probe failed", "permission denied")
	out = f.mustFail(probe, "SANDBOX_PROBE=udp 127.0.0.1:9")
	wantContains(t, out, "probe failed", "permission denied")

	// The connections would be waiting to be accepted by now: connect
	// returns once the handshake is done. None is.
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Error("a sandboxed command connected to the listener")
	}
}

// TestNetworkAllowed checks that "network": true lets commands connect and
// listen, while files stay confined.
func TestNetworkAllowed(t *testing.T) {
	f := newFixture(t, Config{Network: true})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	probe := probeCommand(t)
	wantContains(t, f.mustSucceed(probe, "SANDBOX_PROBE=dial "+ln.Addr().String()), "connected to")
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
	wantContains(t, f.mustSucceed(probe, "SANDBOX_PROBE=listen"), "listening on 127.0.0.1:")
	f.mustFail("echo pwned > ../outside/victim")
	if f.sb.Status() != "shell: sandboxed (workspace-write, network allowed)" {
		t.Errorf("status %q", f.sb.Status())
	}
}

// probeCommand returns the shell word that runs this test binary as a
// network probe.
func probeCommand(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "'" + exe + "'"
}

// TestWorkInsideTheWorkspace checks what a sandboxed command must still be
// able to do: write the workspace and its temporary folder, write to
// /dev/null, build a Go program and commit with git.
func TestWorkInsideTheWorkspace(t *testing.T) {
	f := newFixture(t, Config{})
	out := f.mustSucceed(`set -e
echo hello > made.txt && cat made.txt
mkdir -p sub/deeper && echo x > sub/deeper/y && mv sub/deeper/y sub/z && rm -r sub/deeper
echo "tmp=$TMPDIR" && echo t > "$TMPDIR/t" && cat "$TMPDIR/t"
mktemp > /dev/null
echo gone > /dev/null && head -c 4 /dev/zero | wc -c
cat <<EOF
heredoc works
EOF
echo to-stderr >&2`)
	wantContains(t, out, "hello", "tmp="+f.sb.TempDir(), "heredoc works", "to-stderr")
	if data, err := os.ReadFile(filepath.Join(f.ws, "sub", "z")); err != nil || string(data) != "x\n" {
		t.Errorf("sub/z: %q %v", data, err)
	}

	t.Run("git commit", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		f.t = t
		out := f.mustSucceed(`set -e
git init -q .
echo content > tracked.txt
git add tracked.txt
git -c user.name=agent -c user.email=agent@example.com commit -q -m "first commit"
git log --format=%s`)
		wantContains(t, out, "first commit")
	})

	t.Run("go build", func(t *testing.T) {
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Skip("go is not installed")
		}
		f.t = t
		dir := filepath.Join(f.ws, "hello")
		f.writeFile(filepath.Join(dir, "go.mod"), "module hello\n\ngo 1.21\n")
		f.writeFile(filepath.Join(dir, "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built in the sandbox\") }\n")
		// The test's own build cache, which stays read-only: go build
		// reads what it can and does not fail on what it cannot store.
		// No network.
		cache, err := exec.Command(goBin, "env", "GOCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		out := f.mustSucceed("cd hello && '"+goBin+"' build -o hello . && ./hello",
			"GOCACHE="+strings.TrimSpace(string(cache)), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
		wantContains(t, out, "built in the sandbox")
	})
}

// TestReadOnlyMode checks that read-only lets a command change nothing but
// its temporary folder.
func TestReadOnlyMode(t *testing.T) {
	f := newFixture(t, Config{Mode: ReadOnly, Writable: []string{"../outside"}})
	f.writeFile(filepath.Join(f.ws, "file.txt"), "keep\n")
	before := snapshot(t, f.base)
	out := f.mustSucceed(`cat file.txt; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"`)
	wantContains(t, out, "keep", "t")
	f.mustFail("echo changed > file.txt")
	f.mustFail("touch new.txt")
	f.mustFail("echo pwned > ../outside/victim")
	sameSnapshot(t, "read-only", before, snapshot(t, f.base))
	if got := f.sb.Writable(); len(got) != 1 || got[0] != f.sb.TempDir() {
		t.Errorf("writable %v, want only the temporary folder", got)
	}
}

// TestExtraWritable checks that a configured extra folder is writable.
func TestExtraWritable(t *testing.T) {
	f := newFixture(t, Config{Writable: []string{"../outside"}})
	f.mustSucceed("echo changed > ../outside/victim")
	if got := f.sb.Writable(); len(got) != 3 || got[1] != f.outside {
		t.Errorf("writable %v", got)
	}
}

// TestProtectGit checks that with protect_git the workspace stays writable
// but its .git does not, so a commit fails and no hook can be planted.
func TestProtectGit(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	setup := exec.Command("bash", "-c", `set -e; mkdir -p ws/src; cd ws; git init -q .; echo a > top.txt; echo b > src/b.txt
git add -A; git -c user.name=a -c user.email=a@b commit -q -m one`)
	setup.Dir = base
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ws, _ = filepath.EvalSymlinks(ws)
	sb, err := New(ws, Config{ProtectGit: true}, Detect())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	gitBefore := snapshot(t, filepath.Join(ws, ".git"))
	out, code := runIn(t, sb, ws, "echo changed > top.txt && echo new > src/new.txt && echo ok")
	if code != 0 || !strings.Contains(out, "ok") {
		t.Errorf("writing the workspace failed:\n%s", out)
	}
	for _, script := range []string{
		// The workspace root itself is not writable then, only its
		// entries, each on its own.
		"touch new-at-the-top.txt",
		"echo evil > .git/hooks/pre-commit",
		"ln -s ../../top.txt .git/hooks/post-checkout",
		"rm .git/HEAD",
		"git add -A && git -c user.name=a -c user.email=a@b commit -q -m two",
	} {
		if out, code := runIn(t, sb, ws, script); code == 0 {
			t.Errorf("%q succeeded with protect_git:\n%s", script, out)
		}
	}
	sameSnapshot(t, ".git", gitBefore, snapshot(t, filepath.Join(ws, ".git")))
	if p := sb.Protected(); len(p) != 1 || p[0] != filepath.Join(ws, ".git") {
		t.Errorf("protected %v", p)
	}
}

// TestWorktreeGitDirs checks that a worktree's git folders, kept outside it,
// stay writable so the agent can commit there, and that a .git file pointing
// at another repository's git folder is not trusted.
func TestWorktreeGitDirs(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	setup := exec.Command("bash", "-c", `set -e
mkdir main other; cd main; git init -q .; echo a > a.txt; git add a.txt; git -c user.name=a -c user.email=a@b commit -q -m one
git worktree add -q ../wt
cd ../other; git init -q .
cd ..; mkdir forged; echo "gitdir: $PWD/other/.git" > forged/.git`)
	setup.Dir = base
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wt := filepath.Join(base, "wt")
	sb, err := New(wt, Config{}, Detect())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if got := sb.Writable(); len(got) != 3 || got[1] != filepath.Join(base, "main", ".git") {
		t.Fatalf("writable %v, want the worktree, main/.git and the temporary folder", got)
	}
	out, code := runIn(t, sb, wt, "echo b > b.txt && git add b.txt && git -c user.name=a -c user.email=a@b commit -q -m two && git log --format=%s")
	if code != 0 || !strings.Contains(out, "two") {
		t.Errorf("committing in the worktree failed:\n%s", out)
	}

	forged, err := New(filepath.Join(base, "forged"), Config{}, Detect())
	if err != nil {
		t.Fatal(err)
	}
	defer forged.Close()
	if got := forged.Writable(); len(got) != 2 {
		t.Errorf("a forged .git file made %v writable", got)
	}
}

// TestSwappedRootFailsClosed checks that when a writable folder is replaced
// by a symbolic link after the session started, the helper refuses to run
// the command rather than make the link's target writable. A spare checks
// the roots when it takes the command, not when it started: here it was
// ready before the swap.
func TestSwappedRootFailsClosed(t *testing.T) {
	for _, how := range bothWays {
		t.Run(string(how), func(t *testing.T) { testSwappedRootFailsClosed(t, how) })
	}
}

func testSwappedRootFailsClosed(t *testing.T, how via) {
	needLandlock(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, extra, outside := filepath.Join(base, "ws"), filepath.Join(base, "extra"), filepath.Join(base, "outside")
	for _, d := range []string{ws, extra, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := New(ws, Config{Writable: []string{"../extra"}}, Detect())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if how == viaSpare {
		readySpare(t, sb)
	}
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, extra); err != nil {
		t.Fatal(err)
	}
	out, code := runVia(t, sb, how, ws, "echo pwned > ../extra/victim")
	if code != helperFailed {
		t.Errorf("exit %d, want %d", code, helperFailed)
	}
	wantContains(t, out, helperPrefix+"the writable folder "+extra, "the command did not run")
	if _, err := os.Stat(filepath.Join(outside, "victim")); err == nil {
		t.Error("the command wrote through the swapped-in link")
	}
}

// TestCannotSignalOutside checks that a sandboxed command cannot signal a
// process outside the sandbox, such as the program that started it
// (Landlock ABI 6 and later).
func TestCannotSignalOutside(t *testing.T) {
	f := newFixture(t, Config{})
	if Detect().ABI < 6 {
		t.Skip("this kernel's Landlock (ABI < 6) does not scope signals")
	}
	out := f.mustFail("kill -0 " + strconv.Itoa(os.Getpid()))
	wantContains(t, out, "Operation not permitted")
	f.mustSucceed("sleep 10 & kill $!")
}

// TestUnrestrictedAfterwards checks that running sandboxed commands leaves
// the program that runs them unrestricted: it can still write outside the
// workspace and connect to a listener.
func TestUnrestrictedAfterwards(t *testing.T) {
	f := newFixture(t, Config{})
	for range 3 {
		f.mustFail("echo pwned > ../outside/victim")
	}
	if err := os.WriteFile(f.victim, []byte("changed by the test\n"), 0o644); err != nil {
		t.Fatalf("the test process itself was restricted: %v", err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "NoNewPrivs:\t0") {
		t.Errorf("no_new_privs is set on the test process:\n%s", status)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("the test process cannot listen: %v", err)
	}
	ln.Close()
}
