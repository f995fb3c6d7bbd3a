// Package render draws a Markdown document, as goldmark parses it with its
// GFM and definition list extensions, for a terminal: styled with escape
// sequences (SGR) as a Config says, wrapped at a width, with lists and
// quotes indented, tables laid out and links shown as their text followed
// by their address.
//
// It draws exactly what glamour's ANSI renderer (v1.0.0) draws with the same
// style, links in tables shown in place and code blocks handed over
// highlighted already, without what glamour needs for the rest of its
// features: text templates, an HTML sanitiser, syntax highlighting. One
// thing it draws better on purpose: a paragraph's lines are wrapped once,
// at spaces, where glamour's can be wrapped twice (see WrapAsGlamour).
//
// Code blocks are written as they are when the style has code colours and
// the terminal shows colours: the caller has highlighted them. Otherwise
// they are drawn as plain text in the code block style.
package render

import (
	"bytes"
	"io"

	"github.com/muesli/reflow/indent"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Renderer draws Markdown documents in a style, for a terminal with a colour
// profile. It is safe for use by several goroutines.
type Renderer struct {
	cfg     Config
	profile termenv.Profile
	// glamourWrap wraps text as glamour does (see WrapAsGlamour).
	glamourWrap bool
}

// New returns a Renderer that draws in style cfg for a terminal of colour
// profile p.
func New(cfg Config, p termenv.Profile) *Renderer {
	return &Renderer{cfg: cfg, profile: p}
}

// WrapAsGlamour makes r wrap text exactly as glamour v1.0.0 does, and
// returns r: paragraphs and headings after hyphens too, without counting
// them, and the text of a quote as if its mark were one column wide, so
// that a line may run past the width and is then wrapped a second time by
// the block that holds it. Only the tests that compare the renderer with
// glamour want this; everything else it draws is glamour's already.
func (r *Renderer) WrapAsGlamour() *Renderer {
	r.glamourWrap = true
	return r
}

// state is the drawing of one document.
type state struct {
	cfg     *Config
	profile termenv.Profile
	source  []byte
	wrap    uint // the width the document is wrapped at
	// verbatim is set when code blocks are written as they are.
	verbatim bool
	// glamourWrap is the Renderer's.
	glamourWrap bool

	stack []block  // the blocks being drawn, outermost first
	table *tabular // the table being drawn, if any
	// looks holds the escape sequence parameters of each look painted,
	// and last the last one's, which is lastSeq.
	looks   map[look]string
	last    look
	lastSeq string

	void bytes.Buffer // the text of the block that is nowhere
	none block
}

// Render draws doc, parsed from source, wrapped at width columns, to w.
func (r *Renderer) Render(w io.Writer, source []byte, doc ast.Node, width int) error {
	st := &state{
		cfg:         &r.cfg,
		profile:     r.profile,
		source:      source,
		wrap:        uint(max(width, 0)),
		verbatim:    r.cfg.CodeBlock.Chroma != nil && r.profile != termenv.Ascii,
		glamourWrap: r.glamourWrap,
		stack:       make([]block, 0, 8),
		looks:       map[look]string{},
	}
	return ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			return st.enter(w, n), nil
		}
		st.leave(w, n)
		return ast.WalkContinue, nil
	})
}

