package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"
)

// The renderer is checked against glamour's in package markdown, which
// renders documents both ways; these tests check its parts on their own.

func TestStripHTML(t *testing.T) {
	for in, want := range map[string]string{
		"":                                    "",
		"  ":                                  "",
		"<b>bold</b>":                         "bold",
		"  <p> a &amp; b </p>  ":              "a & b",
		"<script>alert(1)</script>after":      "after",
		"<style>p{}</style><title>t</title>x": "x",
		"<iframe>gone</iframe> <noscript>x</noscript>kept": "kept",
		"<!-- comment --><!DOCTYPE html>text":              "text",
		"<textarea>&lt;raw&gt;</textarea>":                 "<raw>",
		"</title>stray <title>hidden":                      "stray",
		"<br/>line<img src=x>":                             "line",
	} {
		if got := stripHTML(in); got != want {
			t.Errorf("stripHTML(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:       `plain`,
		`\*a\_b\\`:    `*a_b\`,
		`\\*`:         `\*`,
		`\a \~ \`:     `\a \~ \`,
		`1\. \# \| x`: `1. # | x`,
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormat(t *testing.T) {
	if got := format("image: {{.text}} →", "{{.text}}"); got != "image: {{.text}} →" {
		t.Errorf("the text was formatted again: %q", got)
	}
	if got := format("\n--------\n", "x"); got != "\n--------\n" {
		t.Errorf("a format without text gave %q", got)
	}
}

func TestResolve(t *testing.T) {
	for in, want := range map[string]string{
		"http://x.y/a b": "http://x.y/a b",
		"/docs/x":        "/docs/x",
		"../a/./b":       "/a/b",
		"a b":            "/a%20b",
		"%zz":            "%zz",
	} {
		if got := resolve(in); got != want {
			t.Errorf("resolve(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRender(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList))
	src := []byte("# Title\n\nSome *text* with a [link](http://x.y).\n\n- one\n- two\n\n```go\ncode\\*\n```\n")
	render := func(p termenv.Profile, cfg Config) string {
		var b bytes.Buffer
		if err := New(cfg, p).Render(&b, src, md.Parser().Parse(gmtext.NewReader(src)), 40); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	plain := render(termenv.Ascii, ASCII)
	for _, want := range []string{"# Title", "*text*", "link http://x.y", "• one", "  code*"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the rendering lacks %q:\n%s", want, plain)
		}
	}
	// With colours, code blocks are written as they are, highlighted by
	// the caller.
	if dark := render(termenv.TrueColor, Dark); !strings.Contains(ansi.Strip(dark), "  code\\*") || !strings.Contains(dark, "\x1b[38;5;35;1mlink") {
		t.Errorf("the dark rendering is\n%q", dark)
	}
}
