package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/aymanbagabas/go-udiff"
)

// How much of a diff, and of a call's arguments, an approval request shows:
// enough to judge a change, bounded so that a huge file cannot swamp the
// client.
const (
	maxDiffLines = 200
	maxDiffBytes = 16 << 10
	maxArgsLines = 100
	maxArgsBytes = 8 << 10
)

// approvalMessage says what a person needs to approve or skip req: the
// call, why it asks, what it touches, how it is confined, which of its
// arguments came from untrusted text, its arguments, and what it would do.
// Everything that came from outside is sanitised: one-line parts stay on
// their line, so that no argument can fake a line of the message.
func approvalMessage(req approval.Request) string {
	var b strings.Builder
	call := fmt.Sprintf("%s (turn %d, call %d", sanitize.Line(req.Call.Name), req.Turn, req.Index+1)
	if len(req.Task) > 0 {
		call += ", in task " + sanitize.Line(strings.Join(req.Task, "/"))
	}
	fmt.Fprintf(&b, "agenttui asks to run %s).\n", call)
	why := sanitize.Line(req.By)
	if r := strings.TrimSpace(req.Reason); r != "" {
		why += ": " + sanitize.Line(r)
	}
	fmt.Fprintf(&b, "Why it asks: %s\n", why)
	fmt.Fprintf(&b, "Footprint: %s\n", sanitize.Line(req.Touches.String()))
	if req.Sandbox != nil {
		fmt.Fprintf(&b, "Sandbox: %s\n", sandboxLine(req.Sandbox))
	}
	if len(req.Provenance) > 0 {
		fmt.Fprintf(&b, "Untrusted parts: %s\n", sanitize.Line(approval.DescribeOrigins(req.Provenance)))
	}
	fmt.Fprintf(&b, "Arguments:\n%s\n", bounded(prettyArgs(req), maxArgsLines, maxArgsBytes, "of the arguments"))
	if req.Preview != nil {
		b.WriteString(previewText(*req.Preview))
	}
	b.WriteString("Approve runs the call; skip does not, and the agent reads your reason.")
	return b.String()
}

// prettyArgs returns the call's arguments indented, or as the model sent
// them when they are not JSON.
func prettyArgs(req approval.Request) string {
	var out bytes.Buffer
	if err := json.Indent(&out, req.Args, "", "  "); err == nil {
		return sanitize.Text(out.String())
	}
	return sanitize.Text(req.Call.Arguments)
}

// previewText says what the previewed call would do: a file change as a
// unified diff, a command with its folder and time limit, or why it would
// fail.
func previewText(p tool.Preview) string {
	var b strings.Builder
	switch p.Kind {
	case tool.PreviewCommand:
		fmt.Fprintf(&b, "Command: %s\n", sanitize.Line(p.Command))
		dir := p.Dir
		if dir == "" {
			dir = "."
		}
		fmt.Fprintf(&b, "In folder: %s\n", sanitize.Line(dir))
		if p.TimeoutS > 0 {
			fmt.Fprintf(&b, "Time limit: %ds\n", p.TimeoutS)
		}
	case tool.PreviewFile:
		path := sanitize.Line(p.Path)
		switch {
		case p.Problem != "":
		case p.Binary || p.TooLarge:
			fmt.Fprintf(&b, "Change to %s: %s\n", path, sanitize.Line(p.Summary()))
		default:
			diff := fileDiff(p)
			if diff == "" {
				fmt.Fprintf(&b, "Change to %s: no change\n", path)
				break
			}
			fmt.Fprintf(&b, "Change to %s (%s):\n%s\n", path, sanitize.Line(p.Summary()), bounded(sanitize.Text(diff), maxDiffLines, maxDiffBytes, "of the diff"))
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "Note: %s\n", sanitize.Line(n))
	}
	if p.Problem != "" {
		fmt.Fprintf(&b, "Would fail: %s\n", sanitize.Line(p.Problem))
	}
	return b.String()
}

// fileDiff returns a file change as a unified diff; "" when it changes
// nothing.
func fileDiff(p tool.Preview) string {
	from := "a/" + p.Path
	if p.Created {
		from = "/dev/null"
	}
	return udiff.Unified(from, "b/"+p.Path, p.Old, p.New)
}

// bounded returns text cut to at most maxLines lines and maxBytes bytes, at
// a line's end when it can, with a line saying how much of what was left
// out.
func bounded(text string, maxLines, maxBytes int, of string) string {
	text = strings.TrimSuffix(text, "\n")
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	kept := 0
	for _, l := range lines {
		if kept == maxLines || b.Len()+len(l) > maxBytes {
			break
		}
		b.WriteString(l)
		kept++
	}
	if kept == len(lines) {
		return text
	}
	if kept == 0 {
		// One line longer than the bound: keep its start, whole runes.
		b.WriteString(strings.ToValidUTF8(lines[0][:maxBytes], ""))
		b.WriteString("\n")
	} else if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	left := len(lines) - kept
	fmt.Fprintf(&b, "… %d more %s (%s) %s left out", left, plural(left, "line"), tool.FormatSize(int64(len(text)-b.Len())), of)
	return b.String()
}

// plural returns word for n of it, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// sandboxLine says whether a call runs in a sandbox and what it may change
// there, or why it does not.
func sandboxLine(s *tool.Sandbox) string {
	switch {
	case s.Escalated:
		return sanitize.Line("none: it asks to run outside the sandbox (" + s.Why + "), so it may change anything")
	case !s.Sandboxed:
		why := s.Why
		if why == "" {
			why = "not sandboxed"
		}
		return sanitize.Line("none: " + why + "; it may change anything")
	}
	paths := make([]string, len(s.Writable))
	for i, p := range s.Writable {
		paths[i] = p
		if p == s.Temp {
			paths[i] = "$TMPDIR (" + p + ")"
		}
	}
	line := s.Mode + "; it may write only " + strings.Join(paths, ", ")
	if len(s.Writable) == 0 {
		line = s.Mode + "; it may write nothing"
	}
	for _, p := range s.Protected {
		line += "; " + p + " stays read-only"
	}
	if s.Network {
		return sanitize.Line(line + "; network allowed")
	}
	return sanitize.Line(line + "; no network")
}
