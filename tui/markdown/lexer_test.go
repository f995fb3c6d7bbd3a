package markdown

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"

	"github.com/agenttui/agenttui/tui/internal/lexers"
)

// samples are code in the languages models write most, each touching the
// lexer features a fastLexer must drive as chroma does: included and
// combined states, pushes and pops, groups, nested lexers, heredocs,
// case-insensitive and non-multiline rules, and text that ends without a
// newline.
var samples = map[string]string{
	"go":         "package main\n\nimport \"fmt\"\n\n// Pages counts pages.\nfunc Pages(total, size int) (n int, err error) {\n\tif size <= 0 {\n\t\treturn 0, fmt.Errorf(\"size %d\", size)\n\t}\n\tx := []rune(`raw\nstring`)\n\treturn (total + size - 1) / size, nil // rounded up\n}",
	"python":     "import os\n\n@decorator(1)\nclass A(Base):\n    \"\"\"Doc string.\"\"\"\n    def f(self, x: int = 0x1F) -> str:\n        return f\"{x!r:>10} {self.y['k']}\" + r'\\d+' + b'bytes'\n\nprint(lambda *a, **kw: None)",
	"javascript": "const re = /ab+c/gi;\nlet s = `tpl ${a + `nested ${b}`}`;\nclass X extends Y { #p = 1; async *gen() { yield await z?.w ?? 0n; } }\nexport default () => ({ a: 1, 'b': [2, 3] });",
	"typescript": "interface A<T extends object> { readonly x?: T[] }\nfunction f(this: Window, ...rest: number[]): asserts rest is [] {}\nconst el = <div className=\"x\">{y}</div>;",
	"bash":       "#!/bin/bash\nset -euo pipefail\nfor f in *.go; do\n  echo \"${f%.go}: $(wc -l < \"$f\")\"\ndone\ncat <<EOF\nheredoc $HOME\nEOF\n[[ -n $x ]] && exit 1",
	"json":       "{\"a\": [1, 2.5e-3, true, null], \"b\": {\"c\": \"d\\n\\u00e9\"}}",
	"yaml":       "key: value\nlist:\n  - a\n  - {b: 1, c: [2, 3]}\nmulti: |\n  line one\n  line two\nanchor: &a 1\nref: *a\n# comment",
	"html":       "<!DOCTYPE html>\n<html><head><style>body { color: red; }</style>\n<script>var x = 1 < 2 && \"s\";</script></head>\n<body class=\"c\">Text &amp; more<!-- comment --></body></html>",
	"css":        "@media (max-width: 600px) { .a > b::before { content: \"x\"; margin: 0 auto !important; } }",
	"sql":        "SELECT a.id, COUNT(*) AS n FROM t AS a LEFT JOIN u ON a.id = u.tid WHERE x IN (1, 2) AND y LIKE 'a%' GROUP BY a.id;\ninsert into t values (1, 'x');",
	"rust":       "#[derive(Debug)]\nstruct P<'a> { s: &'a str }\nfn main() -> Result<(), Box<dyn Error>> {\n    let v: Vec<u8> = vec![1, 2];\n    println!(\"{:?} {}\", v, r#\"raw\"#);\n    Ok(())\n}",
	"c":          "#include <stdio.h>\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\nint main(void) {\n    char *s = \"x\\n\";\n    /* block */ return MAX(1, 2);\n}",
	"cpp":        "template <typename T>\nclass V : public std::vector<T> {\n  public:\n    auto f() const noexcept -> int { return R\"(raw)\".size(); }\n};",
	"java":       "@Override\npublic final class A<T> implements B {\n    private static final long X = 1L;\n    public String f(int... a) { return \"s\" + 'c'; }\n}",
	"ruby":       "class A < B\n  attr_reader :x\n  def f(a, *b, &c)\n    puts \"#{a} #{b.map { |x| x * 2 }}\"\n    <<~EOS\n      heredoc\n    EOS\n  end\nend",
	"php":        "<?php\nnamespace App;\nfunction f(array $a): ?string {\n    return $a['k'] ?? \"x{$a[0]}\";\n}\n?>\n<p>html</p>",
	"diff":       "--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n context\n-old\n+new\n",
	"dockerfile": "FROM golang:1.26 AS build\nRUN go build -o /app ./cmd/app \\\n    && strip /app\nCOPY --from=build /app /app\nENTRYPOINT [\"/app\"]",
	"makefile":   ".PHONY: all\nall: $(BIN)\n\n$(BIN): main.go\n\tgo build -o $@ $<\n",
	"toml":       "[package]\nname = \"x\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n",
	"ini":        "[section]\nkey=value\n; comment\n",
	"xml":        "<?xml version=\"1.0\"?>\n<a b=\"c\"><![CDATA[x < y]]><d/></a>",
	"markdown":   "# Title\n\n```go\nx := 1\n```\n\n- *a* **b** `c`",
	"lua":        "local t = { a = 1, [\"b\"] = 2 }\nfunction t:f(...) return #t .. [[long\nstring]] end",
	"haskell":    "module Main where\nmain :: IO ()\nmain = mapM_ print [x | x <- [1..10], even x]",
	"kotlin":     "data class P(val x: Int) {\n    fun f() = \"${x + 1}\"\n}",
	"swift":      "struct S: Codable { let x: Int?; func f() -> String { \"\\(x ?? 0)\" } }",
	"elixir":     "defmodule M do\n  def f(%{a: a} = m), do: ~s(sigil #{a})\nend",
	"powershell": "Get-ChildItem -Path $env:HOME | Where-Object { $_.Length -gt 1kb }",
	"console":    "$ go test ./...\nok  \tpkg\t0.1s\n# root prompt\n",
	"raku":       "my $x = q:to/END/;\n  text\n  END\nsay \"hi $x\" ~ Q[raw];\n=begin pod\nDoc\n=end pod\nsub f(Int $a --> Str) { $a.Str }",
	"plaintext":  "just text\nwith lines",
	"text":       "",
}

