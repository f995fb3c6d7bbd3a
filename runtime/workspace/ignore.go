package workspace

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/agenttui/agenttui/internal/ignore"
	"github.com/agenttui/agenttui/internal/xdg"
)

// ignoreRules are the ignore patterns in force in one folder of a walk: the
// global excludes file, the repository's info/exclude, and the ignore files
// of every folder from the repository root down, lowest priority first. A
// value is never changed once built, so the walk's goroutines share it.
type ignoreRules struct {
	patterns []gitignore.Pattern
	// base is the workspace root below the folder the patterns are relative
	// to (the repository root, or the workspace root when it is in no
	// repository), as path components.
	base []string
}

// active reports whether any pattern is in force.
func (r *ignoreRules) active() bool { return r != nil && len(r.patterns) > 0 }

// with returns the rules extended by patterns of higher priority. The
// receiver is left as it is: its folder's siblings still use it.
func (r *ignoreRules) with(ps []gitignore.Pattern) *ignoreRules {
	if len(ps) == 0 {
		return r
	}
	all := make([]gitignore.Pattern, 0, len(r.patterns)+len(ps))
	all = append(append(all, r.patterns...), ps...)
	return &ignoreRules{patterns: all, base: r.base}
}

// comps returns the components the patterns match for the workspace-relative
// path rel.
func (r *ignoreRules) comps(rel string) []string {
	out := append([]string(nil), r.base...)
	if rel != "." && rel != "" {
		out = append(out, strings.Split(rel, "/")...)
	}
	return out
}

// ignored reports whether the path with the given components (as comps
// returns them) is ignored: the last pattern that matches decides, and a
// negated one (!) keeps the path.
func (r *ignoreRules) ignored(comps []string, isDir bool) bool {
	return r.active() && ignore.Excluded(r.patterns, comps, isDir)
}

// baseRules returns the rules that come from outside the workspace: the
// global excludes file and, when the workspace lies in a git repository, the
// repository's info/exclude and the ignore files of the folders between the
// repository root and the workspace. If those rules ignore the workspace
// itself, only the global excludes file is kept, relative to the workspace:
// otherwise nothing in it could be found.
func (w *Workspace) baseRules() *ignoreRules {
	repo := repoRoot(w.root)
	common := commonGitDir(repo)
	var globals []gitignore.Pattern
	if data, err := os.ReadFile(globalExcludesFile(common)); err == nil {
		globals = ignore.Parse(data, nil)
	}
	alone := &ignoreRules{patterns: globals}
	if repo == "" {
		return alone
	}
	var base []string
	if rel, _ := filepath.Rel(repo, w.root); rel != "." {
		base = strings.Split(filepath.ToSlash(rel), "/")
	}
	r := &ignoreRules{patterns: globals, base: base}
	if data, err := os.ReadFile(filepath.Join(common, "info", "exclude")); err == nil {
		r.patterns = append(r.patterns, ignore.Parse(data, nil)...)
	}
	for i := range base {
		dir := filepath.Join(append([]string{repo}, base[:i]...)...)
		if i > 0 && r.ignored(base[:i], true) {
			return alone
		}
		for _, name := range ignore.Files {
			if data, err := readRegular(filepath.Join(dir, name)); err == nil {
				r.patterns = append(r.patterns, ignore.Parse(data, base[:i])...)
			}
		}
	}
	if len(base) > 0 && r.ignored(base, true) {
		return alone
	}
	return r
}

// readRegular reads the file at p if it is a regular file, not a link: git
// does not follow a symbolic link in place of an ignore file either.
func readRegular(p string) ([]byte, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, os.ErrNotExist
	}
	return os.ReadFile(p)
}

// repoRoot returns the folder at or above dir that holds a .git entry (a
// folder, or the file a linked worktree has), or "" when there is none.
func repoRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// commonGitDir returns the git folder of the repository rooted at repo that
// holds info/exclude and the config: repo/.git, or for a linked worktree,
// whose .git file names a git folder of its own, the common folder that one
// names. It is "" when repo is "".
func commonGitDir(repo string) string {
	if repo == "" {
		return ""
	}
	gitDir := filepath.Join(repo, ".git")
	data, err := os.ReadFile(gitDir)
	if err != nil {
		// A folder (or nothing readable): the usual layout.
		return gitDir
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return gitDir
	}
	gitDir = strings.TrimSpace(target)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(repo, gitDir)
	}
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		return common
	}
	return gitDir
}

// globalExcludesFile returns the file git's core.excludesFile names, taken
// from the system, user and repository configuration in git's order (the
// last one set wins), or git's default, $XDG_CONFIG_HOME/git/ignore.
func globalExcludesFile(common string) string {
	home := os.Getenv("HOME")
	xdgConfig, _ := xdg.ConfigHome()
	var configs []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		configs = append(configs, "/etc/gitconfig")
	}
	if xdgConfig != "" {
		configs = append(configs, filepath.Join(xdgConfig, "git", "config"))
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if common != "" {
		configs = append(configs, filepath.Join(common, "config"))
	}
	file := ""
	for _, p := range configs {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		var cfg config.Config
		err = config.NewDecoder(f).Decode(&cfg)
		f.Close()
		if err != nil || !cfg.HasSection("core") {
			continue
		}
		if v := cfg.Section("core").Options.Get("excludesfile"); v != "" {
			file = v
		}
	}
	switch {
	case file == "" && xdgConfig != "":
		return filepath.Join(xdgConfig, "git", "ignore")
	case strings.HasPrefix(file, "~/") && home != "":
		return filepath.Join(home, file[2:])
	}
	return file
}

// rulesAt returns the rules in force for the entries of the workspace folder
// rel, short of rel's own ignore files, which the walk reads when it lists
// rel. It returns nil, ignoring nothing, when rel itself or a folder above it
// is ignored: a path named outright is searched whole.
func (w *Workspace) rulesAt(root *os.Root, rel string) *ignoreRules {
	r := w.baseRules()
	if rel == "." {
		return r
	}
	dir := "."
	for c := range strings.SplitSeq(rel, "/") {
		r = r.with(ownRules(root, dir, r))
		dir = path.Join(dir, c)
		if r.ignored(r.comps(dir), true) {
			return nil
		}
	}
	return r
}

// ownRules reads the ignore files of the workspace folder rel.
func ownRules(root *os.Root, rel string, r *ignoreRules) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, name := range ignore.Files {
		p := path.Join(rel, name)
		if info, err := root.Lstat(p); err != nil || !info.Mode().IsRegular() {
			continue
		}
		if data, err := root.ReadFile(p); err == nil {
			ps = append(ps, ignore.Parse(data, r.comps(rel))...)
		}
	}
	return ps
}
