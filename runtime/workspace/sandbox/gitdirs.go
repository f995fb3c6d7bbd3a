package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// worktreeGitDirs returns the folders a git worktree keeps outside itself:
// when workspace/.git is a file naming the worktree's git folder, that
// folder and the repository's common git folder. A git folder is taken only
// when it names the workspace back (its gitdir file points at
// workspace/.git), so that a .git file a command rewrote cannot make another
// repository's git folder writable in a later session.
func worktreeGitDirs(workspace string) []string {
	dotGit := filepath.Join(workspace, ".git")
	info, err := os.Lstat(dotGit)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return nil
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return nil
	}
	gitDir := strings.TrimSpace(target)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(workspace, gitDir)
	}
	gitDir, err = filepath.EvalSymlinks(gitDir)
	if err != nil {
		return nil
	}
	back, err := os.ReadFile(filepath.Join(gitDir, "gitdir"))
	if err != nil {
		return nil
	}
	if b, err := filepath.EvalSymlinks(strings.TrimSpace(string(back))); err != nil || b != dotGit {
		return nil
	}
	dirs := []string{gitDir}
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		if c, err := filepath.EvalSymlinks(c); err == nil && !within(gitDir, c) {
			dirs = append(dirs, c)
		} else if err == nil {
			// The worktree's folder lies in the common folder, as it
			// usually does (.git/worktrees/name): one rule covers both.
			dirs = []string{c}
		}
	}
	return dirs
}
