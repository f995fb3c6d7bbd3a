package ctrlchar

import (
	"testing"
	"unicode"
)

// TestIsMatchesUnicode checks the written-out list against the unicode
// package's tables, so that a slip in a range, or a new bidirectional
// control in a later Unicode version, is noticed.
func TestIsMatchesUnicode(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
		if got := Is(r); got != want {
			t.Errorf("Is(%U) = %v, want %v", r, got, want)
		}
	}
}

func TestToSpacesAndOneLine(t *testing.T) {
	tests := []struct {
		in, spaces, line string
	}{
		{"plain text", "plain text", "plain text"},
		{"", "", ""},
		{"a\nb\r\nc\td", "a b  c d", "a b c d"},
		{"  lead and  trail \n", "  lead and  trail  ", "lead and trail"},
		{"bad \xff\xfe utf-8", "bad \uFFFD utf-8", "bad \uFFFD utf-8"},
		{"esc\x1b[31mred\u009b", "esc [31mred ", "esc [31mred"},
		{"abc\u202edcba\u2066x\u2069", "abc dcba x ", "abc dcba x"},
		{"no\u00a0break", "no\u00a0break", "no break"}, // a space, not a control
	}
	for _, tt := range tests {
		if got := ToSpaces(tt.in); got != tt.spaces {
			t.Errorf("ToSpaces(%q) = %q, want %q", tt.in, got, tt.spaces)
		}
		if got := OneLine(tt.in); got != tt.line {
			t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.line)
		}
	}
}
