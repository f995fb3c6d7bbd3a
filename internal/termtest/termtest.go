// Package termtest runs a real terminal program in a pseudo-terminal and
// reads its screen through a terminal emulator, for end-to-end tests.
//
// A Term owns the pty master, a goroutine that feeds everything the program
// writes into an emulator (github.com/charmbracelet/x/vt), and a goroutine
// that copies the emulator's answers (cursor position reports, colour
// queries, mode reports) back into the pty, as a real terminal would. The
// answers matter: at start-up bubbletea v1, through termenv and lipgloss,
// asks for the background colour (OSC 11) and the cursor position (DSR 6n)
// and waits for the replies before it draws anything.
//
// Waiting is event driven: every update of the emulator wakes the waiters,
// so tests never sleep to synchronise. A frame drawn as a synchronized
// update (ESC[?2026h … ESC[?2026l) is looked at only once it is whole, as a
// terminal that knows the mode shows it, however many reads it arrives in.
//
// The methods that can fail the test (Start, WaitFor, WaitForFunc, Send,
// Key, Type) call Fatalf and therefore must be called from the goroutine
// running the test; the read-only methods are safe from any goroutine.
package termtest

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Default sizes and waits, used when the corresponding Options field is zero.
const (
	DefaultCols     = 80
	DefaultRows     = 24
	DefaultTypeWait = time.Second
)

// writeTimeout bounds every write into the pty, so that a program that stops
// reading its input fails the test instead of hanging it.
const writeTimeout = 10 * time.Second

// Options configure the terminal a program is started in.
type Options struct {
	// Cols and Rows are the terminal size; zero means DefaultCols and
	// DefaultRows.
	Cols, Rows int

	// Env is added to the child's environment, after the defaults
	// (TERM=xterm-256color, PATH from the test process, HOME set to a fresh
	// temporary directory), so an entry here overrides a default. Nothing
	// else of the test process's environment is passed on.
	Env []string

	// Dir is the child's working directory; empty means the test's.
	Dir string

	// Background is the colour the terminal reports when asked with OSC 11;
	// nil means black. Set it to a light colour to see how a program
	// behaves on a light terminal.
	Background color.Color

	// TypeWait bounds how long Type waits for the screen to change after
	// each rune; zero means DefaultTypeWait.
	TypeWait time.Duration
}

// Term is a program running in a pseudo-terminal, together with the
// emulated screen it draws on.
type Term struct {
	tb       testing.TB
	cmd      *exec.Cmd
	ptmx     *os.File
	typeWait time.Duration

	// mu guards the emulator (which is not safe for concurrent use) and
	// everything below it.
	mu        sync.Mutex
	emu       *vt.Emulator
	out       []byte
	changed   chan struct{} // closed and replaced on every update
	readDone  bool          // the pty reported end of output
	cursorApp bool          // DECCKM: cursor keys send SS3 sequences
	// syncing is true inside a synchronized update (between
	// ESC[?2026h and ESC[?2026l), when a terminal that knows the mode
	// shows nothing of the frame yet; syncTail is the end of the last
	// read, where the next read's sequence may begin.
	syncing  bool
	syncTail []byte

	inMu sync.Mutex // serialises writes into the pty

	replies replyQueue

	exited  chan struct{} // closed once the process has been reaped
	waitErr error         // cmd.Wait's result; read only after exited

	readerDone chan struct{}
	pumpDone   chan struct{}
	writerDone chan struct{}
	closeOnce  sync.Once
}

