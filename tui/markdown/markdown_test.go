package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/internal/freshproc"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/tui/internal/lexers"
)

// answer is a model's answer with every kind of Markdown the console draws.
const answer = "# Plan\n\n" +
	"I will **fix** the `pager` and _test_ it. See [the docs](https://example.com/docs) or <https://go.dev>.\n\n" +
	"## Steps\n\n1. Read the file\n2. Edit it\n   - nested item\n\n" +
	"```go\nfunc Pages(total, size int) int {\n\treturn (total + size - 1) / size\n}\n```\n\n" +
	"| file | change |\n|------|--------|\n| pager.go | +1 -1 |\n| README.md | none |\n\n" +
	"> a quote\n\nDone."

// plainLines returns lines without their styling.
func plainLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.Strip(l)
	}
	return out
}

func TestRendersMarkdownWithoutColour(t *testing.T) {
	r := New(termenv.Ascii, true)
	lines := r.Render(answer, 100)
	text := strings.Join(lines, "\n")
	if strings.Contains(text, "\x1b") {
		t.Fatalf("NO_COLOR output carries escape sequences:\n%q", text)
	}
	for _, want := range []string{
		"# Plan", "## Steps", // headings keep their marks
		"**fix**", "`pager`", "*test*", // emphasis and inline code too
		"the docs https://example.com/docs", "https://go.dev", // links: text, then URL
		"1. Read the file", "• nested item", // lists
		"  func Pages(total, size int) int {", "      return (total + size - 1) / size", // code, tabs expanded
		"pager.go", "| +1 -1", "README.md", "| none", // the table
		"| a quote",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendering lacks %q:\n%s", want, text)
		}
	}
	if lines[0] != "# Plan" || lines[len(lines)-1] != "Done." {
		t.Errorf("blank lines around the document: first %q, last %q", lines[0], lines[len(lines)-1])
	}
}

func TestGolden(t *testing.T) {
	for _, width := range []int{40, 80} {
		t.Run(fmt.Sprintf("ascii_%d", width), func(t *testing.T) {
			golden.RequireEqual(t, []byte(strings.Join(New(termenv.Ascii, true).Render(answer, width), "\n")+"\n"))
		})
	}
}

func TestColoursFollowTheBackground(t *testing.T) {
	dark := strings.Join(New(termenv.ANSI256, true).Render(answer, 60), "\n")
	light := strings.Join(New(termenv.ANSI256, false).Render(answer, 60), "\n")
	if !strings.Contains(dark, "\x1b[") || !strings.Contains(light, "\x1b[") {
		t.Fatal("no styling with colours on")
	}
	if dark == light {
		t.Fatal("light and dark backgrounds get the same colours")
	}
	// The code too: each background has its style's code colours, whichever
	// renderer was made first.
	codeLine := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "return") {
				return l
			}
		}
		return ""
	}
	if codeLine(dark) == codeLine(light) {
		t.Fatalf("light and dark backgrounds get the same code colours: %q", codeLine(dark))
	}
	if ansi.Strip(dark) == "" || !strings.Contains(ansi.Strip(dark), "return (total + size - 1) / size") {
		t.Fatalf("the code block's text is lost when highlighted:\n%s", ansi.Strip(dark))
	}
	// Highlighting colours the code: its keyword is styled on its own.
	if !regexp.MustCompile(`\x1b\[[0-9;]*m *return\x1b\[0m`).MatchString(dark) {
		t.Fatalf("the code block is not highlighted:\n%q", dark)
	}
}

func TestEveryLineFits(t *testing.T) {
	long := answer + "\n\n```\n" + strings.Repeat("x", 300) + "\n```\n\n" + strings.Repeat("word ", 100) +
		"\n\n| a | b | c | d | e | f |\n|---|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 | 6 |\n"
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI256, termenv.TrueColor} {
		r := New(p, true)
		for _, w := range []int{1, 8, 20, 47, 80, 200} {
			for i, l := range r.Render(long, w) {
				if lw := ansi.StringWidth(l); lw > w {
					t.Fatalf("profile %v width %d: line %d is %d columns: %q", p, w, i, lw, l)
				}
				if strings.Contains(l, "\x1b") && !strings.HasSuffix(l, "\x1b[0m") {
					t.Fatalf("line %d does not reset its styling: %q", i, l)
				}
			}
		}
	}
}

