package markdown

// The renderer of package render must draw exactly what glamour's ANSI
// renderer draws, as this package used it before it had its own: the tests
// here render documents both ways, through the same pipeline, and compare.
// Glamour is a dependency of these tests only.

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/agenttui/agenttui/tui/markdown/internal/render"
)

// verbatim names the chroma lexer and formatter that glamour is given code
// blocks with: they come to it highlighted already (see highlightCode), and
// go through as they are.
const verbatim = "agenttui-verbatim"

// registerVerbatim registers the verbatim lexer and formatter with chroma,
// once.
var registerVerbatim = sync.OnceFunc(func() {
	formatters.Register(verbatim, chroma.FormatterFunc(func(w io.Writer, _ *chroma.Style, it chroma.Iterator) error {
		for t := it(); t != chroma.EOF; t = it() {
			if _, err := io.WriteString(w, t.Value); err != nil {
				return err
			}
		}
		return nil
	}))
	lexers.Register(verbatimLexer{&chroma.Config{Name: verbatim}})
})

// verbatimLexer gives the text it is handed as a single token. It has no
// file names, mime types or analyser, so chroma never picks it for anything
// but its name.
type verbatimLexer struct{ config *chroma.Config }

// Config returns the lexer's configuration: its name.
func (v verbatimLexer) Config() *chroma.Config { return v.config }

// Tokenise returns text as one token of plain text.
func (v verbatimLexer) Tokenise(_ *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	return chroma.Literator(chroma.Token{Type: chroma.Text, Value: text}), nil
}

// SetRegistry returns v: it looks up no other lexer.
func (v verbatimLexer) SetRegistry(*chroma.LexerRegistry) chroma.Lexer { return v }

// SetAnalyser returns v: it is never chosen by analysis.
func (v verbatimLexer) SetAnalyser(func(string) float32) chroma.Lexer { return v }

// AnalyseText returns 0: no text looks like the verbatim lexer's.
func (v verbatimLexer) AnalyseText(string) float32 { return 0 }

// glamourStyle returns the style the package gave glamour for a terminal
// of profile p, on a dark background or not.
func glamourStyle(p termenv.Profile, dark bool) ansi.StyleConfig {
	var s ansi.StyleConfig
	switch {
	case p == termenv.Ascii:
		s = styles.ASCIIStyleConfig
		s.Code.Prefix, s.Code.Suffix = "`", "`"
		s.Code.BlockPrefix, s.Code.BlockSuffix = "", ""
	case dark:
		s = styles.DarkStyleConfig
	default:
		s = styles.LightStyleConfig
	}
	zero := uint(0)
	s.Document.Margin = &zero
	s.Document.BlockPrefix, s.Document.BlockSuffix = "", ""
	s.Document.Color = nil
	s.ImageText.Format = "image: {{.text}} →"
	return s
}

// glamourDraw returns a drawFunc that draws with glamour's ANSI renderer,
// built as the package built it, one per width.
func glamourDraw(p termenv.Profile, dark bool) drawFunc {
	registerVerbatim()
	style := glamourStyle(p, dark)
	var mu sync.Mutex
	byWidth := map[int]goldmark.Markdown{}
	return func(w io.Writer, source []byte, doc ast.Node, width int) error {
		mu.Lock()
		defer mu.Unlock()
		md := byWidth[width]
		if md == nil {
			md = goldmark.New(
				goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
				goldmark.WithParserOptions(parser.WithAutoHeadingID()),
			)
			md.SetRenderer(renderer.NewRenderer(renderer.WithNodeRenderers(util.Prioritized(ansi.NewRenderer(ansi.Options{
				WordWrap:         width,
				ColorProfile:     p,
				Styles:           style,
				InlineTableLinks: true,
				ChromaFormatter:  verbatim,
			}), 1000))))
			byWidth[width] = md
		}
		if p != termenv.Ascii {
			// highlightCode made each code block a fenced block
			// without a language: glamour is told to pass it
			// through the verbatim lexer and formatter.
			source = append(source[:len(source):len(source)], verbatim...)
			info := text.NewSegment(len(source)-len(verbatim), len(source))
			_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if f, ok := n.(*ast.FencedCodeBlock); ok && entering && f.Info == nil {
					f.Info = ast.NewTextSegment(info)
				}
				return ast.WalkContinue, nil
			})
		}
		return md.Renderer().Render(w, source, doc)
	}
}

// look is a terminal the differential tests render for.
type look struct {
	profile termenv.Profile
	dark    bool
}

// String names the look, as the names of subtests.
func (l look) String() string {
	bg := "light"
	if l.dark {
		bg = "dark"
	}
	return fmt.Sprintf("%s/%s", [...]string{"truecolor", "ansi256", "ansi", "ascii"}[l.profile], bg)
}

// looks are the terminals the differential tests render for.
var looks = []look{
	{termenv.Ascii, true},
	{termenv.ANSI, true},
	{termenv.ANSI256, false},
	{termenv.TrueColor, true},
	{termenv.TrueColor, false},
}

// pair is a Renderer and the same drawing with glamour, sharing the
// highlighter.
type pair struct {
	ours, glamour *Renderer
}

