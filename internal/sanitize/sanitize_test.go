package sanitize

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain text is untouched", "hello\tworld\nnext", "hello\tworld\nnext"},
		{"clear screen", "a\x1b[2Jb", "a␛b"},
		{"cursor movement", "\x1b[10;20Hx\x1b[A", "␛x␛"},
		{"colour", "\x1b[31mred\x1b[0m", "␛red␛"},
		{"OSC 52 clipboard, BEL terminated", "x\x1b]52;c;cm0gLXJmIH4=\x07y", "x␛y"},
		{"OSC 8 hyperlink, ST terminated", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "␛click␛"},
		{"unterminated OSC swallows the rest", "ok\x1b]52;c;AAAA", "ok␛"},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\after", "␛after"},
		{"carriage return", "approved\r✗ denied", "approved␍✗ denied"},
		{"backspace", "abc\b\b\bxyz", "abc␈␈␈xyz"},
		{"bell and NUL", "a\x07b\x00c", "a␇b␀c"},
		{"DEL", "a\x7fb", "a␡b"},
		{"C1 CSI", "a\u009b2Jb", "a␛b"},
		{"C1 NEL", "a\u0085b", "a⟨U+0085⟩b"},
		{"bidi override", "file\u202Etxt.exe", "file⟨U+202E⟩txt.exe"},
		{"bidi isolate", "\u2066x\u2069", "⟨U+2066⟩x⟨U+2069⟩"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"charset designation", "\x1b(0lqk\x1b(B", "␛lqk␛"},
		{"unicode is kept", "héllo 世界 🙂", "héllo 世界 🙂"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("%s: Text(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
		if strings.ContainsAny(Text(c.in), "\x1b\r\b\x07\u009b") {
			t.Errorf("%s: a control survived", c.name)
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b[2J"); got != "a⏎ b c␛" {
		t.Errorf("Line = %q", got)
	}
}

func FuzzTextLeavesNoControls(f *testing.F) {
	f.Add("\x1b]52;c;x\x07\r\b\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
				t.Fatalf("Text(%q) kept control %U", s, r)
			}
		}
	})
}
