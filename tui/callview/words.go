package callview

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// SandboxBadge renders what a sandboxed call may write as the board's badge:
// S, then the first writable root relative to the workspace (the temporary
// folder as $TMPDIR) and how many more there are: "S . +1", "S $TMPDIR".
func SandboxBadge(s *tool.Sandbox, ws string) string {
	if len(s.Writable) == 0 {
		return "S ∅"
	}
	out := "S " + text.CleanLine(SandboxPath(s, ws, s.Writable[0]))
	if len(s.Writable) > 1 {
		out += fmt.Sprintf(" +%d", len(s.Writable)-1)
	}
	return out
}

// SandboxPath shows one writable root: relative to the workspace, or
// $TMPDIR for the temporary folder.
func SandboxPath(s *tool.Sandbox, ws, p string) string {
	if p == s.Temp {
		return "$TMPDIR"
	}
	return text.Relative(ws, p)
}

// SandboxLine says, for the detail pane, whether the call runs in a sandbox
// and what it may change there, or why it does not; empty for a tool that
// never sandboxes its calls.
func SandboxLine(s *tool.Sandbox, ws string) string {
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
	var paths, caches []string
	for _, p := range s.Writable {
		switch {
		case slices.Contains(s.Caches, p):
			caches = append(caches, p)
		case p == s.Temp:
			paths = append(paths, SandboxPath(s, ws, p)+" ("+p+")")
		default:
			paths = append(paths, SandboxPath(s, ws, p))
		}
	}
	line := fmt.Sprintf("sandbox: %s · may write only %s", s.Mode, strings.Join(paths, ", "))
	if len(caches) > 0 {
		// Named apart: they are the toolchains' folders, not the
		// person's, and no checkpoint covers them.
		line += " · and the toolchain caches " + strings.Join(caches, ", ")
	}
	for _, p := range s.Protected {
		line += " · " + text.Relative(ws, p) + " stays read-only"
	}
	if s.Network {
		return text.CleanLine(line + " · network allowed")
	}
	return text.CleanLine(line + " · no network")
}

// StateText says where c stands, with a glance at what the model read for
// a settled call, and the tone to draw it in. Paths in reasons are shown
// relative to the workspace ws; frame is the spinner's frame for a running
// call.
func (r *Reply) StateText(c *Call, ws, frame string) (string, text.Tone) {
	s, tone, withResult := r.StateHead(c, ws, frame)
	if withResult && c.Result != "" {
		s += " → " + text.Preview(c.Result)
	}
	return s, tone
}

