package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/agenttui/agenttui/internal/history"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/openai"
	"github.com/agenttui/agenttui/tui"
)

// The console's slash commands that act on the session: the wiring behind
// tui.Options' SwitchModel, NewSession, Sessions and Resume, and the input
// history.

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

// switchModel is the console's /model: the next turn asks the model spec
// names, with its own context window.
func (c *console) switchModel(spec string) (string, error) {
	m, err := consoleModel(spec, settingsOf(c.o.cfg))
	if err != nil {
		return "", err
	}
	c.host.SetModel(m)
	return m.Name(), nil
}

// newSession is the console's /clear: the session ends (its journal is
// closed, so it can be resumed later) and a fresh one starts, with no
// grants. The next input is its goal.
func (c *console) newSession() (tui.Opened, error) {
	if err := c.host.Clear(); err != nil {
		return tui.Opened{}, err
	}
	o := tui.Opened{Model: c.host.Agent().Model.Name()}
	if !c.unjournaled {
		o.ID = c.host.Session().ID
	}
	return o, nil
}

// sessions is the console's /sessions: the workspace's sessions, newest
// first.
func (c *console) sessions() ([]tui.SessionInfo, error) {
	dir, err := journal.Dir()
	if err != nil {
		return nil, err
	}
	all, _ := journal.List(dir, c.o.workspace)
	out := make([]tui.SessionInfo, len(all))
	for i, rp := range all {
		s := rp.Describe()
		out[i] = tui.SessionInfo{ID: s.ID, Started: s.Started, LastActivity: s.LastActivity, Outcome: s.Outcome, Goal: journal.FirstLine(s.Goal)}
	}
	return out, nil
}

// resumeSession is the console's /resume: it loads session id of this
// workspace as --resume would, and makes it the console's session in place
// of the current one, which is closed. Nothing changes when it cannot be
// loaded.
func (c *console) resumeSession(id string) (tui.Opened, error) {
	if id == c.host.Session().ID {
		return tui.Opened{}, fmt.Errorf("session %s is the one open now", id)
	}
	o := *c.o
	o.resume, o.cont = id, false
	rp, err := loadSession(&o)
	if err != nil {
		return tui.Opened{}, err
	}
	m, err := resumeModel(&o, rp)
	if err != nil {
		return tui.Opened{}, err
	}
	carry, err := c.host.Adopt(rp, m)
	if err != nil {
		return tui.Opened{}, err
	}
	return c.opened(rp, carry), nil
}

// openHistory opens the input history of the workspace. A history that
// cannot be read is said on screen and kept for this console only.
func openHistory(workspace string) (*history.Store, error) {
	dir, err := history.Dir()
	if err != nil {
		s, _ := history.Open("", 0, redact.FromEnv())
		return s, fmt.Errorf("the input history is kept for this console only: %w", err)
	}
	return history.Open(history.File(dir, workspace), 0, redact.FromEnv())
}
