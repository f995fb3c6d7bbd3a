package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end tests of agenttui mcp drive the built binary with MCP
// clients nobody here wrote: the TypeScript SDK (through
// testdata/mcpclient/client.mjs, which follows a plan and prints what it
// saw) and the MCP Inspector's CLI. Both are pinned in
// testdata/mcpclient/package.json. The tests never install them (go test
// must not reach the network); .ci/run does, with mcpClientInstall.
const mcpClientDir = "testdata/mcpclient"

// mcpClientInstall is the command, run from the module root, that installs
// the clients; a skipped test names it.
const mcpClientInstall = "npm ci --no-audit --no-fund --prefix cmd/agenttui/testdata/mcpclient"

var (
	mcpClientOnce sync.Once
	mcpClientWhy  string
)

// needMCPClients skips the test, with one line saying how to install them,
// unless node and the clients are installed; under CI (CI set) it fails
// instead, since CI is meant to run it.
func needMCPClients(t *testing.T) {
	t.Helper()
	mcpClientOnce.Do(func() {
		if _, err := exec.LookPath("node"); err != nil {
			mcpClientWhy = "needs Node.js to run the MCP clients; install Node.js, then run: " + mcpClientInstall
			return
		}
		sdk := filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
		inspector := filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "inspector", "package.json")
		if !fileExists(sdk) || !fileExists(inspector) {
			mcpClientWhy = "needs the MCP clients from npm, which are not installed; run: " + mcpClientInstall + " (.ci/run does)"
		}
	})
	if mcpClientWhy != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(mcpClientWhy)
		}
		t.Skip(mcpClientWhy)
	}
}

// clientPlan is what client.mjs does; see the comment at its top.
type clientPlan struct {
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	URL       string            `json:"url,omitempty"`
	Elicit    *elicitPlan       `json:"elicit,omitempty"`
	Steps     []clientStep      `json:"steps"`
	Env       map[string]string `json:"env,omitempty"`
}

type elicitPlan struct {
	Approve []string     `json:"approve,omitempty"`
	Skip    []skipAnswer `json:"skip,omitempty"`
	Answer  string       `json:"answer,omitempty"`
}

type skipAnswer struct {
	Match  string `json:"match"`
	Reason string `json:"reason"`
}

