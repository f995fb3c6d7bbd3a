package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/markdown"
)

// User is something the person typed: a goal, an answer or a follow-up.
type User struct {
	// Label says which ("goal", "answer", "you"); Text is what they
	// typed, clean.
	Label, Text string
}

func (u User) lines(width int, st *text.Styles) []string {
	prefix := u.Label + " › "
	lines := text.Indent(u.Text, strings.Repeat(" ", ansi.StringWidth(prefix)), width)
	lines[0] = st.Bold.Render(prefix) + st.Bold.Render(strings.TrimLeft(lines[0], " "))
	return append([]string{""}, lines...)
}

// ModelText is a reply's text: a complete reply's as Markdown (Doc), or the
// clean, plain text of a reply the run ended in the middle of (Plain).
type ModelText struct {
	Doc   *markdown.Doc
	Plain string
}

func (m ModelText) lines(width int, st *text.Styles) []string {
	if m.Doc == nil {
		return modelLines(st, m.Plain, width)
	}
	md := m.Doc.Lines(max(1, width-2))
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

// GroupRow is one call of a finished reply, drawn on one line.
type GroupRow struct {
	// Sym is the symbol of the call's state; Text says the rest, clean,
	// on one line; Bad draws the symbol as a warning.
	Sym  string
	Text string
	Bad  bool
	// change is the head of the file change the call made, if it made one.
	change *snippet
}

// Group is a finished reply's calls, one line each with its outcome.
type Group struct {
	// Head says which turn, how many calls and the tokens used; Rows are
	// the calls.
	Head string
	Rows []GroupRow
}

func (g Group) lines(width int, st *text.Styles) []string {
	out := []string{st.Dim.Render(text.Cut("  "+g.Head, width))}
	for _, r := range g.Rows {
		style := st.OK.Render
		if r.Bad {
			style = st.Warn.Render
		}
		out = append(out, "    "+style(r.Sym)+" "+text.Cut(r.Text, width-6))
		if r.change != nil {
			out = append(out, r.change.lines(st, "      ", width)...)
		}
	}
	return out
}

// NewGroup records the calls of a reply whose turn has ended, with the
// tokens the turn used when the model reported them; paths are shown
// relative to the workspace ws.
func NewGroup(r *callview.Reply, ws string, used model.Usage) Group {
	g := Group{Head: fmt.Sprintf("turn %d · %d call(s)", r.Turn, len(r.Calls))}
	if used.InputTokens+used.OutputTokens > 0 {
		g.Head += " · " + text.Tokens(used)
	}
	if r.Invalid {
		g.Head += " · invalid reply: nothing ran"
		if r.Cut != "" {
			g.Head += fmt.Sprintf(" (cut off inside a call to %s)", r.Cut)
		}
	}
	for _, c := range r.Calls {
		state, _ := r.StateText(c, ws, "")
		sym, rest, _ := strings.Cut(state, " ")
		num := fmt.Sprintf("#%d", c.Index+1)
		if c.HasOrigins() {
			// The call's arguments came in part from an untrusted
			// result; the mark stays with it once its turn has ended.
			num += " " + callview.SymOrigin
		}
		row := fmt.Sprintf("%s %s %s · %s", num, c.Name, text.Cut(c.ArgsText(), 40), rest)
		g.Rows = append(g.Rows, GroupRow{Sym: sym, Text: row, Bad: r.State(c) != callview.StateSucceeded, change: snippetOf(c)})
	}
	return g
}

// Note is a line from the console itself, such as a notice.
type Note struct {
	// Text is what it says, clean; Warn draws it as a warning.
	Text string
	Warn bool
}

func (n Note) lines(width int, st *text.Styles) []string {
	style := st.Dim.Render
	if n.Warn {
		style = st.Warn.Render
	}
	lines := text.Indent(n.Text, "  ", width)
	for i, l := range lines {
		lines[i] = style(l)
	}
	return lines
}

// Outcome is how a run ended. Task says the run is a task's, whose
// question goes to the agent that started it rather than to the person.
type Outcome struct {
	O    runtime.GoalOutcome
	Task bool
}

func (o Outcome) lines(width int, st *text.Styles) []string {
	out := []string{""}
	lines := outcomeText(o.O)
	if o.Task && o.O.Status == runtime.StatusRefused && len(lines) > 0 {
		lines[0].text = text.SymAsk + " The task's agent asks a question (the agent that started the task reads it):"
	}
	for i, l := range lines {
		switch {
		case i == 0 && o.O.Status == runtime.StatusSucceeded:
			out = append(out, st.OK.Render(text.Cut(l.text, width)))
		case i == 0 && o.O.Status == runtime.StatusFailed:
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

// Discarded is the text a failed attempt streamed before it failed. It
// stays in view, struck through and dimmed under a ✗, so the person sees
// what was thrown away; the model never reads it. The retry line after it
// says so in words, for terminals without styles.
type Discarded struct{ Text string } // clean

func (d Discarded) lines(width int, st *text.Styles) []string {
	lines := text.Indent(strings.TrimRight(d.Text, "\n"), "  ", width)
	for i, l := range lines {
		lead := "  "
		if i == 0 {
			lead = st.Dim.Render(text.SymErr) + " "
		}
		lines[i] = lead + st.Discarded.Render(strings.TrimPrefix(l, "  "))
	}
	return lines
}

// transcriptDiffLines is how much of a finished change the transcript
// keeps under its call.
const transcriptDiffLines = 8

// snippet is the head of a finished change that the transcript keeps.
type snippet struct {
	diff *diffview.Diff
	left int
}

// snippetOf returns the head of c's change for the transcript, or nil.
func snippetOf(c *callview.Call) *snippet {
	if c.Outcome != "success" {
		return nil
	}
	d := c.Change.TextDiff()
	if d == nil || d.Empty() {
		return nil
	}
	h, left := d.Head(transcriptDiffLines)
	return &snippet{diff: h, left: left}
}

// lines draws the snippet at width, indented by prefix.
func (s *snippet) lines(st *text.Styles, prefix string, width int) []string {
	v := s.diff.Layout(width-len(prefix), diffview.Unified, text.DiffStyle())
	var out []string
	for _, l := range v.Lines(0, v.Len()) {
		out = append(out, prefix+l)
	}
	if s.left > 0 {
		out = append(out, st.Dim.Render(text.Cut(fmt.Sprintf("%s… %s of this change", prefix, text.Plural(s.left, "more line")), width)))
	}
	return out
}