// StateHead says where c stands without what the model read, the tone to
// draw it in, and whether a glance at what the model read follows.
func (r *Reply) StateHead(c *Call, ws, frame string) (string, text.Tone, bool) {
	state := r.State(c)
	if t := c.Task; t != nil {
		switch {
		case state == StateRunning && !c.Retrying:
			// A running task says how far its agent has got.
			tone := text.ToneAccent
			if len(t.Asks()) > 0 {
				tone = text.ToneWarn
			}
			s := text.SymRunning + " " + t.Progress()
			if frame != "" {
				s += " " + frame
			}
			return s, tone, false
		case (state == StateSucceeded || state == StateError) && t.Outcome != nil:
			s, tone := t.OutcomeText()
			return s + Retried(c), tone, false
		}
	}
	switch state {
	case StateQueued:
		return text.SymQueued + " queued" + ClearedBy(c), text.ToneDim, false
	case StateWaiting:
		return text.SymWaiting + " waits for " + text.Numbers(r.PendingDeps(c)) + ClearedBy(c), text.ToneDim, false
	case StateAsking:
		s := text.SymAsk + " needs approval"
		if c.Stale != "" {
			s += " again: " + c.Stale
		}
		if deps := r.PendingDeps(c); len(deps) > 0 {
			s += " (then waits for " + text.Numbers(deps) + ")"
		}
		switch d := LastDecision(c); {
		case d != nil && d.Who.Who == approval.WhoProvenance && c.HasOrigins():
			// The reason is long: the row, marked ⚠ for provenance,
			// names the sources, what the person most needs, and the
			// detail pane says the rest.
			s += " · from " + OriginSources(c.Origins)
		case d != nil && d.Who.Who == approval.WhoHook:
			// The reason names the hook already.
			s += " · " + text.RelativeAll(ws, d.Reason)
		case d != nil:
			s += " · " + d.By + ": " + text.RelativeAll(ws, d.Reason)
		}
		return s, text.ToneWarn, false
	case StateAnswered:
		if c.Answered == "approved" {
			return text.SymAnswered + " approved, starting", text.ToneAccent, false
		}
		return text.SymAnswered + " skipping", text.ToneAccent, false
	case StateRunning:
		if c.Retrying {
			s := fmt.Sprintf("%s retry: attempt %s in %s · attempt %d failed (%s)",
				text.SymRetry, c.AttemptOf(c.Attempt+1), text.Since(c.Backoff), c.Attempt, c.Failure)
			return s, text.ToneWarn, false
		}
		s := text.SymRunning + " running " + frame
		if c.Attempt > 1 {
			s += " · attempt " + c.AttemptOf(c.Attempt)
			if c.Failure != "" {
				s += " (after " + c.Failure + ")"
			}
		}
		return s + ClearedBy(c), text.ToneAccent, false
	case StateSucceeded:
		return text.SymOK + " succeeded" + Retried(c) + ClearedBy(c), text.ToneOK, true
	case StateError:
		return text.SymErr + " " + ErrorWords(c) + Retried(c) + ClearedBy(c), text.ToneErr, true
	case StateSkipped:
		by := ""
		if d := LastDecision(c); d != nil && d.What == "skip" {
			by = " by " + d.By
		}
		return text.SymSkipped + " skipped" + by, text.ToneWarn, true
	case StateDenied:
		return text.SymDenied + " denied" + ClearedBy(c), text.ToneErr, true
	case StateNotRun:
		return text.SymSkipped + " not run: " + Briefly(c.EndedBy("the turn was stopped before it started")), text.ToneWarn, false
	case StatePartly:
		return text.SymPartly + " may have partly run: " + Briefly(c.EndedBy("the turn was stopped")) + " while it ran", text.ToneErr, false
	case StateUnfinished:
		return text.SymPartly + " did not finish (only reads; safe to rerun): " + Briefly(c.EndedBy("the turn was stopped")), text.ToneWarn, false
	default:
		return text.SymInvalid + " not run: invalid reply", text.ToneErr, true
	}
}

// ErrorWords says how a call that ended in an error failed: how its
// command ended when its tool said ("exit 3", "killed by SIGKILL", "timed
// out after 2m"), else "error" and the failure kind ("error not_found").
func ErrorWords(c *Call) string {
	if words, ok := tool.ProcessEnd(c.Code); ok {
		return words
	}
	return "error " + c.Kind
}

// Briefly keeps the first clause of a reason, such as "the session record
// cannot be written" of a reason that goes on to quote the error: a board
// row has room for little, and the detail pane shows the whole.
func Briefly(why string) string {
	if i := strings.IndexAny(why, "(,;:"); i > 0 {
		return strings.TrimSpace(why[:i])
	}
	return why
}

// ClearedBy names the session grant that let c run, if one did: the board
// says which grant cleared each call.
func ClearedBy(c *Call) string {
	d := LastDecision(c)
	if d == nil || d.What != "run" {
		return ""
	}
	if d.Who.Who == approval.WhoGrant {
		return " · cleared by grant: " + text.CleanLine(d.Who.Label)
	}
	return ""
}

// Retried says how many attempts a settled call took, when it took more
// than one.
func Retried(c *Call) string {
	if c.Attempt > 1 {
		return fmt.Sprintf(" after %d attempts", c.Attempt)
	}
	return ""
}

// LastDecision returns the latest decision about c, or nil before the
// first.
func LastDecision(c *Call) *Decision {
	if len(c.Decisions) == 0 {
		return nil
	}
	return &c.Decisions[len(c.Decisions)-1]
}