// Start starts the program name with args in a new pseudo-terminal of the
// size given in opts and returns its Term. The program is the leader of a
// new session with the pty as its controlling terminal; when the test ends,
// its whole process group is killed and waited for.
func Start(tb testing.TB, opts Options, name string, args ...string) *Term {
	tb.Helper()
	cols, rows := opts.Cols, opts.Rows
	if cols <= 0 {
		cols = DefaultCols
	}
	if rows <= 0 {
		rows = DefaultRows
	}
	typeWait := opts.TypeWait
	if typeWait <= 0 {
		typeWait = DefaultTypeWait
	}

	env := []string{"TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	if !hasVar(opts.Env, "HOME") {
		env = append(env, "HOME="+tb.TempDir())
	}
	env = append(env, opts.Env...)

	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Dir = opts.Dir
	// pty.Start makes the child a session leader with the pty as its
	// controlling terminal (Setsid, Setctty), so its pid is also its
	// process-group id and cleanup can kill the whole group.
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		tb.Fatalf("termtest: starting %s: %v", name, err)
	}
	ptmx, err := pollable(f)
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		tb.Fatalf("termtest: %v", err)
	}

	t := &Term{
		tb:         tb,
		cmd:        cmd,
		ptmx:       ptmx,
		typeWait:   typeWait,
		emu:        vt.NewEmulator(cols, rows),
		changed:    make(chan struct{}),
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		pumpDone:   make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	t.replies.wake = make(chan struct{}, 1)
	if opts.Background != nil {
		t.emu.SetDefaultBackgroundColor(opts.Background)
	}
	// The callbacks run inside emu.Write, which is only called with t.mu
	// held, so they may touch t's guarded fields directly.
	t.emu.SetCallbacks(vt.Callbacks{
		EnableMode: func(m ansi.Mode) {
			if m == ansi.ModeCursorKeys {
				t.cursorApp = true
			}
		},
		DisableMode: func(m ansi.Mode) {
			if m == ansi.ModeCursorKeys {
				t.cursorApp = false
			}
		},
	})

	go t.reap()
	go t.readOutput()
	go t.pumpReplies()
	go t.writeReplies()
	tb.Cleanup(t.close)
	return t
}

// pollable replaces the pty master f with a non-blocking duplicate that the
// Go runtime polls. creack/pty hands out a blocking descriptor (it calls
// Fd), and closing a blocking *os.File waits for a Read in progress to
// finish, which for a pty held open by a stray process may be never; a
// polled file's Close interrupts the Read, and its writes take deadlines.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	// F_DUPFD_CLOEXEC so that a program started concurrently by another
	// test never inherits the master.
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("duplicating the pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("making the pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// reap waits for the process so that it never lingers as a zombie, and
// records how it ended.
func (t *Term) reap() {
	t.waitErr = t.cmd.Wait()
	close(t.exited)
}

// readOutput copies everything the program writes into the record and the
// emulator, and wakes the waiters after each chunk.
func (t *Term) readOutput() {
	defer close(t.readerDone)
	buf := make([]byte, 32*1024)
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.mu.Lock()
			t.out = append(t.out, buf[:n]...)
			// The emulator writes its answers into an unbuffered pipe
			// while parsing, so this blocks until pumpReplies has taken
			// them; pumpReplies never needs t.mu, so that is safe.
			_, _ = t.emu.Write(buf[:n])
			t.trackSync(buf[:n])
			if !t.syncing {
				// A frame that arrives in several reads is seen
				// only whole, as a terminal that knows
				// synchronized output shows it.
				t.notifyLocked()
			}
			t.mu.Unlock()
		}
		if err != nil {
			// EIO once the child and everything else holding the slave
			// side have gone; os.ErrClosed after close.
			t.mu.Lock()
			t.readDone = true
			t.notifyLocked()
			t.mu.Unlock()
			return
		}
	}
}

// Synchronized output: a program brackets a frame with these, and a
// terminal that knows them shows the frame only once it is complete.
const (
	syncBegin = "\x1b[?2026h"
	syncEnd   = "\x1b[?2026l"
)

// trackSync follows whether the output is inside a synchronized update
// after b, which may split a sequence with the read before. t.mu must be
// held.
func (t *Term) trackSync(b []byte) {
	data := append(t.syncTail, b...)
	begin, end := bytes.LastIndex(data, []byte(syncBegin)), bytes.LastIndex(data, []byte(syncEnd))
	switch {
	case begin > end:
		t.syncing = true
	case end > begin:
		t.syncing = false
	}
	keep := min(len(data), len(syncBegin)-1)
	t.syncTail = append(t.syncTail[:0], data[len(data)-keep:]...)
}

