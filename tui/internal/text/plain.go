package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// PlainMarkdown returns Markdown as the plain text a reader of it sees, for
// the places that show a reply on one line rather than render it: headings
// without their #, list items without their marker, quotes without >,
// emphasis, strike-through and code without their marks, a link or an image
// as its text, an autolink as its address, and a backslash-escaped mark as
// the mark. Fences, rules and a table's separator row go, as do blank
// lines; the lines of a code block stay as they are. It is no Markdown
// parser: it knows the marks models write, and leaves anything it does not
// recognise as it was. The result is still untrusted, and must be cleaned
// before it is drawn.
func PlainMarkdown(s string) string {
	var out []string
	fence := ""
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			} else if trimmed != "" {
				out = append(out, trimmed)
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			continue
		}
		if trimmed == "" || isRule(trimmed) {
			continue
		}
		if l := inline(blockMarks(trimmed)); strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "\n")
}

// fenceOf returns the fence a line opens (three or more backticks or
// tildes), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// isRule reports whether a line is a thematic break (---, ***, ___), a
// setext heading's underline (===) or a table's separator row (|---|:-:|).
func isRule(line string) bool {
	marks := 0
	for _, r := range line {
		switch r {
		case '-', '*', '_', '=':
			marks++
		case ' ', '|', ':':
		default:
			return false
		}
	}
	return marks >= 3
}

// blockMarks strips the marks that begin a line: quotes, a heading's #s,
// a list item's bullet or number and a task's box.
func blockMarks(line string) string {
	for {
		rest := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(rest, ">"):
			line = rest[1:]
			continue
		case strings.HasPrefix(rest, "#"):
			n := len(rest) - len(strings.TrimLeft(rest, "#"))
			if after := rest[n:]; n <= 6 && (after == "" || after[0] == ' ') {
				// A closing run of #s goes too, but not the # of "C#".
				after = strings.TrimRight(after, " ")
				if kept := strings.TrimRight(after, "#"); kept == "" || strings.HasSuffix(kept, " ") {
					after = kept
				}
				return after
			}
		}
		line = rest
		break
	}
	if len(line) >= 2 && strings.ContainsRune("-*+", rune(line[0])) && line[1] == ' ' {
		line = line[2:]
	} else if n := len(line) - len(strings.TrimLeft(line, "0123456789")); n > 0 && n <= 9 &&
		len(line) > n+1 && (line[n] == '.' || line[n] == ')') && line[n+1] == ' ' {
		line = line[n+2:]
	}
	rest := strings.TrimLeft(line, " ")
	for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
		if strings.HasPrefix(rest, box) {
			return rest[len(box):]
		}
	}
	return line
}

// inline strips the marks inside a line: code spans keep their text as it
// is, links and images become their text, autolinks their address, and
// emphasis and strike-through marks go where they open or close a span
// (a mark inside a word, as in snake_case, or between spaces, as in a * b,
// stays).
func inline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i += 2
		case c == '`':
			n := run(s, i, '`')
			if end := strings.Index(s[i+n:], s[i:i+n]); end >= 0 && run(s, i+n+end, '`') == n {
				code := s[i+n : i+n+end]
				if len(code) > 1 && code[0] == ' ' && code[len(code)-1] == ' ' {
					code = code[1 : len(code)-1]
				}
				b.WriteString(code)
				i += 2*n + end
			} else {
				b.WriteString(s[i : i+n])
				i += n
			}
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			if txt, n := link(s[i+1:]); n > 0 {
				b.WriteString(inline(txt))
				i += 1 + n
			} else {
				b.WriteByte(c)
				i++
			}
		case c == '[':
			if txt, n := link(s[i:]); n > 0 {
				b.WriteString(inline(txt))
				i += n
			} else {
				b.WriteByte(c)
				i++
			}
		case c == '<':
			if end := strings.IndexByte(s[i:], '>'); end > 0 && isAutolink(s[i+1:i+end]) {
				b.WriteString(s[i+1 : i+end])
				i += end + 1
			} else {
				b.WriteByte(c)
				i++
			}
		case c == '*' || c == '_' || c == '~':
			n := run(s, i, c)
			if end := closer(s, i, n); end > 0 {
				b.WriteString(inline(s[i+n : end]))
				i = end + n
			} else {
				b.WriteString(s[i : i+n])
				i += n
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closer returns where the run of n marks at i, which opens emphasis or
// strike-through, is closed: the next run of the same n marks that can
// close it. It returns 0 when the run opens nothing: a mark inside a word
// (snake_case, 2*3), before a space (a * b), a strike-through of other than
// two tildes, or a run that nothing closes (*.go).
func closer(s string, i, n int) int {
	c := s[i]
	if c == '~' && n != 2 {
		return 0
	}
	before, after := charBefore(s, i), charAfter(s, i+n)
	if unicode.IsSpace(after) || isWord(before) && isWord(after) {
		return 0
	}
	for j := i + n; j < len(s); {
		k := strings.IndexByte(s[j:], c)
		if k < 0 {
			return 0
		}
		j += k
		m := run(s, j, c)
		before, after := charBefore(s, j), charAfter(s, j+m)
		if m == n && j > i+n && !unicode.IsSpace(before) && !(isWord(before) && isWord(after)) {
			return j
		}
		j += m
	}
	return 0
}

// charBefore returns the character before s[i], or a space at the start.
func charBefore(s string, i int) rune {
	if i == 0 {
		return ' '
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

// charAfter returns the character at s[i], or a space at the end.
func charAfter(s string, i int) rune {
	if i >= len(s) {
		return ' '
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

// link reads "[text](address)", "[text][label]" or "[text][]" at the start
// of s and returns the text and the length read, or 0 when s does not
// start with one.
func link(s string) (string, int) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
			if depth > 0 {
				continue
			}
			txt, rest := s[1:i], s[i+1:]
			var closer byte
			switch {
			case strings.HasPrefix(rest, "("):
				closer = ')'
			case strings.HasPrefix(rest, "["):
				closer = ']'
			default:
				return "", 0
			}
			if end := strings.IndexByte(rest, closer); end > 0 {
				return txt, i + 1 + end + 1
			}
			return "", 0
		}
	}
	return "", 0
}

// isAutolink reports whether s, between < and >, is an address: a URL or
// an email address.
func isAutolink(s string) bool {
	if strings.ContainsAny(s, " <") {
		return false
	}
	if scheme, _, ok := strings.Cut(s, ":"); ok && len(scheme) >= 2 {
		return strings.Trim(scheme, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") == ""
	}
	at := strings.IndexByte(s, '@')
	return at > 0 && strings.Contains(s[at:], ".")
}

// run returns how many times c repeats in s from i.
func run(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// isPunct reports whether c is ASCII punctuation, which a backslash
// escapes in Markdown.
func isPunct(c byte) bool {
	return c < 0x80 && unicode.IsPunct(rune(c)) || strings.IndexByte("$+<=>^`|~", c) >= 0
}

// isWord reports whether r is a letter or a digit.
func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
