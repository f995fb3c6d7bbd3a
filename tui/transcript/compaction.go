package transcript

import (
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// Compaction is a compaction in the transcript: one line saying how much of
// the conversation a summary replaced, which expands (Enter in the
// transcript) to show the summary. Only the model's view was compacted: the
// transcript above it stays as it was.
type Compaction struct {
	ev runtime.Compacted
	// summary is the model's summary, clean.
	summary string
	// open is shared by every copy of the item, so toggling it reaches the
	// one the transcript holds.
	open *bool
}

// NewCompaction returns the transcript's line for the compaction ev.
func NewCompaction(ev runtime.Compacted) Compaction {
	return Compaction{ev: ev, summary: text.Clean(ev.Summary), open: new(bool)}
}

func (c Compaction) lines(width int, st *text.Styles) []string {
	what := map[string]string{"auto": "", "overflow": " after the provider refused a request as too long", "manual": " as you asked"}[c.ev.Reason]
	head := fmt.Sprintf("⇣ context compacted%s: %s → summary of %s tokens", what, text.Plural(c.ev.Replies, "turn"), text.Count(tokensOfText(c.summary)))
	if c.ev.Window > 0 {
		head += fmt.Sprintf(" · ctx %d%% → %d%%", c.ev.TokensBefore*100/c.ev.Window, c.ev.TokensAfter*100/c.ev.Window)
	}
	if !*c.open {
		out := []string{""}
		out = append(out, st.Accent.Render(text.Cut("  "+head, width)))
		out = append(out, st.Dim.Render(text.Cut("    the transcript above is unchanged; enter in the transcript shows the summary the model now reads", width)))
		return out
	}
	out := []string{"", st.Accent.Render(text.Cut("  "+head, width))}
	for _, l := range text.Indent(c.summary, "    "+text.SymQuote, width) {
		out = append(out, "    "+st.Dim.Render(text.SymQuote)+strings.TrimPrefix(l, "    "+text.SymQuote))
	}
	return out
}

// CompactWhy says why a compaction started, for the live line.
func CompactWhy(ev runtime.CompactionStarted) string {
	switch ev.Reason {
	case "overflow":
		return "the provider refused the request as too long"
	case "manual":
		return "as you asked"
	}
	if ev.Window > 0 {
		return fmt.Sprintf("ctx %d%%", ev.Tokens*100/ev.Window)
	}
	return "it grew too long"
}

// tokensOfText estimates the tokens of text, at four bytes a token.
func tokensOfText(s string) int { return (len(s) + 3) / 4 }

// ToggleCompactions opens or closes every compaction's summary, and
// reports whether there was any.
func (t *Model) ToggleCompactions() bool {
	found := false
	for _, e := range t.items {
		if c, ok := e.it.(Compaction); ok {
			*c.open = !*c.open
			e.width = -1
			found = true
		}
	}
	return found
}