// notifyLocked wakes everyone waiting for a change. t.mu must be held.
func (t *Term) notifyLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// pumpReplies takes the emulator's answers out of its pipe and queues them
// for the pty. The queue is unbounded so that the emulator, and with it the
// output reader, never waits on the program reading its input: a program
// that is blocked writing output would otherwise never read the answer.
func (t *Term) pumpReplies() {
	defer close(t.pumpDone)
	defer t.replies.close()
	buf := make([]byte, 4096)
	for {
		// Emulator.Read only reads from the pipe (and a flag nothing
		// writes after construction), so it needs no lock.
		n, err := t.emu.Read(buf)
		if n > 0 {
			t.replies.push(append([]byte(nil), buf[:n]...))
		}
		if err != nil {
			return
		}
	}
}

// writeReplies writes the queued answers into the pty, each with one write
// so that an answer is never split by a key sent at the same time.
func (t *Term) writeReplies() {
	defer close(t.writerDone)
	for {
		chunks, ok := t.replies.take()
		for _, c := range chunks {
			// An error means the program has gone; its answers no
			// longer matter.
			_ = t.writeInput(c)
		}
		if !ok {
			return
		}
	}
}

// writeInput writes b into the pty in one write.
func (t *Term) writeInput(b []byte) error {
	t.inMu.Lock()
	defer t.inMu.Unlock()
	_ = t.ptmx.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := t.ptmx.Write(b)
	return err
}

// replyQueue is an unbounded FIFO of byte chunks with one consumer.
type replyQueue struct {
	mu     sync.Mutex
	chunks [][]byte
	closed bool
	wake   chan struct{} // capacity 1: "there is something to look at"
}

func (q *replyQueue) push(b []byte) {
	q.mu.Lock()
	q.chunks = append(q.chunks, b)
	q.mu.Unlock()
	q.signal()
}

func (q *replyQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *replyQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take blocks until there are chunks or the queue is closed, and returns
// the pending chunks; ok is false once the queue is closed (the returned
// chunks are the last ones).
func (q *replyQueue) take() (chunks [][]byte, ok bool) {
	for {
		q.mu.Lock()
		chunks, closed := q.chunks, q.closed
		q.chunks = nil
		q.mu.Unlock()
		if len(chunks) > 0 || closed {
			return chunks, !closed
		}
		<-q.wake
	}
}

// close kills the process group, waits for the process and stops the
// goroutines. It runs as a test cleanup.
func (t *Term) close() {
	t.closeOnce.Do(func() {
		// Kill the whole group even if the leader has already exited:
		// children it left behind would keep the pty open. The kernel
		// does not reuse a pid while a group of that id exists, so if the
		// group is gone this reaches nothing (ESRCH).
		_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-t.exited:
		case <-time.After(10 * time.Second):
			t.tb.Errorf("termtest: %s did not exit after SIGKILL", t.cmd.Path)
		}
		// Closing the polled master interrupts the reader, whether or
		// not something else still holds the slave side open.
		_ = t.ptmx.Close()
		<-t.readerDone
		// Only now, with no more emulator writes, end the reply pipe.
		if c, ok := t.emu.InputPipe().(io.Closer); ok {
			_ = c.Close()
		}
		<-t.pumpDone
		<-t.writerDone
	})
}

// Screen returns the emulator's current screen as plain text: one line per
// row, rows joined by "\n", trailing spaces removed from each row. A wide
// character appears once, not followed by a filler for its second column.
func (t *Term) Screen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.screenLocked()
}

func (t *Term) screenLocked() string { return screenText(t.emu) }

