package approval

import "testing"

func TestGlob(t *testing.T) {
	cases := []struct {
		pattern string
		paths   bool
		in      string
		want    bool
	}{
		{"fs__*", false, "fs__read_file", true},
		{"fs__*", false, "fsx__read", false},
		{"*_file", false, "write_file", true},
		{"git *", false, "git status --short", true},
		{"git *", false, "rm -rf / && git status", false},
		{"rm *", false, "rm -rf /tmp/x", true},
		{"docs/**", true, "docs/a.md", true},
		{"docs/**", true, "docs/deep/er/a.md", true},
		{"docs/**", true, "docsx/a.md", false},
		{"docs/**", true, "secrets/x", false},
		{"docs/*", true, "docs/a.md", true},
		{"docs/*", true, "docs/deep/a.md", false},
		{"**/*.go", true, "main.go", true},
		{"**/*.go", true, "cmd/x/main.go", true},
		{"**/*.go", true, "cmd/x/main.gox", false},
		{"docs/**/index.md", true, "docs/index.md", true},
		{"docs/**/index.md", true, "docs/a/b/index.md", true},
		{"*.md", true, "notes.md", true},
		{"*.md", true, "docs/notes.md", false},
		{"file?.txt", true, "file1.txt", true},
		{"file?.txt", true, "file/.txt", false},
		{"[a-c]*.go", true, "b.go", true},
		{"[!a-c]*.go", true, "b.go", false},
		{"/etc/**", true, "/etc/passwd", true},
		{`a\*b`, false, "a*b", true},
		{`a\*b`, false, "axb", false},
		// ** edge cases of path patterns.
		{"**", true, "a", true},
		{"**", true, "a/b/c", true},
		{"**/x.md", true, "x.md", true},
		{"**/x.md", true, "a/b/x.md", true},
		{"**/x.md", true, "a/bx.md", false},
		{"docs/**", true, "docs", true},
		{"a/**/b/**/c", true, "a/b/c", true},
		{"a/**/b/**/c", true, "a/x/b/y/z/c", true},
		{"a/**/b/**/c", true, "a/x/c", false},
		{"**/**/x", true, "x", true},
		{"a**b", true, "axxb", true},
		{"a**b", true, "ax/xb", false},
		{"../**", true, "../outside/x", true},
		{"../**", true, "docs/x", false},
		{"{docs,notes}/*.md", true, "notes/a.md", true},
		{"{docs,notes}/*.md", true, "src/a.md", false},
		// A plain pattern's * crosses slashes, ? matches one, and braces
		// are plain characters.
		{"git -C * status", false, "git -C ../a/b status", true},
		{"cat ?etc/passwd", false, "cat /etc/passwd", true},
		{"cat /etc/*", false, "cat /etc/ssl/certs/x", true},
		{"find * -exec rm {} *", false, "find . -exec rm {} +", true},
		{"find * -exec rm {} *", false, "find . -exec rm  +", false},
		{"echo ${HOME}*", false, "echo ${HOME}/x", true},
		{"a{b,c}", false, "ab", false},
		{"a{b,c}", false, "a{b,c}", true},
		{"x\ue000*", false, "x\ue000/y", true},
	}
	for _, c := range cases {
		p, err := compilePattern(c.pattern, c.paths)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		if got := p.match(c.in); got != c.want {
			t.Errorf("%q (paths=%v) matching %q = %v, want %v", c.pattern, c.paths, c.in, got, c.want)
		}
	}
	bad := map[string]string{
		"[abc":     `unclosed [ in pattern "[abc"`,
		"x\\":      `pattern "x\\" ends with a lone backslash`,
		"[]":       `pattern "[]": empty character class`,
		"[z-a]":    `pattern "[z-a]": bad range z-a`,
		"{a,b":     `unclosed { in pattern "{a,b"`,
		"x/[c-a]y": `pattern "x/[c-a]y": bad range c-a`,
	}
	for text, want := range bad {
		if _, err := compilePattern(text, true); err == nil || err.Error() != want {
			t.Errorf("pattern %q: error %v, want %q", text, err, want)
		}
	}
}
