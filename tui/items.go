package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/markdown"
)

// userItem is something the person typed: a goal, an answer or a follow-up.
type userItem struct {
	label, text string // text is clean
}

func (u userItem) lines(width int) []string {
	prefix := u.label + " › "
	lines := text.Indent(u.text, strings.Repeat(" ", ansi.StringWidth(prefix)), width)
	lines[0] = st.Bold.Render(prefix) + st.Bold.Render(strings.TrimLeft(lines[0], " "))
	return append([]string{""}, lines...)
}

// modelItem is a reply's text: a complete reply's as Markdown (doc), or
// the clean, plain text of a reply the run ended in the middle of.
type modelItem struct {
	doc  *markdown.Doc
	text string
}

func (m modelItem) lines(width int) []string {
	if m.doc == nil {
		return modelLines(m.text, width)
	}
	md := m.doc.Lines(max(1, width-2))
	out := make([]string, len(md))
	for i, l := range md {
		if l != "" {
			out[i] = "  " + l
		}
	}
	// The marker sets the model's text apart from the console's own
	// lines, as it does for plain text.
	out[0] = st.Accent.Render("◆") + " " + md[0]
	return out
}

// groupRow is one call of a finished reply, drawn on one line.
type groupRow struct {
	sym  string
	text string // clean, one line
	bad  bool
	// change is the head of the file change the call made, if it made one.
	change *snippet
}

// groupItem is a finished reply's calls, one line each with its outcome.
type groupItem struct {
	head string
	rows []groupRow
}

func (g groupItem) lines(width int) []string {
	out := []string{st.Dim.Render(text.Cut("  "+g.head, width))}
	for _, r := range g.rows {
		style := st.OK.Render
		if r.bad {
			style = st.Warn.Render
		}
		out = append(out, "    "+style(r.sym)+" "+text.Cut(r.text, width-6))
		if r.change != nil {
			out = append(out, r.change.lines("      ", width)...)
		}
	}
	return out
}

// newGroup records the calls of a reply whose turn has ended, with the
// tokens the turn used when the model reported them.
func newGroup(r *callview.Reply, ws string, used model.Usage) groupItem {
	g := groupItem{head: fmt.Sprintf("turn %d · %d call(s)", r.Turn, len(r.Calls))}
	if used.InputTokens+used.OutputTokens > 0 {
		g.head += " · " + text.Tokens(used)
	}
	if r.Invalid {
		g.head += " · invalid reply: nothing ran"
		if r.Cut != "" {
			g.head += fmt.Sprintf(" (cut off inside a call to %s)", r.Cut)
		}
	}
	for _, c := range r.Calls {
		state, _ := r.StateText(c, ws, "")
		st := r.State(c)
		sym, rest, _ := strings.Cut(state, " ")
		text := fmt.Sprintf("#%d %s %s · %s", c.Index+1, c.Name, text.Cut(c.ArgsText(), 40), rest)
		g.rows = append(g.rows, groupRow{sym: sym, text: text, bad: st != callview.StateSucceeded, change: snippetOf(c)})
	}
	return g
}

// noteItem is a line from the console itself, such as a notice.
type noteItem struct {
	text string // clean
	warn bool
}

func (n noteItem) lines(width int) []string {
	style := st.Dim.Render
	if n.warn {
		style = st.Warn.Render
	}
	lines := text.Indent(n.text, "  ", width)
	for i, l := range lines {
		lines[i] = style(l)
	}
	return lines
}

// outcomeItem is how a run ended.
type outcomeItem struct{ o runtime.GoalOutcome }

func (o outcomeItem) lines(width int) []string {
	out := []string{""}
	for i, l := range outcomeText(o.o) {
		switch {
		case i == 0 && o.o.Status == runtime.StatusSucceeded:
			out = append(out, st.OK.Render(text.Cut(l.text, width)))
		case i == 0 && o.o.Status == runtime.StatusFailed:
			out = append(out, st.Err.Render(text.Cut(l.text, width)))
		case i == 0:
			out = append(out, st.Warn.Render(text.Cut(l.text, width)))
		default:
			for _, w := range text.Indent(l.text, l.prefix, width) {
				if l.prefix == "  "+text.SymQuote {
					w = "  " + st.Dim.Render(text.SymQuote) + strings.TrimPrefix(w, l.prefix)
				}
				out = append(out, w)
			}
		}
	}
	return out
}

// outcomeLineText is a line of an outcome: clean text behind a prefix.
type outcomeLineText struct{ prefix, text string }

// outcomeText lays an outcome out as lines: the first says how the run
// ended; the rest carry the summary and extracted data, the failure report,
// or the question. Every string is clean.
func outcomeText(o runtime.GoalOutcome) []outcomeLineText {
	var out []outcomeLineText
	switch o.Status {
	case runtime.StatusSucceeded:
		out = append(out, outcomeLineText{"", text.SymOK + " Succeeded"})
		out = append(out, outcomeLineText{"  ", text.Clean(o.Summary)})
		if data := strings.TrimSpace(string(o.ExtractedData)); data != "" && data != "null" {
			out = append(out, outcomeLineText{"  ", "Extracted data:"})
			var v any
			pretty := data
			if json.Unmarshal(o.ExtractedData, &v) == nil {
				b, _ := json.MarshalIndent(v, "", "  ")
				pretty = string(b)
			}
			out = append(out, outcomeLineText{"  " + text.SymQuote, text.Clean(pretty)})
		}
	case runtime.StatusFailed:
		out = append(out, outcomeLineText{"", text.SymErr + " Failed"})
		out = append(out, outcomeLineText{"  ", "Goal: " + text.Clean(o.FailingSubGoal)})
		out = append(out, outcomeLineText{"  ", "Failing step: " + text.Clean(o.FailingStep)})
		for _, a := range o.Attempts {
			out = append(out, outcomeLineText{"    ", "- " + text.CleanLine(a)})
		}
	case runtime.StatusRefused:
		out = append(out, outcomeLineText{"", text.SymAsk + " The agent asks a question (answer it in the input below):"})
		out = append(out, outcomeLineText{"  ", text.Clean(o.Summary)})
	}
	return out
}

// PlainOutcome returns the outcome as plain text for the normal screen after
// the console closes: the summary and extracted data, the failure report, or
// the question. Untrusted parts are sanitised and no styling is added.
func PlainOutcome(o runtime.GoalOutcome) string {
	var b strings.Builder
	for _, l := range outcomeText(o) {
		for _, line := range strings.Split(l.text, "\n") {
			b.WriteString(l.prefix)
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
