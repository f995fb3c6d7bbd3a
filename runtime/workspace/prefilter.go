package workspace

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// A prefilter finds, in a whole file, the places where a line that matches
// grep's regular expression may be, so that only those lines are split out
// and given to the regular expression. Most files hold no candidate at all
// and are rejected at the speed of bytes.Index.
type prefilter struct {
	// needles are strings one of which every match contains; empty when the
	// expression yields none.
	needles []needle
	// literal says the expression is needles[0] exactly, so a line holding
	// it matches without asking the regular expression.
	literal bool
	// lineRe, used when there are no needles, is the expression rewritten so
	// that it can run over a whole file: its matches never cross a newline,
	// and it matches wherever the expression matches one of the file's lines
	// (and maybe elsewhere: candidates are checked line by line).
	lineRe *regexp.Regexp
}

// needle is a string to look for, exactly or ignoring ASCII case.
type needle struct {
	text []byte
	// fold says text is lower case and is matched ignoring ASCII case; it
	// then holds only characters whose case variants are all ASCII.
	fold bool
	// rare is the index in text of its least common byte: the needle is
	// found by looking for that byte with bytes.IndexByte and comparing the
	// text around it, which rejects a file faster than bytes.Index, whose
	// search starts from the needle's first byte, often a common one.
	rare int
}

// Limits of the literal analysis: how many alternatives a set may hold
// before it is no use as a prefilter.
const maxLiterals = 16

// newPrefilter analyses the regular expression expr, which re is compiled
// from.
func newPrefilter(expr string, re *regexp.Regexp) *prefilter {
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return &prefilter{lineRe: re}
	}
	parsed = parsed.Simplify()
	info := literals(parsed)
	set := info.exact
	if set == nil {
		set = info.req
	}
	if needles, ok := toNeedles(set); ok {
		pf := &prefilter{needles: needles}
		// A line holding a plain literal matches it, unless the literal
		// holds a line end: grep drops a line's final CR.
		pf.literal = parsed.Op == syntax.OpLiteral && parsed.Flags&syntax.FoldCase == 0 &&
			!slices.ContainsFunc(parsed.Rune, func(r rune) bool { return r == '\r' || r == '\n' })
		return pf
	}
	lineRe, err := regexp.Compile(wholeFileSafe(parsed).String())
	if err != nil {
		lineRe = nil
	}
	return &prefilter{lineRe: lineRe}
}

// lit is one string of a literal set.
type lit struct {
	s    string
	fold bool
}

// litInfo is what the analysis knows of an expression: exact, when not nil,
// is every string it can match; req, when not nil, holds strings one of
// which every match contains.
type litInfo struct {
	exact []lit
	req   []lit
}

// literals analyses re.
func literals(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		s := string(re.Rune)
		if fold && strings.ToLower(s) == strings.ToUpper(s) {
			fold = false
		}
		if fold {
			s = strings.ToLower(s)
		}
		return litInfo{exact: []lit{{s, fold}}}
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
		}
		if n == 0 || n > 8 {
			return litInfo{}
		}
		var set []lit
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, lit{s: string(r)})
			}
		}
		return litInfo{exact: set}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []lit{{}}}
	case syntax.OpCapture:
		return literals(re.Sub[0])
	case syntax.OpQuest:
		sub := literals(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxLiterals {
			return litInfo{exact: union(sub.exact, []lit{{}})}
		}
		return litInfo{}
	case syntax.OpPlus:
		sub := literals(re.Sub[0])
		return litInfo{req: better(sub.exact, sub.req)}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return litInfo{}
		}
		sub := literals(re.Sub[0])
		return litInfo{req: better(sub.exact, sub.req)}
	case syntax.OpConcat:
		return concatLiterals(re.Sub)
	case syntax.OpAlternate:
		return alternateLiterals(re.Sub)
	}
	// Any character, a star, or nothing at all: no literal to look for.
	return litInfo{}
}

