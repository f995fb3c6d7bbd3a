package diffview

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/tui/internal/lexers"
)

// Style says how a View is drawn.
type Style struct {
	// Profile is the terminal's colour profile; termenv.Ascii (NO_COLOR)
	// draws no colour at all, and the signs alone mark removed and added
	// lines.
	Profile termenv.Profile
	// Dark says the terminal's background is dark.
	Dark bool
}

// lineStyle colours one kind of line: its sign, and its text's background.
type lineStyle struct {
	sign termenv.Style
	bg   termenv.Color
}

// palette is a Style made ready to draw.
type palette struct {
	profile        termenv.Profile
	num, dim, hunk painter
	equal          lineStyle
	del, ins       lineStyle
	tokens         map[chroma.TokenType]termenv.Color
}

// painter draws text in one style, or as it is without colour.
type painter struct {
	style termenv.Style
	plain bool
}

// Render returns s drawn in the painter's style.
func (p painter) Render(s string) string {
	if p.plain {
		return s
	}
	return p.style.Styled(s)
}

// colours holds the palette of one background: the console's own dim and
// accent colours, the backgrounds of removed and added lines, and the
// colours of token categories (after the One Dark and One Light themes).
type colours struct {
	dim, accent, del, ins, delBg, insBg                    string
	keyword, function, typ, str, number, comment, operator string
}

var (
	darkColours = colours{
		dim: "#8a8a8a", accent: "#5fafff", del: "#ff6f6f", ins: "#5fd75f", delBg: "#3f1d22", insBg: "#1b3a26",
		keyword: "#c678dd", function: "#61afef", typ: "#56b6c2", str: "#98c379", number: "#d19a66", comment: "#7f848e", operator: "#abb2bf",
	}
	lightColours = colours{
		dim: "#6c6c6c", accent: "#005fd7", del: "#c00000", ins: "#007a00", delBg: "#ffebe9", insBg: "#e6ffec",
		keyword: "#a626a4", function: "#4078f2", typ: "#0184bc", str: "#50a14f", number: "#986801", comment: "#a0a1a7", operator: "#383a42",
	}
)

func newPalette(st Style) *palette {
	p := &palette{profile: st.Profile}
	if st.Profile == termenv.Ascii {
		plain := painter{plain: true}
		p.num, p.dim, p.hunk = plain, plain, plain
		return p
	}
	c := lightColours
	if st.Dark {
		c = darkColours
	}
	col := func(hex string) termenv.Color { return st.Profile.Color(hex) }
	p.num = painter{style: termenv.Style{}.Foreground(col(c.dim))}
	p.dim = p.num
	p.hunk = painter{style: termenv.Style{}.Foreground(col(c.accent))}
	p.equal = lineStyle{sign: termenv.Style{}.Foreground(col(c.dim))}
	p.del = lineStyle{sign: termenv.Style{}.Foreground(col(c.del)).Background(col(c.delBg)).Bold(), bg: col(c.delBg)}
	p.ins = lineStyle{sign: termenv.Style{}.Foreground(col(c.ins)).Background(col(c.insBg)).Bold(), bg: col(c.insBg)}
	p.tokens = map[chroma.TokenType]termenv.Color{
		chroma.Keyword:         col(c.keyword),
		chroma.KeywordType:     col(c.typ),
		chroma.NameFunction:    col(c.function),
		chroma.NameBuiltin:     col(c.typ),
		chroma.NameClass:       col(c.typ),
		chroma.LiteralString:   col(c.str),
		chroma.LiteralNumber:   col(c.number),
		chroma.Comment:         col(c.comment),
		chroma.Operator:        col(c.operator),
		chroma.NameTag:         col(c.keyword),
		chroma.NameAttribute:   col(c.function),
		chroma.GenericHeading:  col(c.function),
		chroma.GenericInserted: col(c.ins),
		chroma.GenericDeleted:  col(c.del),
	}
	return p
}

// tokenColour returns the colour of a token type: its own, or that of its
// sub-category or category; nil for text drawn in the default colour.
func (p *palette) tokenColour(t chroma.TokenType) termenv.Color {
	for _, k := range []chroma.TokenType{t, t.SubCategory(), t.Category()} {
		if c, ok := p.tokens[k]; ok {
			return c
		}
	}
	return nil
}

// highlight draws seg, a clean piece of one line, highlighted by the file
// type of path, on the background of st, padded to w columns so that the
// background spans the row.
func (p *palette) highlight(path, seg string, st lineStyle, w int) string {
	if p.profile == termenv.Ascii {
		return seg
	}
	pad := ""
	if n := w - ansi.StringWidth(seg); n > 0 && st.bg != nil {
		pad = strings.Repeat(" ", n)
	}
	base := termenv.Style{}
	if st.bg != nil {
		base = base.Background(st.bg)
	}
	lexer := lexerFor(path)
	if lexer == nil {
		return base.Styled(seg + pad)
	}
	it, err := lexer.Tokenise(nil, seg)
	if err != nil {
		return base.Styled(seg + pad)
	}
	var b strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		text := strings.TrimRight(tok.Value, "\n")
		if text == "" {
			continue
		}
		s := base
		if c := p.tokenColour(tok.Type); c != nil {
			s = s.Foreground(c)
		}
		b.WriteString(s.Styled(text))
	}
	if pad != "" {
		b.WriteString(base.Styled(pad))
	}
	return b.String()
}

// lexerCache keeps the lexer found for each file name: finding one goes
// through every lexer's patterns.
var lexerCache sync.Map // base name → chroma.Lexer, or nil for none

// lexerFor returns the lexer for the file at path, or nil when none fits.
func lexerFor(path string) chroma.Lexer {
	name := filepath.Base(path)
	if l, ok := lexerCache.Load(name); ok {
		lx, _ := l.(chroma.Lexer)
		return lx
	}
	var lx chroma.Lexer
	if l := lexers.Match(name); l != nil {
		lx = chroma.Coalesce(l)
	}
	lexerCache.Store(name, lx)
	return lx
}
