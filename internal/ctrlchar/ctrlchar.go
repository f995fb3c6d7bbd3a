// Package ctrlchar finds the characters that must not reach a notice or a
// terminal as they are, and turns them into spaces.
//
// Text read from files and commands, such as an error message, a file name
// or a description, is shown on one line among others. A line break in it
// could forge a line of its own; another control character could act on the
// terminal; a bidirectional formatting character could make the text read in
// an order other than the one it is in. Packages that word such text into a
// notice or an error pass it through here. Drawing untrusted text on the
// screen, where the person should see what was removed, is
// internal/sanitize's work instead.
//
// The package imports only the standard library, so that any package,
// however low, can use it.
package ctrlchar

import "strings"

// Is reports whether r is a control character (C0, DEL or C1, line breaks
// and tabs included) or a bidirectional formatting character (the marks,
// embeddings, overrides and isolates).
//
// The list is written out, rather than taken from the unicode package's
// tables, so that what is refused does not change with a Go release.
func Is(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// ToSpaces returns s with invalid UTF-8 replaced by U+FFFD and each
// character for which Is reports true replaced by a space. Unlike OneLine it
// leaves the spacing as it was, for a message that should show the text as
// nearly as written.
func ToSpaces(s string) string {
	return strings.Map(func(r rune) rune {
		if Is(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// OneLine returns s as a single tidy line: ToSpaces(s) with each run of
// white space (as unicode.IsSpace has it) made one space, and none left at
// the ends.
func OneLine(s string) string {
	return strings.Join(strings.Fields(ToSpaces(s)), " ")
}
