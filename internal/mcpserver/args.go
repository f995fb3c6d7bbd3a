package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/internal/sanitize"
)

// field is one string argument of a tool: its name, whether it is required
// (present and not blank), the values it may take (any when empty), and
// where its value goes.
type field struct {
	name     string
	required bool
	enum     []string
	dst      *string
}

// argError is bad input to a tool: its message is the one line the client
// reads in the tool error.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// decodeArgs decodes raw, the arguments of tool, into fields strictly: the
// arguments must be a JSON object, name no argument the tool does not take,
// give every argument as a string, every required one not blank, and an
// enumerated one one of its values. The SDK leaves checking arguments to
// the handler, and a client's model may send anything.
func decodeArgs(tool string, raw json.RawMessage, fields ...field) error {
	bad := func(format string, a ...any) error {
		return &argError{tool + ": " + fmt.Sprintf(format, a...)}
	}
	args := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' {
			return bad("the arguments must be a JSON object")
		}
		if err := json.Unmarshal(trimmed, &args); err != nil {
			return bad("the arguments must be a JSON object")
		}
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	unknown := make([]string, 0, len(args))
	for name := range args {
		if !slices.Contains(names, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		if len(names) == 0 {
			return bad("unknown argument %q; it takes no arguments", sanitize.Line(unknown[0]))
		}
		return bad("unknown argument %q; it takes %s", sanitize.Line(unknown[0]), andList(names))
	}
	for _, f := range fields {
		v, ok := args[f.name]
		what := "a string"
		if f.required {
			what = "a non-empty string"
		}
		if !ok {
			if f.required {
				return bad("%q is required and must be %s", f.name, what)
			}
			continue
		}
		var s string
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) || json.Unmarshal(v, &s) != nil {
			if f.required {
				return bad("%q is required and must be %s", f.name, what)
			}
			return bad("%q must be %s", f.name, what)
		}
		if f.required && strings.TrimSpace(s) == "" {
			return bad("%q is required and must be %s", f.name, what)
		}
		if len(f.enum) > 0 && !slices.Contains(f.enum, s) {
			return bad("%q must be one of %s, not %q", f.name, orList(f.enum), sanitize.Line(cut(s, 40)))
		}
		*f.dst = s
	}
	return nil
}

// andList joins names as "a, b and c".
func andList(names []string) string { return joinList(names, "and") }

// orList joins names as "a, b or c".
func orList(names []string) string { return joinList(names, "or") }

func joinList(names []string, last string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + last + " " + names[len(names)-1]
}

// cut shortens s to at most n runes, marking the cut with an ellipsis.
func cut(s string, n int) string {
	count, at := 0, 0
	for pos := range s {
		if count == n {
			return s[:at] + "…"
		}
		if count == n-1 {
			at = pos
		}
		count++
	}
	return s
}
