package anthropic

import (
	"time"

	"github.com/agenttui/agenttui/runtime/model/internal/wire"
)

// WithIdleTimer starts the idle watchdog's timers with after, such as a fake
// clock's, so that tests of a stall need no real waiting.
func WithIdleTimer(after func(time.Duration, func()) wire.Timer) Option {
	return func(s *settings) { s.AfterFunc = after }
}
