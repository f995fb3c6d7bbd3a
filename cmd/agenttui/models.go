package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// isProviderSpec reports whether spec names a real provider's model, such
// as "openai:gpt-4o" or "anthropic:claude-sonnet-4-5".
func isProviderSpec(spec string) bool {
	return strings.HasPrefix(spec, "openai:") || strings.HasPrefix(spec, "anthropic:")
}

// DefaultStreamIdleTimeout is how long a model's stream may send nothing
// before the attempt is abandoned, when stream_idle_timeout is not set.
const DefaultStreamIdleTimeout = 90 * time.Second

// modelSettings are what the configuration says about talking to a model.
type modelSettings struct {
	// idle is stream_idle_timeout; zero means DefaultStreamIdleTimeout.
	idle time.Duration
	// retries is model_retries; nil means model.DefaultRetries.
	retries *int
}

// settingsOf returns the model settings of the configuration c, which may
// be nil.
func settingsOf(c *config.Config) modelSettings {
	if c == nil {
		return modelSettings{}
	}
	return modelSettings{idle: c.IdleTimeout, retries: c.ModelRetries}
}

// providerModel returns the model spec names, "openai:<name>" or
// "anthropic:<name>", configured from the environment (OPENAI_API_KEY and
// OPENAI_BASE_URL, or ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL) and by ms:
// its idle watchdog, and the retries of a request whose attempt failed in a
// way that may pass. A configuration problem is a usage error: one line,
// exit 2, nothing started. No request is made, so a key the server rejects
// is found at the first turn.
func providerModel(spec string, ms modelSettings) (model.Model, error) {
	idle := ms.idle
	if idle <= 0 {
		idle = DefaultStreamIdleTimeout
	}
	retries := model.DefaultRetries
	if ms.retries != nil {
		retries = *ms.retries
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
			return nil, usagef("--model openai: needs a model name, for example --model openai:gpt-4o")
		}
		m, err = openai.New(name, openai.WithStallTimeout(idle))
		if errors.Is(err, openai.ErrMissingAPIKey) {
			return nil, usagef("%s is not set: export it, or set %s for a compatible server such as Ollama, or use --model demo",
				openai.EnvAPIKey, openai.EnvBaseURL)
		}
	case "anthropic":
		if name == "" {
			return nil, usagef("--model anthropic: needs a model name, for example --model anthropic:claude-sonnet-4-5")
		}
		m, err = anthropic.New(name, anthropic.WithStallTimeout(idle))
		if errors.Is(err, anthropic.ErrMissingAPIKey) {
			return nil, usagef("%s is not set: export it, or use --model demo", anthropic.EnvAPIKey)
		}
	default:
		return nil, usagef("unknown model provider %q in --model %s: use openai:<name>, anthropic:<name> or demo", provider, spec)
	}
	if err != nil {
		return nil, usagef("--model %s: %v", spec, err)
	}
	return model.WithRetries(m, model.RetryPolicy{Retries: retries}), nil
}

// chooseModel returns the model the options name: a scenario file, or the
// demo when nothing else is configured.
func chooseModel(o *options) (m model.Model, demo bool, err error) {
	switch {
	case o.scenario != "":
		sc, err := model.LoadScenario(o.scenario)
		if err != nil {
			return nil, false, usageError{err.Error()}
		}
		name := sc.Name
		if name == "" {
			name = strings.TrimSuffix(filepath.Base(o.scenario), filepath.Ext(o.scenario))
		}
		return model.NewScripted("scenario:"+name, sc), false, nil
	case o.model == "" || o.model == "demo":
		sc, err := assets.DemoScenario()
		if err != nil {
			return nil, false, err
		}
		return model.NewScripted("demo", sc), true, nil
	case isProviderSpec(o.model):
		m, err := providerModel(o.model, settingsOf(o.cfg))
		return m, false, err
	default:
		return nil, false, usagef("unknown model %q: use openai:NAME, anthropic:NAME, demo, or --scenario FILE", o.model)
	}
}

// consoleModel returns the model /model names: a provider's, whose key must
// be in agenttui's environment.
func consoleModel(spec string, ms modelSettings) (model.Model, error) {
	spec = strings.TrimSpace(spec)
	provider, name, _ := strings.Cut(spec, ":")
	keyEnv, baseEnv := "", ""
	switch {
	case !isProviderSpec(spec):
		return nil, fmt.Errorf("%q is not a model this console can switch to: use openai:NAME or anthropic:NAME", spec)
	case strings.TrimSpace(name) == "":
		return nil, fmt.Errorf("%s: needs a model name, for example openai:gpt-4o or anthropic:claude-sonnet-4-5", provider)
	case provider == "openai":
		keyEnv, baseEnv = openai.EnvAPIKey, openai.EnvBaseURL
	default:
		keyEnv, baseEnv = anthropic.EnvAPIKey, anthropic.EnvBaseURL
	}
	if os.Getenv(keyEnv) == "" && os.Getenv(baseEnv) == "" {
		return nil, fmt.Errorf("%s is not set, so %s cannot be used: quit, export %s (or %s for a compatible server), and start agenttui again",
			keyEnv, spec, keyEnv, baseEnv)
	}
	return providerModel(spec, ms)
}

// resumeModel returns the model a loaded session is carried on with: the
// one --model or --scenario names, else the one its journal names.
func resumeModel(o *options, rp *journal.Replay) (model.Model, error) {
	m, demo, err := chooseModel(o)
	if err != nil {
		return nil, err
	}
	if s, ok := m.(*model.Scripted); ok {
		m = s.WithSpeed(o.speed)
	}
	if demo {
		return nil, usagef("session %s was recorded with no model named: pass --model or --scenario to resume it",
			rp.Header.Session)
	}
	return m, nil
}
