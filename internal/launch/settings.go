// Package launch turns what a person asked for (flags, an MCP call, a case
// of an eval suite) into a session that runs without the console: the
// workspace and its configuration, the model, the approval policy and its
// rules, the shell sandbox and the hooks. agenttui run, agenttui mcp and
// agenttui eval all bring their sessions up through Open, so a goal runs
// the same way whoever hands it over; the console uses the same Settings.
package launch

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// Error is a setting the person must mend: a workspace that does not
// exist, an unknown model, a scenario that cannot be played. Its message is
// one line; the commands exit 2 on it, and the MCP server answers it as a
// tool error.
type Error struct {
	// Problem says what is wrong.
	Problem string
}

func (e *Error) Error() string { return e.Problem }

// Errorf returns an *Error with the formatted message.
func Errorf(format string, args ...any) error { return &Error{Problem: fmt.Sprintf(format, args...)} }

// Settings are what a session is asked to be, before and after Resolve lays
// the configuration under them.
type Settings struct {
	// Model is a model spec (openai:NAME, anthropic:NAME, demo); empty
	// means the configured model, else the demo.
	Model string
	// Workspace is the folder the agent works in; empty means the current
	// folder. Resolve makes it absolute.
	Workspace string
	// Mode is the approval mode.
	Mode approval.Mode
	// Scenario is a scenario file played as a scripted model.
	Scenario string
	// MaxParallel bounds how many calls run at once.
	MaxParallel int
	// Reasoning is how hard the model is asked to reason.
	Reasoning model.Effort
	// ConfigPath is the configuration file named; empty means the
	// workspace's agenttui.json, else the person's.
	ConfigPath string
	// MCPConfig is the MCP configuration file named; empty means the
	// workspace's .mcp.json.
	MCPConfig string
	// Allow and Deny are rules given on the command line.
	Allow, Deny []string
	// Sandbox is the shell sandbox asked for; Resolve lays the
	// configuration's under it.
	Sandbox sandbox.Config
	// Set records which settings were given explicitly, by their flags'
	// names ("model", "mode", "max-parallel", "reasoning", "sandbox",
	// "workspace"): those win over the configuration file.
	Set map[string]bool
	// Config is the configuration file Resolve read, if any.
	Config *config.Config

	// shell is the sandbox made by ShellSandbox once the workspace is
	// final.
	shell *sandbox.Sandbox
}

// Clone returns a copy of s that shares nothing mutable with it and has no
// shell sandbox yet, for a session of its own.
func (s *Settings) Clone() *Settings {
	c := *s
	c.Set = maps.Clone(s.Set)
	if c.Set == nil {
		c.Set = map[string]bool{}
	}
	c.Allow, c.Deny = slices.Clone(s.Allow), slices.Clone(s.Deny)
	c.shell = nil
	return &c
}

// LandlockSupport tells what the kernel offers the shell sandbox; tests
// replace it to play a kernel without Landlock.
var LandlockSupport = sandbox.Detect

// Resolve makes the workspace absolute, reads the configuration and lays
// it under the settings given explicitly, and checks the sandbox and the
// rules. Its errors are *Error, or the configuration's own.
func (s *Settings) Resolve() error {
	ws, err := ResolveWorkspace(s.Workspace)
	if err != nil {
		return err
	}
	s.Workspace = ws
	if err := s.ReadConfig(); err != nil {
		return err
	}
	if err := sandbox.Available(s.Sandbox, LandlockSupport()); err != nil {
		return &Error{Problem: err.Error()}
	}
	_, err = s.Rules()
	return err
}

// ResolveWorkspace returns dir as an absolute path, the current folder when
// dir is empty; a folder that does not exist is an *Error.
func ResolveWorkspace(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", Errorf("cannot find the current folder: %v", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", Errorf("--workspace %s: %v", dir, err)
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", Errorf("--workspace %s does not exist", dir)
	case err != nil:
		return "", Errorf("--workspace %s: %v", dir, err)
	case !info.IsDir():
		return "", Errorf("--workspace %s is not a folder", dir)
	}
	return abs, nil
}

