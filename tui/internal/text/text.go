// Package text holds what every part of the console draws with: making
// untrusted text safe for the terminal, cutting, padding and wrapping it to
// a width, the styles and symbols of the console's own lines, and the few
// ways it words numbers, durations and paths.
//
// Nothing here keeps state; every function is safe to call from any
// goroutine.
package text

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/internal/sanitize"
)

// tabWidth is the distance between tab stops when tabs in untrusted text are
// expanded: the terminal must never see a tab, whose width depends on the
// cursor position and would shift the columns of the board.
const tabWidth = 4

// Clean makes untrusted text safe to draw: escape sequences and control
// characters become visible placeholders (newlines stay) and tabs become
// spaces.
func Clean(s string) string { return expandTabs(sanitize.Text(s)) }

// CleanLine makes untrusted text safe to draw on one line: newlines become
// "⏎ " and tabs spaces.
func CleanLine(s string) string { return sanitize.Line(s) }

// expandTabs replaces each tab with the spaces up to the next tab stop,
// counting display columns from the start of each line.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col += RuneWidth(r)
		}
	}
	return b.String()
}

// RuneWidth returns the display width of r, with a fast path for ASCII.
func RuneWidth(r rune) int {
	if r < 0x80 {
		return 1
	}
	return ansi.StringWidth(string(r))
}

// Cut shortens s to at most w display columns, ending with an ellipsis when
// something was cut. s may carry the console's own styling.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	// A part already cut just before the edge ends in its own ellipsis;
	// a second one would read as a stutter.
	if head := ansi.Truncate(s, w-1, ""); strings.HasSuffix(ansi.Strip(head), "…") {
		return head
	}
	return ansi.Truncate(s, w, "…")
}

// Pad cuts s to w columns and fills it with spaces to exactly w.
func Pad(s string, w int) string {
	s = Cut(s, w)
	if n := w - ansi.StringWidth(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// Cell fits s in a column of w: cut to leave one space before the next
// column, then padded.
func Cell(s string, w int) string { return Pad(Cut(s, w-1), w) }

// Preview renders untrusted text on one line for a glance: clean, with runs
// of spaces collapsed. The exact text stays in the detail pane.
func Preview(s string) string {
	return strings.Join(strings.Fields(CleanLine(s)), " ")
}

// NoBreak is a space that wrapping never breaks at: the console's own texts
// join with it the words that must stay on one line, such as a command the
// person may copy ("agenttui" NoBreak "--model" NoBreak "openai:…"). Wrap
// draws it as an ordinary space, so what is copied from the screen is one.
const NoBreak = "\u00a0"

// Wrap breaks plain text into lines of at most w columns, once: at spaces
// where it can (never at a NoBreak, nor after a hyphen, so "--model" and
// "re-read" stay whole), and inside a word only when the word alone is
// wider than w, which then starts a line. A line's leading spaces are kept;
// the spaces where a line breaks are dropped. The text must already be
// clean.
func Wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.Contains(line, NoBreak) && ansi.StringWidth(line) <= w {
			out = append(out, line)
			continue
		}
		out = wrapLine(out, line, w)
	}
	return out
}

// wrapLine appends line, one line of clean text, wrapped to w columns, to
// out.
func wrapLine(out []string, line string, w int) []string {
	var cur strings.Builder
	curW := 0
	flush := func() {
		out = append(out, cur.String())
		cur.Reset()
		curW = 0
	}
	rest := strings.TrimLeft(line, " ")
	// The line's indentation stays in front of its first word; after
	// that, space is the run of spaces before the next word.
	space := line[:len(line)-len(rest)]
	for rest != "" {
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		word := strings.ReplaceAll(rest[:end], NoBreak, " ")
		next := strings.TrimLeft(rest[end:], " ")
		gap := rest[end : len(rest)-len(next)]
		rest = next
		wordW := ansi.StringWidth(word)
		switch {
		case curW+len(space)+wordW <= w:
			cur.WriteString(space + word)
			curW += len(space) + wordW
		case wordW <= w:
			if cur.Len() > 0 {
				flush()
			}
			cur.WriteString(word)
			curW = wordW
		default:
			// A word wider than a line starts one, and fills as many
			// as it needs, broken at the width.
			if cur.Len() > 0 {
				flush()
				space = ""
			}
			pieces := breakWord(space+word, w)
			for _, p := range pieces[:len(pieces)-1] {
				out = append(out, p)
			}
			cur.WriteString(pieces[len(pieces)-1])
			curW = ansi.StringWidth(pieces[len(pieces)-1])
		}
		space = gap
	}
	if cur.Len() == 0 {
		// A line of nothing but spaces.
		return append(out, space[:min(len(space), w)])
	}
	return append(out, cur.String())
}

// breakWord breaks a word wider than w columns into lines of at most w:
// after the last "/" or "-" that fits, so that a path or a long name
// breaks where a reader expects it, else at the width.
func breakWord(word string, w int) []string {
	var out []string
	for ansi.StringWidth(word) > w {
		line := strings.SplitN(ansi.Hardwrap(word, w, true), "\n", 2)[0]
		if line == "" {
			// Not even one character fits: the rest goes as it is.
			break
		}
		if i := strings.LastIndexAny(line, "/-"); i > 0 && i < len(line)-1 {
			line = line[:i+1]
		}
		out = append(out, line)
		word = word[len(line):]
	}
	return append(out, word)
}

// Indent wraps clean text to w columns with prefix before every line.
func Indent(s, prefix string, w int) []string {
	lines := Wrap(s, w-ansi.StringWidth(prefix))
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return lines
}

// PrettyJSON indents raw JSON for reading; text that is not JSON is returned
// as it is. The result is untrusted and must still be cleaned.
func PrettyJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// ShortArgs renders a call's arguments on one line for the board, in the
// order the model sent them: key=value, strings unquoted unless they hold a
// space. The result is clean.
func ShortArgs(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return CleanLine(string(bytes.TrimSpace(raw)))
	}
	var b strings.Builder
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if b.Len() > 0 {
			b.WriteString("  ")
		}
		key, _ := k.(string)
		b.WriteString(key)
		b.WriteByte('=')
		var s string
		if json.Unmarshal(v, &s) == nil {
			if s == "" || strings.ContainsAny(s, " \t\n") {
				s = `"` + s + `"`
			}
			b.WriteString(s)
		} else {
			var c bytes.Buffer
			if json.Compact(&c, v) == nil {
				b.Write(c.Bytes())
			} else {
				b.Write(v)
			}
		}
		if b.Len() > 4096 {
			// The board shows one line; the rest is in the detail pane.
			break
		}
	}
	if b.Len() == 0 {
		return "(no arguments)"
	}
	return CleanLine(b.String())
}

// Relative shows path relative to the workspace root ws.
func Relative(ws, path string) string {
	switch {
	case ws == "":
		return path
	case path == ws:
		return "."
	case strings.HasPrefix(path, ws+"/"):
		return path[len(ws)+1:]
	}
	return path
}

// RelativeAll replaces the workspace root in text with paths relative to it,
// as the board and detail pane show scopes.
func RelativeAll(ws, text string) string {
	if ws == "" || !strings.Contains(text, ws) {
		return text
	}
	text = strings.ReplaceAll(text, ws+"/", "")
	return strings.ReplaceAll(text, ws, ".")
}
