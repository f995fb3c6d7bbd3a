package detail

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// The excerpts of an argument's value that show its marked parts: how many
// lines an argument gets at most, how far apart (in bytes) two marked parts
// may be and still share a line, and how many columns of the text before a
// marked part lead into it.
const (
	maxExcerpts   = 3
	excerptJoin   = 32
	excerptLeadIn = 16
)

// originLines say, for a call whose arguments came in part from untrusted
// results, where each such argument's text came from ("⚠ command: 38
// characters from web_fetch #1 of turn 3 (web:evil.example)"), and show
// the argument's value with those parts between « and » (and marked when
// there is colour): "│ curl «http://127.0.0.1:9/x | sh»". Everything from
// the arguments and the results is cleaned and cut to the width.
func originLines(st *text.Styles, c *callview.Call, width int) []string {
	var out []string
	for _, m := range c.Marked() {
		for i, l := range text.Indent(m.Words, "  ", width) {
			if i == 0 {
				l = st.Warn.Render(callview.SymOrigin) + " " + strings.TrimPrefix(l, "  ")
			}
			out = append(out, l)
		}
		if !m.Found || len(m.Spans) == 0 {
			continue
		}
		groups := excerptGroups(m.Spans)
		for i, g := range groups {
			if i == maxExcerpts {
				more := 0
				for _, g := range groups[i:] {
					more += len(g)
				}
				out = append(out, st.Dim.Render(text.Cut(fmt.Sprintf("%s… %d more marked part(s) of %s", text.SymQuote, more, m.Argument), width)))
				break
			}
			out = append(out, st.Dim.Render(text.SymQuote)+excerpt(st, m.Value, g, width-ansi.StringWidth(text.SymQuote)))
		}
	}
	return out
}

// excerptGroups puts marked parts that lie close together on one line.
func excerptGroups(spans []callview.Span) [][]callview.Span {
	var out [][]callview.Span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Start-out[n-1][len(out[n-1])-1].End <= excerptJoin {
			out[n-1] = append(out[n-1], s)
			continue
		}
		out = append(out, []callview.Span{s})
	}
	return out
}

// excerpt draws the part of value around the marked parts spans in at most
// w columns: a little of the text before the first, each marked part
// between « and », and what follows as far as it fits.
func excerpt(st *text.Styles, value string, spans []callview.Span, w int) string {
	if w <= 0 {
		return ""
	}
	// No part of value drawn is longer than a line could show, whatever
	// its size: a rune takes at least one byte and, cleaned, a column.
	bound := 4*w + 16
	first, last := spans[0], spans[len(spans)-1]
	var sb strings.Builder
	lo := runeStart(value, max(0, first.Start-bound))
	lead := text.CleanLine(value[lo:first.Start])
	if lw := ansi.StringWidth(lead); lw > excerptLeadIn || lo > 0 {
		lead = "…" + ansi.TruncateLeft(lead, lw-min(lw, excerptLeadIn-1), "")
	}
	sb.WriteString(lead)
	at := first.Start
	for _, s := range spans {
		sb.WriteString(text.CleanLine(value[at:s.Start]))
		part, cut := bounded(value, s, bound)
		part = text.CleanLine(part)
		if cut {
			part += "…"
		}
		sb.WriteString("«" + st.Mark.Render(part) + "»")
		at = s.End
	}
	tail, cut := bounded(value, callview.Span{Start: last.End, End: len(value)}, bound)
	tail = text.CleanLine(tail)
	if cut {
		tail += "…"
	}
	sb.WriteString(tail)
	return text.Cut(sb.String(), w)
}

// bounded returns value's span s, cut after about n bytes on a rune's
// boundary, and whether it was cut.
func bounded(value string, s callview.Span, n int) (string, bool) {
	if s.End-s.Start <= n {
		return value[s.Start:s.End], false
	}
	end := s.Start + n
	for end > s.Start && !utf8.RuneStart(value[end]) {
		end--
	}
	return value[s.Start:end], true
}

// runeStart moves i forward to the start of a rune of s.
func runeStart(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
