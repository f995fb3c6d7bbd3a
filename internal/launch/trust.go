package launch

import (
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/workspacetrust"
)

// WorkspaceTrust reads the workspace's own commands (the hooks of its
// agenttui.json, the MCP servers of its .mcp.json unless --mcp-config
// names a file) and whether the person trusts them, and makes them the
// session's: so's hooks are the person's own and the workspace's, which
// run as the trust allows, and the workspace's servers start once it is
// given. The demo runs none, and gets nil: it plays in a copy of the
// sample project. A workspace file that cannot be read or is not valid is
// an error naming it; call it before session.New.
func (s *Settings) WorkspaceTrust(so *session.Options, demo bool) (*workspacetrust.Workspace, error) {
	if demo {
		return nil, nil
	}
	w, err := workspacetrust.Load(s.Workspace, s.Config, s.MCPConfig)
	if err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	so.Hooks, so.HookTrust, so.WorkspaceMCP = w.Hooks(), w.Trust(), w
	return w, nil
}

// ProtectTrusted keeps sandboxed commands from changing the files the
// trusted hooks of w run (they run outside the sandbox), now and whenever
// the trust changes. Call it once session.New has made the sandbox; with
// no sandbox, or a nil w, it does nothing.
func (s *Settings) ProtectTrusted(w *workspacetrust.Workspace) {
	if w != nil && s.Shell().Enabled() {
		w.SetProtect(s.Shell().SetProtected)
	}
}