// chromaTestdata returns the folder of chroma's own lexer test files, when
// the module's source is where it was compiled from.
func chromaTestdata() string {
	file, _ := runtime.FuncForPC(reflect.ValueOf(chroma.Coalesce).Pointer()).FileLine(0)
	dir := filepath.Join(filepath.Dir(file), "lexers", "testdata")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// tokens returns l's tokens for code, or what it panicked with.
func tokens(l chroma.Lexer, code string) (tokens []chroma.Token, err error, panicked any) {
	defer func() { panicked = recover() }()
	tokens, err = chroma.Tokenise(l, nil, code)
	return tokens, err, nil
}

// checkSameTokens fails unless the fast lexer of the language called name,
// made from the console's lexers as the console makes it, gives the tokens
// of chroma's own lexer of that language for code, or panics where it
// panics.
func checkSameTokens(t *testing.T, name string, code string) {
	t.Helper()
	lang, _, _ := strings.Cut(name, " ")
	want, err, panicked := tokens(chromalexers.Get(lang), code)
	got, gotErr, gotPanicked := tokens(fastLexerFor(lexers.Get(lang)), code)
	if (panicked != nil) != (gotPanicked != nil) || (err != nil) != (gotErr != nil) {
		t.Fatalf("%s: chroma gives error %v and panic %v, the fast lexer %v and %v", name, err, panicked, gotErr, gotPanicked)
	}
	if reflect.DeepEqual(want, got) {
		return
	}
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Fatalf("%s: token %d is %v, chroma's is %v", name, i, got[i], want[i])
		}
	}
	t.Fatalf("%s: %d tokens, chroma gives %d", name, len(got), len(want))
}

func TestFastLexerGivesChromasTokens(t *testing.T) {
	for name, code := range samples {
		if lexers.Get(name) == nil || chromalexers.Get(name) == nil {
			t.Fatalf("no lexer %q", name)
		}
		checkSameTokens(t, name, code)
		// Cut short, the code ends inside strings and comments.
		checkSameTokens(t, name+" (cut)", code[:len(code)*2/3])
	}
}

// TestFastLexerOnChromasTestdata checks the fast lexer against chroma's own
// test files for the languages above, when the module source is at hand.
func TestFastLexerOnChromasTestdata(t *testing.T) {
	dir := chromaTestdata()
	if dir == "" {
		t.Skip("chroma's source is not where it was compiled from (-trimpath?)")
	}
	n := 0
	for name := range samples {
		l := lexers.Get(name)
		data, err := os.ReadFile(filepath.Join(dir, strings.ToLower(l.Config().Name)+".actual"))
		if err != nil {
			continue
		}
		checkSameTokens(t, name+" testdata", string(data))
		n++
	}
	if n < 10 {
		t.Fatalf("only %d of chroma's test files found in %s", n, dir)
	}
}

func FuzzFastLexerGivesChromasTokens(f *testing.F) {
	names := []string{"go", "python", "javascript", "bash", "json", "yaml", "html", "sql", "rust", "c", "ruby", "php"}
	for i, name := range names {
		f.Add(uint8(i), samples[name])
	}
	f.Fuzz(func(t *testing.T, lang uint8, code string) {
		name := names[int(lang)%len(names)]
		checkSameTokens(t, name, code)
	})
}

func TestFastLexerIsUsedForRegexLexers(t *testing.T) {
	if _, ok := fastLexerFor(lexers.Get("go")).(*fastLexer); !ok {
		t.Fatal("Go code is lexed by chroma's own lexer")
	}
	// A lexer that is not made of rules (it delegates) stays chroma's.
	md := lexers.Get("markdown")
	if fastLexerFor(md) != md {
		t.Fatal("the Markdown lexer was replaced")
	}
}

func BenchmarkLex(b *testing.B) {
	code := strings.Repeat(samples["python"]+"\n", 4)
	l := lexers.Get("python")
	for _, c := range []struct {
		name string
		l    chroma.Lexer
	}{{"chroma", l}, {"fast", fastLexerFor(l)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := chroma.Tokenise(c.l, nil, code); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
