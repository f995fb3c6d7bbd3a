package sandbox

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Starting the helper is most of what the sandbox costs a command: a second
// Go program starts, runs its package initialisers, and only then executes
// the shell. A spare is a helper started ahead of time, with nothing but a
// control socket, no command, and no restriction yet. When a command comes,
// the console sends it the command (program, arguments, environment,
// folder, policy) and the command's standard streams; the spare changes to
// the folder, says so, takes the streams, applies the sandbox to itself and
// executes the command. The command's process is the spare's, started in a
// process group of its own, so waiting for it, its exit status and killing
// its group work as for a helper started for it alone.
//
// A spare serves one command. Everything that command gets was decided when
// it was asked for; the spare was started from the console, never from an
// earlier command. A spare whose console is gone reads the end of its
// control socket and exits: the socket's other end is held by the console
// alone (close-on-exec, never handed to a command). PR_SET_PDEATHSIG is not
// used: it fires when the console's thread that started the spare ends,
// which Go threads may, and it would outlive the exec into the command.

// pool keeps one spare helper for a sandbox. Its zero value is ready to use.
type pool struct {
	mu sync.Mutex // guards the fields below
	// spare is the spare waiting for a command, ready or still starting up;
	// nil when there is none.
	spare *spare
	// starting is set while a goroutine starts a spare.
	starting bool
	// closed is set by close: no spare is kept after it.
	closed bool
	// running counts the sandboxed commands started and not yet ended.
	running int
	// changed is closed, and replaced, whenever starting turns false, so
	// warm can wait for a start to end.
	changed chan struct{}

	// starts counts the goroutines starting spares, for close to wait for.
	starts sync.WaitGroup
}

// spare is one spare helper process.
type spare struct {
	cmd *exec.Cmd
	// conn is the console's end of the control socket, non-blocking, so
	// that the runtime's poller waits on it and Close ends a read.
	conn *os.File
	// ready is closed once the spare said it is ready (up is true) or its
	// control socket ended first (up is false). up is written before.
	ready chan struct{}
	up    bool
}

// errSpareGone is a spare that ended before it took its command.
var errSpareGone = errors.New("sandbox: the spare helper is gone")

// changedLocked returns the channel that is closed at the next change; the
// caller holds mu.
func (p *pool) changedLocked() chan struct{} {
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

// fillLocked starts a spare in the background unless there is one, one is
// starting, or the pool is closed; the caller holds mu.
func (p *pool) fillLocked() {
	if p.closed || p.spare != nil || p.starting {
		return
	}
	p.starting = true
	p.starts.Add(1)
	go p.start()
}

// start starts a spare and keeps it, unless the pool was closed meanwhile.
func (p *pool) start() {
	defer p.starts.Done()
	sp, err := startSpare()
	p.mu.Lock()
	p.starting = false
	close(p.changedLocked())
	p.changed = nil
	keep := err == nil && !p.closed
	if keep {
		p.spare = sp
	}
	p.mu.Unlock()
	if err == nil && !keep {
		sp.discard()
	}
}

// take returns the spare for a command, or nil when there is none. A spare
// being started is waited for until its process runs (not until it is
// ready): it is further along than a helper started now would be.
func (p *pool) take() *spare {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.awaitStartLocked()
	sp := p.spare
	p.spare = nil
	return sp
}

// awaitStartLocked waits until no spare is being started; the caller holds
// mu, which is released while it waits.
func (p *pool) awaitStartLocked() {
	for p.starting {
		changed := p.changedLocked()
		p.mu.Unlock()
		<-changed
		p.mu.Lock()
	}
}

// fill starts a spare in the background unless there is one.
func (p *pool) fill() {
	p.mu.Lock()
	p.fillLocked()
	p.mu.Unlock()
}

// begin counts a sandboxed command as running, from before it takes the
// spare; end, or endAfter, counts it as ended.
func (p *pool) begin() {
	p.mu.Lock()
	p.running++
	p.mu.Unlock()
}

// end counts a command begun as ended, and starts the next spare when no
// other command runs.
func (p *pool) end() {
	p.mu.Lock()
	p.running--
	if p.running == 0 {
		p.fillLocked()
	}
	p.mu.Unlock()
}

// refillDelay is how long a command runs before the next spare starts
// beside it, if it has not ended by then.
const refillDelay = 50 * time.Millisecond

// endAfter counts the command begun as ended once its process, pid, has
// ended. The next spare starts then, when no command runs, or once the
// command has run for refillDelay. A quick command (most of what a model
// runs: ls, cat, git status) thus never has the spare's start-up (several
// milliseconds of processor time) compete with it, and a long one (a build,
// tests) still leaves a spare ready for the command after it in the same
// reply.
func (p *pool) endAfter(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		p.end()
		return
	}
	timer := time.AfterFunc(refillDelay, p.fill)
	pidfd := os.NewFile(uintptr(fd), "pidfd")
	go func() {
		defer pidfd.Close()
		// A pidfd becomes readable when its process ends; the runtime's
		// poller waits for that without holding a thread.
		if rc, err := pidfd.SyscallConn(); err == nil {
			rc.Read(func(fd uintptr) bool {
				ready := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
				n, err := unix.Poll(ready, 0)
				return n > 0 || (err != nil && err != unix.EINTR)
			})
		}
		timer.Stop()
		p.end()
	}()
}

