package termtest

import (
	"io"
	"sync"

	"github.com/charmbracelet/x/vt"
)

// Emulator is a terminal emulator with no program behind it, to see what a
// stream of output shows: a recording played back, or part of a program's
// output. It is safe for concurrent use.
type Emulator struct {
	mu      sync.Mutex // guards emu, which is not safe for concurrent use
	emu     *vt.Emulator
	drained chan struct{}
}

// NewEmulator returns an emulator of cols×rows. Call Close when done with
// it.
func NewEmulator(cols, rows int) *Emulator {
	e := &Emulator{emu: vt.NewEmulator(cols, rows), drained: make(chan struct{})}
	// The emulator answers queries (cursor position, colours) into a pipe
	// and waits until they are read; with no program to give them to,
	// they are dropped.
	go func() {
		defer close(e.drained)
		io.Copy(io.Discard, e.emu) //nolint:errcheck // ends when the pipe closes
	}()
	return e
}

// Write feeds p to the emulator.
func (e *Emulator) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.emu.Write(p)
}

// Resize changes the emulator's size, as a terminal window resized would.
func (e *Emulator) Resize(cols, rows int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.emu.Resize(cols, rows)
}

// Screen returns the screen as plain text, as Term.Screen does.
func (e *Emulator) Screen() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return screenText(e.emu)
}

// Close ends the emulator's answers.
func (e *Emulator) Close() {
	if c, ok := e.emu.InputPipe().(io.Closer); ok {
		c.Close() //nolint:errcheck
	}
	<-e.drained
}
