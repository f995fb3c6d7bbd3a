package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
)

// treeEnv is a workspace with a small source tree, a .git folder and a link
// to a folder outside.
func treeEnv(t *testing.T) *env {
	e := newEnv(t)
	e.write("README.md", "# demo\nTODO: write docs\n")
	e.write("main.go", "package main\n\nfunc main() {\n\t// TODO: more\n}\n")
	e.write("src/a.go", "package src\n\nfunc A() {} // TODO\n")
	e.write("src/deep/b.go", "package deep\n\nfunc B() {}\n")
	e.write("src/deep/b_test.go", "package deep\n")
	e.write("src/notes.txt", "todo in lower case\n")
	e.write("bin/tool.bin", "TODO\x00binary")
	e.write(".git/HEAD", "ref: refs/heads/main TODO\n")
	e.write(".git/objects/x.go", "package git // TODO\n")
	e.write(".env", "TODO=1\n")
	writeAt(t, filepath.Join(e.outside, "o.go"), "package outside // TODO\n")
	e.symlink(e.outside, "out-link")
	e.symlink("src", "src-link")
	return e
}

func TestListDir(t *testing.T) {
	e := treeEnv(t)
	got := wantSuccess(t, e.call("list_dir", map[string]any{}))
	want := ".env\nREADME.md\nbin/\nmain.go\nout-link -> " + e.outside + "\nsrc/\nsrc-link -> src\n"
	if got != want {
		t.Errorf("list_dir root:\n%s\nwant:\n%s", got, want)
	}
	if got := wantSuccess(t, e.call("list_dir", map[string]any{"path": "src"})); got != "a.go\ndeep/\nnotes.txt\n" {
		t.Errorf("list_dir src:\n%s", got)
	}
	// A link to a folder inside lists its target.
	if got := wantSuccess(t, e.call("list_dir", map[string]any{"path": "src-link"})); got != "a.go\ndeep/\nnotes.txt\n" {
		t.Errorf("list_dir src-link:\n%s", got)
	}
	if err := os.Mkdir(filepath.Join(e.root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := wantSuccess(t, e.call("list_dir", map[string]any{"path": "empty"})); got != "(empty is empty)" {
		t.Errorf("empty folder: %q", got)
	}
	wantKind(t, e.call("list_dir", map[string]any{"path": "main.go"}), tool.KindInvalidArgs, "main.go is a file, not a folder; use read_file")
	wantKind(t, e.call("list_dir", map[string]any{"path": "nope"}), tool.KindNotFound, "nope does not exist (no such folder)")

	for i := range 600 {
		e.write(fmt.Sprintf("many/f%03d.txt", i), "")
	}
	got = wantSuccess(t, e.call("list_dir", map[string]any{"path": "many"}))
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 501 || lines[0] != "f000.txt" || lines[499] != "f499.txt" {
		t.Errorf("bounded list: %d lines, first %q", len(lines), lines[0])
	}
	wantContains(t, lines[500], "… cut at 500 of 600 entries; use glob")
}

func TestGlob(t *testing.T) {
	e := treeEnv(t)
	cases := map[string]string{
		"**/*.go":        "main.go\nsrc/a.go\nsrc/deep/b.go\nsrc/deep/b_test.go\n",
		"*.go":           "main.go\n",
		"src/**/*.go":    "src/a.go\nsrc/deep/b.go\nsrc/deep/b_test.go\n",
		"src/*/b?go":     "src/deep/b.go\n",
		"**/b_[a-z]*":    "src/deep/b_test.go\n",
		"src/*":          "src/a.go\nsrc/deep/\nsrc/notes.txt\n",
		"./src/deep":     "src/deep/\n",
		"*":              ".env\nREADME.md\nbin/\nmain.go\nout-link\nsrc/\nsrc-link\n",
		"**/HEAD":        "No paths match **/HEAD.",
		"out-link/**":    "out-link\n",
		e.root + "/*.md": "README.md\n",
	}
	for pattern, want := range cases {
		if got := wantSuccess(t, e.call("glob", map[string]any{"pattern": pattern})); got != want {
			t.Errorf("glob %s:\n%s\nwant:\n%s", pattern, got, want)
		}
	}
	wantKind(t, e.call("glob", map[string]any{"pattern": "src/[a"}), tool.KindInvalidArgs, `invalid glob pattern "src/[a"`)
	wantKind(t, e.call("glob", map[string]any{"pattern": "src/../*.go"}), tool.KindInvalidArgs, "patterns cannot contain ..")

	for i := range 600 {
		e.write(fmt.Sprintf("many/f%03d.txt", i), "")
	}
	got := wantSuccess(t, e.call("glob", map[string]any{"pattern": "many/*.txt"}))
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 501 || lines[499] != "many/f499.txt" {
		t.Errorf("bounded glob: %d lines", len(lines))
	}
	wantContains(t, lines[500], "… cut at 500 paths; more match. Use a narrower pattern")
}

func TestPatternMatch(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "src/a.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "x/y/z/a.go", true},
		{"src/**", "src", true},
		{"src/**", "src/a/b", true},
		{"src/**", "srcx/a", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a**b", "axxb", true},
		{"a**b", "ax/xb", false},
		{"?.txt", "a.txt", true},
		{"?.txt", "ab.txt", false},
		{"[abc].go", "b.go", true},
		{"[^abc].go", "b.go", false},
		{"**/**/x", "x", true},
		// ** edge cases.
		{"**", "a", true},
		{"**", "a/b/c", true},
		{"**/b/**", "b", true},
		{"**/b/**", "a/b/c/d", true},
		{"**/b/**", "a/bc/d", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/b/y/z/c", true},
		{"a/**/b/**/c", "a/x/c", false},
		{"**/*_test.go", "x_test.go", true},
		{"**/*_test.go", "a/b/x_test.go", true},
		{"**/*_test.go", "a/b/x_test.gox", false},
		{"a//**//b/", "a/b", true},
		{"{src,docs}/**/*.md", "docs/x/y.md", true},
		{"{src,docs}/**/*.md", "srcx/y.md", false},
		{"src/{a,b/c}.go", "src/b/c.go", true},
	}
	for _, c := range cases {
		p, err := compilePattern(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if got := p.match(c.path); got != c.want {
			t.Errorf("%s matches %s = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
	below := []struct {
		pattern, dir string
		want         bool
	}{
		{"src/*.go", "src", true},
		{"src/*.go", "docs", false},
		{"src/*.go", "src/deep", false},
		{"**/*.go", "any/where", true},
		{"a/**/b", "a/x", true},
		{"*", "x", false},
		{"**/x", "a/b/c", true},
		{"a/**/x", "b", false},
		{"a/*/x/**", "a/b", true},
		{"a/*/x/**", "a/b/y", false},
		{"a/*/x/**", "a/b/x/y/z", true},
		// An alternation may hide a slash: nothing is ruled out past it.
		{"{src,docs/api}/*.md", "docs", true},
		{"{src,docs/api}/*.md", "x", true},
	}
	for _, c := range below {
		p, _ := compilePattern(c.pattern)
		if got := p.mayMatchBelow(c.dir); got != c.want {
			t.Errorf("%s may match below %s = %v, want %v", c.pattern, c.dir, got, c.want)
		}
	}
	for _, bad := range []string{"[", "a/[b", "x\\", "", "/", strings.Repeat("a", 1001)} {
		if _, err := compilePattern(bad); err == nil {
			t.Errorf("pattern %q should be refused", bad)
		}
	}
}

func TestGrep(t *testing.T) {
	e := treeEnv(t)
	got := wantSuccess(t, e.call("grep", map[string]any{"pattern": "TODO"}))
	want := ".env:1: TODO=1\nREADME.md:2: TODO: write docs\nmain.go:4: \t// TODO: more\nsrc/a.go:3: func A() {} // TODO\n"
	if got != want {
		t.Errorf("grep TODO:\n%s\nwant:\n%s", got, want)
	}
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "(?i)todo", "path": "src"}, "src/a.go:3: func A() {} // TODO\nsrc/notes.txt:1: todo in lower case\n"},
		{map[string]any{"pattern": "^func", "include": "*.go"}, "main.go:3: func main() {\nsrc/a.go:3: func A() {} // TODO\nsrc/deep/b.go:3: func B() {}\n"},
		{map[string]any{"pattern": "^package", "include": "src/**/*_test.go"}, "src/deep/b_test.go:1: package deep\n"},
		{map[string]any{"pattern": "func", "path": "src/deep/b.go"}, "src/deep/b.go:3: func B() {}\n"},
		// A file named outright is searched whatever include says.
		{map[string]any{"pattern": "func", "path": "src/deep/b.go", "include": "*.txt"}, "src/deep/b.go:3: func B() {}\n"},
		{map[string]any{"pattern": "nothing like this"}, "No matches for nothing like this in the workspace."},
		{map[string]any{"pattern": "x", "path": "src-link"}, "No matches for x in src-link."},
	}
	for _, c := range cases {
		if got := wantSuccess(t, e.call("grep", c.args)); got != c.want {
			t.Errorf("grep %v:\n%s\nwant:\n%s", c.args, got, c.want)
		}
	}
	wantKind(t, e.call("grep", map[string]any{"pattern": "a(b"}), tool.KindInvalidArgs,
		`invalid regular expression "a(b": error parsing regexp: missing closing )`)
	wantKind(t, e.call("grep", map[string]any{"pattern": "a", "include": "[x"}), tool.KindInvalidArgs, "invalid include pattern")
	wantKind(t, e.call("grep", map[string]any{"pattern": "a", "path": "nope"}), tool.KindNotFound,
		"nope does not exist (no such file or folder)")
}

func TestGrepBounds(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	for i := 1; i <= 250; i++ {
		fmt.Fprintf(&b, "match %d\n", i)
	}
	e.write("many.txt", b.String())
	e.write("wide.txt", "match "+strings.Repeat("w", 1000)+"\n")
	got := wantSuccess(t, e.call("grep", map[string]any{"pattern": "match", "path": "many.txt"}))
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 201 || lines[199] != "many.txt:200: match 200" {
		t.Errorf("bounded grep: %d lines, last match %q", len(lines), lines[199])
	}
	wantContains(t, lines[200], "… cut at 200 matches; more lines match. Narrow the pattern, path or include")

	got = wantSuccess(t, e.call("grep", map[string]any{"pattern": "match", "path": "wide.txt"}))
	wantContains(t, got, "wide.txt:1: match www", "w …\n", "1 long matching line(s) were cut at 300 bytes")
	if len(got) > 500 {
		t.Errorf("long line not cut: %d bytes", len(got))
	}
}
