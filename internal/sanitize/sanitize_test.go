package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"
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

// markdownAttacks are Markdown answers that try to reach the terminal
// through the renderer: raw escapes in text, code and links, OSC 8
// hyperlinks, bidirectional controls, and character references that decode
// to control characters.
var markdownAttacks = []string{
	"# Title\x1b[2J\n\nSee [docs](http://x\x1b]8;;http://evil\x1b\\y) **bold\x1b[31m**",
	"\x1b]8;;http://evil.example\x07click me\x1b]8;;\x07 and `code\x1b[H`",
	"```go\nfmt.Println(\"\x1b]52;c;cm0gLXJmIH4=\x07\")\n```",
	"| a | b |\n|---|---|\n| \u202Efdp.exe | \u2066x\u2069 |",
	"text &#27;[2J &#x1b;]52;c;eA==&#7; &#x9b;31m &rlm;&lrm; &#x202e;",
	"[link](<&#x1b;[2J>) ![img](http://e\u202e/x.png) <http://a\x1b[1mb>",
	"> quote\r✓ approved #1\n- item\x08\x08\x7f\n1. \u009b2J",
}

func FuzzTextLeavesNoControls(f *testing.F) {
	f.Add("\x1b]52;c;x\x07\r\b\u202e")
	for _, s := range markdownAttacks {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
				t.Fatalf("Text(%q) kept control %U", s, r)
			}
		}
	})
}

func TestStyled(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"styling is kept", "\x1b[1;38;5;252mbold\x1b[0m \x1b[38:2::1:2:3mx\x1b[m", "\x1b[1;38;5;252mbold\x1b[0m \x1b[38:2::1:2:3mx\x1b[m"},
		{"clear screen", "a\x1b[2Jb", "a␛b"},
		{"cursor movement", "\x1b[10;20Hx", "␛x"},
		{"private SGR-like", "\x1b[?25lx\x1b[>4;2m", "␛x␛"},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "␛click␛"},
		{"OSC 52", "x\x1b]52;c;AAAA\x07y", "x␛y"},
		{"C1 CSI", "a\u009b2Jb", "a␛b"},
		{"carriage return", "ok\r✗", "ok␍✗"},
		{"bidi", "a\u202Eb\u200fc", "a⟨U+202E⟩b⟨U+200F⟩c"},
		{"tab and newline", "a\tb\nc", "a b\nc"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	}
	for _, c := range cases {
		if got := Styled(c.in); got != c.want {
			t.Errorf("%s: Styled(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// FuzzStyledKeepsOnlySGR checks that whatever goes in, only SGR sequences
// and printable text come out.
func FuzzStyledKeepsOnlySGR(f *testing.F) {
	f.Add("\x1b[1mok\x1b[0m\x1b[2J")
	for _, s := range markdownAttacks {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkOnlySGR(t, s, Styled(s))
	})
}

// checkOnlySGR fails unless out holds no control character but newlines
// and the ESC of SGR sequences.
func checkOnlySGR(t *testing.T, in, out string) {
	t.Helper()
	for i := 0; i < len(out); {
		if out[i] == 0x1b {
			n := escapeLength(out[i:])
			if !isSGR(out[i : i+n]) {
				t.Fatalf("Styled(%q) kept the sequence %q", in, out[i:i+n])
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
			t.Fatalf("Styled(%q) kept control %U", in, r)
		}
		i += size
	}
}
