package anthropic

import (
	"time"

	"github.com/agenttui/agenttui/runtime/model"

	"github.com/agenttui/agenttui/runtime/model/internal/wire"
)

// WithIdleTimer starts the idle watchdog's timers with after, such as a fake
// clock's, so that tests of a stall need no real waiting.
func WithIdleTimer(after func(time.Duration, func()) wire.Timer) Option {
	return func(s *settings) { s.AfterFunc = after }
}

// RequestBody returns the body of the request the model sends for req.
func (m *Model) RequestBody(req model.Request) ([]byte, error) {
	b, _, err := m.body(req)
	return b, err
}

// BuildBody builds the body of the request the model sends for req and
// gives its buffer back, as Reply does, and returns its length.
func (m *Model) BuildBody(req model.Request) (int, error) {
	b, _, err := m.body(req)
	if err != nil {
		return 0, err
	}
	n := len(b)
	releaseBody(b)
	return n, nil
}
