package tool

import (
	"encoding/json"
	"slices"
)

// Sandbox says how a call runs when its tool can confine it, as run_shell
// does: in a sandbox that lets it change only some paths, or outside one.
// Approval reads it (a sandboxed call may be allowed without asking; a call
// that asks to leave the sandbox always asks the person), and so do the
// console and the event stream.
type Sandbox struct {
	// Sandboxed says the call runs in the sandbox: it may read anything but
	// change only Writable, and open network connections only when Network.
	Sandboxed bool `json:"sandboxed"`
	// Mode names the sandbox's mode, such as "workspace-write" or
	// "read-only"; empty when the call is not sandboxed.
	Mode string `json:"mode,omitempty"`
	// Writable lists, absolute, what a sandboxed call may change.
	Writable []string `json:"writable,omitempty"`
	// Caches lists the toolchains' cache folders among Writable (Go's
	// build cache, npm's, …): not the person's files, and outside
	// checkpoints.
	Caches []string `json:"caches,omitempty"`
	// Temp is the call's temporary folder ($TMPDIR), one of Writable.
	Temp string `json:"temp,omitempty"`
	// Protected lists paths inside Writable that stay read-only, such as
	// the workspace's .git.
	Protected []string `json:"protected,omitempty"`
	// Network says a sandboxed call may open network connections.
	Network bool `json:"network,omitempty"`
	// Escalated says the call asked to run outside the sandbox its tool
	// would otherwise use. Such a call always needs a person's approval,
	// whatever the mode, unless a rule allows it.
	Escalated bool `json:"escalated,omitempty"`
	// Why says why a call that is not sandboxed is not: "it asked to run
	// unsandboxed", "the sandbox is off", "this kernel has no Landlock".
	Why string `json:"why,omitempty"`
}

// Clone returns a deep copy of s; nil for nil.
func (s *Sandbox) Clone() *Sandbox {
	if s == nil {
		return nil
	}
	c := *s
	c.Writable = slices.Clone(s.Writable)
	c.Caches = slices.Clone(s.Caches)
	c.Protected = slices.Clone(s.Protected)
	return &c
}

// Sandboxer is implemented by tools whose calls may run in a sandbox.
type Sandboxer interface {
	// Sandbox says how a call with args would run; nil when the tool does
	// not confine that call one way or the other.
	Sandbox(args json.RawMessage) *Sandbox
}
