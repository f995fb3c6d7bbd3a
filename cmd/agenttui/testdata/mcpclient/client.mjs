// An MCP client nobody here wrote — the TypeScript SDK's — driven by a plan,
// for agenttui's MCP server tests. argv[2] is the plan, as JSON:
//
//   {"transport": "stdio", "command": "/path/agenttui", "args": ["mcp", ...], "env": {...}, "cwd": "...",
//    or "transport": "http", "url": "http://127.0.0.1:PORT/mcp",
//    "elicit": null | {"approve": ["substring", ...], "skip": [{"match": "substring", "reason": "..."}],
//                      "answer": "text for a question", "block": "substring"},
//    "steps": [{"list_tools": true}, {"tool": "run_goal", "arguments": {...}, "cancel_on": "substring"},
//              {"tool": "list_sessions", "until_idle": true}]}
//
// An argument "$session" stands for the session id the last result named.
// It prints one JSON object: the tools listed and, per step, the result (or
// the error), the progress messages and the elicitations it was sent.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const plan = JSON.parse(process.argv[2]);
const out = { tools: null, steps: [] };
let current = null;
let lastSession = null;
// The abort controller of the step's call, which cancel_on uses.
let controller = null;

const capabilities = plan.elicit ? { elicitation: {} } : {};
const client = new Client({ name: "agenttui-test-client", version: "1.0.0" }, { capabilities });

if (plan.elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const message = request.params.message;
    current.elicitations.push({ message, schema: request.params.requestedSchema });
    const e = plan.elicit;
    if (e.block && message.includes(e.block)) {
      // Never answers: the test cancels the request meanwhile.
      return new Promise(() => {});
    }
    if (message.startsWith("The agent asks:")) {
      return { action: "accept", content: { answer: e.answer } };
    }
    for (const s of e.skip || []) {
      if (message.includes(s.match)) {
        return { action: "accept", content: { decision: "skip", reason: s.reason } };
      }
    }
    for (const a of e.approve || []) {
      if (message.includes(a)) {
        return { action: "accept", content: { decision: "approve" } };
      }
    }
    return { action: "decline" };
  });
}

// The client hears progress itself rather than through a call's onprogress:
// the SDK hands a notification to onprogress a moment after it arrives, and
// by then the call's response, read in the same chunk, may have closed the
// call and made its token unknown (typescript-sdk#2580), so the last
// messages before the result would be lost. A notification handler of its
// own runs before the caller sees the result. Only one call is open at a
// time, so each message belongs to the current step.
client.setNotificationHandler(ProgressNotificationSchema, (n) => {
  const p = n.params;
  current.progress.push({ progress: p.progress, message: p.message });
  const step = current.step;
  if (step.cancel_on && p.message && p.message.includes(step.cancel_on)) {
    controller.abort("the test cancels the run");
  }
});

const transport =
  plan.transport === "http"
    ? new StreamableHTTPClientTransport(new URL(plan.url))
    : new StdioClientTransport({
        command: plan.command,
        args: plan.args,
        env: { ...process.env, ...(plan.env || {}) },
        cwd: plan.cwd,
        stderr: "inherit",
      });

await client.connect(transport);
try {
  for (const step of plan.steps) {
    current = { step, progress: [], elicitations: [] };
    out.steps.push(current);
    if (step.list_tools) {
      out.tools = (await client.listTools()).tools;
      continue;
    }
    const args = { ...(step.arguments || {}) };
    for (const k of Object.keys(args)) {
      if (args[k] === "$session") args[k] = lastSession;
    }
    controller = new AbortController();
    const options = {
      signal: controller.signal,
      timeout: 120000,
      // Asks for progress; the notification handler above records it.
      onprogress: () => {},
    };
    try {
      let result = await client.callTool({ name: step.tool, arguments: args }, undefined, options);
      // list_sessions right after a cancelled run may see it still
      // stopping; the step waits until every session is idle.
      for (let i = 0; step.until_idle && i < 500 && result.structuredContent.sessions.some((s) => s.state !== "idle"); i++) {
        await new Promise((r) => setTimeout(r, 20));
        result = await client.callTool({ name: step.tool, arguments: args });
      }
      current.result = result;
      if (result._meta && result._meta["agenttui/session"]) lastSession = result._meta["agenttui/session"];
    } catch (err) {
      current.error = String(err && err.message ? err.message : err);
    }
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
