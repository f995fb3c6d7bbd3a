package diffview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// kind is what an item of a View is.
type kind uint8

const (
	itemHeader kind = iota // a hunk's @@ line
	itemLine               // a unified line
	itemPair               // a side-by-side row: an old line, a new line, or both
	itemNoEOL              // the note that a version has no newline at its end
	itemNote               // a line that stands for the whole diff (binary, no change)
)

// item is one thing a View draws, on one or more lines.
type item struct {
	kind  kind
	hunk  int
	left  int // the line of the hunk (unified), or the old side (-1: none)
	right int // the new side of a pair (-1: none)
	text  string
}

// View is a Diff laid out at one width, in one layout and one style. Its
// lines are drawn when first asked for and kept, so drawing the part of a
// long diff that is on screen costs the same however long the diff is. A
// View is not safe for concurrent use.
type View struct {
	d      *Diff
	width  int
	layout Layout
	st     Style
	pal    *palette
	items  []item
	// first[i] is the first line of item i; first[len(items)] is Len.
	first []int
	drawn map[int][]string
	digit int // width of a line number
}

// Layout lays the diff out at width columns (at least 20) in layout, drawn
// in style st.
func (d *Diff) Layout(width int, layout Layout, st Style) *View {
	v := &View{d: d, width: max(width, 20), layout: layout, st: st, pal: newPalette(st), drawn: map[int][]string{}}
	v.digit = len(strconv.Itoa(max(d.maxNum, 1)))
	if layout == Split && v.halfTextWidth() < 10 {
		// Too narrow for two readable sides.
		v.layout, layout = Unified, Unified
	}
	switch {
	case d.binary:
		v.items = append(v.items, item{kind: itemNote, text: fmt.Sprintf("binary file: no line diff (%s → %s)", size(d.oldLen), size(d.newLen))})
	case len(d.hunks) == 0:
		v.items = append(v.items, item{kind: itemNote, text: "no change: both versions are the same"})
	}
	if d.crlf {
		v.items = append(v.items, item{kind: itemNote, text: "line endings: CRLF (not shown)"})
	}
	for hi, h := range d.hunks {
		v.items = append(v.items, item{kind: itemHeader, hunk: hi})
		if layout == Split {
			v.pairItems(hi, h)
			continue
		}
		for li, l := range h.lines {
			v.items = append(v.items, item{kind: itemLine, hunk: hi, left: li, right: -1})
			if l.noEOL {
				v.items = append(v.items, item{kind: itemNoEOL, hunk: hi, left: li, right: -1})
			}
		}
	}
	v.first = make([]int, len(v.items)+1)
	for i, it := range v.items {
		v.first[i+1] = v.first[i] + v.height(it)
	}
	return v
}

// pairItems pairs a hunk's lines for the side-by-side layout: an unchanged
// line faces itself, and a run of removed lines faces the run of added
// lines that follows it, line by line.
func (v *View) pairItems(hi int, h hunk) {
	ls := h.lines
	for i := 0; i < len(ls); {
		if ls[i].op == opEqual {
			v.items = append(v.items, item{kind: itemPair, hunk: hi, left: i, right: i})
			if ls[i].noEOL {
				v.items = append(v.items, item{kind: itemNoEOL, hunk: hi, left: i, right: -1})
			}
			i++
			continue
		}
		var dels, ins []int
		for i < len(ls) && ls[i].op == opDelete {
			dels = append(dels, i)
			i++
		}
		for i < len(ls) && ls[i].op == opInsert {
			ins = append(ins, i)
			i++
		}
		noEOL := -1
		for k := 0; k < max(len(dels), len(ins)); k++ {
			it := item{kind: itemPair, hunk: hi, left: -1, right: -1}
			if k < len(dels) {
				it.left = dels[k]
				if ls[dels[k]].noEOL {
					noEOL = dels[k]
				}
			}
			if k < len(ins) {
				it.right = ins[k]
				if ls[ins[k]].noEOL {
					noEOL = ins[k]
				}
			}
			v.items = append(v.items, it)
		}
		if noEOL >= 0 {
			v.items = append(v.items, item{kind: itemNoEOL, hunk: hi, left: noEOL, right: -1})
		}
	}
}

// Len returns how many lines the view has.
func (v *View) Len() int { return v.first[len(v.items)] }

