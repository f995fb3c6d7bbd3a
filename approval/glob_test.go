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
	for _, bad := range []string{"[abc", "x\\", "[]", "[z-a]"} {
		if _, err := compilePattern(bad, true); err == nil {
			t.Errorf("pattern %q should be refused", bad)
		}
	}
}