// screenText returns emu's screen as Screen describes it.
func screenText(emu *vt.Emulator) string {
	w, h := emu.Width(), emu.Height()
	var b, line strings.Builder
	for y := range h {
		line.Reset()
		for x := range w {
			c := emu.CellAt(x, y)
			switch {
			case c == nil:
				line.WriteByte(' ')
			case c.Width == 0 && c.Content == "":
				// The emulator stores the columns covered by a wide
				// character as zero cells after it.
			case c.Content == "":
				line.WriteByte(' ')
			default:
				line.WriteString(c.Content)
			}
		}
		if y > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
	}
	return b.String()
}

// Size returns the emulator's current size.
func (t *Term) Size() (cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.emu.Width(), t.emu.Height()
}

// Cell is one cell of the emulated screen.
type Cell struct {
	// Content is the grapheme cluster shown in the cell: " " for a blank
	// cell, "" for the second column of a wide character.
	Content string
	// Width is the number of columns Content occupies.
	Width int
	// Fg and Bg are the cell's colours, nil for the terminal's default.
	// SGR 30–37 and 90–97 arrive as ansi.BasicColor, 38;5;n as
	// ansi.IndexedColor and 38;2;r;g;b as an RGB colour; compare the
	// values' RGBA to be independent of the encoding.
	Fg, Bg color.Color
	// The text attributes.
	Bold, Faint, Italic, Underline, Blink, Reverse, Strikethrough bool
}

// CellAt returns the cell at row and col of the screen, both counted from
// 0; outside the screen it returns the zero Cell.
func (t *Term) CellAt(row, col int) Cell {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.emu.CellAt(col, row)
	if c == nil {
		return Cell{}
	}
	a := c.Style.Attrs
	return Cell{
		Content:       c.Content,
		Width:         c.Width,
		Fg:            c.Style.Fg,
		Bg:            c.Style.Bg,
		Bold:          a&uv.AttrBold != 0,
		Faint:         a&uv.AttrFaint != 0,
		Italic:        a&uv.AttrItalic != 0,
		Underline:     c.Style.Underline != ansi.UnderlineNone,
		Blink:         a&(uv.AttrBlink|uv.AttrRapidBlink) != 0,
		Reverse:       a&uv.AttrReverse != 0,
		Strikethrough: a&uv.AttrStrikethrough != 0,
	}
}

// Output returns a copy of every byte the program has written so far, escape
// sequences included.
func (t *Term) Output() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.out...)
}

// WaitFor waits until the screen contains substr and returns the screen. If
// that does not happen within timeout, or the program closes the terminal
// first, it fails the test, showing the last screen.
func (t *Term) WaitFor(substr string, timeout time.Duration) string {
	t.tb.Helper()
	return t.WaitForFunc(fmt.Sprintf("%q", substr), func(s string) bool {
		return strings.Contains(s, substr)
	}, timeout)
}

// WaitForFunc waits until ok reports true for the screen and returns that
// screen. ok is called on the current screen and again after every update
// of the emulator. If it has not reported true within timeout, or the
// program closes the terminal first, WaitForFunc fails the test with desc
// and the last screen.
func (t *Term) WaitForFunc(desc string, ok func(screen string) bool, timeout time.Duration) string {
	t.tb.Helper()
	s, err := t.waitScreen(ok, timeout)
	if err != nil {
		t.tb.Fatalf("termtest: waiting for %s: %v; last screen:\n%s", desc, err, frame(s))
	}
	return s
}

// errClosed reports that no more updates can come.
var errClosed = errors.New("the program closed the terminal")

// waitScreen waits for ok(screen) on every update until the deadline.
func (t *Term) waitScreen(ok func(string) bool, timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		t.mu.Lock()
		s, ch, done, syncing := t.screenLocked(), t.changed, t.readDone, t.syncing
		t.mu.Unlock()
		if syncing && !done {
			// The frame being drawn is not whole yet.
			select {
			case <-ch:
			case <-timer.C:
				return t.Screen(), fmt.Errorf("timed out after %v inside a synchronized update", timeout)
			}
			continue
		}
		// ok is the caller's code: run it without the lock.
		if ok(s) {
			return s, nil
		}
		if done {
			return s, errClosed
		}
		select {
		case <-ch:
		case <-timer.C:
			return t.Screen(), fmt.Errorf("timed out after %v", timeout)
		}
	}
}

