package render

import (
	"bytes"
	"html"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// piece is inline content made ready to draw when the renderer reaches its
// node: the node's text, and for emphasis and links, the pieces of what
// they hold, which the renderer does not visit on its own.
type piece interface {
	// draw writes the piece to w in its own style, inheriting the
	// innermost block's.
	draw(w io.Writer, st *state)
}

// restyler is a piece that an enclosing emphasis, link or table cell can
// restyle: over takes precedence over the piece's own style.
type restyler interface {
	piece
	drawOver(w io.Writer, st *state, over Primitive)
}

// text is a run of text in a style, after a prefix in the style of the
// innermost block (an item's number, the space before a link's address).
// It also draws list bullets, task boxes and rules, which are a style and
// no text.
type text struct {
	token  string
	prefix string
	style  Primitive
}

func (t *text) draw(w io.Writer, st *state) {
	t.drawAs(w, st, st.top().style.Primitive, st.with(t.style))
}

func (t *text) drawOver(w io.Writer, st *state, over Primitive) {
	t.drawAs(w, st, inherit(st.top().style.Primitive, over, true), inherit(st.with(t.style), over, true))
}

// drawAs draws t with outer the style around it and inner its own: the
// block prefix and suffix are drawn in outer, the prefix and suffix and the
// text, formatted and unescaped, in inner.
func (t *text) drawAs(w io.Writer, st *state, outer, inner Primitive) {
	st.paint(w, outer, t.prefix)
	st.paint(w, outer, inner.BlockPrefix)
	st.paint(w, inner, inner.Prefix)
	s := t.token
	if inner.Format != "" {
		s = format(inner.Format, s)
	}
	st.paint(w, inner, unescape(s))
	st.paint(w, inner, inner.Suffix)
	st.paint(w, outer, inner.BlockSuffix)
}

// emphasis is emphasised or strong content.
type emphasis struct {
	strong bool
	pieces []piece
}

func (e *emphasis) style(st *state) Primitive {
	if e.strong {
		return st.cfg.Strong
	}
	return st.cfg.Emph
}

func (e *emphasis) draw(w io.Writer, st *state) {
	drawAllOver(w, st, e.pieces, e.style(st))
}

func (e *emphasis) drawOver(w io.Writer, st *state, over Primitive) {
	drawAllOver(w, st, e.pieces, inherit(e.style(st), over, true))
}

// drawAllOver draws pieces, restyled by over where they can be.
func drawAllOver(w io.Writer, st *state, pieces []piece, over Primitive) {
	for _, p := range pieces {
		if r, ok := p.(restyler); ok {
			r.drawOver(w, st, over)
		} else {
			p.draw(w, st)
		}
	}
}

// drawAllAs draws pieces in style: those that can be restyled are, and the
// others are drawn as the text of a run in style.
func drawAllAs(w io.Writer, st *state, pieces []piece, style Primitive) {
	for _, p := range pieces {
		if r, ok := p.(restyler); ok {
			r.drawOver(w, st, style)
			continue
		}
		var b bytes.Buffer
		p.draw(&b, st)
		(&text{token: b.String(), style: style}).draw(w, st)
	}
}

// link is a link: its text, then its address, or only one of them.
type link struct {
	url              string
	pieces           []piece
	noText, noTarget bool
}

func (l *link) draw(w io.Writer, st *state) {
	if !l.noText {
		drawAllAs(w, st, l.pieces, st.cfg.LinkText)
	}
	if l.noTarget {
		return
	}
	prefix := " "
	if l.noText {
		prefix = ""
	}
	// An address that is only an anchor in the page leads nowhere the
	// reader can go; one that does not parse is left out too.
	if u, err := url.Parse(l.url); err == nil && "#"+u.Fragment != l.url {
		(&text{token: resolve(l.url), prefix: prefix, style: st.cfg.Link}).draw(w, st)
	}
}

// image is an image, shown as its description and its address.
type image struct {
	alt, url string
}

func (i *image) draw(w io.Writer, st *state) {
	if i.alt != "" {
		(&text{token: i.alt, style: st.cfg.ImageText}).draw(w, st)
	}
	if i.url != "" {
		(&text{token: resolve(i.url), prefix: " ", style: st.cfg.Image}).draw(w, st)
	}
}

// code is a code span, in the style it was given when made.
type code struct {
	text  string
	style Primitive
}

func (c *code) draw(w io.Writer, st *state) {
	st.paint(w, c.style, c.style.Prefix+c.text+c.style.Suffix)
}

// pieceOf returns the piece of an inline node, or nil for a node that
// shows nothing of its own.
func (st *state) pieceOf(n ast.Node) piece {
	switch n := n.(type) {
	case *ast.Text:
		s := string(n.Segment.Value(st.source))
		if n.HardLineBreak() || n.SoftLineBreak() {
			s += "\n"
		}
		return &text{token: html.UnescapeString(s), style: st.cfg.Text}
	case *ast.Emphasis:
		return &emphasis{strong: n.Level > 1, pieces: st.piecesOf(n)}
	case *east.Strikethrough:
		// Struck-out text is drawn as plain text in its style, whatever
		// it holds: Text, deprecated as it is, gives the text as
		// wanted, with its line breaks.
		return &text{token: html.UnescapeString(string(n.Text(st.source))), style: st.cfg.Strikethrough} //nolint:staticcheck
	case *ast.Link:
		return &link{url: string(n.Destination), pieces: st.piecesOf(n)}
	case *ast.AutoLink:
		u := string(n.URL(st.source))
		l := &link{url: u, pieces: []piece{&text{token: u}}, noText: n.AutoLinkType != ast.AutoLinkEmail}
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(u), "mailto:") {
			l.url = "mailto:" + u
		}
		return l
	case *ast.Image:
		return &image{alt: string(n.Text(st.source)), url: string(n.Destination)} //nolint:staticcheck
	case *ast.CodeSpan:
		return &code{
			text:  html.UnescapeString(string(n.Text(st.source))), //nolint:staticcheck
			style: inheritBlock(st.top().style, st.cfg.Code, false).Primitive,
		}
	case *ast.RawHTML:
		return &text{token: stripHTML(string(n.Segments.Value(st.source))), style: st.cfg.HTMLSpan.Primitive}
	}
	return nil
}

// piecesOf returns the pieces of n's children.
func (st *state) piecesOf(n ast.Node) []piece {
	var pieces []piece
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if p := st.pieceOf(c); p != nil {
			pieces = append(pieces, p)
		}
	}
	return pieces
}

// itemMark returns the piece that starts list item n: its number, bullet
// or task box.
func (st *state) itemMark(n *ast.ListItem) piece {
	if f := n.FirstChild(); f != nil {
		if box, ok := f.FirstChild().(*east.TaskCheckBox); ok {
			mark := st.cfg.Task.Unticked
			if box.IsChecked {
				mark = st.cfg.Task.Ticked
			}
			return &text{prefix: mark, style: st.cfg.Task.Primitive}
		}
	}
	list := n.Parent().(*ast.List)
	if !list.IsOrdered() {
		return &text{style: st.cfg.Item}
	}
	// The number counts the items before this one, from the list's
	// start, modulo 2⁶⁴ as an unsigned number would.
	nth := uint(1)
	for p := n.PreviousSibling(); p != nil && p.Kind() == ast.KindListItem; p = p.PreviousSibling() {
		nth++
	}
	nth += uint(list.Start) - 1
	return &text{prefix: strconv.FormatUint(uint64(nth), 10), style: st.cfg.Enumeration}
}
