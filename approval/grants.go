package approval

import (
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Grant is a person's permission for the rest of the session: a tool may run
// without asking, anywhere or only within a scope (such as writes under
// docs/), or only in its sandbox. A grant never overrides a deny or ask rule,
// nor plan mode, and never covers a call that asks to leave its sandbox.
type Grant struct {
	// Tool is the exact tool name.
	Tool string
	// Within limits the grant to calls whose footprint lies inside these
	// paths; empty means anywhere.
	Within tool.Scope
	// Sandboxed limits the grant to calls that run in the tool's sandbox.
	Sandboxed bool
}

// Covers reports whether the grant lets the call run.
func (g Grant) Covers(c runtime.CallInfo) bool {
	if c.Call.Name != g.Tool || (c.Sandbox != nil && c.Sandbox.Escalated) {
		return false
	}
	if c.Hook != nil && c.Hook.Decision == hooks.Ask {
		// The person's hook asks about this call each time it is made.
		return false
	}
	if len(Tainted(c)) > 0 {
		// Text from an untrusted result in an action is decided one call
		// at a time.
		return false
	}
	if g.Sandboxed && (c.Sandbox == nil || !c.Sandbox.Sandboxed) {
		return false
	}
	if g.Within.IsEmpty() {
		return true
	}
	if c.Touches.Access == tool.AccessIndependent || c.Touches.Scope.IsAnything() || c.Touches.Scope.IsEmpty() {
		return false
	}
	for _, p := range c.Touches.Scope.PathList() {
		if !within(p, g.Within) {
			return false
		}
	}
	return true
}

// within reports whether path p is equal to or below a path of s.
func within(p string, s tool.Scope) bool {
	for _, root := range s.PathList() {
		if p == root || root == "/" || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}

// Label describes the grant for the board and the event stream, with paths
// relative to workspace: "write_file", "write_file within docs/" or
// "sandboxed run_shell commands".
func (g Grant) Label(workspace string) string {
	if g.Sandboxed {
		return "sandboxed " + g.Tool + " commands"
	}
	if g.Within.IsEmpty() {
		return g.Tool
	}
	if netScope(g.Within) {
		var hosts []string
		for _, p := range g.Within.PathList() {
			hosts = append(hosts, strings.TrimPrefix(p, "/net/"))
		}
		return g.Tool + " for " + strings.Join(hosts, ", ")
	}
	var parts []string
	for _, p := range g.Within.PathList() {
		rel := p
		if workspace != "" {
			if r, err := filepath.Rel(workspace, p); err == nil && !strings.HasPrefix(r, "..") {
				rel = r
			}
		}
		if rel == "." {
			rel = "the workspace"
		} else {
			rel += "/"
		}
		parts = append(parts, rel)
	}
	return g.Tool + " within " + strings.Join(parts, ", ")
}

// GrantOptions returns the grants the person may give from a pending call:
// the tool for the session, and, when the call's footprint names paths, the
// tool within the folders of those paths. A call that runs in its tool's
// sandbox offers that tool's sandboxed calls instead; a call that asks to
// leave its sandbox offers none, since that is decided one call at a time.
func (p *Policy) GrantOptions(req Request) []Grant {
	switch {
	case req.Sandbox != nil && req.Sandbox.Escalated:
		return nil
	case req.Sandbox != nil && req.Sandbox.Sandboxed:
		return []Grant{{Tool: req.Call.Name, Sandboxed: true}}
	}
	opts := []Grant{{Tool: req.Call.Name}}
	t := req.Touches
	if t.Access == tool.AccessIndependent || t.Scope.IsAnything() || t.Scope.IsEmpty() {
		return opts
	}
	if netScope(t.Scope) {
		// A web host is granted itself, not every host.
		return append(opts, Grant{Tool: req.Call.Name, Within: t.Scope.Normalized()})
	}
	var dirs []string
	for _, path := range t.Scope.PathList() {
		dirs = append(dirs, filepath.Dir(path))
	}
	return append(opts, Grant{Tool: req.Call.Name, Within: tool.Paths(dirs...).Normalized()})
}

// GrantLabel describes g with paths relative to the policy's workspace.
func (p *Policy) GrantLabel(g Grant) string { return g.Label(p.workspace) }

// AddGrant gives g for the rest of the session and at once releases the
// calls already waiting for the person that it covers. It returns how many
// calls it released.
func (p *Policy) AddGrant(g Grant) int {
	g.Within = g.Within.Normalized()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grants = append(p.grants, g)
	released := 0
	for pa := range p.pending {
		if g.Covers(pa.info) {
			pa.release <- g
			delete(p.pending, pa)
			released++
		}
	}
	return released
}

// ClearGrants takes back every grant given so far, as when the console
// starts a new session: grants hold for one session.
func (p *Policy) ClearGrants() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grants = nil
}

// Grants returns the grants given so far.
func (p *Policy) Grants() []Grant {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Grant(nil), p.grants...)
}

func (p *Policy) coveringGrant(c runtime.CallInfo) (Grant, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.coveringGrantLocked(c)
}

func (p *Policy) coveringGrantLocked(c runtime.CallInfo) (Grant, bool) {
	for _, g := range p.grants {
		if g.Covers(c) {
			return g, true
		}
	}
	return Grant{}, false
}