// frame draws a screen with a border so that blank rows and trailing text
// are visible in a failure message.
func frame(screen string) string {
	var b strings.Builder
	b.WriteString("┌────\n")
	for _, l := range strings.Split(screen, "\n") {
		b.WriteString("│")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("└────")
	return b.String()
}

// Send writes s to the program's terminal in one write, as if typed or
// pasted. Before the program has put the terminal in raw mode the line
// discipline echoes and buffers what is sent, so wait for the program to
// draw first. Bubbletea v1 delivers runes that arrive in one read as one
// key message; use Type to send text as separate key presses.
func (t *Term) Send(s string) {
	t.tb.Helper()
	if err := t.writeInput([]byte(s)); err != nil {
		t.tb.Fatalf("termtest: sending %q: %v", s, err)
	}
}

// Type sends s one rune per write, and after each rune waits until the
// screen changes, at most Options.TypeWait, so that the program reads each
// rune on its own and sees separate key presses. A rune that changes
// nothing on the screen costs the full wait; unrelated screen changes (a
// spinner, streamed text) end the wait early and may let the next rune
// arrive in the same read.
func (t *Term) Type(s string) {
	t.tb.Helper()
	for _, r := range s {
		before := t.Screen()
		t.Send(string(r))
		// Not seeing a change is not an error: the key may legitimately
		// change nothing, or have ended the program.
		_, _ = t.waitScreen(func(s string) bool { return s != before }, t.typeWait)
	}
}

// Resize changes the size of the emulator and of the pty, which sends
// SIGWINCH to the program.
func (t *Term) Resize(cols, rows int) {
	t.tb.Helper()
	// The emulator first, so the program's redraw after SIGWINCH lands on
	// a screen of the new size.
	t.mu.Lock()
	t.emu.Resize(cols, rows)
	t.notifyLocked()
	t.mu.Unlock()
	// pty.Setsize would call Fd, which turns the master back into a
	// blocking file; issue the ioctl through the runtime instead.
	rc, err := t.ptmx.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) {
			err = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ,
				&unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
		})
		if cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		t.tb.Fatalf("termtest: resizing the pty to %dx%d: %v", cols, rows, err)
	}
}

// Wait waits up to timeout for the program to exit and returns its exit
// code. It then also waits, within the same timeout, for the program's last
// output to reach the emulator. If the program was killed by a signal, the
// code is -1 and err says which; if it is still running at the timeout, err
// says so.
func (t *Term) Wait(timeout time.Duration) (exitCode int, err error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-t.exited:
	case <-timer.C:
		return -1, fmt.Errorf("termtest: %s still running after %v", t.cmd.Path, timeout)
	}
	// Output still buffered in the pty is read after the exit; a process
	// the program left behind may keep the terminal open, so don't insist.
	select {
	case <-t.readerDone:
	case <-timer.C:
	}
	code := t.cmd.ProcessState.ExitCode()
	var exitErr *exec.ExitError
	if t.waitErr != nil && !(errors.As(t.waitErr, &exitErr) && code >= 0) {
		return code, t.waitErr
	}
	return code, nil
}

// Pid returns the program's process id, which is also its process group's.
func (t *Term) Pid() int { return t.cmd.Process.Pid }

// Close kills the program's whole process group and waits until it and the
// terminal's goroutines are done, as the test's cleanup would: a benchmark
// that starts many programs ends each before starting the next.
func (t *Term) Close() { t.close() }

// Hangup closes the terminal's master side, as closing a terminal window
// does: the kernel sends SIGHUP to the program's session, and the
// program's reads and writes on the terminal fail from then on. The screen
// stays as it was last drawn; Wait waits for the program to exit.
func (t *Term) Hangup() { _ = t.ptmx.Close() }