type clientStep struct {
	ListTools bool           `json:"list_tools,omitempty"`
	Tool      string         `json:"tool,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	CancelOn  string         `json:"cancel_on,omitempty"`
	UntilIdle bool           `json:"until_idle,omitempty"`
}

// clientReport is what client.mjs printed.
type clientReport struct {
	Tools []struct {
		Name         string         `json:"name"`
		InputSchema  map[string]any `json:"inputSchema"`
		OutputSchema map[string]any `json:"outputSchema"`
	} `json:"tools"`
	Steps []stepReport `json:"steps"`
}

// stepReport is what one step of the plan gave.
type stepReport struct {
	Result   *toolResult `json:"result"`
	Error    string      `json:"error"`
	Progress []struct {
		Progress float64 `json:"progress"`
		Message  string  `json:"message"`
	} `json:"progress"`
	Elicitations []struct {
		Message string `json:"message"`
	} `json:"elicitations"`
}

// toolResult is a tools/call result as the client received it.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
	Meta              map[string]any `json:"_meta"`
}

// texts returns the result's text blocks.
func (r *toolResult) texts() []string {
	var out []string
	for _, c := range r.Content {
		out = append(out, c.Text)
	}
	return out
}

// messages returns the progress messages of the step.
func (s stepReport) messages() []string {
	var out []string
	for _, p := range s.Progress {
		out = append(out, p.Message)
	}
	return out
}

// result returns the step's result, failing the test when it has none.
func (s stepReport) result(t *testing.T) *toolResult {
	t.Helper()
	if s.Result == nil {
		t.Fatalf("the step has no result: %s", s.Error)
	}
	return s.Result
}

// runClient runs client.mjs with plan and returns its report.
func runClient(t *testing.T, plan clientPlan) clientReport {
	t.Helper()
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", string(data))
	cmd.Dir = mcpClientDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v\nstderr:\n%s", err, stderr.String())
	}
	var rep clientReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("the client printed %q: %v\nstderr:\n%s", out, err, stderr.String())
	}
	if len(rep.Steps) != len(plan.Steps) {
		t.Fatalf("the client ran %d of %d steps; stderr:\n%s", len(rep.Steps), len(plan.Steps), stderr.String())
	}
	return rep
}

// mcpServer says how the tests start agenttui mcp with args: the TypeScript
// client spawns it over stdio, or the test starts it on a loopback port and
// the client speaks streamable HTTP to it.
func mcpServer(t *testing.T, transport string, args ...string) clientPlan {
	t.Helper()
	args = append([]string{"mcp"}, args...)
	if transport == "stdio" {
		return clientPlan{Transport: "stdio", Command: binary, Args: args}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, append(args, "--http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if _, url, ok := strings.Cut(lines.Text(), "serving streamable HTTP at "); ok {
			// The rest of stderr is drained, so the server never blocks
			// on it.
			go func() {
				for lines.Scan() {
				}
			}()
			return clientPlan{Transport: "http", URL: url}
		}
	}
	t.Fatalf("agenttui mcp --http never said where it serves")
	return clientPlan{}
}

// transports are the two ways the client reaches the server.
var transports = []string{"stdio", "http"}

// TestMCPServerRunsAGoal checks, over stdio and HTTP, that the client lists
// the three tools with their schemas, that run_goal runs a scripted goal to
// succeeded with structuredContent equal to the outcome agenttui run --json
// prints for the same scenario, and that a progress notification names
// each call.
func TestMCPServerRunsAGoal(t *testing.T) {
	needMCPClients(t)
	sc := scenario(t, "succeeds.json")
	goal := "What do the notes say?"
	want := lastOutcome(t, events(t, runBinary(t, workspaceWithNotes(t), "", "run", "--json", "--scenario", sc, goal).stdout))
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			plan := mcpServer(t, transport, "--scenario", sc, "--workspace", workspaceWithNotes(t))
			plan.Steps = []clientStep{{ListTools: true}, {Tool: "run_goal", Arguments: map[string]any{"goal": goal}}}
			rep := runClient(t, plan)

			var names []string
			for _, tl := range rep.Tools {
				names = append(names, tl.Name)
				if tl.InputSchema["type"] != "object" || tl.OutputSchema["type"] != "object" {
					t.Errorf("tool %s: input schema %v, output schema %v", tl.Name, tl.InputSchema, tl.OutputSchema)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"continue_session", "list_sessions", "run_goal"}) {
				t.Errorf("tools %v", names)
			}
			for _, tl := range rep.Tools {
				if tl.Name == "run_goal" {
					props, _ := tl.InputSchema["properties"].(map[string]any)
					for _, p := range []string{"goal", "workspace", "mode", "model"} {
						if props[p] == nil {
							t.Errorf("run_goal's input schema has no %q: %v", p, tl.InputSchema)
						}
					}
				}
			}

			step := rep.Steps[1]
			res := step.result(t)
			if !reflect.DeepEqual(res.StructuredContent, want) {
				t.Errorf("structuredContent %v\nagenttui run --json printed %v", res.StructuredContent, want)
			}
			txt := res.texts()
			if res.IsError || len(txt) != 2 || txt[0] != "The note says to remember the milk." || !strings.Contains(txt[1], "continue_session") {
				t.Errorf("isError %v, text %q", res.IsError, txt)
			}
			if id, _ := res.Meta["agenttui/session"].(string); id == "" || !strings.Contains(txt[1], id) {
				t.Errorf("the session id is not in _meta (%v) and the text %q", res.Meta, txt[1])
			}
			progress := strings.Join(step.messages(), "\n")
			for _, call := range []string{"read_file notes.txt", "remember", "finish"} {
				if !strings.Contains(progress, call) {
					t.Errorf("no progress notification names %q:\n%s", call, progress)
				}
			}
			if !strings.Contains(progress, "turn 1") || !strings.Contains(progress, "turn 2") {
				t.Errorf("no progress notification per model turn:\n%s", progress)
			}
		})
	}
}

// TestMCPServerAsksThroughElicitation checks, over stdio and HTTP, that a
// client that declares elicitation is asked about each call that needs
// approval, with its diff: it approves one write and skips another with a
// reason the model reads, then answers the agent's question, and the run
// goes on to succeeded.
func TestMCPServerAsksThroughElicitation(t *testing.T) {
	needMCPClients(t)
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			ws := workspaceWithNotes(t)
			plan := mcpServer(t, transport, "--scenario", scenario(t, "mcpserver/approvals.json"), "--workspace", ws, "--mode", "reads")
			plan.Elicit = &elicitPlan{Approve: []string{"notes.txt"}, Skip: []skipAnswer{{Match: "secret.txt", Reason: "not that file, please"}}, Answer: "blue"}
			plan.Steps = []clientStep{{Tool: "run_goal", Arguments: map[string]any{"goal": "Add bread to the list."}}}
			step := runClient(t, plan).Steps[0]
			res := step.result(t)
			if res.StructuredContent["status"] != "succeeded" {
				t.Fatalf("outcome %v (text %q); elicitations %v", res.StructuredContent, res.texts(), step.Elicitations)
			}
			data, _ := res.StructuredContent["extracted_data"].(map[string]any)
			if data["colour"] != "blue" {
				t.Errorf("extracted data %v", data)
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(got) != "remember the milk\nand the bread\n" {
				t.Errorf("the approved write did not happen: notes.txt is %q", got)
			}
			if fileExists(filepath.Join(ws, "secret.txt")) {
				t.Error("the skipped write happened")
			}
			if len(step.Elicitations) != 3 {
				t.Fatalf("%d elicitations, want two approvals and a question: %v", len(step.Elicitations), step.Elicitations)
			}
			var approval string
			for _, e := range step.Elicitations[:2] {
				if strings.Contains(e.Message, "notes.txt") {
					approval = e.Message
				}
			}
			if !strings.Contains(approval, "+and the bread") || !strings.Contains(approval, "write_file") {
				t.Errorf("the approval of notes.txt does not show the call and its diff:\n%s", approval)
			}
			if q := step.Elicitations[2].Message; !strings.Contains(q, "Which colour should the shopping list be?") {
				t.Errorf("the question was elicited as %q", q)
			}
		})
	}
}

// TestMCPServerWithoutElicitation checks that a client without the
// capability gets the headless policy (the write is skipped and the model
// reads why) and the refused outcome, as text and not as an error, and
// that continue_session answers the question.
func TestMCPServerWithoutElicitation(t *testing.T) {
	needMCPClients(t)
	ws := workspaceWithNotes(t)
	plan := mcpServer(t, "stdio", "--scenario", scenario(t, "mcpserver/headless.json"), "--workspace", ws, "--mode", "reads")
	plan.Steps = []clientStep{{Tool: "run_goal", Arguments: map[string]any{"goal": "Change the notes."}}}
	rep := runClient(t, plan)
	res := rep.Steps[0].result(t)
	question := "I may not write here; shall I print the change instead?"
	if res.StructuredContent["status"] != "refused" || res.StructuredContent["summary"] != question || res.IsError || res.texts()[0] != question {
		t.Fatalf("result %+v", res)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(got) != "remember the milk\n" {
		t.Errorf("a headless client's write ran: notes.txt is %q", got)
	}
	if !strings.Contains(strings.Join(rep.Steps[0].messages(), "\n"), "write_file notes.txt skipped") {
		t.Errorf("no progress says the write was skipped: %q", rep.Steps[0].messages())
	}

	// The same server answers the question through continue_session, and
	// says so when a session is unknown.
	plan.Steps = []clientStep{
		{Tool: "run_goal", Arguments: map[string]any{"goal": "Change the notes."}},
		{Tool: "continue_session", Arguments: map[string]any{"session": "20260101-000000-none", "input": "yes"}},
		{Tool: "continue_session", Arguments: map[string]any{"session": "$session", "input": "yes"}},
	}
	rep = runClient(t, plan)
	if bad := rep.Steps[1].result(t); !bad.IsError || len(bad.texts()) != 1 || !strings.Contains(bad.texts()[0], "unknown session") {
		t.Errorf("an unknown session gave %+v", bad)
	}
	if done := rep.Steps[2].result(t); done.StructuredContent["status"] != "succeeded" || done.texts()[0] != "Printed." {
		t.Errorf("continue_session gave %+v", done)
	}
}

// TestMCPServerCancellation checks that a cancellation stops the run like
// Esc: the session's outcome says it was stopped, and its journal gives the
// calls caught by the stop their honest not-finished results.
func TestMCPServerCancellation(t *testing.T) {
	needMCPClients(t)
	ws := workspaceWithNotes(t)
	plan := mcpServer(t, "stdio", "--scenario", scenario(t, "mcpserver/cancel.json"), "--workspace", ws, "--mode", "auto")
	plan.Steps = []clientStep{
		{Tool: "run_goal", Arguments: map[string]any{"goal": "Sleep."}, CancelOn: "sleep 60 running"},
		{Tool: "list_sessions", UntilIdle: true},
	}
	rep := runClient(t, plan)
	if rep.Steps[0].Result != nil || rep.Steps[0].Error == "" {
		t.Fatalf("the cancelled call returned %+v", rep.Steps[0].Result)
	}
	sessions, _ := rep.Steps[1].result(t).StructuredContent["sessions"].([]any)
	if len(sessions) != 1 {
		t.Fatalf("list_sessions gave %v", sessions)
	}
	s := sessions[0].(map[string]any)
	outcome, _ := s["outcome"].(map[string]any)
	if s["state"] != "idle" || outcome["status"] != "failed" || !strings.Contains(toJSON(t, outcome), "cancelled") {
		t.Fatalf("the cancelled session is %v", s)
	}

	// The journal holds the shell call's result as the model read it.
	journal := filepath.Join(os.Getenv("XDG_STATE_HOME"), "agenttui", "sessions", s["session"].(string)+".jsonl")
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	var finished map[string]any
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, `"not_finished":true`) {
			if err := json.Unmarshal([]byte(line), &finished); err != nil {
				t.Fatal(err)
			}
		}
	}
	if finished == nil || !strings.Contains(toJSON(t, finished), "the MCP client cancelled the request") {
		t.Errorf("no not-finished result in the journal naming the cancellation:\n%s", data)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMCPServerBadInput checks that a workspace that does not exist, a bad
// mode and a missing goal are tool errors of one line, and that the server
// goes on serving.
func TestMCPServerBadInput(t *testing.T) {
	needMCPClients(t)
	plan := mcpServer(t, "stdio", "--scenario", scenario(t, "succeeds.json"), "--workspace", workspaceWithNotes(t))
	plan.Steps = []clientStep{
		{Tool: "run_goal", Arguments: map[string]any{"goal": "x", "workspace": "/no/such/folder"}},
		{Tool: "run_goal", Arguments: map[string]any{"goal": "x", "mode": "yolo"}},
		{Tool: "run_goal", Arguments: map[string]any{}},
		{Tool: "run_goal", Arguments: map[string]any{"goal": "What do the notes say?"}},
	}
	rep := runClient(t, plan)
	for i, want := range []string{"workspace /no/such/folder does not exist", "yolo", "goal"} {
		res := rep.Steps[i].Result
		if res == nil {
			// A client may refuse arguments its schema forbids before
			// sending them; that is fine too.
			if !strings.Contains(rep.Steps[i].Error, want) {
				t.Errorf("step %d: error %q does not mention %q", i, rep.Steps[i].Error, want)
			}
			continue
		}
		txt := res.texts()
		if !res.IsError || len(txt) != 1 || strings.Contains(txt[0], "\n") || !strings.Contains(txt[0], want) {
			t.Errorf("step %d: isError %v, text %q, want one line with %q", i, res.IsError, txt, want)
		}
	}
	if res := rep.Steps[3].result(t); res.StructuredContent["status"] != "succeeded" {
		t.Errorf("the server stopped serving after bad input: %+v", res)
	}
}

// TestMCPInspectorCLI checks that the MCP Inspector's CLI lists the tools
// and calls list_sessions.
func TestMCPInspectorCLI(t *testing.T) {
	needMCPClients(t)
	inspector, err := filepath.Abs(filepath.Join(mcpClientDir, "node_modules", ".bin", "inspector"))
	if err != nil {
		t.Fatal(err)
	}
	ws := workspaceWithNotes(t)
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		all := append([]string{"--cli", binary, "mcp", "--workspace", ws}, args...)
		cmd := exec.CommandContext(ctx, inspector, all...)
		// The Inspector keeps a catalogue in the home folder.
		cmd.Env = append(os.Environ(), "HOME="+home, "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tools := run("--method", "tools/list")
	for _, name := range []string{"run_goal", "continue_session", "list_sessions"} {
		if !strings.Contains(tools, `"`+name+`"`) {
			t.Errorf("tools/list does not name %s:\n%s", name, tools)
		}
	}
	if got := run("--method", "tools/call", "--tool-name", "list_sessions"); !strings.Contains(got, `"sessions"`) {
		t.Errorf("list_sessions gave:\n%s", got)
	}
}

// TestMCPUsageErrors checks that agenttui mcp refuses, in one line and with
// exit 2, what it cannot serve: a goal on its command line, and HTTP on an
// address other machines can reach.
func TestMCPUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "fix it"}, "agenttui mcp takes no goal"},
		{[]string{"mcp", "--http", "0.0.0.0:0"}, "agenttui mcp serves only this machine"},
		{[]string{"mcp", "--http", "8765"}, "give HOST:PORT"},
	} {
		r := runBinary(t, t.TempDir(), "", c.args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, r.code, r.stderr)
		}
	}
}

// TestMCPServerContinuesAfterRestart checks that a session a server began,
// which ended with a question, is carried on by continue_session on a
// server started afresh (as a client that starts its servers anew does),
// from its journal, and is listed there from then on.
func TestMCPServerContinuesAfterRestart(t *testing.T) {
	needMCPClients(t)
	ws := workspaceWithNotes(t)
	sc := scenario(t, "mcpserver/headless.json")
	plan := mcpServer(t, "stdio", "--scenario", sc, "--workspace", ws, "--mode", "reads")
	plan.Steps = []clientStep{{Tool: "run_goal", Arguments: map[string]any{"goal": "Change the notes."}}}
	first := runClient(t, plan).Steps[0].result(t)
	if first.StructuredContent["status"] != "refused" {
		t.Fatalf("the first run gave %+v", first)
	}
	id := first.Meta["agenttui/session"].(string)

	// Another server, started from another folder, in a fresh process.
	plan = mcpServer(t, "stdio", "--scenario", sc, "--workspace", t.TempDir())
	plan.Steps = []clientStep{
		{Tool: "continue_session", Arguments: map[string]any{"session": id, "input": "yes"}},
		{Tool: "list_sessions"},
	}
	rep := runClient(t, plan)
	done := rep.Steps[0].result(t)
	if done.StructuredContent["status"] != "succeeded" || done.texts()[0] != "Printed." || done.Meta["agenttui/session"] != id {
		t.Fatalf("continue_session after a restart gave %+v", done)
	}
	sessions, _ := rep.Steps[1].result(t).StructuredContent["sessions"].([]any)
	if len(sessions) != 1 || sessions[0].(map[string]any)["session"] != id || sessions[0].(map[string]any)["workspace"] != ws {
		t.Errorf("list_sessions gave %v", sessions)
	}
}