// enter draws what comes at the start of node n. The inline nodes that
// hold others draw those too, which are then skipped.
func (st *state) enter(w io.Writer, n ast.Node) ast.WalkStatus {
	var into io.Writer = w
	if len(st.stack) > 0 {
		into = st.top().buf
	}
	switch n := n.(type) {
	case *ast.Document:
		st.open(into, st.cfg.Document)
	case *ast.Heading:
		st.openHeading(into, n.Level, n.PreviousSibling() == nil)
	case *ast.Paragraph:
		// The text of a list item runs on in the list's own block.
		if _, ok := n.Parent().(*ast.ListItem); !ok {
			st.openParagraph(into, n.PreviousSibling() == nil)
		}
	case *ast.Blockquote:
		_, _ = io.WriteString(into, "\n")
		st.open(into, inheritBlock(st.top().style, st.cfg.BlockQuote, false))
	case *ast.List:
		_, _ = io.WriteString(into, "\n")
		style := st.cfg.List.Block
		for p := n.Parent(); p != nil; p = p.Parent() {
			if p.Kind() == ast.KindList {
				style.Indent = st.cfg.List.LevelIndent
				break
			}
		}
		st.open(into, inheritBlock(st.top().style, style, false))
	case *ast.ListItem:
		st.itemMark(n).draw(into, st)
	case *ast.ThematicBreak:
		(&text{style: st.cfg.HorizontalRule}).draw(into, st)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		_, _ = io.WriteString(into, "\n")
		st.codeBlock(into, n)
	case *ast.HTMLBlock:
		//nolint:staticcheck // Text gives the block's lines and its closing line, as wanted.
		(&text{token: stripHTML(string(n.Text(st.source))), style: st.cfg.HTMLBlock.Primitive}).draw(into, st)
	case *east.Table:
		_, _ = io.WriteString(into, "\n")
		st.openTable(into, n)
	case *east.TableCell:
		st.cell(n, n.Parent().Kind() == east.KindTableHeader)
		return ast.WalkSkipChildren
	case *east.DefinitionList:
		st.open(into, inheritBlock(st.top().style, st.cfg.DefinitionList, false))
	case *east.DefinitionTerm:
		_, _ = io.WriteString(into, "\n")
		(&text{style: st.cfg.DefinitionTerm}).draw(into, st)
	case *east.DefinitionDescription:
		(&text{style: st.cfg.DefinitionDescription}).draw(into, st)
	case *ast.Text, *ast.Emphasis, *east.Strikethrough, *ast.Link, *ast.AutoLink, *ast.Image, *ast.CodeSpan, *ast.RawHTML:
		if p := st.pieceOf(n); p != nil {
			p.draw(into, st)
		}
		return ast.WalkSkipChildren
	}
	return ast.WalkContinue
}

// leave draws what comes at the end of node n.
func (st *state) leave(w io.Writer, n ast.Node) {
	var into io.Writer = w
	if len(st.stack) > 0 {
		into = st.parent().buf
	}
	switch n := n.(type) {
	case *ast.Document:
		st.closeBlock(w, false)
	case *ast.Heading:
		st.closeHeading(into)
	case *ast.Paragraph:
		if _, ok := n.Parent().(*ast.ListItem); !ok {
			st.closeParagraph(into)
		}
	case *ast.Blockquote:
		st.closeBlock(into, false)
	case *ast.List, *east.DefinitionList:
		st.closeBlock(into, true)
	case *ast.ListItem:
		if n.NextSibling() != nil && (n.LastChild() == nil || n.LastChild().Kind() != ast.KindList) {
			_, _ = io.WriteString(st.top().buf, "\n")
		}
	case *east.Table:
		st.closeTable()
		_, _ = io.WriteString(st.top().buf, "\n")
	case *east.TableHeader:
		st.endHeader()
	case *east.TableRow:
		st.endRow()
	case *east.DefinitionDescription:
		_, _ = io.WriteString(st.top().buf, "\n")
	}
}

// codeBlock draws code block n into w, indented by the code block style's
// indentation and margin.
func (st *state) codeBlock(w io.Writer, n ast.Node) {
	var code bytes.Buffer
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		code.Write(seg.Value(st.source))
	}
	rules := st.cfg.CodeBlock
	top := st.top().style.Primitive
	iw := indent.NewWriterPipe(w, rules.Indent+rules.Margin, func(io.Writer) {
		st.paint(w, top, " ")
	})
	if !st.verbatim {
		(&text{token: code.String(), style: rules.Primitive}).draw(iw, st)
		return
	}
	st.paint(iw, top, rules.BlockPrefix)
	_, _ = iw.Write(code.Bytes())
	st.paint(iw, top, rules.BlockSuffix)
}
