package tui

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// Terminal modes the console sets while it runs, and the sequences that
// undo them, in reverse order.
const (
	enterScreen = "\x1b[?1049h" + // the alternate screen
		"\x1b[?25l" + // no cursor
		"\x1b[?1002h\x1b[?1006h" + // mouse: buttons and the wheel, SGR encoded
		"\x1b[?2004h" // bracketed paste, so a paste is one message, never keys
	leaveScreen = "\x1b[?2004l\x1b[?1006l\x1b[?1002l\x1b[?25h\x1b[?1049l"
	// Synchronized output: terminals that know it show a frame at once,
	// the others ignore it.
	frameBegin = "\x1b[?2026h"
	frameEnd   = "\x1b[?2026l"
)

// Run runs the console full screen in the terminal: keys are read from in
// and the screen is drawn on out, both of which must be the terminal. It
// returns the final model when the person quits; the terminal is restored
// whatever happens.
//
// Run draws the screen itself instead of through bubbletea's renderer.
// That renderer flushes on a 60 Hz ticker for as long as the program runs,
// which wakes the process sixty times a second while nothing happens, and it
// shows the first frame only at its first tick. Here the first frame is
// drawn before the program starts, and each later frame right after the
// update that changed it, as only the rows that changed: an idle console
// does no work and writes nothing.
//
// rec, when not nil, is given every byte Run writes to the terminal while
// the console is on screen, and each new size: a recording made from it
// shows what the person saw, and nothing else. Leaving the screen at the
// end is not recorded, so that a recording ends on the console's last
// frame.
func Run(m Model, in, out *os.File, rec Recorder) (Model, error) {
	// Listen for resizes before the size is read, so that none is lost
	// between reading it and the program starting.
	resized := make(chan os.Signal, 1)
	signal.Notify(resized, syscall.SIGWINCH)
	defer signal.Stop(resized)
	w, h, err := term.GetSize(out.Fd())
	if err != nil {
		return m, fmt.Errorf("the console needs a terminal: %w", err)
	}
	saved, err := term.MakeRaw(in.Fd())
	if err != nil {
		return m, fmt.Errorf("putting the terminal in raw mode: %w", err)
	}
	defer term.Restore(in.Fd(), saved) //nolint:errcheck // nothing better to do

	var tty io.Writer = out
	if rec != nil {
		tty = recorded{out: out, rec: rec}
	}
	scr := &screen{out: tty}
	if _, err := io.WriteString(tty, enterScreen); err != nil {
		return m, err
	}
	defer out.WriteString(leaveScreen) //nolint:errcheck

	nm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	scr.resize(w, h)
	f := frame{m: nm.(Model), screen: scr, rec: rec}
	f.m.term = &handover{in: in, out: tty, cooked: saved, screen: scr}
	scr.draw(f.m.View())

	p := tea.NewProgram(f, tea.WithInput(in), tea.WithOutput(out), tea.WithoutRenderer())
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-resized:
				if w, h, err := term.GetSize(out.Fd()); err == nil {
					p.Send(tea.WindowSizeMsg{Width: w, Height: h})
				}
			case <-done:
				return
			}
		}
	}()
	final, err := p.Run()
	if fm, ok := final.(frame); ok {
		m = fm.m
	}
	// However the program ended (quit, SIGTERM, an interrupt), a run that
	// is still going is stopped, so its calls get honest results and its
	// outcome can be printed.
	m.stop("the console was closed")
	if errors.Is(err, tea.ErrInterrupted) {
		err = nil
	}
	return m, err
}

// frame wraps the console so that bubbletea's loop draws it: bubbletea
// calls View once after Init and once after every Update, on its loop's
// goroutine, which makes View the one place that sees every new state.
type frame struct {
	m      Model
	screen *screen
	rec    Recorder // nil when the session is not recorded
}

// Recorder keeps a recording of the terminal: it is written what the
// console writes, and told each new size.
type Recorder interface {
	io.Writer
	Resize(cols, rows int)
}

// recorded writes to the terminal and to a recorder. The recorder's errors
// are its own (it says at the end why it stopped): the console goes on.
type recorded struct {
	out io.Writer
	rec Recorder
}

func (r recorded) Write(p []byte) (int, error) {
	n, err := r.out.Write(p)
	if n > 0 {
		r.rec.Write(p[:n]) //nolint:errcheck // see above
	}
	return n, err
}

// Init starts the console.
func (f frame) Init() tea.Cmd { return f.m.Init() }

