package render

import (
	"bytes"
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/muesli/reflow/indent"
	east "github.com/yuin/goldmark/extension/ast"
)

// tabular is the table being drawn: lipgloss lays it out once its cells,
// each drawn on its own, are all there.
type tabular struct {
	node        *east.Table
	t           *table.Table
	header, row []string
}

// openTable starts table n, to be written into w, the innermost block's
// text, at the width left there.
func (st *state) openTable(w io.Writer, n *east.Table) {
	rules := st.cfg.Table
	top := st.top().style.Primitive
	iw := indent.NewWriterPipe(w, rules.Indent+rules.Margin, func(io.Writer) {
		st.paint(w, top, " ")
	})
	st.paint(iw, top, rules.BlockPrefix)
	st.paint(iw, st.with(rules.Primitive), rules.Prefix)
	st.table = &tabular{node: n, t: table.New().Width(int(st.width())).Wrap(true)}
}

// cell draws a cell of the table, of its header when head is set.
func (st *state) cell(n *east.TableCell, head bool) {
	var b bytes.Buffer
	drawAllAs(&b, st, st.piecesOf(n), st.cfg.Table.Primitive)
	if st.table == nil {
		return
	}
	if head {
		st.table.header = append(st.table.header, b.String())
	} else {
		st.table.row = append(st.table.row, b.String())
	}
}

// endHeader adds the cells drawn since the last row to the table as its
// header.
func (st *state) endHeader() {
	if st.table != nil {
		st.table.t.Headers(st.table.header...)
		st.table.header = nil
	}
}

// endRow adds the cells drawn since the last row to the table as a row.
func (st *state) endRow() {
	if st.table != nil {
		st.table.t.Row(st.table.row...)
		st.table.row = nil
	}
}

// closeTable lays the table out and writes it into the innermost block.
func (st *state) closeTable() {
	tb := st.table
	st.table = nil
	rules := st.cfg.Table
	aligns := tb.node.Alignments
	tb.t.StyleFunc(func(_, col int) lipgloss.Style {
		s := lipgloss.NewStyle().Inline(false).Margin(0, 1)
		if rules.Margin > 0 {
			s = s.Padding(0, int(rules.Margin))
		}
		switch aligns[col] {
		case east.AlignLeft:
			s = s.Align(lipgloss.Left).PaddingRight(0)
		case east.AlignCenter:
			s = s.Align(lipgloss.Center)
		case east.AlignRight:
			s = s.Align(lipgloss.Right).PaddingLeft(0)
		}
		return s
	})
	border := lipgloss.NormalBorder()
	if rules.RowSeparator != "" && rules.ColumnSeparator != "" {
		border = lipgloss.Border{
			Top:    rules.RowSeparator,
			Bottom: rules.RowSeparator,
			Left:   rules.ColumnSeparator,
			Right:  rules.ColumnSeparator,
			Middle: rules.CenterSeparator,
		}
	}
	tb.t.Border(border).BorderTop(false).BorderLeft(false).BorderRight(false).BorderBottom(false)
	out := st.top().buf
	out.WriteString(tb.t.String())
	st.paint(out, st.with(rules.Primitive), rules.Suffix)
	st.paint(out, st.top().style.Primitive, rules.BlockSuffix)
}
