package approval

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// pattern is a compiled glob, matched by doublestar, the engine the
// workspace tools use too. In a path pattern * and ? stay within one folder,
// ** crosses folders and {a,b} is an alternation. In a plain pattern (a tool
// name, a command) * matches anything, / included, and braces are plain
// characters, since commands are full of them ({}, ${HOME}) and a rule must
// not change meaning because of one.
type pattern struct {
	text string
	// glob is what doublestar matches: text itself for a path pattern, text
	// with its braces escaped for a plain one.
	glob  string
	paths bool
}

// compilePattern checks a glob; paths selects path semantics.
func compilePattern(text string, paths bool) (pattern, error) {
	p := pattern{text: text, glob: text, paths: paths}
	if !paths {
		p.glob = escapeBraces(text)
	}
	if !doublestar.ValidatePattern(p.glob) {
		return pattern{}, globProblem(text)
	}
	if lo, hi, ok := reversedRange(text); ok {
		// doublestar accepts [z-a] and never matches it: almost surely a
		// typo, and in a rule one that would go unnoticed.
		return pattern{}, fmt.Errorf("pattern %q: bad range %c-%c", text, lo, hi)
	}
	return p, nil
}

// globProblem says what makes text an invalid glob, for the person who
// wrote the rule; doublestar only says that it is one.
func globProblem(text string) error {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\\':
			if i == len(text)-1 {
				return fmt.Errorf("pattern %q ends with a lone backslash", text)
			}
			i++
		case '[':
			end := strings.IndexByte(text[i+1:], ']')
			if end < 0 {
				return fmt.Errorf("unclosed [ in pattern %q", text)
			}
			if end == 0 {
				return fmt.Errorf("pattern %q: empty character class", text)
			}
			i += end + 1
		case '{':
			depth++
		case '}':
			depth--
		}
	}
	if depth > 0 {
		return fmt.Errorf("unclosed { in pattern %q", text)
	}
	return fmt.Errorf("pattern %q is not a valid glob: check its [ ], { } and \\", text)
}

// match reports whether s matches the whole pattern.
func (p pattern) match(s string) bool {
	if p.paths {
		ok, _ := doublestar.Match(p.glob, s)
		return ok
	}
	glob := p.glob
	if strings.Contains(s, "/") || strings.Contains(glob, "/") {
		// doublestar's * never crosses a /. A plain pattern's must, so the
		// slashes of both sides become one rune that neither holds.
		sep := string(unusedRune(glob, s))
		glob = strings.ReplaceAll(glob, "/", sep)
		s = strings.ReplaceAll(s, "/", sep)
	}
	ok, _ := doublestar.Match(glob, s)
	return ok
}

// unusedRune returns a rune from the private use area that occurs in none of
// the strings.
func unusedRune(strs ...string) rune {
	for r := rune(0xE000); ; r++ {
		used := false
		for _, s := range strs {
			if strings.ContainsRune(s, r) {
				used = true
				break
			}
		}
		if !used {
			return r
		}
	}
}

// escapeBraces puts a backslash before every brace that has none, so that
// doublestar reads it as a plain character.
func escapeBraces(text string) string {
	if !strings.ContainsAny(text, "{}") {
		return text
	}
	var b strings.Builder
	escaped := false
	for _, c := range text {
		if !escaped && (c == '{' || c == '}') {
			b.WriteByte('\\')
		}
		escaped = !escaped && c == '\\'
		b.WriteRune(c)
	}
	return b.String()
}

// reversedRange finds a character range such as [z-a] whose end comes
// before its start.
func reversedRange(text string) (lo, hi rune, ok bool) {
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\\':
			i++
		case '[':
			i++
			if i < len(rs) && (rs[i] == '!' || rs[i] == '^') {
				i++
			}
			for ; i < len(rs) && rs[i] != ']'; i++ {
				if rs[i] == '\\' {
					i++
					continue
				}
				if i+2 < len(rs) && rs[i+1] == '-' && rs[i+2] != ']' {
					if rs[i+2] < rs[i] {
						return rs[i], rs[i+2], true
					}
					i += 2
				}
			}
		}
	}
	return 0, 0, false
}
