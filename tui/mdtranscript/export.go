// Package mdtranscript writes a console session's transcript as Markdown: the goal
// and every later input, the model's thinking and text, each call with its
// arguments, what became of it and a preview of its result, notices, each
// outcome, and the session's usage.
//
// A Log is fed the session's runtime events, the same stream the console
// draws, and keeps only what the export needs: arguments and results are
// bounded as they arrive, so a long session costs little memory. Everything
// in the export comes from outside agenttui, so it is sanitised (a file that
// is later printed in a terminal cannot drive it) and redacted (secrets
// never reach a file).
package mdtranscript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Bounds on what a Log keeps of each call.
const (
	// MaxArgs is how many bytes of a call's arguments are kept.
	MaxArgs = 4000
	// MaxResultLines and MaxResultBytes bound a result's preview.
	MaxResultLines = 20
	MaxResultBytes = 2000
)

// Log is what an export needs of a session, gathered from its events. It is
// not safe for concurrent use; the console feeds it on its own goroutine.
type Log struct {
	// Session, Model and Workspace head the export.
	Session, Model, Workspace string

	entries []entry
	// turns finds the calls of a turn, for the events that follow its
	// reply.
	turns map[int]*callsEntry
	// partial and partialThinking are the text and thinking of the reply
	// being streamed, kept in case the run ends before the reply is
	// complete.
	partial, partialThinking strings.Builder
	runs                     int
	refused                  bool
	// usage is the session's tokens and cost, as last reported; nil until
	// the model reports any. turnUsage is the usage of turn usageTurn,
	// which comes just before the turn's reply.
	usage     *model.Usage
	turnUsage model.Usage
	usageTurn int
}

// entry is one block of the export.
type entry interface{ write(w *writer) }

// New returns an empty Log.
func New() *Log { return &Log{turns: map[int]*callsEntry{}} }

// Add takes one event of the session into the Log.
func (l *Log) Add(e runtime.Event) {
	switch ev := e.(type) {
	case runtime.RunStarted:
		if ev.Model != "" {
			l.Model = ev.Model
		}
		if ev.Session != "" && l.Session == "" {
			l.Session = ev.Session
		}
		label := "Follow-up"
		switch {
		case ev.Resumed:
			l.entries = append(l.entries, noteEntry{text: "The session was resumed here and carried on where it stopped."})
			return
		case l.runs == 0:
			label = "Goal"
		case l.refused:
			label = "Answer"
		}
		l.runs++
		l.entries = append(l.entries, inputEntry{label: label, text: ev.Input})
	case runtime.TurnStarted:
		l.partial.Reset()
		l.partialThinking.Reset()
	case runtime.TextDelta:
		if l.partial.Len() < MaxResultBytes*8 {
			l.partial.WriteString(ev.Text)
		}
	case runtime.ThinkingDelta:
		if l.partialThinking.Len() < MaxResultBytes*8 {
			l.partialThinking.WriteString(ev.Text)
		}
	case runtime.UsageReported:
		total := ev.Total
		l.usage, l.turnUsage, l.usageTurn = &total, ev.Usage, ev.Turn
	case runtime.ReplyReceived:
		l.partial.Reset()
		l.partialThinking.Reset()
		tokens := 0
		if l.usageTurn == ev.Turn {
			tokens = l.turnUsage.ReasoningTokens
		}
		th := thinkingOf(ev.Reasoning, tokens)
		if strings.TrimSpace(ev.Text) != "" || th != nil {
			l.entries = append(l.entries, textEntry{turn: ev.Turn, text: ev.Text, thinking: th})
		}
		if len(ev.Calls) == 0 && ev.Cut == nil {
			return
		}
		c := &callsEntry{turn: ev.Turn}
		for _, pc := range ev.Calls {
			args := string(pc.Args)
			if pc.Raw != "" {
				args = pc.Raw
			}
			c.calls = append(c.calls, &call{index: pc.Index, name: pc.Name, args: bound(prettyJSON(args), MaxArgs)})
		}
		if ev.Cut != nil {
			c.cut = ev.Cut.Name
		}
		l.turns[ev.Turn] = c
		l.entries = append(l.entries, c)
	case runtime.InvalidReply:
		if c := l.turns[ev.Turn]; c != nil {
			c.invalid = true
			for i, r := range ev.Results {
				if i < len(c.calls) {
					c.calls[i].outcome = "not run"
					c.calls[i].result = preview(r)
				}
			}
		}
	case runtime.CallDecision:
		if cl := l.call(ev.Turn, ev.Index); cl != nil {
			cl.decision = fmt.Sprintf("%s (%s)", ev.Decision, ev.By)
			if ev.Edited {
				cl.decision += ", with the person's edit"
			}
		}
	case runtime.CallFinished:
		if cl := l.call(ev.Turn, ev.Index); cl != nil {
			cl.outcome = ev.Outcome
			if words, ok := tool.ProcessEnd(ev.Code); ok {
				cl.outcome += ": " + words
			} else if ev.Kind != nil {
				cl.outcome += ": " + *ev.Kind
			}
			if ev.NotFinished {
				cl.outcome += ", did not finish"
			}
			cl.durationMS = ev.DurationMS
			cl.result = preview(ev.Result)
		}
	case runtime.Notice:
		l.entries = append(l.entries, noteEntry{text: ev.Level + ": " + ev.Text})
	case runtime.RunFinished:
		var th *thinking
		if s := strings.TrimSpace(l.partialThinking.String()); s != "" {
			th = &thinking{text: s}
		}
		if text := l.partial.String(); strings.TrimSpace(text) != "" || th != nil {
			if strings.TrimSpace(text) != "" {
				text += "\n\n"
			}
			l.entries = append(l.entries, textEntry{text: text + "*(the reply was cut off here)*", thinking: th})
		}
		l.partial.Reset()
		l.partialThinking.Reset()
		if ev.Usage != nil {
			total := *ev.Usage
			l.usage = &total
		}
		l.refused = ev.Outcome.Status == runtime.StatusRefused
		l.entries = append(l.entries, outcomeEntry{o: ev.Outcome})
	}
}

