package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// protection is the set of files besides .git that sandboxed commands may
// not change, shared by a sandbox and its views.
type protection struct {
	mu    sync.Mutex
	paths []string
}

func (p *protection) get() []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.paths)
}

// SetProtected makes the files at paths read-only for the commands that
// start from now on, in place of those an earlier call named: the files a
// trusted workspace's hooks run, which run outside the sandbox, so that a
// sandboxed command can neither rewrite nor replace them. Each path is
// kept as given and as its symbolic links resolve, when it lies inside the
// workspace; a path that does not name a file (a folder, or nothing) is
// dropped. It does nothing in a sandbox that is off or read-only, and it
// is safe to call while commands run. Views made by Within follow it.
//
// Landlock cannot take a path back from a writable folder above it, so
// the folders on the way to a protected file are then granted entry by
// entry: commands can change what is in them but cannot create, remove or
// rename entries directly in them (the workspace's root among them), as
// with ProtectGit.
func (s *Sandbox) SetProtected(paths []string) {
	if !s.Enabled() || s.mode != WorkspaceWrite {
		return
	}
	var keep []string
	add := func(p string) {
		if p != s.workspace && within(p, s.workspace) && !slices.Contains(keep, p) {
			keep = append(keep, p)
		}
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		info, err := os.Stat(p)
		if err != nil || info.IsDir() {
			continue
		}
		add(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			add(real)
		}
	}
	slices.Sort(keep)
	s.protected.mu.Lock()
	s.protected.paths = keep
	s.protected.mu.Unlock()
}

// exists reports whether there is anything at path, a dangling link
// included.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