// concatLiterals joins the exact sets of neighbouring parts while they stay
// small, and keeps the best set any part requires.
func concatLiterals(subs []*syntax.Regexp) litInfo {
	var best []lit
	run := []lit{{}}
	allExact := true
	for _, sub := range subs {
		info := literals(sub)
		if info.exact == nil {
			allExact = false
			best = better(best, better(run, info.req))
			run = []lit{{}}
			continue
		}
		if joined := cross(run, info.exact); len(joined) <= maxLiterals {
			run = joined
			continue
		}
		allExact = false
		best = better(best, run)
		run = info.exact
	}
	if allExact {
		return litInfo{exact: run}
	}
	return litInfo{req: better(best, run)}
}

// alternateLiterals unites the alternatives' sets: a match contains one of
// the strings of whichever alternative matched.
func alternateLiterals(subs []*syntax.Regexp) litInfo {
	var exact, req []lit
	allExact := true
	for _, sub := range subs {
		info := literals(sub)
		set := info.exact
		if set == nil {
			allExact = false
			set = info.req
		}
		if set == nil {
			return litInfo{}
		}
		if allExact {
			exact = union(exact, set)
		}
		req = union(req, set)
	}
	if allExact && len(exact) <= maxLiterals {
		return litInfo{exact: exact}
	}
	if len(req) > maxLiterals {
		return litInfo{}
	}
	return litInfo{req: req}
}

// cross returns every string of a followed by every string of b.
func cross(a, b []lit) []lit {
	out := make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, lit{s: x.s + y.s, fold: x.fold || y.fold})
		}
	}
	return union(nil, out)
}

// union returns the strings of a and b without repeats.
func union(a, b []lit) []lit {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// better returns the more selective of two sets: the one whose shortest
// string is longer, then the one with fewer strings. nil is no set at all.
func better(a, b []lit) []lit {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	sa, sb := shortest(a), shortest(b)
	if sa != sb {
		if sa > sb {
			return a
		}
		return b
	}
	if len(b) < len(a) {
		return b
	}
	return a
}

func shortest(set []lit) int {
	n := -1
	for _, l := range set {
		if n < 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return n
}

// toNeedles turns a literal set into needles, or says it cannot serve: an
// empty string (found everywhere), too many strings, or a string the regular
// expression could match in a form bytes.Index would miss.
func toNeedles(set []lit) ([]needle, bool) {
	if len(set) == 0 || len(set) > maxLiterals {
		return nil, false
	}
	var out []needle
	for _, l := range set {
		// Go's regexp matches U+FFFD against any invalid byte.
		if l.s == "" || strings.ContainsRune(l.s, utf8.RuneError) {
			return nil, false
		}
		if !l.fold {
			out = append(out, needle{text: []byte(l.s), rare: rarest(l.s)})
			continue
		}
		run := foldRun(l.s)
		if run == "" {
			return nil, false
		}
		out = append(out, needle{text: []byte(run), fold: true, rare: rarest(run)})
	}
	return out, true
}

// foldRun returns the longest part of the lower-case s made only of ASCII
// characters whose case variants are ASCII too: k and s are left out, since
// (?i) also matches them as the Kelvin sign and the long s.
func foldRun(s string) string {
	best, start := "", 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] < utf8.RuneSelf && s[i] != 'k' && s[i] != 's' {
			continue
		}
		if i-start > len(best) {
			best = s[start:i]
		}
		start = i + 1
	}
	return best
}

// byteRank orders bytes from common to rare in source text; a byte not
// listed is rarer than all of them.
const byteRank = " e\tt\nrainoslc,.dufp()mx/:hg\"=_b1y0{}v2;-kw*'S[]TEAR<>CIP&!D|+M#N3FL4O5B6U8W7H9VG$X%KjYzq@^`~?Q\\JZ"