// Lines returns lines from up to (not including) to, each at most the
// view's width.
func (v *View) Lines(from, to int) []string {
	from, to = max(from, 0), min(to, v.Len())
	if from >= to {
		return nil
	}
	out := make([]string, 0, to-from)
	// The item holding line from: the last whose first line is ≤ from.
	lo, hi := 0, len(v.items)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if v.first[mid] <= from {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for i := lo; i < len(v.items) && v.first[i] < to; i++ {
		lines := v.item(i)
		for j, l := range lines {
			if n := v.first[i] + j; n >= from && n < to {
				out = append(out, l)
			}
		}
	}
	return out
}

// item returns the drawn lines of item i, drawing them the first time.
func (v *View) item(i int) []string {
	if l, ok := v.drawn[i]; ok {
		return l
	}
	it := v.items[i]
	var lines []string
	switch it.kind {
	case itemNote:
		lines = []string{v.pal.dim.Render(ansi.Truncate(it.text, v.width, "…"))}
	case itemHeader:
		h := v.d.hunks[it.hunk]
		lines = []string{v.pal.hunk.Render(ansi.Truncate(fmt.Sprintf("@@ -%s +%s @@", span(h.oldStart, h.oldCount), span(h.newStart, h.newCount)), v.width, "…"))}
	case itemNoEOL:
		pad := strings.Repeat(" ", v.gutter())
		lines = []string{v.pal.dim.Render(ansi.Truncate(pad+"\\ no newline at end of file", v.width, "…"))}
	case itemLine:
		lines = v.unified(v.d.hunks[it.hunk].lines[it.left])
	case itemPair:
		lines = v.pair(it)
	}
	for j, l := range lines {
		// A width too small for the line numbers and signs cuts them
		// rather than overflowing.
		if ansi.StringWidth(l) > v.width {
			lines[j] = ansi.Truncate(l, v.width, "")
		}
	}
	v.drawn[i] = lines
	return lines
}

// height returns how many lines item it takes.
func (v *View) height(it item) int {
	switch it.kind {
	case itemLine:
		return len(breaks(v.text(v.d.hunks[it.hunk].lines[it.left]), v.unifiedTextWidth()))
	case itemPair:
		w := v.halfTextWidth()
		n := 1
		if it.left >= 0 {
			n = max(n, len(breaks(v.text(v.d.hunks[it.hunk].lines[it.left]), w)))
		}
		if it.right >= 0 {
			n = max(n, len(breaks(v.text(v.d.hunks[it.hunk].lines[it.right]), w)))
		}
		return n
	}
	return 1
}

// text is what a line shows: its text, with a visible mark for a carriage
// return the header does not account for.
func (v *View) text(l line) string {
	if l.cr {
		return l.text + "␍"
	}
	return l.text
}

// gutter is the width of the unified layout's line numbers: old and new.
func (v *View) gutter() int { return 2*v.digit + 2 }

// unifiedTextWidth is the room for a line's text in the unified layout,
// after the numbers and the sign.
func (v *View) unifiedTextWidth() int { return max(v.width-v.gutter()-2, 1) }

// halfWidth is the width of one side of the split layout, and
// halfTextWidth the room for text on it.
func (v *View) halfWidth() int     { return (v.width - 1) / 2 }
func (v *View) halfTextWidth() int { return max(v.halfWidth()-v.digit-3, 1) }

// unified draws one line of the unified layout, wrapped.
func (v *View) unified(l line) []string {
	text := v.text(l)
	w := v.unifiedTextWidth()
	num := func(n int) string {
		if n == 0 {
			return strings.Repeat(" ", v.digit)
		}
		return fmt.Sprintf("%*d", v.digit, n)
	}
	var out []string
	for k, seg := range segments(text, breaks(text, w)) {
		gutter := num(l.oldNum) + " " + num(l.newNum) + " "
		if k > 0 {
			gutter = strings.Repeat(" ", v.gutter())
		}
		out = append(out, v.pal.num.Render(gutter)+v.body(l, seg, w))
	}
	return out
}

// pair draws one row of the split layout, wrapped: the old line on the
// left, the new on the right.
func (v *View) pair(it item) []string {
	h := v.d.hunks[it.hunk]
	w := v.halfTextWidth()
	side := func(idx int, old bool) []string {
		if idx < 0 {
			return nil
		}
		l := h.lines[idx]
		n := l.newNum
		if old {
			n = l.oldNum
		}
		text := v.text(l)
		var out []string
		for k, seg := range segments(text, breaks(text, w)) {
			g := fmt.Sprintf("%*d ", v.digit, n)
			if k > 0 {
				g = strings.Repeat(" ", v.digit+1)
			}
			out = append(out, v.pal.num.Render(g)+v.body(l, seg, w))
		}
		return out
	}
	left, right := side(it.left, true), side(it.right, false)
	half := v.halfWidth()
	blank := strings.Repeat(" ", half)
	sep := v.pal.dim.Render("│")
	var out []string
	for k := 0; k < max(len(left), len(right), 1); k++ {
		l, r := blank, ""
		if k < len(left) {
			l = padTo(left[k], half)
		}
		if k < len(right) {
			r = right[k]
		}
		out = append(out, l+sep+r)
	}
	return out
}

// body draws a segment of a line's text after its sign, coloured for what
// the line does and padded to w so the colour spans the row.
func (v *View) body(l line, seg string, w int) string {
	sign, st := " ", v.pal.equal
	switch l.op {
	case opDelete:
		sign, st = "-", v.pal.del
	case opInsert:
		sign, st = "+", v.pal.ins
	}
	return st.sign.Styled(sign+" ") + v.pal.highlight(v.d.path, seg, st, w)
}

// span renders a hunk's range of lines as diff does: an empty range names
// the line before it.
func span(start, count int) string {
	if count == 0 {
		start--
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// padTo pads a drawn string with spaces to width w.
func padTo(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// breaks returns the byte offsets at which text is cut into rows of at
// most w columns; the first is always 0, so an empty text is one row.
func breaks(text string, w int) []int {
	out := []int{0}
	if len(text) <= w {
		// No character is wider than the bytes it takes.
		return out
	}
	col := 0
	g := uniseg.NewGraphemes(text)
	for g.Next() {
		cw := g.Width()
		if col+cw > w && col > 0 {
			start, _ := g.Positions()
			out = append(out, start)
			col = 0
		}
		col += cw
	}
	return out
}

// segments cuts text at the offsets breaks returned.
func segments(text string, at []int) []string {
	out := make([]string, len(at))
	for i, start := range at {
		end := len(text)
		if i+1 < len(at) {
			end = at[i+1]
		}
		out[i] = text[start:end]
	}
	return out
}

// size renders a byte count: "512 B", "3.2 KiB".
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1024), ".0") + " KiB"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1024*1024)), ".0") + " MiB"
}
