package approval

import (
	"fmt"
	"strings"
)

// pattern is a compiled glob. In a path pattern * and ? stay within one
// folder and ** crosses folders; in a plain pattern (a tool name, a command)
// * matches anything.
type pattern struct {
	text  string
	parts []globPart
	paths bool
}

type globKind uint8

const (
	globLiteral globKind = iota
	globStar             // *
	globAny              // **
	globOne              // ?
	globClass            // [...]
)

type globPart struct {
	kind    globKind
	literal string
	class   []runeRange
	negate  bool
}

type runeRange struct{ lo, hi rune }

// compilePattern compiles a glob; paths selects path semantics.
func compilePattern(text string, paths bool) (pattern, error) {
	p := pattern{text: text, paths: paths}
	rs := []rune(text)
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			p.parts = append(p.parts, globPart{kind: globLiteral, literal: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			flush()
			if i+1 < len(rs) && rs[i+1] == '*' {
				i++
				p.parts = append(p.parts, globPart{kind: globAny})
				// "**/" also matches no folder at all, so docs/**/x.md
				// matches docs/x.md; the slash is folded into the part.
				if paths && i+1 < len(rs) && rs[i+1] == '/' {
					i++
					p.parts[len(p.parts)-1].literal = "/"
				}
			} else {
				p.parts = append(p.parts, globPart{kind: globStar})
			}
		case '?':
			flush()
			p.parts = append(p.parts, globPart{kind: globOne})
		case '[':
			flush()
			end := i + 1
			if end < len(rs) && (rs[end] == '!' || rs[end] == '^') {
				end++
			}
			if end < len(rs) && rs[end] == ']' {
				end++
			}
			for end < len(rs) && rs[end] != ']' {
				end++
			}
			if end >= len(rs) {
				return pattern{}, fmt.Errorf("unclosed [ in pattern %q", text)
			}
			part, err := compileClass(rs[i+1 : end])
			if err != nil {
				return pattern{}, fmt.Errorf("pattern %q: %v", text, err)
			}
			p.parts = append(p.parts, part)
			i = end
		case '\\':
			if i+1 >= len(rs) {
				return pattern{}, fmt.Errorf("pattern %q ends with a lone backslash", text)
			}
			i++
			lit.WriteRune(rs[i])
		default:
			lit.WriteRune(c)
		}
	}
	flush()
	return p, nil
}

func compileClass(body []rune) (globPart, error) {
	part := globPart{kind: globClass}
	if len(body) > 0 && (body[0] == '!' || body[0] == '^') {
		part.negate = true
		body = body[1:]
	}
	if len(body) == 0 {
		return part, fmt.Errorf("empty character class")
	}
	for i := 0; i < len(body); i++ {
		lo := body[i]
		if i+2 < len(body) && body[i+1] == '-' {
			hi := body[i+2]
			if hi < lo {
				return part, fmt.Errorf("bad range %c-%c", lo, hi)
			}
			part.class = append(part.class, runeRange{lo, hi})
			i += 2
			continue
		}
		part.class = append(part.class, runeRange{lo, lo})
	}
	return part, nil
}

// match reports whether s matches the whole pattern.
func (p pattern) match(s string) bool { return p.matchFrom(0, []rune(s)) }

func (p pattern) matchFrom(k int, s []rune) bool {
	if k == len(p.parts) {
		return len(s) == 0
	}
	part := p.parts[k]
	switch part.kind {
	case globLiteral:
		lit := []rune(part.literal)
		if len(s) < len(lit) || string(s[:len(lit)]) != part.literal {
			return false
		}
		return p.matchFrom(k+1, s[len(lit):])
	case globOne:
		if len(s) == 0 || (p.paths && s[0] == '/') {
			return false
		}
		return p.matchFrom(k+1, s[1:])
	case globClass:
		if len(s) == 0 || (p.paths && s[0] == '/') || part.matches(s[0]) == part.negate {
			return false
		}
		return p.matchFrom(k+1, s[1:])
	case globStar:
		for i := 0; i <= len(s); i++ {
			if p.matchFrom(k+1, s[i:]) {
				return true
			}
			if i < len(s) && p.paths && s[i] == '/' {
				return false
			}
		}
		return false
	default: // globAny
		if part.literal == "/" {
			// "**/": zero folders, or any run ending at a slash.
			if p.matchFrom(k+1, s) {
				return true
			}
			for i := 0; i < len(s); i++ {
				if s[i] == '/' && p.matchFrom(k+1, s[i+1:]) {
					return true
				}
			}
			return false
		}
		for i := 0; i <= len(s); i++ {
			if p.matchFrom(k+1, s[i:]) {
				return true
			}
		}
		return false
	}
}

func (part globPart) matches(r rune) bool {
	for _, rr := range part.class {
		if r >= rr.lo && r <= rr.hi {
			return true
		}
	}
	return false
}
