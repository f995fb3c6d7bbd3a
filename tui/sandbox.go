package tui

import (
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// sandboxBadge renders what a sandboxed call may write as the board's badge:
// S, then the first writable root relative to the workspace (the temporary
// folder as $TMPDIR) and how many more there are: "S . +1", "S $TMPDIR".
func sandboxBadge(s *tool.Sandbox, ws string) string {
	if len(s.Writable) == 0 {
		return "S ∅"
	}
	out := "S " + text.CleanLine(sandboxPath(s, ws, s.Writable[0]))
	if len(s.Writable) > 1 {
		out += fmt.Sprintf(" +%d", len(s.Writable)-1)
	}
	return out
}

// sandboxPath shows one writable root: relative to the workspace, or
// $TMPDIR for the temporary folder.
func sandboxPath(s *tool.Sandbox, ws, p string) string {
	if p == s.Temp {
		return "$TMPDIR"
	}
	return text.Relative(ws, p)
}

// sandboxLine says, for the detail pane, whether the call runs in a sandbox
// and what it may change there, or why it does not; empty for a tool that
// never sandboxes its calls.
func sandboxLine(s *tool.Sandbox, ws string) string {
	switch {
	case s == nil:
		return ""
	case s.Escalated:
		return "sandbox: none: " + text.CleanLine(s.Why) + "; the person decides, since it may change anything"
	case !s.Sandboxed:
		why := s.Why
		if why == "" {
			why = "not sandboxed"
		}
		return "sandbox: none: " + text.CleanLine(why) + "; it may change anything"
	}
	paths := make([]string, len(s.Writable))
	for i, p := range s.Writable {
		paths[i] = sandboxPath(s, ws, p)
		if p == s.Temp {
			paths[i] += " (" + p + ")"
		}
	}
	line := fmt.Sprintf("sandbox: %s · may write only %s", s.Mode, strings.Join(paths, ", "))
	for _, p := range s.Protected {
		line += " · " + text.Relative(ws, p) + " stays read-only"
	}
	if s.Network {
		return text.CleanLine(line + " · network allowed")
	}
	return text.CleanLine(line + " · no network")
}
