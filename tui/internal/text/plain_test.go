package text

import "testing"

// TestPlainMarkdown reads Markdown as the plain text its reader sees: the
// marks models write go, and what only looks like a mark stays.
func TestPlainMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"## The fix", "The fix"},
		{"# Plan #", "Plan"},
		{"### Notes on C#", "Notes on C#"},
		{"#hashtag", "#hashtag"},
		{"The **last page** was _lost_ to `total / size`; see [the docs](https://go.dev/ref/spec).",
			"The last page was lost to total / size; see the docs."},
		{"***both*** and ~~gone~~ and ~one~", "both and gone and ~one~"},
		{"**a *b* c**", "a b c"},
		{"- first\n* second\n+ third\n1. fourth\n2) fifth", "first\nsecond\nthird\nfourth\nfifth"},
		{"- [x] done\n- [ ] to do", "done\nto do"},
		{"> quoted **text**\n> > nested", "quoted text\nnested"},
		{"![the diagram](d.png) and <https://example.com> and <me@example.com>", "the diagram and https://example.com and me@example.com"},
		{"[a [nested] text](u) and [ref][1] and [plain]", "a [nested] text and ref and [plain]"},
		{"snake_case_name, 2*3*4, a * b, the glob *.go", "snake_case_name, 2*3*4, a * b, the glob *.go"},
		{`\*not emphasis\* and \# not a heading`, "*not emphasis* and # not a heading"},
		{"``code with ` inside`` and `unclosed", "code with ` inside and `unclosed"},
		{"Title\n=====\n\ntext\n\n---\n\n| a | b |\n|---|:-:|\n| 1 | 2 |", "Title\ntext\n| a | b |\n| 1 | 2 |"},
		{"Run it:\n\n```go\nx := **y** // `z`\n```\nafter", "Run it:\nx := **y** // `z`\nafter"},
		{"__init__ is bold in Markdown", "init is bold in Markdown"},
		{"plain text stays plain", "plain text stays plain"},
	} {
		if got := PlainMarkdown(tc.in); got != tc.want {
			t.Errorf("PlainMarkdown(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// FuzzPlainMarkdown checks that any text reads as plain text without a
// panic, and that nothing is added to it: every byte of the result comes
// from the input, so no mark can be made of nothing.
func FuzzPlainMarkdown(f *testing.F) {
	for _, s := range []string{"## **a** [b](c) `d`", "[[[", "```\n", "\\", "*_~`<>[]()!#", "a [b](", "<x:", "~~~~\n~~~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := PlainMarkdown(s)
		if len(got) > len(s) {
			t.Fatalf("PlainMarkdown(%q) = %q is longer than its input", s, got)
		}
	})
}
