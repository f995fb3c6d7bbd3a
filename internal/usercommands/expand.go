package usercommands

import (
	"strings"
	"unicode"
)

// Expand returns the prompt the command sends for args, the text typed
// after its name. Every $ARGUMENTS in the body becomes args, trimmed, and
// $1 to $9 the positional arguments, which args is split into as a shell
// would split it: at whitespace, with "double" or 'single' quotes grouping
// words (an argument that is not there becomes nothing). A $ followed by
// two digits, as in "$100", is left alone. What is put in is not read
// again, so an argument holding "$1" stays as typed.
//
// When the body holds no placeholder and args is not empty, the arguments
// are added after the body as "\n\nARGUMENTS: " + args, as Claude Code
// does, so they reach the model all the same.
//
// Nothing is run or read: a Claude Code line such as !`date` and a file
// reference such as @notes.md stay as they are written.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	var pos []string
	var b strings.Builder
	used := false
	body := c.Body
	for i := 0; i < len(body); {
		j := strings.IndexByte(body[i:], '$')
		if j < 0 {
			b.WriteString(body[i:])
			break
		}
		b.WriteString(body[i : i+j])
		i += j
		rest := body[i:]
		switch {
		case strings.HasPrefix(rest, "$ARGUMENTS"):
			b.WriteString(args)
			i += len("$ARGUMENTS")
			used = true
		case positional(rest):
			if pos == nil {
				pos = splitArgs(args)
			}
			if n := int(rest[1] - '1'); n < len(pos) {
				b.WriteString(pos[n])
			}
			i += 2
			used = true
		default:
			b.WriteByte('$')
			i++
		}
	}
	if !used && args != "" {
		b.WriteString("\n\nARGUMENTS: " + args)
	}
	return b.String()
}

// positional reports whether s starts with a placeholder $1 to $9 that no
// further digit follows.
func positional(s string) bool {
	return len(s) >= 2 && s[1] >= '1' && s[1] <= '9' && (len(s) == 2 || s[2] < '0' || s[2] > '9')
}

// splitArgs splits s into words as a shell would, without expanding
// anything: whitespace separates words, and "double" or 'single' quotes
// keep what they enclose in one word, without the quotes. A quote that is
// not closed runs to the end.
func splitArgs(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