func TestFitIsFitAnyForASCII(t *testing.T) {
	var lines []string
	for _, p := range []termenv.Profile{termenv.ANSI, termenv.TrueColor} {
		for _, w := range []int{9, 30, 118} {
			out, err := New(p, true).setUpOnce().render(prepare(answer+"\n\n"+longAnswer(0)), w)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.Split(sanitize.Styled(out), "\n")...)
		}
	}
	lines = append(lines, "\x1b[1m  \x1b[0m", "\x1b[1ma\x1b[0m \x1b[2m \x1b[0m", " \x1b[1m", "x")
	for _, l := range lines {
		for _, w := range []int{1, 5, 40, 200} {
			if got, want := fit(l, w), fitAny(l, w, strings.Contains(l, "\x1b")); got != want {
				t.Fatalf("fit(%q, %d) = %q, want %q", l, w, got, want)
			}
		}
	}
}

// attacks are answers that try to reach the terminal through the renderer.
var attacks = []string{
	"# Title\x1b[2J\n\nSee [docs](http://x\x1b]8;;http://evil\x1b\\y) **bold\x1b[31m**",
	"\x1b]8;;http://evil.example\x07click me\x1b]8;;\x07 and `code\x1b[H`",
	"```go\nfmt.Println(\"\x1b]52;c;cm0gLXJmIH4=\x07\")\n```",
	"| a | b |\n|---|---|\n| \u202Efdp.exe | \u2066x\u2069 |",
	"text &#27;[2J &#x1b;]52;c;eA==&#7; &#x9b;31m &rlm;&lrm; &#x202e; &#8238;",
	"[link](<&#x1b;[2J>) ![img](http://e\u202e/x.png) <http://a\x1b[1mb>",
	"[x](http://a&#x1b;[8mb) `&#x1b;[31m` ```&#27;```",
	"> quote\r✓ approved #1\n- item\x08\x08\x7f\n1. \u009b2J\n\n<div>\x1b[2J<b>html</b></div>",
	"~~~\n\x1b[31mred\n~~~\n\n    indented\x1b[2J code\n\n[ref]: http://evil\x1b[2J \"title\x1b[H\"\n\n[ref]",
}

// checkInert fails unless out holds no escape sequence but SGR and no
// control or bidirectional character.
func checkInert(t *testing.T, in string, lines []string) {
	t.Helper()
	sgr := regexp.MustCompile(`^\x1b\[[0-9;:]*m`)
	for _, l := range lines {
		for i := 0; i < len(l); {
			if l[i] == 0x1b {
				m := sgr.FindString(l[i:])
				if m == "" {
					t.Fatalf("rendering %q let through %q in line %q", in, l[i:min(len(l), i+12)], l)
				}
				i += len(m)
				continue
			}
			r, size := utf8.DecodeRuneInString(l[i:])
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) ||
				(r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c {
				t.Fatalf("rendering %q kept the control %U in line %q", in, r, l)
			}
			i += size
		}
	}
}

func TestInjectionIsInert(t *testing.T) {
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI256, termenv.TrueColor} {
		r := New(p, true)
		for _, a := range attacks {
			lines := r.Render(a, 60)
			checkInert(t, a, lines)
			text := ansi.Strip(strings.Join(lines, "\n"))
			if strings.Contains(a, "evil") && strings.Contains(text, "]8;") && !strings.Contains(text, "␛]8;") {
				t.Fatalf("an OSC 8 link survived as text that could be mistaken for one: %q", text)
			}
		}
	}
	// The decoded references show as placeholders, so the person sees
	// that something was there.
	text := strings.Join(New(termenv.Ascii, true).Render(attacks[4], 80), "\n")
	for _, want := range []string{"␛[2J", "␛]52;c;eA==␇", "␛31m", "⟨U+200F⟩⟨U+200E⟩", "⟨U+202E⟩ ⟨U+202E⟩"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendering of character references lacks %q: %q", want, text)
		}
	}
}

func FuzzRenderIsInert(f *testing.F) {
	for _, a := range attacks {
		f.Add(a)
	}
	f.Add(answer)
	r := New(termenv.TrueColor, true)
	f.Fuzz(func(t *testing.T, s string) {
		lines := r.Render(s, 50)
		checkInert(t, s, lines)
		for _, l := range lines {
			if ansi.StringWidth(l) > 50 {
				t.Fatalf("a line of %q is wider than 50: %q", s, l)
			}
		}
	})
}

