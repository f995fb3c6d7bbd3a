package workspace

import (
	"fmt"
	"path"
	"strings"
)

// pattern is a compiled glob over slash-separated, workspace-relative paths.
// Within one segment, * matches any run of characters, ? one character, and
// [abc], [a-z], [^a] a class, as in path.Match; a whole segment ** matches
// zero or more segments, so src/**/*.go matches src/a.go and src/x/y/b.go.
type pattern struct {
	text string
	segs []string
}

// maxPatternLen bounds a pattern, since matching ** is recursive.
const maxPatternLen = 1000

// compilePattern checks and splits a glob pattern. A leading "./" and
// repeated slashes are ignored.
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
		if strings.Contains(s, "**") && s != "**" {
			// Inside a segment ** means the same as *.
			s = collapseStars(s)
		}
		if _, err := path.Match(s, ""); err != nil {
			return pattern{}, fmt.Errorf("the pattern segment %q is malformed (check [ ] and \\)", s)
		}
		if s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
			continue
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return pattern{}, fmt.Errorf("the pattern %q names no path", text)
	}
	return pattern{text: text, segs: segs}, nil
}

// collapseStars replaces runs of * by one.
func collapseStars(s string) string {
	for strings.Contains(s, "**") {
		s = strings.ReplaceAll(s, "**", "*")
	}
	return s
}

// match reports whether the relative path rel matches the pattern.
func (p pattern) match(rel string) bool {
	return matchSegs(p.segs, strings.Split(rel, "/"), false)
}

// mayMatchBelow reports whether some path below the folder dir could match,
// so a walk can skip folders that cannot hold a match.
func (p pattern) mayMatchBelow(dir string) bool {
	if dir == "." {
		return true
	}
	return matchSegs(p.segs, strings.Split(dir, "/"), true)
}

// matchSegs matches name segments against pattern segments. With prefix it
// instead reports whether a path that extends name by at least one segment
// could match.
func matchSegs(pat, name []string, prefix bool) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat[1:], name[i:], prefix) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			// The path ended with pattern left over: a longer path may
			// still match it.
			return prefix
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0 && !prefix
}