// warm starts a spare when there is none and waits until it is ready; it
// reports whether one is. It makes one attempt: a spare that could not
// start is not started again until the next command.
func (p *pool) warm() bool {
	p.mu.Lock()
	p.fillLocked()
	p.awaitStartLocked()
	sp := p.spare
	p.mu.Unlock()
	if sp == nil {
		return false
	}
	<-sp.ready
	return sp.up
}

// close ends the waiting spare and any being started, and keeps none after.
// When it returns, no spare of the pool is left running.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	sp := p.spare
	p.spare = nil
	p.mu.Unlock()
	if sp != nil {
		sp.discard()
	}
	p.starts.Wait()
}

// startSpare starts a spare helper: the running program again, with the
// hidden spareCommand, its standard streams /dev/null, and one end of a
// Unix socket pair as file descriptor 3.
func startSpare() (*spare, error) {
	// Not the net package: importing it would make every helper wait for
	// net's initialisation, and with it for nearly every other package's,
	// before it gets to run (see the init function).
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the spare's control socket: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, fmt.Errorf("sandbox: the spare's control socket: %w", err)
	}
	conn := os.NewFile(uintptr(fds[0]), "sandbox spare control")
	theirs := os.NewFile(uintptr(fds[1]), "sandbox spare control")
	defer theirs.Close()
	cmd := &exec.Cmd{
		Path:       spareHelperPath(),
		Args:       []string{"agenttui-sandbox", spareCommand},
		ExtraFiles: []*os.File{theirs},
		// Its own process group, which becomes the command's.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("sandbox: starting a spare helper: %w", err)
	}
	sp := &spare{cmd: cmd, conn: conn, ready: make(chan struct{})}
	go func() {
		var b [1]byte
		_, err := io.ReadFull(conn, b[:])
		sp.up = err == nil && b[0] == spareReady
		close(sp.ready)
	}()
	return sp, nil
}

// spareHelperPath is the program a spare runs; tests replace it to make a
// spare that cannot start.
var spareHelperPath = helperPath

// discard ends a spare that took no command, and reaps it.
func (sp *spare) discard() {
	sp.conn.Close()
	sp.cmd.Process.Kill()
	sp.cmd.Wait()
}

// startOnSpare starts cmd on the spare, when cmd fits one (see Start) and
// there is a spare that takes it. ok is false when cmd is to be started as
// Start did before spares: cmd does not fit, there is no spare, or it ended
// before it took cmd; nothing of cmd ran then. With ok, run and err are
// Start's answer.
func (s *Sandbox) startOnSpare(cmd *exec.Cmd) (run *exec.Cmd, ok bool, err error) {
	req, fits := s.request(cmd)
	if !fits {
		return nil, false, nil
	}
	sp := s.spares.take()
	if sp == nil {
		return nil, false, nil
	}
	run, err = sp.run(cmd, req)
	if errors.Is(err, errSpareGone) {
		return nil, false, nil
	}
	return run, true, err
}

// request is what a spare is sent for cmd; fits is false when cmd asks for
// something a spare cannot give it.
func (s *Sandbox) request(cmd *exec.Cmd) (req request, fits bool) {
	own := &syscall.SysProcAttr{Setpgid: true}
	if cmd.Process != nil || len(cmd.ExtraFiles) > 0 || cmd.Cancel != nil || cmd.WaitDelay != 0 ||
		cmd.SysProcAttr == nil || !reflect.DeepEqual(cmd.SysProcAttr, own) {
		return request{}, false
	}
	for _, stream := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, isFile := stream.(*os.File); stream != nil && !isFile {
			return request{}, false
		}
	}
	dir, err := filepath.Abs(cmd.Dir)
	if err != nil {
		return request{}, false
	}
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	return request{
		Path:   cmd.Path,
		Args:   args,
		Env:    dedupEnv(s.commandEnv(cmd.Env)),
		Dir:    dir,
		Policy: s.policy(),
	}, true
}

