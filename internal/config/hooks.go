package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/agenttui/agenttui/internal/xdg"
	"github.com/agenttui/agenttui/runtime/hooks"
)

// Hooks are the hook commands a session may run, by where they come from:
// the person's own run, and a workspace's run only once the person trusts
// them.
type Hooks struct {
	// User are the person's own hooks: those of their config.json, or of
	// the file --config names.
	User hooks.Config
	// Workspace are the hooks of the workspace's own agenttui.json, each
	// marked as such; they run only once the person trusts them.
	Workspace hooks.Config
	// WorkspaceFile is the file Workspace came from; empty when there are
	// none.
	WorkspaceFile string
}

// LoadHooks returns the hooks of c, the configuration read for workspace
// (nil for none), by where they come from. When c is the workspace's own
// agenttui.json, the person's config.json is not read for anything else,
// but its hooks still run: they are the person's, wherever they work. An
// error is a *Error or *ReadError naming the file.
func LoadHooks(c *Config, workspace string) (Hooks, error) {
	var out Hooks
	if c != nil && !sameFile(c.Path, filepath.Join(workspace, "agenttui.json")) {
		// The person's own file, or the one --config names.
		out.User = c.Hooks
		return out, nil
	}
	if c != nil && !c.Hooks.Empty() {
		out.Workspace = c.Hooks.MarkWorkspace()
		out.WorkspaceFile = c.Path
	}
	base, err := xdg.ConfigHome()
	if err != nil {
		return out, nil
	}
	user := filepath.Join(base, "agenttui", "config.json")
	if c != nil && sameFile(c.Path, user) {
		return out, nil
	}
	data, err := os.ReadFile(user)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return out, nil
	case err != nil:
		return out, &ReadError{File: user, Err: unwrapPathError(err)}
	}
	var top struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return out, &Error{File: user, Problem: "not a JSON object: " + err.Error()}
	}
	if len(top.Hooks) == 0 {
		return out, nil
	}
	if out.User, err = hooks.Parse(top.Hooks); err != nil {
		return out, &Error{File: user, Problem: err.Error()}
	}
	return out, nil
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// TrustStore returns where the person's trust of workspaces' hooks is
// kept: $XDG_STATE_HOME/agenttui/trusted-hooks.json.
func TrustStore() (hooks.TrustStore, error) {
	base, err := xdg.StateHome()
	if err != nil {
		return hooks.TrustStore{}, err
	}
	return hooks.TrustStore{Path: filepath.Join(base, "agenttui", "trusted-hooks.json")}, nil
}
