package render

import (
	"bytes"
	"io"
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/muesli/reflow/indent"
	"github.com/muesli/reflow/padding"
	"github.com/muesli/reflow/wordwrap"
)

// block is an element being drawn that holds others: the document, a
// quote, a list, a definition list, a paragraph or a heading. What it holds
// is drawn into buf, and once it is all there, the block wraps it, indents
// it and pads it to the width, into the block that holds it.
type block struct {
	buf   *bytes.Buffer
	style Block
}

// top returns the innermost block, or a block of no style that nothing
// reads when there is none.
func (st *state) top() *block {
	if len(st.stack) == 0 {
		return st.nowhere()
	}
	return &st.stack[len(st.stack)-1]
}

// parent returns the block that holds the innermost one, or a block of no
// style that nothing reads when there is none.
func (st *state) parent() *block {
	if len(st.stack) < 2 {
		return st.nowhere()
	}
	return &st.stack[len(st.stack)-2]
}

// nowhere returns a block of no style whose text is thrown away.
func (st *state) nowhere() *block {
	st.void.Reset()
	st.none = block{buf: &st.void}
	return &st.none
}

// push opens a block of the given style inside the innermost one.
func (st *state) push(style Block) {
	var buf *bytes.Buffer
	if n := len(st.stack); n < cap(st.stack) && st.stack[:n+1][n].buf != nil {
		// A buffer of an earlier block at this depth, emptied when
		// that block was done.
		buf = st.stack[:n+1][n].buf
	} else {
		buf = new(bytes.Buffer)
	}
	st.stack = append(st.stack, block{buf: buf, style: style})
}

// pop closes the innermost block, whose text has been written out.
func (st *state) pop() {
	st.top().buf.Reset()
	st.stack = st.stack[:len(st.stack)-1]
}

// width returns the columns left to the text of the innermost block once
// the indentation and margins of all blocks are taken, or 0 when they take
// more than the width. A block is indented with its token on the left,
// once for each unit of indentation and margin, and keeps its margin free
// on the right. Glamour counts each token as one column, so the text of a
// quote ("│ ") is wrapped a column too wide and then wrapped again by the
// block that holds it; with glamourWrap set, it is counted so here too.
func (st *state) width() uint {
	var taken uint
	for _, b := range st.stack {
		token := uint(1)
		if b.style.IndentToken != "" && !st.glamourWrap {
			token = uint(xansi.StringWidth(b.style.IndentToken))
		}
		taken += (b.style.Indent+b.style.Margin)*token + b.style.Margin
	}
	if taken > st.wrap {
		return 0
	}
	return st.wrap - taken
}

// with returns p inheriting the colours and attributes of the innermost
// block.
func (st *state) with(p Primitive) Primitive {
	return inherit(st.top().style.Primitive, p, false)
}

// open opens a block of the given style, written into w (the innermost
// block's text) when it is done, and writes its prefixes.
func (st *state) open(w io.Writer, style Block) {
	st.push(style)
	st.paint(w, st.parent().style.Primitive, style.BlockPrefix)
	st.paint(st.top().buf, st.top().style.Primitive, style.Prefix)
}

// closeBlock writes the innermost block, a container, into w: its text
// wrapped at the width (breaking words at the width when they must), then
// indented and padded, then a newline when newline is set, then its
// suffixes; and closes it.
func (st *state) closeBlock(w io.Writer, newline bool) {
	b := st.top()
	s := xansi.Wordwrap(b.buf.String(), int(st.width()), " ,.;-+|")
	mw := st.marginWriter(w, b.style)
	_, _ = io.WriteString(mw, s)
	if newline {
		_, _ = io.WriteString(mw, "\n")
	}
	st.closeWith(w, b.style)
}

// closeWith writes the suffixes of the innermost block, of the given style,
// into w, and closes the block.
func (st *state) closeWith(w io.Writer, style Block) {
	st.paint(w, st.top().style.Primitive, style.Suffix)
	st.paint(w, st.parent().style.Primitive, style.BlockSuffix)
	st.pop()
}

// marginWriter returns a writer that writes to w lines indented as style
// says, with the token of the block's indentation in the style of the
// block that holds it, and every line but the last padded with spaces to
// the width, in the block's style. The indentation and the padding are
// written to w directly, and the padding does not count the indentation.
func (st *state) marginWriter(w io.Writer, style Block) io.Writer {
	pad := style.Primitive
	pw := padding.NewWriterPipe(w, st.width(), func(io.Writer) {
		st.paint(w, pad, " ")
	})
	token := style.IndentToken
	if token == "" {
		token = " "
	}
	outer := st.parent().style.Primitive
	return indent.NewWriterPipe(pw, style.Indent+style.Margin, func(io.Writer) {
		st.paint(w, outer, token)
	})
}

// openParagraph opens a paragraph, after a blank line unless first.
func (st *state) openParagraph(w io.Writer, first bool) {
	if !first {
		_, _ = io.WriteString(w, "\n")
	}
	st.open(w, inheritBlock(st.top().style, st.cfg.Paragraph, false))
}

// closeParagraph writes the innermost block, a paragraph, into w: its text
// on one line, wrapped at the width, indented and padded, unless it shows
// nothing.
func (st *state) closeParagraph(w io.Writer) {
	b := st.top()
	mw := st.marginWriter(w, b.style)
	if strings.TrimSpace(b.buf.String()) != "" {
		flow := st.flow()
		flow.KeepNewlines = false
		_, _ = flow.Write(b.buf.Bytes())
		_ = flow.Close()
		_, _ = mw.Write(flow.Bytes())
		_, _ = io.WriteString(mw, "\n")
	}
	st.closeWith(w, b.style)
}

// openHeading opens a heading of the given level, after a blank line in
// the style of the innermost block unless first.
func (st *state) openHeading(w io.Writer, level int, first bool) {
	rules := inheritBlock(Block{}, st.cfg.Heading, true)
	if level >= 1 && level <= len(st.cfg.H) {
		rules = inheritBlock(rules, st.cfg.H[level-1], true)
	}
	if !first {
		st.paint(w, st.top().style.Primitive, "\n")
	}
	st.open(w, inheritBlock(st.top().style, rules, false))
}

// closeHeading writes the innermost block, a heading, into w: its text
// wrapped at the width, line breaks kept, indented and padded.
func (st *state) closeHeading(w io.Writer) {
	b := st.top()
	mw := st.marginWriter(w, b.style)
	flow := st.flow()
	_, _ = flow.Write(b.buf.Bytes())
	_ = flow.Close()
	_, _ = mw.Write(flow.Bytes())
	st.closeWith(w, b.style)
}

// flow returns the writer that wraps a paragraph's or a heading's text at
// the width. It breaks lines at spaces only: reflow's writer also breaks
// after a hyphen but does not count the hyphen, so each hyphen on a line
// would let it run a column past the width, and the block that holds the
// paragraph would wrap it a second time ("…the README can" / "be" /
// "read meanwhile."). A word wider than the width is broken by that block,
// once. With glamourWrap set, it breaks after hyphens as glamour does.
func (st *state) flow() *wordwrap.WordWrap {
	flow := wordwrap.NewWriter(int(st.width()))
	flow.Breakpoints = nil
	if st.glamourWrap {
		flow.Breakpoints = []rune{'-'}
	}
	return flow
}