// newPair returns the pair of renderers for look l. Ours wraps as glamour
// does (see render.Renderer.WrapAsGlamour), so that everything else it
// draws can be compared; TestParagraphsWrapOnce checks how the console's
// renderer wraps instead.
func newPair(l look) pair {
	ours := New(l.profile, l.dark).setUpOnce()
	ours.draw = render.New(ours.style, l.profile).WrapAsGlamour().Render
	g := New(l.profile, l.dark).setUpOnce()
	g.draw = glamourDraw(l.profile, l.dark)
	g.code = ours.code
	return pair{ours, g}
}

// outcome is what rendering a document gives: the text before it is cut
// into lines, or an error, or a panic.
type outcome struct {
	out   string
	err   string
	panic string
}

// outcome renders src, prepared, at width, and says how it went.
func (r *Renderer) outcome(src string, width int) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = outcome{panic: fmt.Sprint(p)}
		}
	}()
	out, err := r.render(src, width)
	if err != nil {
		return outcome{err: err.Error()}
	}
	return outcome{out: out}
}

// compare fails t unless both renderers of p draw doc alike at width.
func (p pair) compare(t *testing.T, l look, doc string, width int) {
	t.Helper()
	src := prepare(doc)
	want := p.glamour.outcome(src, width)
	got := p.ours.outcome(src, width)
	if got == want {
		return
	}
	t.Fatalf("%v width %d: %q\nrenders as\n%q\nglamour: %q", l, width, doc, got, want)
}

func TestRendererMatchesGlamour(t *testing.T) {
	docs := append(corpus(), randomDocs(rand.New(rand.NewPCG(1, 2)), 300)...)
	step := 7
	if testing.Short() || raceEnabled {
		// The race detector looks for races, which a few documents
		// show as well as all.
		docs, step = docs[:len(docs)-280], 29
	}
	for _, l := range looks {
		t.Run(l.String(), func(t *testing.T) {
			t.Parallel()
			p := newPair(l)
			n := 0
			for _, doc := range docs {
				for width := 8; width <= 130; width += step {
					p.compare(t, l, doc, width)
					n++
				}
			}
			t.Logf("%d documents at %d widths: %d renderings compared", len(docs), n/len(docs), n)
		})
	}
}

func FuzzRendererMatchesGlamour(f *testing.F) {
	for i, doc := range corpus() {
		f.Add(doc, uint8(8+i%120))
	}
	for _, a := range attacks {
		f.Add(a, uint8(50))
	}
	pairs := make([]pair, len(looks))
	for i, l := range looks {
		pairs[i] = newPair(l)
	}
	f.Fuzz(func(t *testing.T, doc string, width uint8) {
		for i, p := range pairs {
			p.compare(t, looks[i], doc, int(width)+1)
		}
	})
}

// TestStylesAreGlamours checks that the styles of package render are
// glamour's, field by field, and that glamour's set nothing render has no
// field for.
func TestStylesAreGlamours(t *testing.T) {
	for _, c := range []struct {
		name  string
		ours  render.Config
		their ansi.StyleConfig
	}{
		{"ascii", render.ASCII, styles.ASCIIStyleConfig},
		{"dark", render.Dark, styles.DarkStyleConfig},
		{"light", render.Light, styles.LightStyleConfig},
	} {
		got := fromGlamour(t, c.their)
		if !reflect.DeepEqual(got, c.ours) {
			t.Errorf("%s: render has\n%+v\nglamour\n%+v", c.name, c.ours, got)
		}
	}
}

