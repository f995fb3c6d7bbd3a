package mcpserver

import "encoding/json"

// The tools' schemas. Input schemas refuse unknown properties, and every
// property says what it is for, since a calling model reads them. Output
// schemas stay plain (type, properties, required, enum; no $ref), so that
// any client's validator can read them.

// runGoalInput is run_goal's input schema.
var runGoalInput = json.RawMessage(`{
	"type": "object",
	"properties": {
		"goal": {"type": "string", "minLength": 1, "description": "What the agent should achieve, in plain words, as you would type it into agenttui's console."},
		"workspace": {"type": "string", "description": "The folder the agent works in, absolute or relative to the server's own workspace; omit it for the server's own workspace."},
		"mode": {"type": "string", "enum": ["ask", "reads", "auto", "plan"], "description": "The approval mode: ask (every call needs approval), reads (calls that only read run, the rest need approval), auto (every call runs unless a rule denies it) or plan (only calls that read run; the rest are skipped). Omit it for the configured mode."},
		"model": {"type": "string", "description": "The model, as agenttui's --model flag takes it (provider:name, such as openai:… or anthropic:…); omit it for the configured model."}
	},
	"required": ["goal"],
	"additionalProperties": false
}`)

// continueSessionInput is continue_session's input schema.
var continueSessionInput = json.RawMessage(`{
	"type": "object",
	"properties": {
		"session": {"type": "string", "minLength": 1, "description": "The session to carry on, as run_goal's result or list_sessions names it."},
		"input": {"type": "string", "minLength": 1, "description": "The answer to the question a refused run asked, or a follow-up for the agent; the model reads it as the person's message."}
	},
	"required": ["session", "input"],
	"additionalProperties": false
}`)

// listSessionsInput is list_sessions' input schema: it takes nothing.
var listSessionsInput = json.RawMessage(`{
	"type": "object",
	"properties": {},
	"additionalProperties": false
}`)

// outcomeProperties describes a GoalOutcome, shared by the outcome schema
// and list_sessions' schema.
const outcomeProperties = `{
	"status": {"type": "string", "enum": ["succeeded", "failed", "refused"], "description": "How the run ended: succeeded (the goal was reached), failed (the run gave up or was stopped), or refused (the agent asks a question; answer it with continue_session)."},
	"summary": {"type": "string", "description": "succeeded: the agent's recap of what it did; refused: the agent's question, verbatim."},
	"extracted_data": {"description": "succeeded: the data the run extracted (any JSON value), or null when there is none."},
	"failing_sub_goal": {"type": "string", "description": "failed: the goal, or the plan step, the run was on."},
	"failing_step": {"type": "string", "description": "failed: the tool call or model turn that died."},
	"attempts": {"type": "array", "items": {"type": "string"}, "description": "failed: the last error messages, oldest first."}
}`

// outcomeOutput is the output schema of run_goal and continue_session: the
// GoalOutcome as agenttui run --json prints it.
var outcomeOutput = json.RawMessage(`{
	"type": "object",
	"description": "How the run ended, as agenttui run --json prints it in its last line's outcome.",
	"properties": ` + outcomeProperties + `,
	"required": ["status"]
}`)

// listSessionsOutput is list_sessions' output schema.
var listSessionsOutput = json.RawMessage(`{
	"type": "object",
	"properties": {
		"sessions": {
			"type": "array",
			"description": "The sessions this server holds, oldest first.",
			"items": {
				"type": "object",
				"properties": {
					"session": {"type": "string", "description": "The session's id, for continue_session."},
					"workspace": {"type": "string", "description": "The folder the session works in."},
					"goal": {"type": "string", "description": "The goal the session was started with."},
					"state": {"type": "string", "enum": ["running", "idle"], "description": "running while a call runs the session or waits for an answer in it; idle otherwise."},
					"outcome": {
						"type": ["object", "null"],
						"description": "How the session's last run ended, or null before its first run ends.",
						"properties": ` + outcomeProperties + `,
						"required": ["status"]
					}
				},
				"required": ["session", "workspace", "goal", "state", "outcome"]
			}
		}
	},
	"required": ["sessions"]
}`)
