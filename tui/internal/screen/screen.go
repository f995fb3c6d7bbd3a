// Package screen draws the console's frames on the terminal and hands the
// terminal over to another program and back.
//
// The console draws itself rather than through bubbletea's renderer, which
// flushes on a 60 Hz ticker for as long as the program runs and shows the
// first frame only at its first tick. A Screen writes a frame right after
// the update that made it, and only the rows that changed, so an idle
// console writes nothing at all.
//
// A Screen and a Handover are used from bubbletea's event loop only, which
// draws the frames and runs the handed-over program one after the other, so
// neither needs a lock; only whether the terminal is handed over is read
// from elsewhere (Handover.Busy).
package screen

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// Terminal modes the console sets while it runs, and the sequences that
// undo them, in reverse order.
const (
	// Enter switches to the alternate screen, hides the cursor, and turns
	// on mouse reports (buttons and the wheel, SGR encoded) and bracketed
	// paste, so a paste is one message, never keys.
	Enter = "\x1b[?1049h" + "\x1b[?25l" + "\x1b[?1002h\x1b[?1006h" + "\x1b[?2004h"
	// Leave undoes Enter.
	Leave = "\x1b[?2004l\x1b[?1006l\x1b[?1002l\x1b[?25h\x1b[?1049l"
	// Synchronized output: terminals that know it show a frame at once,
	// the others ignore it.
	frameBegin = "\x1b[?2026h"
	frameEnd   = "\x1b[?2026l"
)

// Screen draws frames on the terminal, writing only the rows that changed
// since the last frame.
type Screen struct {
	out           io.Writer
	width, height int
	rows          []string // what the terminal shows now
	repaint       bool     // the next frame clears the screen and draws every row
	buf           bytes.Buffer
}

// New returns a Screen that writes to out, the terminal.
func New(out io.Writer) *Screen { return &Screen{out: out} }

// Size returns the size last given to Resize.
func (s *Screen) Size() (width, height int) { return s.width, s.height }

// Resize takes a new size; the terminal may have reflowed or cleared the
// screen, so the next frame draws everything.
func (s *Screen) Resize(w, h int) {
	s.width, s.height = w, h
	s.repaint = true
}

// Repaint makes the next frame clear the screen and draw every row, as
// after another program has drawn on the terminal.
func (s *Screen) Repaint() { s.repaint = true }

// Draw shows frame: one row per line, each at most the screen's width.
func (s *Screen) Draw(frame string) {
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
func (s *Screen) row(i int, text string) {
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

// Handover hands the terminal to another program, the person's editor, and
// takes it back. Bubbletea stops reading keys before and starts again after,
// but knows nothing of the modes Enter set, so the console undoes them
// itself: the editor gets the terminal as it was before the console started,
// and the console's next frame redraws every row.
type Handover struct {
	// In is the terminal the console reads keys from.
	In *os.File
	// Out is the terminal, through the recorder when there is one.
	Out io.Writer
	// Cooked is the terminal's state before the console made it raw.
	Cooked *term.State
	// Screen draws the console's frames.
	Screen *Screen

	// busy says the terminal is handed over; it is read from the
	// goroutine that hears signals.
	busy atomic.Bool
}

// Busy reports whether another program has the terminal now.
func (h *Handover) Busy() bool { return h.busy.Load() }

// Command wraps c so that it runs with the terminal handed over.
func (h *Handover) Command(c *exec.Cmd) tea.ExecCommand { return &handedOver{Cmd: c, h: h} }

// handedOver is a command that runs with the terminal handed over. It is
// run on bubbletea's event loop, which draws the frames too, so touching
// the screen here needs no lock.
type handedOver struct {
	*exec.Cmd
	h *Handover
}

// Run hands the terminal over, runs the command and takes the terminal
// back.
func (c *handedOver) Run() error {
	h := c.h
	h.busy.Store(true)
	defer h.busy.Store(false)
	io.WriteString(h.Out, Leave) //nolint:errcheck // the editor draws anyway
	if h.Cooked != nil {
		term.Restore(h.In.Fd(), h.Cooked) //nolint:errcheck
	}
	err := c.Cmd.Run()
	term.MakeRaw(h.In.Fd())      //nolint:errcheck // bubbletea makes it raw again too
	io.WriteString(h.Out, Enter) //nolint:errcheck
	h.Screen.Repaint()
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