func TestDocRendersOncePerWidth(t *testing.T) {
	d := New(termenv.ANSI256, true).Doc(answer)
	a := d.Lines(60)
	if b := d.Lines(60); &a[0] != &b[0] {
		t.Fatal("the second drawing at the same width rendered again")
	}
	d.Lines(40)
	d.Lines(100)
	if b := d.Lines(60); &a[0] != &b[0] {
		t.Fatal("going back to an earlier width rendered again")
	}
	if allocs := testing.AllocsPerRun(100, func() { d.Lines(60) }); allocs != 0 {
		t.Fatalf("a cached drawing allocates %v times", allocs)
	}
	if d.Text() != answer {
		t.Fatal("Text does not return the Markdown")
	}
}

// longAnswer returns a 200-line answer with five fenced code blocks; answers
// of different n differ in every code line.
func longAnswer(n int) string {
	var b strings.Builder
	langs := []string{"go", "python", "js", "bash", "json"}
	lines := 0
	for i := 0; lines < 200; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nThis part explains **step %d** of the change, with `code` and a [link](https://example.com/%d).\n\n", i+1, i+1, i)
		b.WriteString("- first point of the part\n- second point, which is a little longer and wraps at narrow widths\n\n")
		lines += 7
		if i < len(langs) {
			fmt.Fprintf(&b, "```%s\n", langs[i])
			for j := 0; j < 15; j++ {
				fmt.Fprintf(&b, "value_%d = compute(%d, \"text %d\") // comment %d\n", j, j, n, j)
			}
			b.WriteString("```\n\n")
			lines += 18
		}
	}
	return b.String()
}

// BenchmarkRender measures rendering a 200-line answer with five code
// blocks at 118 columns:
//   - first: a new answer, the renderer warm (as it is once the console
//     has drawn one answer); every drawing is of another answer, so
//     nothing is cached;
//   - cold: a new answer with a new renderer (its style and parser
//     built), as the very first answer of the console is drawn once the
//     process has highlighted any code;
//   - resized: an answer drawn before at another width (its code blocks
//     are highlighted already);
//   - cached: an answer drawn again at the same width.
func BenchmarkRender(b *testing.B) {
	if n := strings.Count(longAnswer(0), "\n"); n < 200 {
		b.Fatalf("the answer has %d lines", n)
	}
	answers := func(n int) []string {
		texts := make([]string, n)
		for i := range texts {
			texts[i] = longAnswer(i + 1)
		}
		return texts
	}
	b.Run("first", func(b *testing.B) {
		r := New(termenv.ANSI256, true)
		r.Doc(longAnswer(0)).Lines(118)
		texts := answers(b.N)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := cpuTime()
		for i := 0; i < b.N; i++ {
			r.Doc(texts[i]).Lines(118)
		}
		reportCPU(b, cpu)
	})
	b.Run("cold", func(b *testing.B) {
		texts := answers(b.N)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := cpuTime()
		for i := 0; i < b.N; i++ {
			New(termenv.ANSI256, true).Doc(texts[i]).Lines(118)
		}
		reportCPU(b, cpu)
	})
	b.Run("resized", func(b *testing.B) {
		r := New(termenv.ANSI256, true)
		texts := answers(b.N)
		docs := make([]*Doc, b.N)
		for i := range docs {
			docs[i] = r.Doc(texts[i])
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			docs[i].Lines(100)
			b.StartTimer()
			docs[i].Lines(118)
		}
	})
	b.Run("cached", func(b *testing.B) {
		d := New(termenv.ANSI256, true).Doc(longAnswer(0))
		d.Lines(118)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			d.Lines(118)
		}
	})
}

