package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MetaSession is the key of a result's _meta that names the session the
// result is of, so that a client can continue it without reading the text.
const MetaSession = "agenttui/session"

// toolError returns a tool error whose text is msg on one line: bad input
// or a session that cannot be run, which the calling model can mend.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: sanitize.Line(msg)}}}
}

// outcomeResult returns the result of a call that ran session id to o: the
// outcome as structured content, byte for byte as GoalOutcome.MarshalJSON
// gives it (the same object agenttui run --json ends with); its text for a
// reader; and how to carry the session on. Only a failed run is an error.
func outcomeResult(id string, o runtime.GoalOutcome, raw json.RawMessage) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Meta:              mcp.Meta{MetaSession: id},
		IsError:           o.Status == runtime.StatusFailed,
		StructuredContent: raw,
		Content: []mcp.Content{
			&mcp.TextContent{Text: outcomeText(o)},
			&mcp.TextContent{Text: fmt.Sprintf("Session %s: continue it with continue_session.", sanitize.Line(id))},
		},
	}
}

// outcomeText says how a run ended, as a person reads it: the summary of a
// succeeded run, the report of a failed one, the question of a refused one.
func outcomeText(o runtime.GoalOutcome) string {
	switch o.Status {
	case runtime.StatusSucceeded:
		if strings.TrimSpace(o.Summary) == "" {
			return "Succeeded."
		}
		return sanitize.Text(o.Summary)
	case runtime.StatusRefused:
		return sanitize.Text(o.Summary)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Failed: %s\nFailing step: %s", sanitize.Line(o.FailingSubGoal), sanitize.Line(o.FailingStep))
	for _, a := range o.Attempts {
		fmt.Fprintf(&b, "\n- %s", sanitize.Line(a))
	}
	return b.String()
}

// listResult returns list_sessions' result: the sessions as structured
// content, each outcome byte for byte as its MarshalJSON gave it, and one
// line per session for a reader.
func listResult(sessions []listed) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(struct {
		Sessions []listed `json:"sessions"`
	}{sessions})
	if err != nil {
		return nil, err
	}
	lines := make([]string, 0, len(sessions))
	for _, l := range sessions {
		line := fmt.Sprintf("%s (%s) in %s: %s", sanitize.Line(l.Session), l.State, sanitize.Line(l.Workspace), sanitize.Line(cut(l.Goal, 80)))
		if l.Outcome != nil {
			var o runtime.GoalOutcome
			if json.Unmarshal(l.Outcome, &o) == nil {
				line += " — " + string(o.Status)
			}
		}
		lines = append(lines, line)
	}
	text := "No sessions yet."
	if len(lines) > 0 {
		text = strings.Join(lines, "\n")
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}
