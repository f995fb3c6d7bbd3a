package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one connection to a server: a session and, for a stdio server,
// the process behind it. A restart makes a new conn.
type conn struct {
	s       *server
	session *sdk.ClientSession
	proc    atomic.Pointer[process] // nil for HTTP, and until started

	// live is closed when the connection becomes the server's current one.
	live chan struct{}
	// done is closed when the session has ended, for whatever reason.
	done chan struct{}
	// closed is closed when close begins; calls bound to the connection
	// end with it.
	closed    chan struct{}
	closeOnce sync.Once

	fateMu    sync.Mutex
	fateSet   bool
	fateState State
	fateWhy   string
}

// process is a stdio server's child process and the pipes to it.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of its input
	stdout *os.File // our end of its output
	stderr *os.File // our end of its error output
	tail   *tailBuffer
	// tailed is closed when the error output has been read to its end.
	tailed chan struct{}
	exited chan struct{}
	err    error // the result of Wait, set before exited is closed
}

// transport returns the transport that opens this connection.
func (c *conn) transport(dir string) sdk.Transport {
	cfg := c.s.cfg
	if cfg.Transport == TransportHTTP {
		client := &http.Client{Transport: headerTransport{headers: cfg.Headers, base: http.DefaultTransport}}
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
	}
	return stdioTransport{c: c, dir: dir}
}

// stdioTransport starts a stdio server in its own process group, so that
// whatever it starts can be killed with it, and keeps the process so that
// the connection, not the SDK, decides how it is stopped.
type stdioTransport struct {
	c   *conn
	dir string
}

// Connect starts the process and connects to its standard input and output.
func (t stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	cfg := t.c.s.cfg
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = t.dir
	cmd.Env = os.Environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	ownProcessGroup(cmd)
	var opened []*os.File
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			opened = append(opened, r, w)
		}
		return r, w, err
	}
	closeAll := func(files []*os.File) {
		for _, f := range files {
			f.Close()
		}
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll(opened)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(opened)
		return nil, err
	}
	// The child has its own copies; keeping ours would hide its exit.
	closeAll([]*os.File{inR, outW, errW})
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: errR, tail: &tailBuffer{max: 2048},
		tailed: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(p.tailed)
		_, _ = io.Copy(p.tail, errR)
	}()
	t.c.proc.Store(p)
	grace := t.c.s.m.opts.StopGrace
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
		// Something the server started may still hold its output open, and
		// the session would never see the end; close our end after a grace.
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-t.c.done:
		case <-t.c.closed:
		case <-timer.C:
			p.stdout.Close()
		}
	}()
	// The guard keeps an answer too large for memory from costing the
	// whole connection; the SDK's own bound is set above the guard's, so
	// that only the guard ever acts.
	guarded := newFrameGuard(outR, MaxAnswerBytes, nil)
	return (&sdk.IOTransport{Reader: guarded, Writer: inW, MaxLineLength: MaxAnswerBytes + 64<<10}).Connect(ctx)
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

// RoundTrip sends req with the headers added.
func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(req)
}

// started records the session and begins watching for its end.
func (c *conn) started(session *sdk.ClientSession) {
	c.session = session
	go func() {
		_ = session.Wait()
		close(c.done)
	}()
}

// bind returns a context for a call on c: it ends with ctx or when c is
// closed.
func (c *conn) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-c.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// ended reports whether the session has ended or the process has exited.
func (c *conn) ended() bool {
	select {
	case <-c.done:
		return true
	default:
	}
	if p := c.proc.Load(); p != nil {
		select {
		case <-p.exited:
			return true
		default:
		}
	}
	return false
}

// cause says why the connection was lost, given the error a call or the
// session ended with. A stdio server's own end says more than the broken
// pipe it left, and follows it closely, so it is waited for briefly.
func (c *conn) cause(err error) string {
	if p := c.proc.Load(); p != nil && waitFor(p.exited, min(c.s.m.opts.StopGrace, time.Second)) {
		err = c.endError()
	} else if err == nil {
		err = errors.New("the connection closed")
	}
	if tail := c.stderrTail(); tail != "" {
		return fmt.Sprintf("%v; its last output: %s", err, tail)
	}
	return err.Error()
}

// endError says how the connection ended.
func (c *conn) endError() error {
	if p := c.proc.Load(); p != nil {
		select {
		case <-p.exited:
			if p.err == nil {
				return errors.New("its process exited")
			}
			return fmt.Errorf("its process ended: %v", p.err)
		default:
		}
	}
	return errors.New("the connection closed")
}

func (c *conn) pid() int {
	p := c.proc.Load()
	if p == nil || c.ended() {
		return 0
	}
	return p.cmd.Process.Pid
}

func (c *conn) stderrTail() string {
	if p := c.proc.Load(); p != nil {
		return p.tail.lastLine()
	}
	return ""
}

func (c *conn) setFate(st State, why string) {
	c.fateMu.Lock()
	defer c.fateMu.Unlock()
	if !c.fateSet {
		c.fateSet, c.fateState, c.fateWhy = true, st, why
	}
}

// fate returns what became of the server when c was lost; a connection
// closed on purpose reads as stopped.
func (c *conn) fate() (State, string) {
	c.fateMu.Lock()
	defer c.fateMu.Unlock()
	if !c.fateSet {
		return StateStopped, "it was shut down"
	}
	return c.fateState, c.fateWhy
}

// kill kills a stdio server and everything it started, at once.
func (c *conn) kill() {
	if p := c.proc.Load(); p != nil {
		killGroup(p.cmd, true)
	}
}

// close ends the connection and, for a stdio server, waits until the
// process is gone. Graceful closing first closes the server's input and
// gives it StopGrace to exit, then asks it to terminate and gives it
// StopGrace again; whatever is left of it and of the processes it started
// is killed. It is idempotent.
func (c *conn) close(graceful bool) {
	c.closeOnce.Do(func() {
		close(c.closed)
		if p := c.proc.Load(); p != nil {
			grace := c.s.m.opts.StopGrace
			if !graceful {
				grace = min(grace, time.Second)
			}
			if graceful {
				p.stdin.Close()
				if !waitFor(p.exited, grace) {
					killGroup(p.cmd, false)
					waitFor(p.exited, grace)
				}
			}
			killGroup(p.cmd, true)
			<-p.exited
			// Children of the server may have outlived it in its group.
			killGroup(p.cmd, true)
			// Its last words say why it failed; they are in the pipe until
			// read, and the group is dead, so the end comes soon.
			waitFor(p.tailed, grace)
			p.stdin.Close()
			p.stdout.Close()
			p.stderr.Close()
		}
		if c.session != nil {
			_ = c.session.Close()
		}
	})
}

// waitFor waits up to d for ch to close and reports whether it did.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// tailBuffer keeps the last bytes written to it: a server's error output,
// whose last line often says why it failed.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write keeps the last max bytes of p and what came before.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// lastLine returns the last non-empty line written, shortened.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return firstLine(lines[len(lines)-1], 200)
}
