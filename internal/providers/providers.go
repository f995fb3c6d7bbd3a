// Package providers opens the model a --model spec, the configuration or the
// console's /model names: "openai:<name>" or "anthropic:<name>", configured
// from the environment (the API key and base URL variables of each
// provider) and from the configuration (the idle watchdog, retries, the
// OpenAI wire), wrapped in the one retry policy.
//
// A spec or setting that cannot work is an *Error whose message is one
// line saying what to change; no request is made, so a key the server
// rejects is found at the first turn.
package providers

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// DefaultStreamIdleTimeout is how long a model's stream may send nothing
// before the attempt is abandoned, when stream_idle_timeout is not set.
const DefaultStreamIdleTimeout = 90 * time.Second

// Settings are what the configuration says about talking to a model.
type Settings struct {
	// Idle is stream_idle_timeout; zero means DefaultStreamIdleTimeout.
	Idle time.Duration
	// Retries is model_retries; nil means model.DefaultRetries.
	Retries *int
	// OpenAIAPI is openai_api: config.OpenAIResponses, config.OpenAIChat,
	// or empty for the wire that suits the server.
	OpenAIAPI string
}

// FromConfig returns the model settings of the configuration c, which may be
// nil.
func FromConfig(c *config.Config) Settings {
	if c == nil {
		return Settings{}
	}
	return Settings{Idle: c.IdleTimeout, Retries: c.ModelRetries, OpenAIAPI: c.OpenAIAPI}
}

// Error is a model spec or setting that cannot be used; its message is one
// line saying what to change.
type Error struct {
	msg string
	// key is the environment variable whose absence the error reports,
	// "" when it reports something else.
	key string
}

func (e *Error) Error() string { return e.msg }

// MissingKey returns the environment variable that holds the provider's API
// key when the error says it is not set, and "" for any other error. The
// message offers --model demo instead, which only a command line's --model
// takes, so a caller whose models come from elsewhere (an eval case) words
// its own.
func (e *Error) MissingKey() string { return e.key }

func errorf(format string, args ...any) error { return &Error{msg: fmt.Sprintf(format, args...)} }

// IsSpec reports whether spec names a provider's model, such as
// "openai:gpt-6.2-sol" or "anthropic:claude-opus-5-5".
func IsSpec(spec string) bool {
	return strings.HasPrefix(spec, "openai:") || strings.HasPrefix(spec, "anthropic:")
}

// Open returns the model spec names, configured from the environment and s.
func Open(spec string, s Settings) (model.Model, error) {
	idle := s.Idle
	if idle <= 0 {
		idle = DefaultStreamIdleTimeout
	}
	retries := model.DefaultRetries
	if s.Retries != nil {
		retries = *s.Retries
	}
	provider, name, _ := strings.Cut(spec, ":")
	name = strings.TrimSpace(name)
	var (
		m   model.Model
		err error
	)
	switch provider {
	case "openai":
		if name == "" {
			return nil, errorf("--model openai: needs a model name, for example --model %s", model.RecommendedOpenAI)
		}
		// The configuration checked the wire's name already.
		api, _ := openai.ParseAPI(s.OpenAIAPI)
		m, err = openai.New(name, openai.WithStallTimeout(idle), openai.WithAPI(api))
		if errors.Is(err, openai.ErrMissingAPIKey) {
			return nil, &Error{key: openai.EnvAPIKey, msg: fmt.Sprintf("%s is not set: export it, or set %s for a compatible server such as Ollama, or use --model demo",
				openai.EnvAPIKey, openai.EnvBaseURL)}
		}
	case "anthropic":
		if name == "" {
			return nil, errorf("--model anthropic: needs a model name, for example --model %s", model.RecommendedAnthropic)
		}
		m, err = anthropic.New(name, anthropic.WithStallTimeout(idle))
		if errors.Is(err, anthropic.ErrMissingAPIKey) {
			return nil, &Error{key: anthropic.EnvAPIKey, msg: fmt.Sprintf("%s is not set: export it, or use --model demo", anthropic.EnvAPIKey)}
		}
	default:
		return nil, errorf("unknown model provider %q in --model %s: use openai:<name>, anthropic:<name> or demo", provider, spec)
	}
	if err != nil {
		return nil, errorf("--model %s: %v", spec, err)
	}
	return model.WithRetries(m, model.RetryPolicy{Retries: retries}), nil
}

// ForConsole returns the model the console's /model names: a provider's,
// whose key (or base URL) must be in agenttui's environment, since the
// console cannot ask for one.
func ForConsole(spec string, s Settings) (model.Model, error) {
	spec = strings.TrimSpace(spec)
	provider, name, _ := strings.Cut(spec, ":")
	keyEnv, baseEnv := "", ""
	switch {
	case !IsSpec(spec):
		return nil, errorf("%q is not a model this console can switch to: use openai:NAME or anthropic:NAME", spec)
	case strings.TrimSpace(name) == "":
		return nil, errorf("%s: needs a model name, for example %s or %s", provider, model.RecommendedOpenAI, model.RecommendedAnthropic)
	case provider == "openai":
		keyEnv, baseEnv = openai.EnvAPIKey, openai.EnvBaseURL
	default:
		keyEnv, baseEnv = anthropic.EnvAPIKey, anthropic.EnvBaseURL
	}
	if os.Getenv(keyEnv) == "" && os.Getenv(baseEnv) == "" {
		return nil, errorf("%s is not set, so %s cannot be used: quit, export %s (or %s for a compatible server), and start agenttui again",
			keyEnv, spec, keyEnv, baseEnv)
	}
	return Open(spec, s)
}
