package lexers

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// generic is text that every lexer tokenises, whatever its language: a bit
// of several languages, with strings, comments, numbers and tags.
const generic = `#!/bin/sh
# comment
package main // line comment
import "fmt"
/* block
   comment */
func main() { x := 1.5e3; if x != nil { return true }; fmt.Println("hi\n", 'c', x, 0x1F) }
<html><body class="a">&amp; <?php echo $x; ?> <%= y %> {{ .Z }}</body></html>
def f(a, b=2): return a ** b  # python
SELECT * FROM t WHERE id = 1;
- key: value
  list: [1, 2]
---
@media (max-width: 10px) { .c { color: #fff } }
`

// sample is a text to tokenise and analyse: its name and the lexer chroma's
// tests tokenise it with (nil for none).
type sample struct {
	name  string
	text  string
	lexer chroma.Lexer
}

// samples returns chroma's test inputs (lexers/testdata/*.actual, one
// directory level of them, and analysis/*.actual), each with the lexer
// chroma's tests give it, found by its base name as they do, and generic.
func samples(t *testing.T) []sample {
	t.Helper()
	root := filepath.Join(chromaDir(t), "lexers", "testdata")
	paths, err := filepath.Glob(filepath.Join(root, "*.actual"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join(root, "*", "*.actual"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Fatalf("no samples in %s", root)
	}
	out := []sample{{name: "generic", text: generic}}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		key := strings.TrimSuffix(filepath.Base(path), ".actual")
		if dir := filepath.Dir(rel); dir != "." && dir != "analysis" {
			key = dir
		} else if i := strings.IndexByte(key, '.'); i > 0 {
			key = key[:i]
		}
		out = append(out, sample{name: rel, text: string(data), lexer: lexers.Get(key)})
	}
	return out
}

// tokens returns what lexer makes of text, or the panic it raises. It stops
// after more tokens than text could make without empty ones: a few of
// chroma's lexers give empty tokens for ever on some text (Jungle on
// generic, for one).
func tokens(lexer chroma.Lexer, text string) (tokens []chroma.Token, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	it, err := lexer.Tokenise(nil, text)
	if err != nil {
		return nil, err
	}
	limit := 2*len(text) + 100
	for t := it(); t != chroma.EOF; t = it() {
		if len(tokens) == limit {
			return tokens, fmt.Errorf("more than %d tokens", limit)
		}
		tokens = append(tokens, t)
	}
	return tokens, nil
}

// raceSampleSize is the most of each of chroma's samples TestTokens
// tokenises with the race detector on: whole, they take minutes. The race
// detector is there for the lexers' concurrent first use, which TestTokens
// still gives it; without it, TestTokens tokenises every sample whole.
const raceSampleSize = 4096

// TestTokens checks that every lexer gives chroma's tokens for the generic
// text, and for each of chroma's samples the lexer chroma tests it with.
// The lexers run in parallel, which the race detector checks too.
func TestTokens(t *testing.T) {
	t.Parallel()
	all := samples(t)
	if raceEnabled {
		for i, s := range all {
			if len(s.text) > raceSampleSize {
				cut := strings.LastIndexByte(s.text[:raceSampleSize], '\n') + 1
				all[i].text = s.text[:cut]
			}
		}
	}
	theirs := lexers.GlobalLexerRegistry.Lexers
	ours := Registry().Lexers
	if len(ours) != len(theirs) {
		t.Fatalf("%d lexers, chroma has %d", len(ours), len(theirs))
	}
	for i, their := range theirs {
		t.Run(their.Config().Name, func(t *testing.T) {
			t.Parallel()
			for _, s := range all {
				if s.lexer != nil && s.lexer != their {
					continue
				}
				want, wantErr := tokens(their, s.text)
				got, err := tokens(ours[i], s.text)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("%s on %s: error %v; chroma's %v", their.Config().Name, s.name, err, wantErr)
					continue
				}
				if !slices.Equal(got, want) {
					n := 0
					for n < min(len(got), len(want)) && got[n] == want[n] {
						n++
					}
					t.Errorf("%s on %s: %d tokens, chroma's %d; first difference at %d: %v, chroma's %v",
						their.Config().Name, s.name, len(got), len(want), n, at(got, n), at(want, n))
				}
			}
		})
	}
}

// at returns tokens[i] as Go syntax, or "none".
func at(tokens []chroma.Token, i int) string {
	if i >= len(tokens) {
		return "none"
	}
	return tokens[i].GoString()
}

// TestAnalyse checks that every lexer's AnalyseText scores every sample as
// chroma's does, and that Analyse picks chroma's lexer for it.
func TestAnalyse(t *testing.T) {
	t.Parallel()
	all := samples(t)
	theirs := lexers.GlobalLexerRegistry.Lexers
	ours := Registry().Lexers
	if len(ours) != len(theirs) {
		t.Fatalf("%d lexers, chroma has %d", len(ours), len(theirs))
	}
	scored := 0
	for i, their := range theirs {
		a, ok := their.(chroma.Analyser)
		if !ok {
			continue
		}
		b, ok := ours[i].(chroma.Analyser)
		if !ok {
			t.Errorf("%s has no analyser", their.Config().Name)
			continue
		}
		for _, s := range all {
			want, got := a.AnalyseText(s.text), b.AnalyseText(s.text)
			if got != want {
				t.Errorf("%s on %s: AnalyseText = %v; chroma's %v", their.Config().Name, s.name, got, want)
			}
			if want != 0 {
				scored++
			}
		}
	}
	// The samples must exercise the analysers, or the test proves little.
	if scored < 20 {
		t.Errorf("only %d scores above zero; want the samples to exercise the analysers", scored)
	}
	for _, s := range all {
		if d := same(Analyse(s.text), lexers.Analyse(s.text)); d != "" {
			t.Errorf("Analyse(%s): %s", s.name, d)
		}
	}
}
