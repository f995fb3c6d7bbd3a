package session

import (
	"strings"

	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/journal"
)

// newHookRunner returns the runner of the session's hook commands, which
// every agent of the session (its tasks' too) shares.
func (h *Host) newHookRunner(c hooks.Config) *hooks.Runner {
	o := h.opts
	return &hooks.Runner{
		Config: c,
		Trust:  o.HookTrust,
		Dir:    o.Workspace,
		Mode:   func() string { return string(o.Policy.Mode()) },
		Transcript: func(id string) string {
			if o.Unjournaled {
				return ""
			}
			dir, err := journal.Dir()
			if err != nil {
				return ""
			}
			// A task's session is journaled in its parent's file.
			id, _, _ = strings.Cut(id, "/")
			return journal.Path(dir, id)
		},
	}
}

// SetHooks replaces the hook commands the session runs. Call it only while
// no run goes on; the workspace's own run as Options.HookTrust allows,
// which may change at any time.
func (h *Host) SetHooks(c hooks.Config) {
	if c.Empty() {
		h.agent.HookCommands = nil
		return
	}
	h.agent.HookCommands = h.newHookRunner(c)
}
