// Package ignore reads ignore files (.gitignore, .ignore, git's excludes)
// the way git does, for every walker of the workspace: the search tools'
// and the checkpoint store's read the same files and decide alike, so what
// a search leaves out is what an undo leaves alone.
package ignore

import (
	"bytes"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Files are the ignore files read in every folder of a walk, lowest
// priority first: .ignore (ripgrep's file for what git should keep but
// tools should not see) wins over .gitignore.
var Files = [...]string{".gitignore", ".ignore"}

// IsFile reports whether name is one of Files.
func IsFile(name string) bool { return name == Files[0] || name == Files[1] }

// Parse turns the text of an ignore file into patterns relative to the
// folder whose path components are domain. Blank lines and comments are
// skipped, and a CR before the newline is dropped, as git does.
func Parse(data []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		s := strings.TrimSuffix(string(line), "\r")
		if strings.HasPrefix(s, "#") || strings.TrimSpace(s) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(s, domain))
	}
	return ps
}

// Excluded reports whether patterns, lowest priority first, exclude the
// path with the given components: the last pattern that matches decides,
// and a negated one (!) keeps the path. It is what gitignore.Matcher does,
// without its allocation per call.
func Excluded(patterns []gitignore.Pattern, comps []string, isDir bool) bool {
	for i := len(patterns) - 1; i >= 0; i-- {
		if m := patterns[i].Match(comps, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}
