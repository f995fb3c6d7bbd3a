package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// Within returns a view of s in which sandboxed commands may change only
// paths (absolute and clean, inside the workspace), s's toolchain caches
// and the temporary folder: the sandbox of a sub-agent that declared the
// paths it works on, which may still build. The view shares s's spare
// helper, caches and temporary folder: its commands start on s's spares,
// each with the view's narrower policy, and its Close does nothing; it is
// usable as long as s is not closed. s's extra writable folders and a
// worktree's git folders are not writable in the view; the workspace's .git
// stays read-only with ProtectGit when one of the paths holds it.
//
// A path outside the workspace, or not absolute, is dropped. A path that
// does not exist (or is not a folder or a regular file, or is reached
// through a symbolic link) when a command starts cannot be given to Landlock,
// so that command cannot change it or create it: create such a folder first,
// outside the sandbox (write_file does). Writable still lists it, so a
// command's footprint covers it either way.
//
// In read-only mode the view lets commands change just what s does: the
// temporary folder. A nil or disabled s is returned as it is. A view of a
// view keeps only what both allow.
func (s *Sandbox) Within(paths []string) *Sandbox {
	if !s.Enabled() {
		return s
	}
	v := &Sandbox{
		mode:       s.mode,
		why:        s.why,
		workspace:  s.workspace,
		temp:       s.temp,
		network:    s.network,
		protectGit: s.protectGit,
		abi:        s.abi,
		spares:     s.spares,
		protected:  s.protected,
		caches:     s.caches,
		view:       true,
	}
	if s.mode != WorkspaceWrite {
		return v
	}
	add := func(p string) {
		if !slices.Contains(v.roots, p) {
			v.roots = append(v.roots, p)
		}
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		switch {
		case !within(p, s.workspace):
		case !s.view:
			add(p)
		case slices.ContainsFunc(s.roots, func(r string) bool { return within(p, r) }):
			add(p)
		default:
			// Only the parent view's paths below p.
			for _, r := range s.roots {
				if within(r, p) {
					add(r)
				}
			}
		}
	}
	return v
}

// present reports whether the writable root p can be given to Landlock now:
// it is a folder or a regular file, reached without a symbolic link (the
// helper refuses anything else; see openRoot).
func present(p string) bool {
	info, err := os.Lstat(p)
	if err != nil || !(info.IsDir() || info.Mode().IsRegular()) {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	return err == nil && real == p
}