// rarest returns the index of the byte of s least likely to be common.
func rarest(s string) int {
	best, bestRank := 0, -1
	for i := 0; i < len(s); i++ {
		rank := strings.IndexByte(byteRank, s[i])
		if rank < 0 {
			rank = len(byteRank)
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// wholeFileSafe rewrites a parsed expression so that it can search a whole
// file for lines the original matches: no part of it matches a newline, and
// ^, $, \A and \z match at the start and end of every line ($ also before a
// carriage return, which grep drops from a line's end).
func wholeFileSafe(re *syntax.Regexp) *syntax.Regexp {
	out := *re
	out.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, sub := range re.Sub {
		out.Sub[i] = wholeFileSafe(sub)
	}
	switch re.Op {
	case syntax.OpAnyChar:
		out.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		out.Rune = withoutNewline(re.Rune)
		if len(out.Rune) == 0 {
			out.Op = syntax.OpNoMatch
		}
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, '\n') {
			out.Op, out.Rune = syntax.OpNoMatch, nil
		}
	case syntax.OpBeginText:
		out.Op = syntax.OpBeginLine
	case syntax.OpEndText, syntax.OpEndLine:
		cr := &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{'\r'}}
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
			{Op: syntax.OpQuest, Sub: []*syntax.Regexp{cr}},
			{Op: syntax.OpEndLine},
		}}
	}
	return &out
}

// withoutNewline removes '\n' from a class's ranges.
func withoutNewline(ranges []rune) []rune {
	var out []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		switch {
		case hi < '\n' || lo > '\n':
			out = append(out, lo, hi)
		default:
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
		}
	}
	return out
}

// candidates walks the candidate positions of one buffer.
type candidates struct {
	pf  *prefilter
	buf []byte
	// at holds, per needle, the position of its next occurrence found so
	// far (-1: none left; -2: not looked for yet), so that a frequent needle
	// does not make a rare one be searched for again and again. A fold
	// needle keeps two: for the lower and the upper case of its rare byte.
	at []int
}

func (pf *prefilter) scan(buf []byte) *candidates {
	c := &candidates{pf: pf, buf: buf, at: make([]int, 2*len(pf.needles))}
	for i := range c.at {
		c.at[i] = -2
	}
	return c
}

// next returns the position, at or after from, of the first place a match
// may start or lie in, or -1 when there is none.
func (c *candidates) next(from int) int {
	if from > len(c.buf) {
		return -1
	}
	if c.pf.needles == nil {
		if c.pf.lineRe == nil {
			return from
		}
		loc := c.pf.lineRe.FindIndex(c.buf[from:])
		if loc == nil {
			return -1
		}
		return from + loc[0]
	}
	best := -1
	for i, n := range c.pf.needles {
		var p int
		if n.fold {
			p = c.nextFold(i, n, from)
		} else {
			p = c.at[2*i]
			if p == -2 || (p >= 0 && p < from) {
				p = c.nextExact(n, from)
				c.at[2*i] = p
			}
		}
		if p >= 0 && (best < 0 || p < best) {
			best = p
		}
	}
	return best
}

// nextExact finds the needle n at or after from.
func (c *candidates) nextExact(n needle, from int) int {
	for {
		p := indexByteFrom(c.buf, n.text[n.rare], from+n.rare)
		if p < 0 {
			return -1
		}
		start := p - n.rare
		if end := start + len(n.text); end <= len(c.buf) && bytes.Equal(c.buf[start:end], n.text) {
			return start
		}
		from = start + 1
	}
}

// nextFold finds needle i, which is matched ignoring case, at or after from.
func (c *candidates) nextFold(i int, n needle, from int) int {
	lo := n.text[n.rare]
	up := lo
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	for {
		// The next place the rare byte, in either case, sits where the
		// needle would put it.
		p := -1
		for k, b := range [2]byte{lo, up} {
			if k == 1 && up == lo {
				break
			}
			q := c.at[2*i+k]
			if q == -2 || (q >= 0 && q < from+n.rare) {
				q = indexByteFrom(c.buf, b, from+n.rare)
				c.at[2*i+k] = q
			}
			if q >= 0 && (p < 0 || q < p) {
				p = q
			}
		}
		if p < 0 {
			return -1
		}
		start := p - n.rare
		if end := start + len(n.text); end <= len(c.buf) && bytes.EqualFold(c.buf[start:end], n.text) {
			return start
		}
		from = start + 1
	}
}

func indexByteFrom(buf []byte, b byte, from int) int {
	if from > len(buf) {
		return -1
	}
	if i := bytes.IndexByte(buf[from:], b); i >= 0 {
		return from + i
	}
	return -1
}
