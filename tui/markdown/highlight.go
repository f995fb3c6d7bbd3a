package markdown

import (
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/tui/internal/lexers"
	"github.com/agenttui/agenttui/tui/markdown/internal/render"
)

// highlighter highlights the code blocks of a Renderer with colours. It
// highlights each block before the document is drawn, once whatever the
// width; see highlightCode for how the result reaches the page.
//
// It writes each token in its style's colours as the terminal's colour
// profile can show them, each line of a token styled on its own and reset
// at its end, so that the lines can be indented and cut; the escape
// sequence of each token type is worked out once.
type highlighter struct {
	profile termenv.Profile
	theme   map[chroma.TokenType]string

	mu    sync.Mutex // guards cache, order and size
	cache map[codeBlock]string
	order []codeBlock // the cached blocks, oldest first
	size  int         // the bytes of code and highlighting cached
}

// codeBlock is a code block's language and text.
type codeBlock struct{ lang, code string }

// cachedBlocks and cachedBytes bound how many highlighted code blocks a
// Renderer keeps, and how much of them: a few answers' worth, so that
// drawing them at another width lexes nothing.
const (
	cachedBlocks = 64
	cachedBytes  = 4 << 20
)

// newHighlighter returns the highlighter of code blocks styled by rules for
// a terminal with colour profile p, or nil when rules ask for no
// highlighting.
func newHighlighter(p termenv.Profile, rules render.CodeBlock) *highlighter {
	style := chromaStyle(rules)
	if style == nil {
		return nil
	}
	return &highlighter{profile: p, theme: theme(p, style), cache: map[codeBlock]string{}}
}

// chromaStyle returns the chroma style of code blocks styled by rules, as
// glamour makes it (ansi.CodeBlockElement), or nil when rules ask for no
// highlighting. Unlike glamour, which registers the style of the first
// document it renders under one name for all, each Renderer has its own, so
// a light background gets the light style's code colours.
func chromaStyle(rules render.CodeBlock) *chroma.Style {
	c := rules.Chroma
	if c == nil {
		return nil
	}
	s, err := chroma.NewStyle("agenttui", chroma.StyleEntries{
		chroma.Text:                entry(c.Text),
		chroma.Error:               entry(c.Error),
		chroma.Comment:             entry(c.Comment),
		chroma.CommentPreproc:      entry(c.CommentPreproc),
		chroma.Keyword:             entry(c.Keyword),
		chroma.KeywordReserved:     entry(c.KeywordReserved),
		chroma.KeywordNamespace:    entry(c.KeywordNamespace),
		chroma.KeywordType:         entry(c.KeywordType),
		chroma.Operator:            entry(c.Operator),
		chroma.Punctuation:         entry(c.Punctuation),
		chroma.Name:                entry(c.Name),
		chroma.NameBuiltin:         entry(c.NameBuiltin),
		chroma.NameTag:             entry(c.NameTag),
		chroma.NameAttribute:       entry(c.NameAttribute),
		chroma.NameClass:           entry(c.NameClass),
		chroma.NameConstant:        entry(c.NameConstant),
		chroma.NameDecorator:       entry(c.NameDecorator),
		chroma.NameException:       entry(c.NameException),
		chroma.NameFunction:        entry(c.NameFunction),
		chroma.NameOther:           entry(c.NameOther),
		chroma.Literal:             entry(c.Literal),
		chroma.LiteralNumber:       entry(c.LiteralNumber),
		chroma.LiteralDate:         entry(c.LiteralDate),
		chroma.LiteralString:       entry(c.LiteralString),
		chroma.LiteralStringEscape: entry(c.LiteralStringEscape),
		chroma.GenericDeleted:      entry(c.GenericDeleted),
		chroma.GenericEmph:         entry(c.GenericEmph),
		chroma.GenericInserted:     entry(c.GenericInserted),
		chroma.GenericStrong:       entry(c.GenericStrong),
		chroma.GenericSubheading:   entry(c.GenericSubheading),
		chroma.Background:          entry(c.Background),
	})
	if err != nil {
		return nil
	}
	return s
}

// entry returns a style primitive as a chroma style entry.
func entry(p render.Primitive) string {
	var parts []string
	if p.Color != "" {
		parts = append(parts, p.Color)
	}
	if p.BackgroundColor != "" {
		parts = append(parts, "bg:"+p.BackgroundColor)
	}
	if p.Italic == render.On {
		parts = append(parts, "italic")
	}
	if p.Bold == render.On {
		parts = append(parts, "bold")
	}
	if p.Underline == render.On {
		parts = append(parts, "underline")
	}
	return strings.Join(parts, " ")
}

