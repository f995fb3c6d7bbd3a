package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// hyphenated is prose with hyphens, as a model writes it: the demo's reply
// that used to be wrapped twice at 80 columns ("…the README can" / "be" /
// "read meanwhile.").
var hyphenated = []string{
	"My edit was malformed. Re-reading pager.go before editing it; the README can be read meanwhile.",
	"A well-known, long-standing off-by-one: the last page of a forty-five-item list at twenty-a-page was dropped, and a re-run of the up-to-date tests shows it.",
}

// TestParagraphsWrapOnce checks that a paragraph, a heading and a quoted
// paragraph are wrapped once, at spaces: no line is wider than the width,
// and no line could have taken the first word of the next. A line that a
// paragraph's wrapping let run past the width, and that was then wrapped
// again, leaves a short line behind that fails the second.
func TestParagraphsWrapOnce(t *testing.T) {
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.TrueColor} {
		r := New(p, true)
		for _, prose := range hyphenated {
			for _, doc := range []struct{ md, lead string }{{prose, ""}, {"## " + prose, "## "}, {"> " + prose, "│ "}} {
				for width := 30; width <= 120; width++ {
					wrappedOnce(t, r.Render(doc.md, width), doc.lead, width)
				}
			}
		}
	}
}

// wrappedOnce fails t unless lines, drawn at width with lead before each
// (a heading's mark on the first only, a quote's on every one), are
// wrapped once at spaces.
func wrappedOnce(t *testing.T, lines []string, lead string, width int) {
	t.Helper()
	plain := plainLines(lines)
	for i, l := range plain {
		l = strings.TrimRight(l, " ")
		if w := ansi.StringWidth(l); w > width {
			t.Fatalf("width %d: line %d is %d wide: %q", width, i+1, w, plain)
		}
		if i+1 == len(plain) {
			break
		}
		// Without colour, a quote is marked "| " rather than "│ ".
		next := strings.TrimSpace(plain[i+1])
		next = strings.TrimPrefix(strings.TrimPrefix(next, strings.TrimSpace(lead)), "|")
		first, _, _ := strings.Cut(strings.TrimSpace(next), " ")
		if ansi.StringWidth(l)+1+ansi.StringWidth(first) <= width {
			t.Fatalf("width %d: %q could have taken %q from the next line: wrapped twice?\n%s", width, l, first, strings.Join(plain, "\n"))
		}
	}
}

// TestGlamourWrapsTwice shows what the renderer does better than glamour:
// glamour lets the demo's reply run past 78 columns and wraps it again,
// which the check above sees.
func TestGlamourWrapsTwice(t *testing.T) {
	p := newPair(look{termenv.Ascii, true})
	got := p.glamour.Render(hyphenated[0], 78)
	if len(got) != 3 || strings.TrimSpace(got[1]) != "be" {
		t.Fatalf("glamour draws %q", got)
	}
	if ours := New(termenv.Ascii, true).Render(hyphenated[0], 78); len(ours) != 2 {
		t.Fatalf("the renderer draws %q", ours)
	}
}
