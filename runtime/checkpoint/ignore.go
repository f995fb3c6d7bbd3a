package checkpoint

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/agenttui/agenttui/internal/ignore"
)

// ignoreRules are the patterns in force in one folder of a walk, lowest
// priority first. A value is never changed once built: the walk's
// goroutines share it, and a folder's siblings keep using it after the
// folder extends it.
type ignoreRules struct {
	patterns []gitignore.Pattern
}

// with returns the rules extended by patterns of higher priority.
func (r *ignoreRules) with(ps []gitignore.Pattern) *ignoreRules {
	if len(ps) == 0 {
		return r
	}
	all := make([]gitignore.Pattern, 0, len(r.patterns)+len(ps))
	return &ignoreRules{patterns: append(append(all, r.patterns...), ps...)}
}

// ignored reports whether the path with the given components (from the
// workspace root) is ignored: the last pattern that matches decides, and a
// negated one (!) keeps the path.
func (r *ignoreRules) ignored(comps []string, isDir bool) bool {
	return ignore.Excluded(r.patterns, comps, isDir)
}

// maxIgnoreFile bounds what is read of one ignore file.
const maxIgnoreFile = 1 << 20

// readIgnore reads the ignore file at abs if it is a regular file: git
// does not follow a symbolic link in place of an ignore file either.
func readIgnore(abs string) []byte {
	st, err := lstat(abs)
	if err != nil || !st.mode.IsRegular() || st.size > maxIgnoreFile {
		return nil
	}
	data, _ := os.ReadFile(abs)
	return data
}

// ownRules reads the ignore files of the workspace folder rel, whose
// components are comps.
func (s *Store) ownRules(rel string, comps []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, name := range ignore.Files {
		if data := readIgnore(filepath.Join(s.abs(rel), name)); data != nil {
			ps = append(ps, ignore.Parse(data, comps)...)
		}
	}
	return ps
}

// rulesAt returns the rules in force for the entries of the workspace
// folder rel, short of rel's own ignore files, which the walk reads when
// it lists rel: the workspace's .git/info/exclude and the ignore files of
// every folder from the workspace root down to rel's parent. When rel or a
// folder above it is itself ignored, the folder was named outright, so the
// rules above it are dropped and only the ignore files inside it apply.
func (s *Store) rulesAt(rel string) *ignoreRules {
	r := &ignoreRules{}
	if data := readIgnore(filepath.Join(s.ws, ".git", "info", "exclude")); data != nil {
		r.patterns = ignore.Parse(data, nil)
	}
	if rel == "." {
		return r
	}
	comps := strings.Split(rel, "/")
	dir := "."
	for i := range comps {
		r = r.with(s.ownRules(dir, comps[:i]))
		dir = join(dir, comps[i])
		if r.ignored(comps[:i+1], true) {
			return &ignoreRules{}
		}
	}
	return r
}

// abs returns the absolute path of the workspace-relative path rel.
func (s *Store) abs(rel string) string {
	if rel == "." {
		return s.ws
	}
	// rel is clean already: a concatenation spares Join's cleaning, which
	// a walk would pay for every entry.
	return strings.TrimSuffix(s.ws, string(filepath.Separator)) + string(filepath.Separator) + filepath.FromSlash(rel)
}
