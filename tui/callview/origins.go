package callview

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// SymOrigin marks a call with arguments that came, in part, from an
// untrusted result earlier in the session: on its board row, its line in
// the transcript and its lines in the detail pane. It is a symbol, not a
// colour, so it reads under NO_COLOR.
const SymOrigin = "⚠"

// HasOrigins reports whether part of c's arguments came from an untrusted
// result earlier in the session.
func (c *Call) HasOrigins() bool { return c != nil && len(c.Origins) > 0 }

// addOrigins records origins the runtime reported for c, once each: the
// planned call, its decisions and its approval request may all say them.
func (c *Call) addOrigins(origins []tool.Origin) {
	for _, o := range origins {
		if !slices.ContainsFunc(c.Origins, func(x tool.Origin) bool { return sameOrigin(x, o) }) {
			o.Task = slices.Clone(o.Task)
			c.Origins = append(c.Origins, o)
		}
	}
}

func sameOrigin(a, b tool.Origin) bool {
	return a.Argument == b.Argument && a.Start == b.Start && a.End == b.End && a.Turn == b.Turn && a.Index == b.Index &&
		a.Tool == b.Tool && a.Source == b.Source && slices.Equal(a.Task, b.Task)
}

// Span is a part of an argument's value, in bytes: [Start, End).
type Span struct{ Start, End int }

// Marked is one argument of a call with parts that came from untrusted
// results, as the detail pane shows it.
type Marked struct {
	// Argument names it as the runtime did ("command", "/files/0/path"),
	// clean; Words say how much of it came from where, clean:
	// "command: 38 characters from web_fetch #1 of turn 3 (web:evil.example)".
	Argument, Words string
	// Value is the argument's string value as the model sent it, raw: it
	// is cleaned where it is drawn. Found is false when the arguments hold
	// no string under that name.
	Value string
	Found bool
	// Spans are the parts of Value that came from untrusted results,
	// sorted, merged where they touch, within Value and on its runes'
	// boundaries (a span that starts or ends inside a rune takes the
	// whole rune).
	Spans []Span
}

// Marked returns c's arguments that carry text from untrusted results, in
// the order the runtime first named them.
func (c *Call) Marked() []Marked {
	if !c.HasOrigins() {
		return nil
	}
	var args []string
	by := map[string][]tool.Origin{}
	for _, o := range c.Origins {
		if _, seen := by[o.Argument]; !seen {
			args = append(args, o.Argument)
		}
		by[o.Argument] = append(by[o.Argument], o)
	}
	var root any
	parsed := json.Unmarshal(c.Args, &root) == nil
	out := make([]Marked, 0, len(args))
	for _, a := range args {
		m := Marked{Argument: text.CleanLine(a), Words: text.CleanLine(approval.DescribeOrigins(by[a]))}
		if parsed {
			m.Value, m.Found = argument(root, a)
		}
		if m.Found {
			for _, o := range by[a] {
				if s, ok := ClampSpan(m.Value, o.Start, o.End); ok {
					m.Spans = append(m.Spans, s)
				}
			}
			m.Spans = mergeSpans(m.Spans)
		}
		out = append(out, m)
	}
	return out
}

// OriginSources names the sources origins came from, each once, for a
// board row: "web:evil.example, mcp:fs/read". It is clean.
func OriginSources(origins []tool.Origin) string {
	var sources []string
	for _, o := range origins {
		if !slices.Contains(sources, o.Source) {
			sources = append(sources, o.Source)
		}
	}
	return text.CleanLine(strings.Join(sources, ", "))
}

// argument returns the string value of the argument a names in the call's
// arguments root: a top-level name, or a JSON pointer ("/files/0/path").
func argument(root any, a string) (string, bool) {
	v := root
	if rest, ok := strings.CutPrefix(a, "/"); ok {
		for _, tok := range strings.Split(rest, "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch x := v.(type) {
			case map[string]any:
				if v, ok = x[tok]; !ok {
					return "", false
				}
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) || tok != strconv.Itoa(i) {
					return "", false
				}
				v = x[i]
			default:
				return "", false
			}
		}
	} else {
		obj, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		if v, ok = obj[a]; !ok {
			return "", false
		}
	}
	s, ok := v.(string)
	return s, ok
}

// ClampSpan fits the byte span [start, end) to s: within it, and widened
// to whole runes where it starts or ends inside one. ok is false when
// nothing of s is in it.
func ClampSpan(s string, start, end int) (Span, bool) {
	start = max(0, min(start, len(s)))
	end = max(start, min(end, len(s)))
	if end == start {
		return Span{start, end}, false
	}
	for start > 0 && start < len(s) && !utf8.RuneStart(s[start]) {
		start--
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	return Span{start, end}, true
}

// mergeSpans sorts spans and merges those that overlap or touch.
func mergeSpans(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
	var out []Span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}
