package openai

import (
	"encoding/json"
	"github.com/agenttui/agenttui/runtime/model"
	"time"

	"github.com/agenttui/agenttui/runtime/model/internal/wire"
)

// WithIdleTimer starts the idle watchdog's timers with after, such as a fake
// clock's, so that tests of a stall need no real waiting.
func WithIdleTimer(after func(time.Duration, func()) wire.Timer) Option {
	return func(s *settings) { s.AfterFunc = after }
}

// ReasoningFor is reasoningFor, for the tests of the effort mapping.
var ReasoningFor = reasoningFor

// ResponsesBody returns the Responses API request body m sends for req.
func (m *Model) ResponsesBody(req model.Request) ([]byte, error) {
	effort, reasons, err := reasoningFor(m.srv.Model, req.Effort, req.Compact)
	if err != nil {
		return nil, err
	}
	return m.responsesBody(req, effort, reasons), nil
}

// ChatBody returns the Chat Completions request body m sends for req, as
// the SDK encodes it.
func (m *Model) ChatBody(req model.Request) ([]byte, error) {
	effort, _, err := reasoningFor(m.srv.Model, req.Effort, req.Compact)
	if err != nil {
		return nil, err
	}
	return json.Marshal(m.params(req, effort, false))
}
