//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSpareRunsTheCommandSandboxed checks that a command started on a spare
// runs as the spare's process, in the sandbox: it can write the workspace
// and its temporary folder, not outside.
func TestSpareRunsTheCommandSandboxed(t *testing.T) {
	f := newFixture(t, Config{})
	pid := readySpare(t, f.sb)
	before := snapshot(t, f.outside)
	out, code := f.run(`echo "pid=$$"; echo made > made.txt; echo t > "$TMPDIR/t"; echo pwned > ../outside/victim`)
	if code == 0 || !strings.Contains(out, "pid="+strconv.Itoa(pid)+"\n") {
		t.Errorf("exit %d, want a failure, in process %d:\n%s", code, pid, out)
	}
	wantContains(t, out, "../outside/victim: Permission denied")
	sameSnapshot(t, "outside", before, snapshot(t, f.outside))
	if data, err := os.ReadFile(filepath.Join(f.ws, "made.txt")); err != nil || string(data) != "made\n" {
		t.Errorf("the workspace write: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(f.sb.TempDir(), "t")); err != nil {
		t.Errorf("the temporary folder write: %v", err)
	}
	f.sb.Close()
	if pids := spareProcesses(t); len(pids) > 0 {
		t.Errorf("spares left after Close: %v", pids)
	}
}

// TestSpareTakesTheRequest checks that a command on a spare gets the
// environment, folder and standard input of its own request, not what the
// console had when the spare started, and that a folder it cannot enter is
// an error of Start, as for any command, with nothing run.
func TestSpareTakesTheRequest(t *testing.T) {
	f := newFixture(t, Config{})
	sub := filepath.Join(f.ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	stdin := filepath.Join(f.base, "stdin.txt")
	f.writeFile(stdin, "from stdin\n")
	script := `echo "stale=$SPARE_STALE fresh=$SPARE_FRESH a=$A tmp=$TMPDIR"; pwd; cat`

	// The spare starts while SPARE_STALE is set; the command is asked for
	// after it is gone, and SPARE_FRESH set.
	t.Setenv("SPARE_STALE", "from the spare's start")
	readySpare(t, f.sb)
	os.Unsetenv("SPARE_STALE")
	t.Setenv("SPARE_FRESH", "from the request")
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = sub
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := startAndWait(t, f.sb, viaSpare, cmd)
	want := "stale= fresh=from the request a= tmp=" + f.sb.TempDir() + "\n" + sub + "\n"
	if err != nil || out != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}

	// An explicit environment, with a variable set twice and its own
	// TMPDIR; standard input from a file.
	in, err := os.Open(stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd = exec.Command("bash", "-c", script)
	cmd.Dir = f.ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "A=1", "TMPDIR=/elsewhere", "A=2"}
	cmd.Stdin = in
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err = startAndWait(t, f.sb, viaSpare, cmd)
	want = "stale= fresh= a=2 tmp=" + f.sb.TempDir() + "\n" + f.ws + "\nfrom stdin\n"
	if err != nil || out != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}

	// A folder that is not there.
	readySpare(t, f.sb)
	missing := filepath.Join(f.ws, "missing")
	cmd = exec.Command("bash", "-c", "echo ran > "+filepath.Join(f.ws, "ran.txt"))
	cmd.Dir = missing
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_, err = f.sb.Start(cmd)
	var pathErr *fs.PathError
	if !errors.As(err, &pathErr) || pathErr.Op != "chdir" || pathErr.Path != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "ran.txt")); err == nil {
		t.Error("the command ran")
	}
	if out, code := f.run("echo next"); code != 0 || out != "next\n" {
		t.Errorf("the next command: %d %q", code, out)
	}
}

// TestSpareIsReplaced checks that a spare serves one command and that the
// next command gets a new spare.
func TestSpareIsReplaced(t *testing.T) {
	f := newFixture(t, Config{})
	var pids []int
	for range 3 {
		pid := readySpare(t, f.sb)
		out, code := f.run("echo $$")
		if code != 0 || out != strconv.Itoa(pid)+"\n" {
			t.Fatalf("exit %d, output %q, want the spare's process %d", code, out, pid)
		}
		pids = append(pids, pid)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(pids)))) != 3 {
		t.Errorf("spares %v: one served twice", pids)
	}
	// The spares that ran a command are gone; only the next one waits.
	next := readySpare(t, f.sb)
	if got := spareProcesses(t); !slices.Equal(got, []int{next}) || slices.Contains(pids, next) {
		t.Errorf("spare processes %v, want only the next spare %d, after commands on %v", got, next, pids)
	}
}

