package workspace

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestPrefilterLiterals(t *testing.T) {
	cases := []struct {
		pattern string
		// want lists the needles, a fold one written as (?i)text; nil means
		// the expression yields none and is run over the whole file.
		want    []string
		literal bool
	}{
		{"agenttui_no_such_text", []string{"agenttui_no_such_text"}, true},
		{`err != nil`, []string{"err != nil"}, true},
		{`func \(\w+ \*\w+\) Close\(\) error`, []string{") Close() error"}, false},
		{`foo|bar`, []string{"foo", "bar"}, false},
		{`fo(o|x)bar`, []string{"foobar", "foxbar"}, false},
		{`[Ff]oo`, []string{"(?i)foo"}, false}, // the parser makes [Ff] a folded F
		{`[Ff]o[ox]`, []string{"(?i)foo", "(?i)fox"}, false},
		{`^foo$`, []string{"foo"}, false},
		{`\bTODO\b`, []string{"TODO"}, false},
		{`a.*bcd`, []string{"bcd"}, false},
		{`(foo)+bar`, []string{"foo"}, false},
		{`(?i)todo`, []string{"(?i)todo"}, false},
		// k and s also match the Kelvin sign and the long s: the needle
		// keeps to the rest.
		{`(?i)task`, []string{"(?i)ta"}, false},
		{`(?i)sk`, nil, false},
		{`x?`, nil, false},
		{`\w+`, nil, false},
		{`^$`, nil, false},
		{`.`, nil, false},
		{`[^a]b`, []string{"b"}, false},
		{`\x{FFFD}x`, nil, false}, // U+FFFD matches any invalid byte
		{`(a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q)z`, []string{"z"}, false},
	}
	for _, c := range cases {
		re := regexp.MustCompile(c.pattern)
		pf := newPrefilter(c.pattern, re)
		var got []string
		for _, n := range pf.needles {
			s := string(n.text)
			if n.fold {
				s = "(?i)" + s
			}
			got = append(got, s)
		}
		if !slices.Equal(got, c.want) || pf.literal != c.literal {
			t.Errorf("%s: needles %q literal %v, want %q literal %v", c.pattern, got, pf.literal, c.want, c.literal)
		}
		if got == nil && pf.lineRe == nil {
			t.Errorf("%s: neither needles nor a whole-file expression", c.pattern)
		}
	}
}

// naiveLines is grep's search as it was before the prefilter: every line
// split out and matched.
func naiveLines(re *regexp.Regexp, data []byte, max int) []lineMatch {
	var out []lineMatch
	for lineNo := 1; len(data) > 0 && len(out) <= max; lineNo++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if re.Match(line) {
			out = append(out, newLineMatch(lineNo, line))
		}
	}
	return out
}

// TestSearchFindsWhatEveryLineWouldMatch checks that the prefilter never
// changes which lines match, on texts and expressions chosen for their
// edges: line ends, CRLF, empty lines, a missing final newline, case
// folding beyond ASCII, invalid UTF-8, anchors and classes that would
// match a newline.
func TestSearchFindsWhatEveryLineWouldMatch(t *testing.T) {
	texts := []string{
		"",
		"\n",
		"\n\n",
		"foo",
		"foo\n",
		"foo\nbar\n",
		"foo\r\nbar\r\nfoo bar\r\n",
		"bar foo\nfoo\n\nfoo",
		"x\n\n\ny\n",
		"\r\n\r\n",
		"abc\r",
		"TODO todo ToDo\nnothing\ntOdO",
		"\u212aelvin and kelvin\nKELVIN",
		"\u017fecret, secret and SECRET\nſ",
		"\xff\xfefoo\n\xffbar\xff\n",
		"err != nil\n\tif err != nil {\n\t\treturn err\n\t}\n",
		"a\nb\na b\nab\n",
		"foo\rbar\n",
		strings.Repeat("long line with foo in it ", 40) + "\nshort\n",
		strings.Repeat("foo\n", 12),
	}
	patterns := []string{
		"foo", "^foo$", "^foo", "foo$", "^$", "^", "$", "(?i)todo", "(?i)kelvin", "(?i)secret", "(?i)k", `o\s`,
		"[^a]", `a\nb`, `\Afoo`, `bar\z`, `(?s)foo.bar`, `\r`, `foo\r?$`, "x*", ".", `\bbar\b`, `\x{FFFD}`,
		`\x{FFFD}bar`, "foo|bar", `(?m)^bar`, "[a-c]+", "err != nil", `\w+ \*?\w+`, "r$", `\s$`, `^\s*$`, "b.?$",
	}
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		pf := newPrefilter(p, re)
		for _, text := range texts {
			for _, max := range []int{200, 2} {
				s := newSearch(re, pf, max)
				got := s.lines([]byte(text))
				want := naiveLines(re, []byte(text), max)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("pattern %q, max %d, text %q:\n got %v\nwant %v", p, max, text, got, want)
				}
			}
		}
	}
}

// TestGrepCapIsDeterministic checks that a search cut at the match cap
// shows the first matches by path and line, the same on every run, however
// the walk's goroutines share the files out.
func TestGrepCapIsDeterministic(t *testing.T) {
	e := newEnv(t)
	for d := range 12 {
		for f := range 15 {
			var b strings.Builder
			for l := range 3 {
				fmt.Fprintf(&b, "line %d\nhit %d %d %d\n", l, d, f, l)
			}
			e.write(fmt.Sprintf("d%02d/sub-%d/f%02d.txt", d, d%3, f), b.String())
			e.write(fmt.Sprintf("d%02d-x/f%02d.txt", d, f), "hit beside\n")
		}
	}
	// What a plain walk in name order finds, cut at the cap.
	var want strings.Builder
	n := 0
	err := filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || n > grepMaxMatches {
			return err
		}
		rel, _ := filepath.Rel(e.root, p)
		for i, line := range strings.Split(strings.TrimSuffix(e.read(rel), "\n"), "\n") {
			if strings.Contains(line, "hit") {
				if n++; n <= grepMaxMatches {
					fmt.Fprintf(&want, "%s:%d: %s\n", rel, i+1, line)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want.WriteString("… cut at 200 matches; more lines match. Narrow the pattern, path or include to see the rest\n")
	for range 5 {
		if got := wantSuccess(t, e.call("grep", map[string]any{"pattern": "hit"})); got != want.String() {
			t.Fatalf("grep hit:\n%s\nwant:\n%s", got, want.String())
		}
	}
}