// fromGlamour returns a glamour style as a render.Config.
func fromGlamour(t *testing.T, s ansi.StyleConfig) render.Config {
	prim := func(p ansi.StylePrimitive) render.Primitive {
		if p.Upper != nil || p.Lower != nil || p.Title != nil || p.Faint != nil || p.Conceal != nil || p.Overlined != nil {
			t.Errorf("glamour's style sets an attribute render does not have: %+v", p)
		}
		str := func(s *string) string {
			if s == nil {
				return ""
			}
			if *s == "" {
				t.Errorf("glamour's style sets an empty colour: %+v", p)
			}
			return *s
		}
		flag := func(b *bool) render.Flag {
			switch {
			case b == nil:
				return render.Inherit
			case *b:
				return render.On
			}
			return render.Off
		}
		return render.Primitive{
			BlockPrefix: p.BlockPrefix, BlockSuffix: p.BlockSuffix, Prefix: p.Prefix, Suffix: p.Suffix,
			Color: str(p.Color), BackgroundColor: str(p.BackgroundColor),
			Underline: flag(p.Underline), Bold: flag(p.Bold), Italic: flag(p.Italic),
			CrossedOut: flag(p.CrossedOut), Inverse: flag(p.Inverse), Blink: flag(p.Blink),
			Format: p.Format,
		}
	}
	block := func(b ansi.StyleBlock) render.Block {
		u := func(p *uint) uint {
			if p == nil {
				return 0
			}
			if *p == 0 {
				t.Errorf("glamour's style sets a zero indentation or margin: %+v", b)
			}
			return *p
		}
		token := ""
		if b.IndentToken != nil {
			token = *b.IndentToken
			if token == "" {
				t.Errorf("glamour's style sets an empty indentation token: %+v", b)
			}
		}
		return render.Block{Primitive: prim(b.StylePrimitive), Indent: u(b.Indent), IndentToken: token, Margin: u(b.Margin)}
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	if s.CodeBlock.Theme != "" {
		t.Errorf("glamour's style names a chroma theme: %q", s.CodeBlock.Theme)
	}
	var c *render.Chroma
	if g := s.CodeBlock.Chroma; g != nil {
		c = &render.Chroma{
			Text: prim(g.Text), Error: prim(g.Error), Comment: prim(g.Comment), CommentPreproc: prim(g.CommentPreproc),
			Keyword: prim(g.Keyword), KeywordReserved: prim(g.KeywordReserved), KeywordNamespace: prim(g.KeywordNamespace),
			KeywordType: prim(g.KeywordType), Operator: prim(g.Operator), Punctuation: prim(g.Punctuation),
			Name: prim(g.Name), NameBuiltin: prim(g.NameBuiltin), NameTag: prim(g.NameTag), NameAttribute: prim(g.NameAttribute),
			NameClass: prim(g.NameClass), NameConstant: prim(g.NameConstant), NameDecorator: prim(g.NameDecorator),
			NameException: prim(g.NameException), NameFunction: prim(g.NameFunction), NameOther: prim(g.NameOther),
			Literal: prim(g.Literal), LiteralNumber: prim(g.LiteralNumber), LiteralDate: prim(g.LiteralDate),
			LiteralString: prim(g.LiteralString), LiteralStringEscape: prim(g.LiteralStringEscape),
			GenericDeleted: prim(g.GenericDeleted), GenericEmph: prim(g.GenericEmph), GenericInserted: prim(g.GenericInserted),
			GenericStrong: prim(g.GenericStrong), GenericSubheading: prim(g.GenericSubheading), Background: prim(g.Background),
		}
	}
	return render.Config{
		Document:              block(s.Document),
		BlockQuote:            block(s.BlockQuote),
		Paragraph:             block(s.Paragraph),
		List:                  render.List{Block: block(s.List.StyleBlock), LevelIndent: s.List.LevelIndent},
		Heading:               block(s.Heading),
		H:                     [6]render.Block{block(s.H1), block(s.H2), block(s.H3), block(s.H4), block(s.H5), block(s.H6)},
		Text:                  prim(s.Text),
		Strikethrough:         prim(s.Strikethrough),
		Emph:                  prim(s.Emph),
		Strong:                prim(s.Strong),
		HorizontalRule:        prim(s.HorizontalRule),
		Item:                  prim(s.Item),
		Enumeration:           prim(s.Enumeration),
		Task:                  render.Task{Primitive: prim(s.Task.StylePrimitive), Ticked: s.Task.Ticked, Unticked: s.Task.Unticked},
		Link:                  prim(s.Link),
		LinkText:              prim(s.LinkText),
		Image:                 prim(s.Image),
		ImageText:             prim(s.ImageText),
		Code:                  block(s.Code),
		CodeBlock:             render.CodeBlock{Block: block(s.CodeBlock.StyleBlock), Chroma: c},
		Table:                 render.Table{Block: block(s.Table.StyleBlock), CenterSeparator: str(s.Table.CenterSeparator), ColumnSeparator: str(s.Table.ColumnSeparator), RowSeparator: str(s.Table.RowSeparator)},
		DefinitionList:        block(s.DefinitionList),
		DefinitionTerm:        prim(s.DefinitionTerm),
		DefinitionDescription: prim(s.DefinitionDescription),
		HTMLBlock:             block(s.HTMLBlock),
		HTMLSpan:              block(s.HTMLSpan),
	}
}

// TestDifferentialTestsCanFail checks that the comparison sees a
// difference: a renderer whose style differs from glamour's in one
// attribute draws differently.
func TestDifferentialTestsCanFail(t *testing.T) {
	p := newPair(look{termenv.TrueColor, true})
	changed := New(termenv.TrueColor, true).setUpOnce()
	style := render.Dark
	style.Document.Margin, style.Document.BlockPrefix, style.Document.BlockSuffix, style.Document.Color = 0, "", "", ""
	style.ImageText.Format = "image: {{.text}} →"
	style.LinkText.Bold = render.Off
	changed.draw = render.New(style, termenv.TrueColor).Render
	src := prepare(answer)
	if a, b := changed.outcome(src, 60), p.glamour.outcome(src, 60); a == b {
		t.Fatal("a renderer with another link style draws as glamour does")
	}
	if a, b := p.ours.outcome(src, 60), p.glamour.outcome(src, 60); a != b || a.out == "" {
		t.Fatalf("the renderer draws %q, glamour %q", a, b)
	}
	var b bytes.Buffer
	_ = p.ours.draw(&b, []byte("x"), p.ours.parser.Parse(text.NewReader([]byte("x"))), 10)
	if !strings.Contains(b.String(), "x") {
		t.Fatalf("the renderer draws %q", b.String())
	}
}