// Update passes msg to the console; a new size makes the next frame a full
// repaint.
func (f frame) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		if f.rec != nil && (ws.Width != f.screen.width || ws.Height != f.screen.height) {
			f.rec.Resize(ws.Width, ws.Height)
		}
		f.screen.resize(ws.Width, ws.Height)
	}
	nm, cmd := f.m.Update(msg)
	f.m = nm.(Model)
	return f, cmd
}

// View draws the console's frame on the terminal and returns nothing for
// bubbletea, whose renderer is off.
func (f frame) View() string {
	f.screen.draw(f.m.View())
	return ""
}

// screen draws frames on the terminal, writing only the rows that changed
// since the last frame.
type screen struct {
	out           io.Writer
	width, height int
	rows          []string // what the terminal shows now
	repaint       bool     // the next frame clears the screen and draws every row
	buf           bytes.Buffer
}

// resize takes a new size; the terminal may have reflowed or cleared the
// screen, so the next frame draws everything.
func (s *screen) resize(w, h int) {
	s.width, s.height = w, h
	s.repaint = true
}

// draw shows frame: one row per line, each at most the screen's width.
func (s *screen) draw(frame string) {
	rows := strings.Split(frame, "\n")
	if s.height > 0 && len(rows) > s.height {
		rows = rows[:s.height]
	}
	b := &s.buf
	b.Reset()
	old := s.rows
	if s.repaint {
		b.WriteString("\x1b[H\x1b[2J")
		old, s.repaint = nil, false
	}
	for i, row := range rows {
		if i < len(old) && old[i] == row {
			continue
		}
		s.row(i, row)
	}
	for i := len(rows); i < len(old); i++ {
		s.row(i, "")
	}
	s.rows = rows
	if b.Len() == 0 {
		return
	}
	io.WriteString(s.out, frameBegin+b.String()+"\x1b[m"+frameEnd) //nolint:errcheck // a lost frame is redrawn by the next
}

// row rewrites row i (from 0). A row as wide as the screen is not followed
// by an erase, which at the last column would erase its last character.
func (s *screen) row(i int, text string) {
	b := &s.buf
	b.WriteString("\x1b[")
	b.WriteString(strconv.Itoa(i + 1))
	b.WriteString(";1H\x1b[m")
	if s.width > 0 && ansi.StringWidth(text) > s.width {
		text = ansi.Truncate(text, s.width, "")
	}
	b.WriteString(text)
	if ansi.StringWidth(text) < s.width || s.width == 0 {
		b.WriteString("\x1b[m\x1b[K")
	}
}

// handover hands the terminal to another program, the person's editor, and
// takes it back. Bubbletea stops reading keys before and starts again after,
// but knows nothing of the modes Run set, so the console undoes them itself:
// the editor gets the terminal as it was before the console started, and
// the console's next frame redraws every row.
type handover struct {
	in     *os.File
	out    io.Writer   // the terminal, through the recorder when there is one
	cooked *term.State // the terminal's state before Run made it raw
	screen *screen
}

// command wraps c so that it runs with the terminal handed over.
func (h *handover) command(c *exec.Cmd) tea.ExecCommand { return &handedOver{Cmd: c, h: h} }

// handedOver is a command that runs with the terminal handed over. It is
// run on bubbletea's event loop, which draws the frames too, so touching
// the screen here needs no lock.
type handedOver struct {
	*exec.Cmd
	h *handover
}

// Run hands the terminal over, runs the command and takes the terminal
// back.
func (c *handedOver) Run() error {
	h := c.h
	io.WriteString(h.out, leaveScreen) //nolint:errcheck // the editor draws anyway
	if h.cooked != nil {
		term.Restore(h.in.Fd(), h.cooked) //nolint:errcheck
	}
	err := c.Cmd.Run()
	term.MakeRaw(h.in.Fd())            //nolint:errcheck // bubbletea makes it raw again too
	io.WriteString(h.out, enterScreen) //nolint:errcheck
	h.screen.repaint = true
	return err
}

// SetStdin, SetStdout and SetStderr give the command the terminal unless it
// has its own.
func (c *handedOver) SetStdin(r io.Reader) {
	if c.Stdin == nil {
		c.Stdin = r
	}
}

func (c *handedOver) SetStdout(w io.Writer) {
	if c.Stdout == nil {
		c.Stdout = w
	}
}

func (c *handedOver) SetStderr(w io.Writer) {
	if c.Stderr == nil {
		c.Stderr = w
	}
}
