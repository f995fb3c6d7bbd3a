package markdown

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// corpus returns documents with every construct the renderer draws, alone
// and nested, for the differential tests.
func corpus() []string {
	docs := []string{
		"",
		" ",
		"\n\n\n",
		"word",
		answer,
		longAnswer(0),
		longAnswer(3),
		// Headings of every level, setext ones, and headings that wrap.
		"# One\n## Two\n### Three\n#### Four\n##### Five\n###### Six\n\nText.",
		"Title\n=====\n\nSub\n---\n\ntext",
		"# A heading long enough to wrap at the narrower widths, with `code` and *emphasis* and a [link](http://x.y/z)\n\npara",
		"para first\n# then a heading\ntext right after",
		"#\n\n##   \n\n### ###",
		// Emphasis of every kind, nested, across lines.
		"*em* _em_ **strong** __strong__ ***both*** *a **b** c* **a *b* c** ~~struck~~ ~struck too~",
		"*emphasis that goes\nacross a line* and **strong\nacross one** and ~~struck\nacross~~",
		"**bold with `code` and [link](u) and ![img](i.png) inside**",
		"*a ~~b~~ c* ~~a *b* c~~ ~~a `c` [l](u)~~",
		"***\n---\n___\n\n* * *",
		// Code spans.
		"`code` ``co`de`` ` spaced ` `a\\*b` `&amp;` `<b>`",
		"a very long line with `a code span that is itself rather long and goes on` and on and on",
		// Links, autolinks, images, references.
		"[text](http://example.com) [empty]() [anchor](#frag) [rel](/docs/x) [dots](../a/./b) [q](http://x/?a=1&b=2#f) [sp](<a b>)",
		"<http://example.com/a/very/long/url/that/does/not/fit/at/narrow/widths/at/all/really/not> and www.example.com and https://github.com/o/r/issues/1",
		"<mailto:me@example.com> <me@example.com> me@example.com http://a.b/c?d=e. https://x.y/(z)",
		"![alt text](http://e.com/i.png) ![](only.png) ![alt only]() ![*styled* alt](x.png \"title\")",
		"[ref] and [other][ref] and [ref][]\n\n[ref]: http://example.com/ref \"Title\"\n\nafter",
		"[link with **strong** and `code`](http://x.com) and [![img](i.png)](http://y.com)",
		"[a\nb](http://u) [x](<http://bad url>) [%zz](%zz) [c](http://[::1]:namedport)",
		"<http://a.b/%zz> <https://%xx> <http://x.y/#only>",
		// Lists: nested, ordered, tasks, loose, with code and quotes.
		"- one\n- two\n  - nested\n    - deeper\n  - back\n- three",
		"1. one\n2. two\n   1. a\n   2. b\n3. three\n\n7. seven\n8. eight\n\n0. zero\n1. one",
		"- [ ] todo\n- [x] done\n- [X] done too\n  - [ ] nested task\n- not a task",
		"- loose\n\n- items\n\n  with two paragraphs\n- and a tight one",
		"- item\n\n  ```go\n  func x() { return }\n  ```\n\n  > quote in item\n\n1. one\n   1. two\n      ```bash\n      echo \"$HOME\"\n      ```\n",
		"* star\n+ plus\n- minus\n\n123456789. big start",
		"- # heading in item\n- ---\n- | a | b |\n  |---|---|\n  | 1 | 2 |",
		"-\n  empty first line\n- \n-",
		// Quotes.
		"> quote\n> more\n>\n> > nested\n> > quote\n>\n> - list in quote\n> - two\n>\n> ```\n> code in quote\n> ```",
		"> # heading in quote\n> para with **bold** and a [link](http://x.y)\n\n> second quote",
		"> lazy\ncontinuation\n\n>\n\n> ",
		// Code blocks.
		"```\nplain\n```\n\n```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\n~~~python\ndef f(): pass\n~~~\n\n    indented\n    code\n",
		"```\n" + strings.Repeat("x", 150) + "\n```\n\n```js\n" + strings.Repeat("let a = [1, 2, 3].map((x) => x * 2); ", 5) + "\n```",
		"```\n\n\nblank lines around\n\n\n```\n\n```\n```\n\n```unknownlang\n\\* escaped \\_ in code \\\\\n```",
		"```go\n// 日本語のコメント\nfmt.Println(\"emoji 🎉 and wide 漢字\")\n```",
		// Tables.
		"| a | b |\n|---|---|\n| 1 | 2 |",
		"| left | center | right | none |\n|:-----|:------:|------:|------|\n| l | c | r | n |\n| longer cell | x | y | z |",
		"| link | code |\n|---|---|\n| [t](http://example.com/x) | `c` |\n| <http://auto.link/x> | ![i](p.png) |\n| **b** *i* ~~s~~ | a \\| pipe |",
		"| " + strings.Repeat("wide column ", 12) + " | b | c | d | e | f | g |\n|---|---|---|---|---|---|---|\n| " + strings.Repeat("cell text ", 15) + " | 2 | 3 | 4 | 5 | 6 | 7 |",
		"| only header |\n|---|",
		"| a | b |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |",
		"> | t | in quote |\n> |---|---|\n> | 1 | 2 |\n\n- | t | in list |\n  |---|---|\n  | 1 | 2 |",
		"| 漢字 | emoji 🎉 |\n|---|---|\n| 日本語 | 👍🏽 |",
		// HTML.
		"<div>\n<b>bold</b> html block\n</div>\n\npara with <span>inline</span> html and <br> a break",
		"<!-- comment -->\n\n<script>alert(1)</script>\n\n<style>p{}</style>\n\n<title>t</title> after",
		"text <b>b</b> <i>i</i> <a href=\"x\">a</a> <img src=x> <!-- c --> <?pi?> <![CDATA[x]]> &lt;tag&gt;",
		"<details>\n<summary>sum</summary>\n\ncontent\n</details>",
		"<table><tr><td>cell</td></tr></table>\n\n<p>para &amp; entity</p>",
		"<textarea>&amp; raw</textarea>\n\n<xmp><b>x</b></xmp>\n\n<noscript>gone</noscript> kept",
		"inline <title>hidden</title> and </title> stray and <iframe>x</iframe>",
		// Entities and escapes.
		"&amp; &lt; &gt; &quot; &copy; &nbsp;x &#65; &#x42; &unknown; &",
		"\\* \\_ \\` \\# \\+ \\- \\. \\! \\| \\\\ \\[ \\] \\( \\) \\{ \\} \\< \\> \\~ \\a",
		"1\\. not a list\n\\# not a heading\n\\- not an item",
		// Breaks.
		"hard  \nbreak\\\nand soft\nbreak",
		"line one\nline two\nline three",
		// Definition lists.
		"Term\n: Definition\n\nTerm two\n: Def a\n: Def b\n\n: no term",
		"Apple\n:   Pomaceous fruit\n\n    with more\n\nOrange\n: *Citrus* fruit with a [link](http://o.r)",
		// Wide characters and long words.
		"漢字とかなの文章はスペースがないので折り返しが難しいです。とても長い文章です。",
		"emoji 🎉🎉🎉 👍🏽 family 👨‍👩‍👧 flags 🇫🇷🇩🇪 and text",
		strings.Repeat("supercalifragilisticexpialidocious", 5) + " short",
		"a-hyphenated-word-that-is-long and-another-one-with-many-parts-to-break-at-hyphens",
		"http://example.com/" + strings.Repeat("segment/", 20) + " in a paragraph",
		"comma,separated,values;semicolons;and.dots.and+plus+signs|pipes|" + strings.Repeat("x,", 40),
		// Thematic breaks between things.
		"para\n\n---\n\npara\n***\n- list\n\n___",
		// Link reference definitions only.
		"[a]: http://a\n[b]: http://b",
		"[a]: http://a\n\n# heading after a definition\n\npara",
		// Tabs.
		"\tindented with tab\n\n-\ttab item\n\n| a\t| b |\n|---|---|\n|\t1 | 2 |",
	}
	return docs
}