// cpuTime returns the CPU time the process has used, user and system: on a
// shared machine it is steadier than the time on the clock, and it counts
// the work done on other cores (lexing, garbage collection).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time used since start, per operation.
func reportCPU(b *testing.B, start time.Duration) {
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func TestUnnamedFencesArePlainText(t *testing.T) {
	// An unnamed block, an unknown language and an indented block are all
	// drawn as plain text, each line in the code's text colour: never
	// guessed.
	r := New(termenv.ANSI256, true)
	textSeq := r.setUpOnce().code.theme[chroma.Text]
	if textSeq == "" {
		t.Fatal("the code's text has no colour")
	}
	for _, in := range []string{"```\n$ make\nok\n```", "```nosuchlanguage\n$ make\nok\n```", "para\n\n    $ make\n    ok"} {
		lines := r.Render(in, 40)
		got := strings.Join(lines, "\n")
		if !strings.Contains(ansi.Strip(got), "  $ make\n  ok") {
			t.Fatalf("%q renders as %q", in, ansi.Strip(got))
		}
		for _, l := range lines[len(lines)-2:] {
			if !strings.Contains(l, textSeq+strings.TrimSpace(ansi.Strip(l))+"\x1b[0m") {
				t.Fatalf("%q: line %q is not plain text", in, l)
			}
		}
	}
}

func TestALexerThatPanicsLeavesTheCodePlain(t *testing.T) {
	// Chroma's Raku lexer panics on this code (cut inside a pod block);
	// the answer is drawn all the same, with that block plain.
	code := samples["raku"][:len(samples["raku"])*2/3]
	if _, _, panicked := tokens(lexers.Get("raku"), code); panicked == nil {
		t.Fatal("chroma's Raku lexer no longer panics: find another way to make a lexer panic")
	}
	lines := New(termenv.ANSI256, true).Render("Before.\n\n```raku\n"+code+"\n```\n\nAfter.", 80)
	text := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.Contains(text, "  my $x = q:to/END/;") || !strings.HasSuffix(text, "After.") {
		t.Fatalf("the answer renders as:\n%s", text)
	}
}

func TestCodeIsHighlightedOnceWhateverTheWidth(t *testing.T) {
	r := New(termenv.ANSI256, true)
	d := r.Doc(answer)
	narrow := d.Lines(40)
	blocks := len(r.code.cache)
	if blocks != 1 {
		t.Fatalf("%d code blocks highlighted, want 1", blocks)
	}
	wide := d.Lines(100)
	if len(r.code.cache) != blocks {
		t.Fatal("drawing the answer at another width highlighted its code again")
	}
	code := func(lines []string) string {
		for _, l := range lines {
			if strings.Contains(l, "return") {
				return l
			}
		}
		return ""
	}
	if c := code(narrow); c == "" || c != code(wide) {
		t.Fatalf("the code line differs between widths: %q and %q", c, code(wide))
	}
}

// TestSplicedCodeIsAsTheRendererWritesIt checks that code lines marked for
// the renderer and spliced in afterwards come out exactly as the renderer
// writes the highlighted code it is given, at widths where it wraps code
// lines and where it does not, in lists and quotes.
func TestSplicedCodeIsAsTheRendererWritesIt(t *testing.T) {
	docs := []string{
		answer,
		longAnswer(1),
		"- item\n\n  ```go\n  func x() { return }\n  ```\n\n  > ```python\n  > def f(a, b): return a + b  # sum\n  > ```\n\n1. one\n   1. two\n      ```bash\n      echo \"$HOME\" | tr a-z A-Z\n      ```\n",
		"```js\n" + strings.Repeat("let a = [1, 2, 3].map((x) => x * 2); ", 4) + "\n\n   \n```\n\n    indented code, with a comma\n",
	}
	for _, p := range []termenv.Profile{termenv.ANSI, termenv.TrueColor} {
		r := New(p, true).setUpOnce()
		for _, doc := range docs {
			src := prepare(doc)
			for width := 8; width <= 130; width += 6 {
				want, _, err := r.convert(src, width, false)
				if err != nil {
					t.Fatal(err)
				}
				got, done, err := r.convert(src, width, true)
				if err != nil {
					t.Fatal(err)
				}
				if !done {
					// The renderer wrapped a marked line: Render
					// converts again without marks, which gives want.
					continue
				}
				if got != want {
					t.Fatalf("profile %v width %d: spliced\n%q\nrendered\n%q", p, width, got, want)
				}
			}
		}
	}
}

func TestSpliceRefusesAWrappedLine(t *testing.T) {
	hl := [][]string{{"\x1b[1mfunc\x1b[0m \x1b[2mf()\x1b[0m"}}
	if _, ok := splice("  f\x1b[0;0zunc\n  f()\x1b[0m\n", hl); ok {
		t.Fatal("a marked line the renderer wrapped was spliced")
	}
	out, ok := splice("> f\x1b[0;0zunc f()\x1b[0m   \n", hl)
	if want := "\x1b[1m\x1b[0m> " + hl[0][0] + "   \n"; !ok || out != want {
		t.Fatalf("spliced %q, want %q", out, want)
	}
}

func TestTheHighlightCacheIsBounded(t *testing.T) {
	r := New(termenv.ANSI256, true).setUpOnce()
	for i := range cachedBlocks + 10 {
		r.code.highlight("go", fmt.Sprintf("x := %d\n", i))
	}
	if n := len(r.code.cache); n != cachedBlocks {
		t.Fatalf("%d blocks cached, want %d", n, cachedBlocks)
	}
	// Two blocks of which each takes more than half the bytes: the second
	// pushes the first out.
	big := strings.Repeat("var x = 1\n", cachedBytes/200)
	r.code.highlight("go", big)
	if r.code.size < cachedBytes/2 {
		t.Fatalf("a block takes %d bytes in the cache: make it bigger", r.code.size)
	}
	r.code.highlight("go", big+"\n")
	if r.code.size > cachedBytes || len(r.code.cache) > cachedBlocks {
		t.Fatalf("%d bytes in %d blocks cached", r.code.size, len(r.code.cache))
	}
	if _, ok := r.code.cache[codeBlock{"go", big + "\n"}]; !ok {
		t.Fatal("the last block was not cached")
	}
	if _, ok := r.code.cache[codeBlock{"go", big}]; ok {
		t.Fatal("the block before it was not pushed out")
	}
}

func TestHighlightFollowsTheProfile(t *testing.T) {
	code := "```go\nfunc main() {\n\tx := \"s\" // note\n}\n```"
	sgr := regexp.MustCompile(`\x1b\[([0-9;]*)m`)
	for _, c := range []struct {
		p    termenv.Profile
		want *regexp.Regexp
	}{
		{termenv.ANSI, regexp.MustCompile(`^(0|1|3|4|3[0-7]|9[0-7]|4[0-7]|10[0-7])$`)},
		{termenv.ANSI256, regexp.MustCompile(`^(0|1|3|4|[34]8;5;[0-9]+)$`)},
		{termenv.TrueColor, regexp.MustCompile(`^(0|1|3|4|[34]8;2;[0-9]+;[0-9]+;[0-9]+)$`)},
	} {
		out := strings.Join(New(c.p, true).Render(code, 60), "\n")
		if ansi.Strip(out) != "  func main() {\n      x := \"s\" // note\n  }" {
			t.Fatalf("profile %v: the code reads %q", c.p, ansi.Strip(out))
		}
		n := 0
		for _, m := range sgr.FindAllStringSubmatch(out, -1) {
			for _, part := range splitSGR(m[1]) {
				if part != "" && !c.want.MatchString(part) {
					t.Fatalf("profile %v wrote %q", c.p, m[0])
				}
			}
			n++
		}
		if n < 4 {
			t.Fatalf("profile %v: the code is hardly styled: %q", c.p, out)
		}
	}
}

// splitSGR splits SGR parameters into attributes, keeping each extended
// colour (38;5;n, 48;2;r;g;b) whole.
func splitSGR(params string) []string {
	var out []string
	f := strings.Split(params, ";")
	for i := 0; i < len(f); i++ {
		if (f[i] == "38" || f[i] == "48") && i+1 < len(f) {
			n := 3
			if f[i+1] == "2" {
				n = 5
			}
			if i+n <= len(f) {
				out = append(out, strings.Join(f[i:i+n], ";"))
				i += n - 1
				continue
			}
		}
		out = append(out, f[i])
	}
	return out
}

// BenchmarkRenderFirstInProcess draws the 200-line answer with code once in
// a fresh process for each measurement, with a new renderer: the first
// answer a console shows, paying for what is set up on first use (the
// styles, the lexer registry, the lexers of the answer's five languages).
func BenchmarkRenderFirstInProcess(b *testing.B) {
	freshproc.Measure(b, "TestRenderFirstInProcess")
}

func TestRenderFirstInProcess(t *testing.T) {
	text := longAnswer(0)
	freshproc.Child(t, "TestRenderFirstInProcess", func() {
		New(termenv.ANSI256, true).Doc(text).Lines(118)
	})
}

// BenchmarkRenderFirstAfterWarm is BenchmarkRenderFirstInProcess in a
// process that called Warm first, as the console does once its first frame
// is drawn: what the first answer waits for in the console.
func BenchmarkRenderFirstAfterWarm(b *testing.B) {
	freshproc.Measure(b, "TestRenderFirstAfterWarm")
}

func TestRenderFirstAfterWarm(t *testing.T) {
	text := longAnswer(0)
	freshproc.ChildAfter(t, "TestRenderFirstAfterWarm", Warm, func() {
		New(termenv.ANSI256, true).Doc(text).Lines(118)
	})
}

// TestWarmIsSafeBesideARender checks that Warm, which the console runs on a
// goroutine of its own, may run while an answer is rendered, and leaves the
// rendering as it would have been.
func TestWarmIsSafeBesideARender(t *testing.T) {
	want := New(termenv.ANSI256, true).Render(answer, 80)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Warm()
	}()
	got := New(termenv.ANSI256, true).Render(answer, 80)
	<-done
	Warm()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rendered beside Warm:\n%q\nwant\n%q", got, want)
	}
}
