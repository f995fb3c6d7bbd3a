package main

import (
	"fmt"
	"github.com/agenttui/agenttui/internal/launch"

	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/tui"
)

// The console's slash commands that act on the session: the wiring behind
// tui.Options' SwitchModel, NewSession, Sessions and Resume.

// switchModel is the console's /model: the next turn asks the model spec
// names, with its own context window.
func (c *console) switchModel(spec string) (string, error) {
	m, err := providers.ForConsole(spec, providers.FromConfig(c.o.Config))
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
	all, _, _ := journal.List(dir, c.o.Workspace)
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
	rp, err := launch.LoadSession(&o.Settings, id)
	if err != nil {
		return tui.Opened{}, err
	}
	m, err := launch.ResumeModel(&o.Settings, rp, o.speed)
	if err != nil {
		return tui.Opened{}, err
	}
	carry, err := c.host.Adopt(rp, m)
	if err != nil {
		return tui.Opened{}, err
	}
	return c.opened(rp, carry), nil
}