// TestCloseEndsTheSpare checks that closing the sandbox ends the spare that
// waits and one being started, and leaves none behind.
func TestCloseEndsTheSpare(t *testing.T) {
	f := newFixture(t, Config{})
	pid := readySpare(t, f.sb)
	exited := pidExit(t, pid)
	if err := f.sb.Close(); err != nil {
		t.Fatal(err)
	}
	if !exited(0) {
		t.Errorf("the spare %d still runs after Close", pid)
	}

	other := newFixture(t, Config{})
	// A spare starts in the background; Close comes before it is ready.
	other.sb.spares.fill()
	other.sb.Close()
	if pids := spareProcesses(t); len(pids) > 0 {
		t.Errorf("spares left after Close: %v", pids)
	}
	if other.sb.Warm() {
		t.Error("a closed sandbox warmed a spare")
	}
}

// TestSpareEndsWithItsConsole checks that a spare whose console died without
// closing the sandbox ends by itself: a program (this test binary) makes a
// spare ready, says its process id, and is killed.
func TestSpareEndsWithItsConsole(t *testing.T) {
	needLandlock(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	console := exec.Command(exe)
	console.Env = append(os.Environ(), "SANDBOX_SPARE_CONSOLE="+t.TempDir(), "TMPDIR="+t.TempDir())
	stdout, err := console.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := console.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := console.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	pid, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil {
		console.Process.Kill()
		console.Wait()
		t.Fatalf("the console said %q: %v %v", line, err, convErr)
	}
	exited := pidExit(t, pid)
	if exited(0) {
		t.Fatal("the spare ended while its console ran")
	}
	console.Process.Kill()
	console.Wait()
	if !exited(time.Minute) {
		t.Errorf("the spare %d still runs a minute after its console died", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// runSpareConsole is the console of TestSpareEndsWithItsConsole: it makes a
// sandbox over ws, makes its spare ready, writes the spare's process id, and
// waits for its standard input to end (it is killed first).
func runSpareConsole(ws string) int {
	sb, err := New(ws, Config{}, Detect())
	if err != nil || !sb.Warm() {
		return 1
	}
	sb.spares.mu.Lock()
	pid := sb.spares.spare.cmd.Process.Pid
	sb.spares.mu.Unlock()
	os.Stdout.WriteString(strconv.Itoa(pid) + "\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	sb.Close()
	return 0
}

// TestSpareFallsBack checks that a command whose spare is gone, or that
// finds no spare because none can start, runs on a helper of its own, in
// the sandbox all the same.
func TestSpareFallsBack(t *testing.T) {
	f := newFixture(t, Config{})
	before := snapshot(t, f.outside)
	script := `echo "pid=$$"; echo made >> made.txt; echo pwned > ../outside/victim`
	check := func(what string, notPID int) {
		t.Helper()
		out, code := runVia(t, f.sb, viaStart, f.ws, script)
		if code == 0 || strings.Contains(out, "pid="+strconv.Itoa(notPID)+"\n") {
			t.Errorf("%s: exit %d, output %q; want a failure, not in process %d", what, code, out, notPID)
		}
		wantContains(t, out, "pid=", "../outside/victim: Permission denied")
	}

	pid := readySpare(t, f.sb)
	exited := pidExit(t, pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	check("the spare was killed", pid)
	if !exited(0) {
		t.Errorf("the killed spare %d was not reaped", pid)
	}

	f.sb.Close()
	// The sandbox is closed, so nothing starts spares while the path
	// changes, nor while it changes back: the cleanup closes the next
	// sandbox first.
	spareHelperPath = func() string { return filepath.Join(f.base, "no-such-program") }
	t.Cleanup(func() { spareHelperPath = helperPath })
	f.sb, _ = New(f.ws, Config{}, Detect())
	t.Cleanup(func() { f.sb.Close() })
	if f.sb.Warm() {
		t.Fatal("a spare that cannot start is ready")
	}
	check("no spare can start", 0)
	sameSnapshot(t, "outside", before, snapshot(t, f.outside))
	if data, _ := os.ReadFile(filepath.Join(f.ws, "made.txt")); string(data) != "made\nmade\n" {
		t.Errorf("the commands' workspace writes: %q", data)
	}
}

// pidExit opens process pid and returns a function that waits up to d for
// it to end, and reports whether it did. d is a bound for a failure, never
// a pause: the function returns as soon as the process ends.
func pidExit(t *testing.T, pid int) func(d time.Duration) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("process %d: %v", pid, err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return func(d time.Duration) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, int(d.Milliseconds()))
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			return n == 1
		}
	}
}

// spareProcesses returns the process ids of this program's children that
// are spare helpers.
func spareProcesses(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := strconv.Itoa(os.Getpid())
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name, in parentheses: state, ppid.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != self {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if slices.Contains(strings.Split(string(cmdline), "\x00"), spareCommand) {
			pids = append(pids, pid)
		}
	}
	return pids
}
