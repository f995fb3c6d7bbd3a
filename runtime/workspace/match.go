package workspace

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// pattern is a glob over slash-separated, workspace-relative paths, matched
// by doublestar, the engine the approval rules use too. Within one segment *
// matches any run of characters, ? one character, [abc], [a-z], [^a] a class
// and {a,b} either alternative; a whole segment ** matches zero or more
// segments, so src/**/*.go matches src/a.go and src/x/y/b.go.
type pattern struct {
	// glob is the cleaned pattern doublestar matches.
	glob string
	// segs are its segments, used to skip folders that cannot hold a match.
	segs []string
}

// maxPatternLen bounds a pattern, so that matching stays cheap.
const maxPatternLen = 1000

// compilePattern checks a glob pattern and cleans it: a leading "./",
// repeated slashes and a trailing slash are ignored. ".." is refused, since
// patterns are relative to the workspace root.
func compilePattern(text string) (pattern, error) {
	if len(text) > maxPatternLen {
		return pattern{}, fmt.Errorf("the pattern is longer than %d characters", maxPatternLen)
	}
	var segs []string
	for s := range strings.SplitSeq(text, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return pattern{}, fmt.Errorf("patterns cannot contain ..; write them relative to the workspace root")
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return pattern{}, fmt.Errorf("the pattern %q names no path", text)
	}
	glob := strings.Join(segs, "/")
	if !doublestar.ValidatePattern(glob) {
		return pattern{}, fmt.Errorf("the pattern %q is malformed (check [ ], { } and \\)", text)
	}
	return pattern{glob: glob, segs: segs}, nil
}

// match reports whether the relative path rel matches the pattern.
func (p pattern) match(rel string) bool {
	ok, _ := doublestar.Match(p.glob, rel)
	return ok
}

// matchFile applies grep's include pattern: against the base name when the
// pattern has a single segment, else against the whole relative path.
func (p pattern) matchFile(rel string) bool {
	if len(p.segs) == 1 && p.segs[0] != "**" {
		ok, _ := doublestar.Match(p.glob, path.Base(rel))
		return ok
	}
	return p.match(rel)
}

// mayMatchBelow reports whether some path below the folder dir could match,
// so a walk can skip folders that cannot hold a match. It matches dir's
// components against the pattern's leading segments, one by one, up to the
// first ** or a segment holding an alternation (whose braces may hide a
// slash); from there on anything may match.
func (p pattern) mayMatchBelow(dir string) bool {
	if dir == "." {
		return true
	}
	comps := strings.Split(dir, "/")
	for i, c := range comps {
		if i == len(p.segs) {
			// The path is already as deep as the pattern.
			return false
		}
		seg := p.segs[i]
		if strings.Contains(seg, "**") || strings.ContainsAny(seg, "{}") {
			return true
		}
		if ok, _ := doublestar.Match(seg, c); !ok {
			return false
		}
	}
	return len(comps) < len(p.segs)
}