// ReadConfig finds and reads the configuration of the settings' workspace
// (which must be resolved) and lays it under the settings given
// explicitly.
func (s *Settings) ReadConfig() error {
	// Without a file saying otherwise, sandboxed commands may write the
	// toolchains' caches, which builds need.
	s.Sandbox.ToolchainCaches = true
	path, err := config.Find(s.ConfigPath, s.Workspace)
	if err != nil || path == "" {
		return err
	}
	c, err := config.Load(path)
	if err != nil {
		return err
	}
	s.Config = c
	if !s.Set["model"] && c.Model != "" && s.Scenario == "" {
		s.Model = c.Model
	}
	if !s.Set["mode"] && c.Mode != "" {
		s.Mode = c.Mode
	}
	if !s.Set["max-parallel"] && c.MaxParallel > 0 {
		s.MaxParallel = c.MaxParallel
	}
	if !s.Set["reasoning"] && c.Reasoning != nil {
		s.Reasoning = *c.Reasoning
	}
	mode := s.Sandbox.Mode
	s.Sandbox = c.Sandbox
	if s.Set["sandbox"] {
		s.Sandbox.Mode = mode
	}
	return nil
}

// Rules returns the configured rules followed by the command line's.
func (s *Settings) Rules() ([]approval.NamedRule, error) {
	fr, err := config.FlagRules(s.Allow, s.Deny)
	if err != nil {
		return nil, err
	}
	var rules []approval.NamedRule
	if s.Config != nil {
		rules = slices.Clone(s.Config.Rules)
	}
	return append(rules, fr...), nil
}

// SessionOptions returns what the settings say of the session: its
// workspace, model (nil while a resumed session's is not known), approval
// policy and rules, bounds, shell sandbox, MCP servers and traces. The
// caller adds how events are shown.
func (s *Settings) SessionOptions(m model.Model, policy *approval.Policy, tr traces.Settings) (session.Options, error) {
	rules, err := s.Rules()
	if err != nil {
		return session.Options{}, err
	}
	return session.Options{Workspace: s.Workspace, Model: m, Policy: policy, Rules: rules, Config: s.Config, MaxParallel: s.MaxParallel,
		Reasoning: s.Reasoning, Shell: s.ShellSandbox, MCPConfig: s.MCPConfig, Traces: tr}, nil
}

// ShellSandbox returns the session's shell sandbox over root (the resolved
// workspace), making it the first time: the workspace is final by then (the
// demo's is a copy made after the flags are read). A missing extra writable
// folder is an *Error.
func (s *Settings) ShellSandbox(root string) (*sandbox.Sandbox, error) {
	if s.shell != nil {
		return s.shell, nil
	}
	sb, err := sandbox.New(root, s.Sandbox, LandlockSupport())
	if err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	s.shell = sb
	// The spare helper starts a moment later, so that starting a second Go
	// program does not compete with the console's first frame on a small
	// machine, and still well before a model's first reply asks for a
	// shell command, which then finds it ready. A command that comes sooner
	// starts a helper of its own, as without a spare. Warm does nothing
	// once CloseShell has closed the sandbox. The toolchains' caches are
	// not looked for here: a session that never runs a command never
	// starts the toolchains (see sandbox.Sandbox.Caches).
	time.AfterFunc(spareDelay, func() { sb.Warm() })
	return sb, nil
}

// spareDelay is how long after the sandbox is made its spare helper starts.
const spareDelay = time.Second

// Shell returns the shell sandbox once ShellSandbox has made it, else nil.
func (s *Settings) Shell() *sandbox.Sandbox { return s.shell }

// CloseShell ends the shell sandbox's spare helper and removes its
// temporary folder, if one was made.
func (s *Settings) CloseShell() {
	if s.shell != nil {
		s.shell.Close()
	}
}
