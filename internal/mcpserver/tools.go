package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modes are the approval modes run_goal takes, as approval names them.
var modes = func() []string {
	out := make([]string, len(approval.Modes))
	for i, m := range approval.Modes {
		out[i] = string(m)
	}
	return out
}()

// addTools declares the server's three tools.
func (s *Server) addTools() {
	yes, no := true, false
	s.mcp.AddTool(&mcp.Tool{
		Name:  "run_goal",
		Title: "Run a goal with agenttui",
		Description: "Run a goal with agenttui's tool-using agent in a workspace, and return how the run ended: " +
			"succeeded (the agent's summary and any extracted data), failed (the step that died and the last errors), " +
			"or refused (the agent asks a question; answer it with continue_session). The structured result is the " +
			"outcome exactly as agenttui run --json prints it. Calls that need approval are asked of your user through " +
			"elicitation when your client supports it, and skipped otherwise (the agent reads why); a question is asked " +
			"the same way. Progress notifications follow the run when you send a progress token. Cancelling the call " +
			"stops the run. The result names the session, which continue_session carries on.",
		InputSchema:  runGoalInput,
		OutputSchema: outcomeOutput,
		Annotations:  &mcp.ToolAnnotations{Title: "Run a goal with agenttui", DestructiveHint: &yes, OpenWorldHint: &yes},
	}, s.runGoal)
	s.mcp.AddTool(&mcp.Tool{
		Name:  "continue_session",
		Title: "Continue an agenttui session",
		Description: "Carry on a session this server holds with your input: the answer to the question a refused run " +
			"asked, or a follow-up. The agent reads it as the person's message, with the whole conversation so far, " +
			"and the result is the new run's outcome, as run_goal's is. A session whose run is still going cannot be " +
			"continued until that run's call returns.",
		InputSchema:  continueSessionInput,
		OutputSchema: outcomeOutput,
		Annotations:  &mcp.ToolAnnotations{Title: "Continue an agenttui session", DestructiveHint: &yes, OpenWorldHint: &yes},
	}, s.continueSession)
	s.mcp.AddTool(&mcp.Tool{
		Name:  "list_sessions",
		Title: "List agenttui sessions",
		Description: "List the sessions this server holds, oldest first: each one's id, workspace, goal, whether a " +
			"call is running it, and how its last run ended.",
		InputSchema:  listSessionsInput,
		OutputSchema: listSessionsOutput,
		Annotations:  &mcp.ToolAnnotations{Title: "List agenttui sessions", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no},
	}, s.listSessions)
}

// runGoal opens a session for a goal and runs it.
func (s *Server) runGoal(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const tool = "run_goal"
	var goal, workspace, mode, model string
	if err := decodeArgs(tool, req.Params.Arguments,
		field{name: "goal", required: true, dst: &goal},
		field{name: "workspace", dst: &workspace},
		field{name: "mode", enum: modes, dst: &mode},
		field{name: "model", dst: &model},
	); err != nil {
		return toolError(err.Error()), nil
	}
	if err := s.enter(); err != nil {
		return toolError(tool + ": " + err.Error()), nil
	}
	defer s.calls.Done()
	// The entry exists before the session, since the session's Show is
	// the entry's.
	e := &entry{}
	openCtx, release := s.untilClosing(ctx)
	sess, err := s.launcher.Open(openCtx, OpenRequest{Goal: goal, Workspace: workspace, Mode: mode, Model: model, Show: e.hear})
	release()
	if err != nil {
		return toolError(tool + ": " + err.Error()), nil
	}
	if sess == nil {
		return toolError(tool + ": no session could be opened"), nil
	}
	s.register(e, sess)
	return s.hold(ctx, req, tool, e, goal), nil
}

// continueSession runs a session the server holds again with new input.
func (s *Server) continueSession(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const tool = "continue_session"
	var id, input string
	if err := decodeArgs(tool, req.Params.Arguments,
		field{name: "session", required: true, dst: &id},
		field{name: "input", required: true, dst: &input},
	); err != nil {
		return toolError(err.Error()), nil
	}
	e, err := s.take(id)
	switch {
	case errors.Is(err, errUnknown):
		return unknownSession(id), nil
	case errors.Is(err, errBusy):
		return toolError(fmt.Sprintf("session %s is running; its result comes back to the call that started it", sanitize.Line(id))), nil
	case err != nil:
		return toolError(tool + ": " + err.Error()), nil
	}
	defer s.calls.Done()
	if e.reopening {
		openCtx, release := s.untilClosing(ctx)
		sess, err := s.launcher.(Reopener).Reopen(openCtx, id, e.hear)
		release()
		switch {
		case errors.Is(err, ErrUnknownSession):
			s.forget(e)
			return unknownSession(id), nil
		case err != nil:
			s.forget(e)
			return toolError(tool + ": " + sanitize.Line(err.Error())), nil
		case sess == nil:
			s.forget(e)
			return toolError(tool + ": session " + sanitize.Line(id) + " could not be reopened"), nil
		}
		s.adopt(e, sess)
	}
	return s.hold(ctx, req, tool, e, input), nil
}

// listSessions lists the sessions the server holds.
func (s *Server) listSessions(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := decodeArgs("list_sessions", req.Params.Arguments); err != nil {
		return toolError(err.Error()), nil
	}
	res, err := listResult(s.list())
	if err != nil {
		return toolError("list_sessions: " + err.Error()), nil
	}
	return res, nil
}

// hold runs e, which the calling tool call holds, with input, and lets it
// go when the call returns. Approvals go to the calling client by
// elicitation when it can elicit, and to the headless policy when it
// cannot; so does a refused run's question, whose answer runs the session
// again, for as long as the run refuses and the client's user answers. The
// run's events become progress notifications when the call asked for them.
func (s *Server) hold(ctx context.Context, req *mcp.CallToolRequest, tool string, e *entry, input string) *mcp.CallToolResult {
	defer s.release(e)
	ss := req.Session
	elicits := canElicit(ss)
	if token := req.Params.GetProgressToken(); token != nil {
		p := startProgress(ctx, ss, token)
		e.progress.Store(p)
		// Every notification is sent before the call returns.
		defer func() {
			e.progress.Store(nil)
			p.stop()
		}()
	}
	var approver approval.Approver
	if elicits {
		a := newElicitApprover(ss)
		// No approval is asked once the call has returned.
		defer a.close()
		approver = a
	}
	for {
		if s.closing.Err() != nil {
			return toolError(tool + ": " + errShuttingDown.Error())
		}
		e.sess.SetApprover(approver)
		o := s.runOnce(ctx, e, input)
		raw, err := o.MarshalJSON()
		if err != nil {
			return toolError(tool + ": the run ended without an outcome: " + err.Error())
		}
		s.settle(e, raw)
		if o.Status == runtime.StatusRefused && elicits && ctx.Err() == nil {
			if answer, ok := s.askQuestion(ctx, ss, o.Summary); ok {
				input = answer
				continue
			}
		}
		return outcomeResult(e.id, o, raw)
	}
}

// unknownSession is continue_session's answer for a session neither the
// server nor, when it can reopen sessions, a journal holds.
func unknownSession(id string) *mcp.CallToolResult {
	return toolError(fmt.Sprintf("unknown session %q: list_sessions names the sessions this server holds", sanitize.Line(cut(id, 80))))
}