// dedupEnv keeps the last of several settings of a variable, where it
// stands, as exec does with the environment it hands a helper: an entry
// without "=" is kept as it is, an empty one dropped.
func dedupEnv(env []string) []string {
	seen := make(map[string]bool, len(env))
	out := make([]string, 0, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		eq := strings.Index(kv, "=")
		if eq == 0 {
			// A name starting with "=" keeps it.
			eq = strings.Index(kv[1:], "=") + 1
		}
		if eq < 0 {
			if kv != "" {
				out = append(out, kv)
			}
			continue
		}
		if seen[kv[:eq]] {
			continue
		}
		seen[kv[:eq]] = true
		out = append(out, kv)
	}
	slices.Reverse(out)
	return out
}

// run hands cmd, as req, to the spare: it waits until the spare is ready,
// sends the request with cmd's standard streams, and waits until the spare
// is in cmd's folder. It returns the spare's exec.Cmd, or errSpareGone when
// the spare ended before it took the command (it is reaped then, and
// nothing of the command ran), or the error of changing to the folder.
func (sp *spare) run(cmd *exec.Cmd, req request) (*exec.Cmd, error) {
	<-sp.ready
	if !sp.up {
		sp.discard()
		return nil, errSpareGone
	}
	data, err := json.Marshal(req)
	if err != nil {
		sp.discard()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	streams, err := childStreams(cmd)
	if err != nil {
		sp.discard()
		return nil, err
	}
	errno, err := sp.send(data, streams)
	for _, f := range streams.opened {
		f.Close()
	}
	sp.conn.Close()
	switch {
	case err != nil:
		// The spare cannot have taken the streams: it does so only after
		// its answer.
		sp.discard()
		return nil, errSpareGone
	case errno != 0:
		// The spare could not change to the folder, and exits.
		sp.cmd.Wait()
		return nil, &os.PathError{Op: "chdir", Path: req.Dir, Err: errno}
	}
	return sp.cmd, nil
}

// send writes the request with the three streams' descriptors to the spare,
// ends the console's side of the socket, and reads the spare's answer: 0
// when it started, the error it could not change to the folder with, or err
// when the spare is gone.
func (sp *spare) send(data []byte, streams childFiles) (syscall.Errno, error) {
	fds := make([]int, len(streams.files))
	for i, f := range streams.files {
		// Fd leaves the file in blocking mode, as exec does for a child's
		// streams, since the command shares it.
		fds[i] = int(f.Fd())
	}
	rc, err := sp.conn.SyscallConn()
	if err != nil {
		return 0, err
	}
	// The descriptors go with the first bytes; the rest follows as plain
	// writes.
	var n int
	var sendErr error
	err = rc.Write(func(fd uintptr) bool {
		n, sendErr = unix.SendmsgN(int(fd), data, unix.UnixRights(fds...), nil, unix.MSG_NOSIGNAL)
		return sendErr != unix.EAGAIN
	})
	runtime.KeepAlive(streams.files)
	if err = cmp.Or(err, sendErr); err != nil {
		return 0, err
	}
	if _, err := sp.conn.Write(data[n:]); err != nil {
		return 0, err
	}
	var shutErr error
	err = rc.Control(func(fd uintptr) { shutErr = unix.Shutdown(int(fd), unix.SHUT_WR) })
	if err = cmp.Or(err, shutErr); err != nil {
		return 0, err
	}
	var b [5]byte
	if _, err := io.ReadFull(sp.conn, b[:1]); err != nil {
		return 0, err
	}
	switch b[0] {
	case spareStarted:
		return 0, nil
	case spareRefused:
		if _, err := io.ReadFull(sp.conn, b[1:]); err != nil {
			return 0, err
		}
		return syscall.Errno(binary.LittleEndian.Uint32(b[1:])), nil
	}
	return 0, fmt.Errorf("sandbox: the spare answered %q", b[0])
}

// childFiles are the standard input, output and error a command gets, and
// those of them opened for it (/dev/null for a nil stream), which the
// console closes once they are sent.
type childFiles struct {
	files  [3]*os.File
	opened []*os.File
}

// childStreams returns cmd's standard streams as files: each is a file or
// nil (request checked that), and nil is /dev/null, as exec makes it.
func childStreams(cmd *exec.Cmd) (childFiles, error) {
	var c childFiles
	for i, stream := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if f, ok := stream.(*os.File); ok && f != nil {
			c.files[i] = f
			continue
		}
		flag := os.O_WRONLY
		if i == 0 {
			flag = os.O_RDONLY
		}
		f, err := os.OpenFile(os.DevNull, flag, 0)
		if err != nil {
			for _, o := range c.opened {
				o.Close()
			}
			return childFiles{}, err
		}
		c.files[i] = f
		c.opened = append(c.opened, f)
	}
	return c, nil
}
