package feedback

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultMaxResultBytes is how much of one call's result the model reads
// when nothing else is configured: what the built-in tools already keep to.
const DefaultMaxResultBytes = 256 << 10

// tailShare is the part of a cut result kept from its end: errors and
// totals tend to come last, and what was run first.
const tailShare = 0.4

// Bound returns text as the model reads it when at most max bytes of it may
// be read: whole when it fits, else its head and its tail with a line in the
// middle saying how much was cut and, in more, how to get the rest. It
// reports whether it cut.
func Bound(text string, max int, more string) (string, bool) {
	if max <= 0 || len(text) <= max {
		return text, false
	}
	note := func(cut int) string {
		s := fmt.Sprintf("\n[… %s of this result were cut here: the whole was %s, and only its start and end are shown.", size(cut), size(len(text)))
		if more = strings.TrimRight(strings.TrimSpace(more), "."); more != "" {
			// The tool's advice starts a sentence of its own.
			r, n := utf8.DecodeRuneInString(more)
			s += " " + strings.ToUpper(string(r)) + more[n:] + "."
		}
		return s + " …]\n"
	}
	room := max - len(note(len(text)))
	if room < 64 {
		room = 64
	}
	tail := int(float64(room) * tailShare)
	head := room - tail
	h := text[:head]
	t := text[len(text)-tail:]
	// Whole lines where the cut allows, and never half a character.
	if i := strings.LastIndexByte(h, '\n'); i > head/2 {
		h = h[:i+1]
	}
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < tail/2 {
		t = t[i+1:]
	}
	for len(h) > 0 && !utf8.ValidString(h[len(h)-min(len(h), utf8.UTFMax):]) {
		h = h[:len(h)-1]
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return h + note(len(text)-len(h)-len(t)) + t, true
}

// size renders a byte count for the model: "512 bytes", "3.2 KiB", "9.0 MiB".
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
