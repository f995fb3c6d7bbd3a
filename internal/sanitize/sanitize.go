// Package sanitize makes untrusted text safe to draw in a terminal.
//
// Tool output, model text, call arguments and MCP descriptions come from
// outside agenttui. Written to a terminal unchanged, they could move the
// cursor, clear the screen, recolour the console, set the clipboard (OSC 52),
// plant hyperlinks (OSC 8), overwrite a line with a carriage return, or
// reorder text with bidirectional overrides, and so draw a fake approval line.
// Text passes through this package before it reaches the screen: escape
// sequences are removed and replaced by a visible marker, and every other
// control character becomes a visible placeholder.
package sanitize

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EscapeMarker stands in for each escape sequence that was removed.
const EscapeMarker = "␛"

// Text returns s with escape sequences and control characters made harmless.
// Newlines and tabs are kept; carriage returns, backspaces, other C0 and C1
// controls, DEL and bidirectional controls become visible placeholders, and
// invalid UTF-8 becomes U+FFFD.
func Text(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b {
			i += escapeLength(s[i:])
			b.WriteString(EscapeMarker)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		if r == 0x9b || r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f {
			// C1 forms of CSI, OSC, DCS, SOS, PM and APC: some terminals
			// honour them in UTF-8 mode, so their bodies go too.
			i += size + c1BodyLength(s[i+size:], r)
			b.WriteString(EscapeMarker)
			continue
		}
		b.WriteString(placeholder(r))
		i += size
	}
	return b.String()
}

// Line returns Text(s) on one line: newlines become "⏎ " and tabs spaces, for
// places such as a call's short arguments that must not wrap the layout.
func Line(s string) string {
	s = Text(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", "⏎ ", "\t", " ").Replace(s)
	}
	return s
}

// isPlain reports whether s needs no change: printable ASCII, newlines and
// tabs only. It keeps the common case free of allocation.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// placeholder returns what stands in for rune r.
func placeholder(r rune) string {
	switch {
	case r == '\n' || r == '\t':
		return string(r)
	case r < 0x20:
		// Control Pictures: ␍ for CR, ␈ for BS, and so on.
		return string(rune(0x2400 + r))
	case r == 0x7f:
		return "␡"
	case r >= 0x80 && r <= 0x9f:
		return fmt.Sprintf("⟨U+%04X⟩", r)
	case isBidiControl(r):
		return fmt.Sprintf("⟨U+%04X⟩", r)
	}
	return string(r)
}

// isBidiControl reports whether r changes the direction of the text around
// it: embeddings, overrides, isolates and their terminators, and the marks.
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// escapeLength returns how many bytes of s, which starts with ESC, the escape
// sequence takes. An unterminated string sequence takes the rest of s, so
// its payload can never reach the terminal.
func escapeLength(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters and intermediates, then a final byte.
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
			if s[i] < 0x20 || s[i] > 0x7e {
				return i
			}
		}
		return len(s)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: a string up to ST or BEL.
		return 2 + stringBodyLength(s[2:])
	default:
		if s[1] >= 0x20 && s[1] <= 0x2f {
			// nF sequences such as ESC ( B: intermediates, then a final byte.
			for i := 2; i < len(s); i++ {
				if s[i] >= 0x30 && s[i] <= 0x7e {
					return i + 1
				}
			}
			return len(s)
		}
		_, size := utf8.DecodeRuneInString(s[1:])
		return 1 + size
	}
}

// stringBodyLength returns the length of a control string's body including
// its terminator: BEL, ESC \, or the C1 ST.
func stringBodyLength(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
	}
	return len(s)
}

// c1BodyLength returns the length of the body after a C1 introducer.
func c1BodyLength(s string, introducer rune) int {
	if introducer == 0x9b {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
			if s[i] < 0x20 || s[i] > 0x7e {
				return i
			}
		}
		return len(s)
	}
	return stringBodyLength(s)
}

// Styled returns s, which a trusted renderer has styled, with everything but
// its styling made harmless as Text does: SGR sequences (ESC [ parameters m:
// colours and attributes) are kept, and every other escape sequence, control
// character and bidirectional control becomes a visible placeholder. Tabs
// become single spaces and newlines stay.
//
// It is the last line of defence behind a renderer that is given clean text
// (such as Markdown turned into styled lines): whatever the renderer might
// let through or decode from its input, only styling reaches the terminal.
func Styled(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b {
			n := escapeLength(s[i:])
			if isSGR(s[i : i+n]) {
				b.WriteString(s[i : i+n])
			} else {
				b.WriteString(EscapeMarker)
			}
			i += n
			continue
		}
		if c == '\t' {
			b.WriteByte(' ')
			i++
			continue
		}
		if c < 0x80 && c >= 0x20 && c != 0x7f || c == '\n' {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x9b || r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f:
			size += c1BodyLength(s[i+size:], r)
			b.WriteString(EscapeMarker)
		default:
			b.WriteString(placeholder(r))
		}
		i += size
	}
	return b.String()
}

// isSGR reports whether seq, a whole escape sequence, sets graphic
// rendition: ESC [, digits, semicolons and colons, then m.
func isSGR(seq string) bool {
	if len(seq) < 3 || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return false
	}
	for i := 2; i < len(seq)-1; i++ {
		if c := seq[i]; (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}