// call returns the call of turn at index, if the Log has it.
func (l *Log) call(turn, index int) *call {
	c := l.turns[turn]
	if c == nil {
		return nil
	}
	for _, cl := range c.calls {
		if cl.index == index {
			return cl
		}
	}
	return nil
}

// Empty reports whether nothing has happened in the session yet.
func (l *Log) Empty() bool { return len(l.entries) == 0 }

// Markdown returns the export, with every secret red knows (or has the shape
// of) redacted; at is the time it is made.
func (l *Log) Markdown(red *redact.Redactor, at time.Time) string {
	w := &writer{red: red}
	title := "agenttui session"
	if l.Session != "" {
		title += " " + w.clean(l.Session)
	}
	w.printf("# %s\n\n", title)
	if l.Workspace != "" {
		w.printf("- Workspace: `%s`\n", w.clean(l.Workspace))
	}
	if l.Model != "" {
		w.printf("- Model: `%s`\n", w.clean(l.Model))
	}
	if l.usage != nil && l.usage.Tokens() > 0 {
		w.printf("- Usage: %s\n", l.usage.String())
	}
	w.printf("- Exported: %s\n", at.Format("2006-01-02 15:04:05 MST"))
	for _, e := range l.entries {
		w.b.WriteString("\n")
		e.write(w)
	}
	return w.b.String()
}

// writer builds the export, cleaning every untrusted string it is given.
type writer struct {
	b   strings.Builder
	red *redact.Redactor
}

