package workspace

import (
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// SetSandbox makes run_shell run its commands in sb, a sandbox over this
// workspace, and say so per call (tool.Sandboxer): a sandbox that is off
// leaves commands unsandboxed and says why. Without a call to SetSandbox,
// commands run unsandboxed and calls say nothing about it. Call it before
// Tools.
func (w *Workspace) SetSandbox(sb *sandbox.Sandbox) { w.shell = sb }

// Sandbox returns the sandbox run_shell runs its commands in; nil when
// SetSandbox was not called.
func (w *Workspace) Sandbox() *sandbox.Sandbox { return w.shell }

// Within returns a workspace over the same root whose run_shell commands,
// when sandboxed, may change only paths and the sandbox's temporary folder:
// the tools of a sub-agent that declared the paths it works on. Its sandbox
// is w's narrowed with sandbox.Sandbox.Within, sharing w's spare helper and
// temporary folder, so it must not outlive w's sandbox. A relative path is
// taken from the root; every path is cleaned (textually: symbolic links are
// not followed), and one that escapes the root is dropped. A path that does
// not exist yet cannot be created by a sandboxed command (see
// sandbox.Sandbox.Within). The footprint and the description of its
// run_shell name these paths; its other tools behave as w's (write_file and
// edit_file are not narrowed: the runtime holds a sub-agent's writes to its
// paths by their footprints). Without a sandbox, or with one that is off,
// run_shell is as w's. Call SetSandbox on w before Within.
func (w *Workspace) Within(paths []string) *Workspace {
	var abs []string
	for _, p := range paths {
		if p = w.asGiven(p); w.inside(p) {
			abs = append(abs, p)
		}
	}
	v := *w
	v.shell = w.shell.Within(abs)
	return &v
}

// sandboxed reports whether a call runs in the sandbox: there is one, and
// the call did not ask to leave it.
func (w *Workspace) sandboxed(a runShellArgs) bool {
	return w.shell.Enabled() && (a.Sandbox == nil || *a.Sandbox)
}

// shellTouches is run_shell's footprint: anything, unless the command runs in
// the sandbox, which lets it change only its writable roots. In read-only
// mode the workspace is named too, because the command reads it: a write in
// the same reply must not change a file under its feet.
func (w *Workspace) shellTouches(a runShellArgs) tool.Touches {
	if !w.sandboxed(a) {
		return tool.Writes(tool.Anything())
	}
	paths := w.shell.Writable()
	if w.shell.Mode() == sandbox.ReadOnly {
		paths = append(paths, w.root)
	}
	return tool.Writes(tool.Paths(paths...))
}

// shellSandbox says how a run_shell call runs: in the sandbox with what it
// may change, or outside it and why. It is nil when the workspace was given
// no sandbox decision at all.
func (w *Workspace) shellSandbox(a runShellArgs) *tool.Sandbox {
	switch {
	case w.shell == nil:
		return nil
	case !w.shell.Enabled():
		return &tool.Sandbox{Why: w.shell.Why()}
	case !w.sandboxed(a):
		return &tool.Sandbox{Escalated: true, Why: "it asked to run unsandboxed (sandbox: false)"}
	}
	return &tool.Sandbox{
		Sandboxed: true,
		Mode:      string(w.shell.Mode()),
		Writable:  w.shell.Writable(),
		Caches:    w.shell.Caches(),
		Temp:      w.shell.TempDir(),
		Protected: w.shell.Protected(),
		Network:   w.shell.Network(),
	}
}

// sandboxDescription tells the model, in run_shell's description, what the
// sandbox allows and how to ask for more.
func (w *Workspace) sandboxDescription() string {
	return "Commands run in a sandbox: they can read every file but " + w.sandboxAllows(false) +
		". When a command fails because the sandbox refused something, the output says so; if the command " +
		"really needs more, call run_shell again with \"sandbox\": false, and the person will be asked to " +
		"approve running it unsandboxed."
}

// sandboxAllows says what sandboxed commands may change and reach, naming
// the temporary folder's path when withTemp is set. It names the
// toolchains' caches without looking for them, so that saying it starts no
// program.
func (w *Workspace) sandboxAllows(withTemp bool) string {
	var where []string
	for _, p := range w.shell.Roots() {
		switch p {
		case w.root:
			where = append(where, "the workspace")
		case w.shell.TempDir():
			if withTemp {
				where = append(where, "$TMPDIR ("+p+")")
				break
			}
			// Named, not shown, in the tool's description: the folder is
			// made anew by every process, and a resumed session must
			// declare its tools in the same bytes as before, or the
			// provider's prompt cache misses.
			where = append(where, "$TMPDIR")
		default:
			where = append(where, p)
		}
	}
	if w.shell.ToolchainCaches() {
		where = append(where, "the toolchains' caches (Go's, npm's, pip's, cargo's registry, and $XDG_CACHE_HOME or ~/.cache)")
	}
	s := "can change files only in " + strings.Join(where, ", ")
	if prot := w.shell.Protected(); len(prot) > 0 {
		s += " (but not " + strings.Join(prot, ", ") + ")"
	}
	if w.shell.Network() {
		return s + "; they may use the network"
	}
	return s + ", and cannot open network connections"
}

// sandboxNote is what the model reads after the output of a sandboxed
// command that failed with lines that look like the sandbox refusing
// something; empty when there are none.
func (w *Workspace) sandboxNote(output string) string {
	lines := w.shell.Refusals(output, w.root)
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\nThe sandbox may have blocked this command. It ran in a sandbox in which commands %s; "+
		"these lines look like the sandbox refusing something:\n", w.sandboxAllows(true))
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("If the command really needs that, call run_shell again with the same command and \"sandbox\": false; " +
		"the person will be asked to approve running it unsandboxed.")
	return b.String()
}
