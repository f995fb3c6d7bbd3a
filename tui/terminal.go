package tui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"

	"github.com/agenttui/agenttui/tui/internal/screen"
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
	ended := m.opts.Ended
	if ended == nil {
		own := make(chan os.Signal, 1)
		signal.Notify(own, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer signal.Stop(own)
		ended = own
	}
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
	scr := screen.New(tty)
	if _, err := io.WriteString(tty, screen.Enter); err != nil {
		return m, err
	}
	defer out.WriteString(screen.Leave) //nolint:errcheck

	nm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	scr.Resize(w, h)
	f := frame{m: nm.(Model), screen: scr, rec: rec}
	handover := &screen.Handover{In: in, Out: tty, Cooked: saved, Screen: scr}
	f.m.term = handover
	scr.Draw(f.m.View())

	// The console hears the signals that end it itself, rather than
	// through bubbletea, whose handler knows no SIGHUP and, when the
	// program has ended for another reason first, blocks its shutdown for
	// ever.
	p := tea.NewProgram(f, tea.WithInput(in), tea.WithOutput(out), tea.WithoutRenderer(), tea.WithoutSignalHandler())
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-resized:
				if w, h, err := term.GetSize(out.Fd()); err == nil {
					p.Send(tea.WindowSizeMsg{Width: w, Height: h})
				}
			case sig := <-ended:
				// While the editor has the terminal, an interrupt or
				// SIGTERM is the editor's, as bubbletea has it; a
				// closed terminal ends both. Send returns at once
				// once the program has ended.
				switch {
				case sig != syscall.SIGHUP && handover.Busy():
				case sig == os.Interrupt:
					p.Send(tea.InterruptMsg{})
				default:
					p.Quit()
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
	// However the program ended (quit, SIGTERM, SIGHUP, an interrupt), a run that
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
	screen *screen.Screen
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
		if w, h := f.screen.Size(); f.rec != nil && (ws.Width != w || ws.Height != h) {
			f.rec.Resize(ws.Width, ws.Height)
		}
		f.screen.Resize(ws.Width, ws.Height)
	}
	nm, cmd := f.m.Update(msg)
	f.m = nm.(Model)
	return f, cmd
}

// View draws the console's frame on the terminal and returns nothing for
// bubbletea, whose renderer is off.
func (f frame) View() string {
	f.screen.Draw(f.m.View())
	return ""
}