func (w *writer) printf(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

// clean makes untrusted text safe to keep: redacted, and sanitised so the
// file cannot drive a terminal it is printed in.
func (w *writer) clean(s string) string { return sanitize.Text(w.red.String(s)) }

// block writes text as a fenced block in language lang, with a fence longer
// than any run of backticks in the text.
func (w *writer) block(lang, text string) {
	text = strings.TrimRight(w.clean(text), "\n")
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	w.printf("%s%s\n%s\n%s\n", fence, lang, text, fence)
}

// quote writes text as a block quote.
func (w *writer) quote(text string) {
	for _, line := range strings.Split(strings.TrimRight(w.clean(text), "\n"), "\n") {
		w.printf(">%s\n", strings.TrimRight(" "+line, " "))
	}
}

// inputEntry is what the person typed: the goal, an answer or a follow-up.
type inputEntry struct{ label, text string }

func (e inputEntry) write(w *writer) {
	w.printf("## %s\n\n", e.label)
	w.quote(e.text)
}

// textEntry is the model's text, which is Markdown already, and the
// thinking before it, if any.
type textEntry struct {
	turn     int
	text     string
	thinking *thinking
}

func (e textEntry) write(w *writer) {
	if e.turn > 0 {
		w.printf("### Turn %d\n\n", e.turn)
	}
	if e.thinking != nil {
		e.thinking.write(w)
		if strings.TrimSpace(e.text) != "" {
			w.printf("\n")
		}
	}
	if text := strings.TrimSpace(w.clean(e.text)); text != "" {
		w.printf("%s\n", text)
	}
}

// thinking is what the model reasoned before a reply: its readable text,
// or nothing when the provider hid it, and the tokens it took when known.
type thinking struct {
	text   string
	tokens int
}

// thinkingOf returns the thinking of a reply's reasoning parts, with
// turnTokens (the turn's reasoning tokens, zero when not known) when the
// parts do not count their own; nil when there was none.
func thinkingOf(parts []model.Reasoning, turnTokens int) *thinking {
	var texts []string
	th, payload := &thinking{}, false
	for _, p := range parts {
		if s := strings.TrimSpace(p.Text); s != "" {
			texts = append(texts, s)
		}
		th.tokens += p.Tokens
		payload = payload || p.Hidden()
	}
	th.text = strings.Join(texts, "\n\n")
	if th.tokens == 0 {
		th.tokens = turnTokens
	}
	if th.text == "" && !payload && th.tokens == 0 {
		return nil
	}
	return th
}

// write writes the thinking as a quote headed "Thinking", so it reads
// apart from the reply; the head says when the provider hid it.
func (t *thinking) write(w *writer) {
	head := "**Thinking**"
	if t.text == "" {
		head += " · reasoning hidden by the provider"
	}
	if t.tokens > 0 {
		head += " · " + model.CountTokens(t.tokens) + " tokens"
	}
	w.printf("> %s\n", head)
	if t.text != "" {
		w.printf(">\n")
		w.quote(t.text)
	}
}

// callsEntry is a reply's calls.
type callsEntry struct {
	turn    int
	calls   []*call
	invalid bool
	cut     string
}

// call is one call and what became of it.
type call struct {
	index      int
	name, args string
	decision   string
	outcome    string
	durationMS int64
	result     string
}

func (e *callsEntry) write(w *writer) {
	w.printf("#### Calls of turn %d\n", e.turn)
	if e.invalid {
		w.printf("\nThe reply was invalid, so none of its calls ran.\n")
	}
	if e.cut != "" {
		w.printf("\nThe reply was cut off by the output limit inside a call to `%s`.\n", w.clean(e.cut))
	}
	for _, c := range e.calls {
		outcome := c.outcome
		if outcome == "" {
			outcome = "no outcome recorded"
		}
		w.printf("\n**#%d `%s`** · %s", c.index+1, w.clean(c.name), w.clean(outcome))
		if c.durationMS > 0 {
			w.printf(" · %s", (time.Duration(c.durationMS) * time.Millisecond).String())
		}
		if c.decision != "" {
			w.printf(" · decision: %s", w.clean(c.decision))
		}
		w.printf("\n\nArguments:\n\n")
		w.block("json", c.args)
		if c.result != "" {
			w.printf("\nResult:\n\n")
			w.block("text", c.result)
		}
	}
}

// noteEntry is a notice from agenttui or a tool server.
type noteEntry struct{ text string }

func (e noteEntry) write(w *writer) { w.printf("*%s*\n", strings.TrimSpace(w.clean(e.text))) }

// outcomeEntry is how a run ended.
type outcomeEntry struct{ o runtime.GoalOutcome }

func (e outcomeEntry) write(w *writer) {
	o := e.o
	switch o.Status {
	case runtime.StatusSucceeded:
		w.printf("### Outcome: succeeded\n\n")
		w.quote(o.Summary)
		if data := strings.TrimSpace(string(o.ExtractedData)); data != "" && data != "null" {
			w.printf("\nExtracted data:\n\n")
			w.block("json", prettyJSON(data))
		}
	case runtime.StatusFailed:
		w.printf("### Outcome: failed\n\n")
		w.printf("- Goal: %s\n- Failing step: %s\n", oneLine(w.clean(o.FailingSubGoal)), oneLine(w.clean(o.FailingStep)))
		for _, a := range o.Attempts {
			w.printf("- Attempt: %s\n", oneLine(w.clean(a)))
		}
	default:
		w.printf("### Outcome: the agent asks a question\n\n")
		w.quote(o.Summary)
	}
}

// oneLine joins the lines of s.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// prettyJSON indents s when it is JSON and returns it unchanged otherwise.
func prettyJSON(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

// bound cuts s to at most n bytes, at a rune boundary, saying how much was
// left out.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… (%s)", plural.Of(len(s)-cut, "more byte"))
}

// utf8Start reports whether b begins a UTF-8 sequence.
func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

// preview returns the first lines of a result, saying how many more there
// were.
func preview(s string) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	more := 0
	if len(lines) > MaxResultLines {
		more = len(lines) - MaxResultLines
		lines = lines[:MaxResultLines]
	}
	out := bound(strings.Join(lines, "\n"), MaxResultBytes)
	if more > 0 {
		out += fmt.Sprintf("\n… (%s)", plural.Of(more, "more line"))
	}
	return out
}