// randomDocs returns n documents made at random, with r, of the pieces of
// Markdown the renderer draws, nested.
func randomDocs(r *rand.Rand, n int) []string {
	docs := make([]string, n)
	for i := range docs {
		g := generator{r: r}
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteString(g.block(0))
			b.WriteString("\n")
		}
		docs[i] = b.String()
	}
	return docs
}

// generator makes random Markdown.
type generator struct{ r *rand.Rand }

// pick returns one of s.
func (g generator) pick(s ...string) string { return s[g.r.IntN(len(s))] }

// word returns a word: plain, long, wide, or with characters Markdown
// treats specially.
func (g generator) word() string {
	switch g.r.IntN(20) {
	case 0:
		return strings.Repeat("long", 5+g.r.IntN(30))
	case 1:
		return g.pick("漢字", "日本語の文章", "한국어", "🎉", "👍🏽", "👨‍👩‍👧", "ｗｉｄｅ")
	case 2:
		return g.pick("&amp;", "&lt;", "&copy;", "&#65;", "&nbsp;", "&bogus;", "\\*", "\\_", "\\\\", "a\\|b")
	case 3:
		return g.pick("a-b-c", "x,y", "p.q", "one;two", "a+b", "a|b", "--", "...")
	}
	return g.pick("the", "a", "word", "text", "renderer", "glamour", "markdown", "terminal", "wraps", "at", "width", "x", "lorem", "ipsum", "dolor")
}

