package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reasons the model reads for a call skipped without a skip from the
// client's user.
const (
	declinedReason  = "declined in the MCP client"
	dismissedReason = "the MCP client's user dismissed the approval request without answering"
	unaskedReason   = "the approval could not be asked in the MCP client, so the call was not approved"
	closedReason    = "the MCP call that ran this session had already returned, so nobody could approve the call"
)

// approvalSchema is the form an approval asks for: a decision, and for a
// skip an optional reason the model reads. It is flat, as elicitation
// requires.
var approvalSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"decision": {"type": "string", "enum": ["approve", "skip"], "title": "Decision", "description": "approve runs the call; skip does not run it, and the agent goes on without it."},
		"reason": {"type": "string", "title": "Reason", "description": "why you skip it; the model reads it"}
	},
	"required": ["decision"]
}`)

// questionSchema is the form a refused run's question asks for.
var questionSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"answer": {"type": "string", "title": "Answer", "description": "Your answer; the agent reads it and carries on."}
	},
	"required": ["answer"]
}`)

// canElicit reports whether the client of ss can be asked for a form: it
// declared elicitation, in form mode or (before form mode was named) with
// no mode at all.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// elicitApprover asks the user of an MCP client about each call that needs
// approval, by elicitation, for the runs of one tool call.
type elicitApprover struct {
	ss *mcp.ServerSession
	// mu guards closed and the adding to asking: the runtime asks from
	// several goroutines at once, and close may come meanwhile.
	mu     sync.Mutex
	closed bool
	// asking counts the approvals being asked; close waits for them.
	asking sync.WaitGroup
}

func newElicitApprover(ss *mcp.ServerSession) *elicitApprover {
	return &elicitApprover{ss: ss}
}

// close makes the approver ask nothing more, and waits for the approvals
// being asked to return (they return promptly once their run has ended),
// so that nothing is sent for a tool call after it returned.
func (a *elicitApprover) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.asking.Wait()
}

// Approve asks the client's user about req and returns their answer. An
// approval is bound to the preview the user was shown, as the console's
// key press is; anything but an approval skips the call, and nothing that
// goes wrong approves it.
func (a *elicitApprover) Approve(ctx context.Context, req approval.Request) approval.Answer {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return approval.SkipWith(closedReason)
	}
	a.asking.Add(1)
	a.mu.Unlock()
	defer a.asking.Done()
	if ctx.Err() != nil {
		// The turn has ended; the answer is not read.
		return approval.SkipWith(unaskedReason)
	}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: approvalMessage(req), RequestedSchema: approvalSchema})
	if err != nil {
		return approval.SkipWith(unaskedReason)
	}
	return answerOf(req, res)
}

// answerOf turns the client's response to an approval request into the
// answer to req.
func answerOf(req approval.Request, res *mcp.ElicitResult) approval.Answer {
	reason, _ := res.Content["reason"].(string)
	reason = strings.TrimSpace(reason)
	switch res.Action {
	case "accept":
		switch decision, _ := res.Content["decision"].(string); decision {
		case "approve":
			digest := ""
			if req.Preview != nil {
				digest = req.Preview.Digest
			}
			return approval.Answer{Approve: true, Digest: digest}
		case "skip":
			return approval.SkipWith(reason)
		}
		return approval.SkipWith(unaskedReason)
	case "decline":
		if reason == "" {
			reason = declinedReason
		}
		return approval.SkipWith(reason)
	}
	return approval.SkipWith(dismissedReason)
}

// askQuestion asks the calling client's user the question of a refused run
// and returns their answer; ok is false when they gave none (declined,
// dismissed, left it empty) or it could not be asked.
func (s *Server) askQuestion(ctx context.Context, ss *mcp.ServerSession, question string) (answer string, ok bool) {
	ctx, release := s.untilClosing(ctx)
	defer release()
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "The agent asks: " + sanitize.Text(question), RequestedSchema: questionSchema})
	if err != nil || res.Action != "accept" {
		return "", false
	}
	answer, _ = res.Content["answer"].(string)
	if strings.TrimSpace(answer) == "" {
		return "", false
	}
	return answer, true
}
