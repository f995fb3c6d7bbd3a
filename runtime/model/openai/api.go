package openai

import (
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/runtime/model/internal/wire"
)

// API is the wire a Model speaks: OpenAI's Responses API or the Chat
// Completions API.
type API string

// The wires.
const (
	// APIDefault chooses the wire by the server: the Responses API for
	// OpenAI itself, Chat Completions for a server reached through a base
	// URL, which is the wire compatible servers speak.
	APIDefault API = ""
	// APIResponses is OpenAI's Responses API (/responses), which hands a
	// reasoning model's reasoning back encrypted so that it is kept
	// between calls without OpenAI storing the conversation.
	APIResponses API = "responses"
	// APIChat is the Chat Completions API (/chat/completions).
	APIChat API = "chat"
)

// ParseAPI reads the configuration's "openai_api": "responses" or "chat";
// the empty string is APIDefault.
func ParseAPI(s string) (API, error) {
	switch a := API(strings.ToLower(strings.TrimSpace(s))); a {
	case APIDefault, APIResponses, APIChat:
		return a, nil
	}
	return "", fmt.Errorf(`unknown OpenAI API %q: use "responses" (the Responses API) or "chat" (Chat Completions)`, s)
}

// WithAPI chooses the wire instead of the default, which is the Responses
// API for OpenAI itself and Chat Completions for a server reached through a
// base URL.
func WithAPI(a API) Option { return func(s *settings) { s.api = a } }

// chatWire is the Chat Completions API as wire needs to know it.
var chatWire = &wire.API{
	Name:           "OpenAI",
	KeyEnv:         EnvAPIKey,
	BaseURLEnv:     EnvBaseURL,
	DefaultBaseURL: DefaultBaseURL,
	Path:           "/chat/completions",
	ErrMissingKey:  ErrMissingAPIKey,
	DefaultStall:   DefaultStallTimeout,
	ExplainStatus:  func(s *wire.Server, err error, r wire.Response) error { return explainStatus(s, APIChat, err, r) },
	MidReply:       midReply,
}

// responsesWire is the Responses API as wire needs to know it.
var responsesWire = &wire.API{
	Name:           "OpenAI",
	KeyEnv:         EnvAPIKey,
	BaseURLEnv:     EnvBaseURL,
	DefaultBaseURL: DefaultBaseURL,
	Path:           "/responses",
	ErrMissingKey:  ErrMissingAPIKey,
	DefaultStall:   DefaultStallTimeout,
	ExplainStatus:  func(s *wire.Server, err error, r wire.Response) error { return explainStatus(s, APIResponses, err, r) },
	MidReply:       midReply,
}