// inline returns a run of inline content.
func (g generator) inline(depth int) string {
	var parts []string
	for range 1 + g.r.IntN(8) {
		parts = append(parts, g.span(depth))
	}
	return strings.Join(parts, g.pick(" ", " ", " ", "\n", "  \n", "\\\n", ""))
}

// span returns one piece of inline content.
func (g generator) span(depth int) string {
	k := g.r.IntN(22)
	if depth > 2 {
		k = 0
	}
	switch k {
	case 1:
		return "*" + g.inline(depth+1) + "*"
	case 2:
		return "**" + g.inline(depth+1) + "**"
	case 3:
		return "~~" + g.inline(depth+1) + "~~"
	case 4:
		return "`" + g.word() + " " + g.word() + "`"
	case 5:
		return "[" + g.inline(depth+1) + "](" + g.url() + ")"
	case 6:
		return "<" + g.pick("http://example.com", "https://go.dev/doc", "http://a.b/"+strings.Repeat("p", 60), "me@example.com") + ">"
	case 7:
		return "![" + g.word() + "](" + g.url() + ")"
	case 8:
		return g.pick("<b>", "</b>", "<span class=\"x\">s</span>", "<br/>", "<!-- c -->", "<i>x</i>")
	case 9:
		return g.pick("https://github.com/o/r/pull/12", "www.example.org/path", "http://x.y/z?q=1")
	case 10:
		return "_" + g.word() + "_"
	}
	return g.word()
}

// url returns a link's destination.
func (g generator) url() string {
	return g.pick("http://example.com", "https://example.com/a/b?c=d#e", "/relative/path", "rel", "#anchor", "", "mailto:a@b.c",
		"http://example.com/"+strings.Repeat("long/", 15), "<a b>", "%zz", "../up")
}

// block returns a block, nested in containers up to a depth.
func (g generator) block(depth int) string {
	k := g.r.IntN(16)
	if depth > 2 && k > 6 {
		k = 0
	}
	switch k {
	case 1:
		return strings.Repeat("#", 1+g.r.IntN(6)) + " " + strings.ReplaceAll(g.inline(0), "\n", " ") + "\n"
	case 2:
		lang := g.pick("", "go", "python", "nosuch", "js")
		var code []string
		for range 1 + g.r.IntN(5) {
			code = append(code, strings.Repeat(" ", g.r.IntN(6))+g.word()+" "+g.word()+g.pick("", strings.Repeat(" pad", g.r.IntN(30))))
		}
		return "```" + lang + "\n" + strings.Join(code, "\n") + "\n```\n"
	case 3:
		return "    " + g.word() + " " + g.word() + "\n    " + g.word() + "\n"
	case 4:
		return g.pick("---", "***", "___") + "\n"
	case 5:
		return g.pick("<div>\n"+g.word()+"\n</div>", "<!-- "+g.word()+" -->", "<p>"+g.word()+" &amp; "+g.word()+"</p>") + "\n"
	case 6:
		return g.table()
	case 7, 8:
		return g.list(depth)
	case 9:
		return prefixLines(g.block(depth+1)+"\n"+g.block(depth+1), "> ")
	case 10:
		return g.word() + "\n: " + strings.ReplaceAll(g.inline(0), "\n", " ") + "\n"
	case 11:
		return "[" + g.word() + "]: " + g.pick("http://x.y", "/z") + "\n"
	}
	return g.inline(0) + "\n"
}

// list returns a list of items, nested up to a depth.
func (g generator) list(depth int) string {
	ordered := g.r.IntN(2) == 0
	start := g.r.IntN(12)
	task := g.r.IntN(4) == 0
	loose := g.r.IntN(4) == 0
	var b strings.Builder
	for i := range 1 + g.r.IntN(4) {
		marker := "- "
		if ordered {
			marker = fmt.Sprintf("%d. ", start+i)
		}
		if task {
			marker += g.pick("[ ] ", "[x] ")
		}
		item := g.inline(0)
		if g.r.IntN(3) == 0 {
			item += "\n\n" + g.block(depth+1)
		}
		b.WriteString(marker + prefixLines(item, strings.Repeat(" ", len(marker)))[len(marker):])
		b.WriteString("\n")
		if loose {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// table returns a table of inline content.
func (g generator) table() string {
	cols := 1 + g.r.IntN(5)
	var b strings.Builder
	row := func() {
		b.WriteString("|")
		for range cols {
			b.WriteString(" " + strings.ReplaceAll(g.span(1), "\n", " ") + " |")
		}
		b.WriteString("\n")
	}
	row()
	b.WriteString("|")
	for range cols {
		b.WriteString(g.pick("---", ":--", "--:", ":-:") + "|")
	}
	b.WriteString("\n")
	for range g.r.IntN(4) {
		row()
	}
	return b.String()
}

// prefixLines puts p before every line of s.
func prefixLines(s, p string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = p + l
	}
	return strings.Join(lines, "\n") + "\n"
}