// theme returns the escape sequence of each token type of style, for
// profile p.
func theme(p termenv.Profile, style *chroma.Style) map[chroma.TokenType]string {
	// The background of the code block as a whole is left to the
	// terminal, as chroma's terminal formatters leave it: token types
	// that set no background of their own get none.
	b := style.Builder()
	bg := b.Get(chroma.Background)
	bg.Background, bg.NoInherit = 0, true
	b.AddEntry(chroma.Background, bg)
	if cleared, err := b.Build(); err == nil {
		style = cleared
	}
	t := map[chroma.TokenType]string{}
	for _, tt := range style.Types() {
		t[tt] = sequence(p, style.Get(tt))
	}
	return t
}

// sequence returns the escape sequence that styles text as e says.
func sequence(p termenv.Profile, e chroma.StyleEntry) string {
	var codes []string
	if e.Bold == chroma.Yes {
		codes = append(codes, "1")
	}
	if e.Italic == chroma.Yes {
		codes = append(codes, "3")
	}
	if e.Underline == chroma.Yes {
		codes = append(codes, "4")
	}
	if e.Colour.IsSet() {
		if c := p.Color(e.Colour.String()); c != nil {
			codes = append(codes, c.Sequence(false))
		}
	}
	if e.Background.IsSet() {
		if c := p.Color(e.Background.String()); c != nil {
			codes = append(codes, c.Sequence(true))
		}
	}
	if len(codes) == 0 || p == termenv.Ascii {
		return ""
	}
	return "\x1b[" + strings.Join(codes, ";") + "m"
}

// highlight returns code highlighted as lang, or styled as plain text when
// chroma knows no such language.
func (h *highlighter) highlight(lang, code string) string {
	key := codeBlock{lang, code}
	h.mu.Lock()
	out, ok := h.cache[key]
	h.mu.Unlock()
	if ok {
		return out
	}
	out = h.format(lexerOf(lang), code)
	size := len(code) + len(out)
	h.mu.Lock()
	if _, ok := h.cache[key]; !ok && size <= cachedBytes {
		for len(h.order) >= cachedBlocks || h.size+size > cachedBytes {
			old := h.order[0]
			h.size -= len(old.code) + len(h.cache[old])
			delete(h.cache, old)
			h.order = h.order[1:]
		}
		h.cache[key] = out
		h.order = append(h.order, key)
		h.size += size
	}
	h.mu.Unlock()
	return out
}

// format returns code lexed by l and styled by the theme. A lexer that
// fails or panics leaves the code plain.
func (h *highlighter) format(l chroma.Lexer, code string) (out string) {
	defer func() {
		if recover() != nil {
			out = h.format(lexers.Fallback, code)
		}
	}()
	it, err := chroma.Coalesce(l).Tokenise(nil, code)
	if err != nil {
		return h.format(lexers.Fallback, code)
	}
	var b strings.Builder
	b.Grow(len(code) * 3)
	for t := it(); t != chroma.EOF; t = it() {
		seq, ok := h.theme[t.Type]
		if !ok {
			if seq, ok = h.theme[t.Type.SubCategory()]; !ok {
				if seq, ok = h.theme[t.Type.Category()]; !ok {
					seq = h.theme[chroma.Text]
				}
			}
		}
		if seq == "" {
			b.WriteString(t.Value)
			continue
		}
		for i, line := range strings.Split(t.Value, "\n") {
			if i > 0 {
				b.WriteByte('\n')
			}
			if line != "" {
				b.WriteString(seq)
				b.WriteString(line)
				b.WriteString("\x1b[0m")
			}
		}
	}
	return b.String()
}

// lexerMemo holds the lexer of each language named so far (nil for a name
// chroma does not know): looking a name up that is not one of chroma's
// names or aliases tries every lexer's file patterns, which takes a
// millisecond or more.
var lexerMemo sync.Map // string → chroma.Lexer, nil for none

// memoNames bounds how many names lexerMemo keeps; the names come from the
// model.
const memoNames = 512

var memoCount struct {
	sync.Mutex // guards n
	n          int
}

// lexerOf returns the fast lexer of the language named lang, or the plain
// text lexer when chroma knows no such language or lang is empty. Unnamed
// and unknown languages are not guessed: chroma's guess tries every
// language it knows on the code, which takes milliseconds a block and often
// guesses wrong; logs and command output, the usual unnamed blocks, read
// best plain.
func lexerOf(lang string) chroma.Lexer {
	var l chroma.Lexer
	if v, ok := lexerMemo.Load(lang); ok {
		l, _ = v.(chroma.Lexer)
	} else {
		if lang != "" {
			l = lexers.Get(lang)
		}
		memoCount.Lock()
		if memoCount.n < memoNames {
			memoCount.n++
			lexerMemo.Store(lang, l)
		}
		memoCount.Unlock()
	}
	if l == nil {
		l = lexers.Get("plaintext")
	}
	return fastLexerFor(l)
}
