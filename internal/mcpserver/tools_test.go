package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestToolsAreListed checks what a client sees of the tools: three, each
// with an input schema that refuses unknown properties and describes every
// property, and an output schema.
func TestToolsAreListed(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		in := schemaMap(t, tool.InputSchema)
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s's input schema is not a closed object: %v", tool.Name, in)
		}
		props, _ := in["properties"].(map[string]any)
		for name, p := range props {
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s's argument %s has no description", tool.Name, name)
			}
		}
		out := schemaMap(t, tool.OutputSchema)
		if out["type"] != "object" {
			t.Errorf("%s's output schema is not an object: %v", tool.Name, out)
		}
		for _, s := range []map[string]any{in, out} {
			raw, _ := json.Marshal(s)
			if strings.Contains(string(raw), `"$ref"`) || strings.Contains(string(raw), `"$schema"`) {
				t.Errorf("%s's schema uses $ref or $schema: %s", tool.Name, raw)
			}
			compile(t, raw)
		}
	}
	slices.Sort(names)
	if want := []string{"continue_session", "list_sessions", "run_goal"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	run := res.Tools[slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "run_goal" })]
	mode := schemaMap(t, run.InputSchema)["properties"].(map[string]any)["mode"].(map[string]any)
	if enum, _ := json.Marshal(mode["enum"]); string(enum) != `["ask","reads","auto","plan"]` {
		t.Errorf("mode's enum = %s", enum)
	}
}

// schemaMap returns a schema as the client decoded it.
func schemaMap(t *testing.T, s any) map[string]any {
	t.Helper()
	m, ok := s.(map[string]any)
	if !ok {
		t.Fatalf("schema %T is not an object", s)
	}
	return m
}

// compile compiles a schema with a validator the project already uses.
func compile(t *testing.T, raw []byte) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", strings.NewReader(string(raw))); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("compiling %s: %v", raw, err)
	}
	return s
}

// validates fails the test unless v fits the tool's output schema.
func validates(t *testing.T, cs *mcp.ClientSession, tool string, v any) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == tool {
			raw, _ := json.Marshal(tl.OutputSchema)
			if err := compile(t, raw).Validate(v); err != nil {
				t.Errorf("%s's result does not fit its output schema: %v", tool, err)
			}
			return
		}
	}
	t.Fatalf("no tool %s", tool)
}

// TestAGoalSucceeds checks a goal run to its end: the structured content is
// the outcome byte for byte as MarshalJSON gives it, the text is the
// summary, and the session is named in the text and the _meta.
func TestAGoalSucceeds(t *testing.T) {
	srv, l := newServer(t)
	wire := &syncBuffer{}
	cs := connect(t, srv, nil, wire)
	res := call(t, cs, "run_goal", map[string]any{"goal": "read a"})
	if res.IsError {
		t.Fatalf("run_goal is an error: %q", texts(t, res))
	}
	id := sessionOf(t, res)
	if got := texts(t, res)[0]; got != "a.txt says alpha." {
		t.Errorf("text = %q, want the summary", got)
	}
	o := outcomeOf(t, res)
	if o.Status != runtime.StatusSucceeded || string(o.ExtractedData) != `{"word":"alpha"}` {
		t.Errorf("outcome = %+v", o)
	}
	validates(t, cs, "run_goal", res.StructuredContent)

	// The outcome the session's run finished with, as the runtime
	// encodes it, is what went over the wire.
	var finished *runtime.RunFinished
	for _, e := range l.session(id).events.all() {
		if f, ok := e.(runtime.RunFinished); ok {
			finished = &f
		}
	}
	if finished == nil {
		t.Fatal("the session's run never finished")
	}
	want, err := finished.Outcome.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "the server's messages", wire.String(), `"structuredContent":`+string(want))

	list := listSessions(t, cs)
	if len(list.Sessions) != 1 {
		t.Fatalf("list_sessions = %+v", list)
	}
	got := list.Sessions[0]
	if got.Session != id || got.Goal != "read a" || got.State != "idle" || got.Workspace != l.session(id).Workspace() {
		t.Errorf("listed %+v", got)
	}
	// The client decoded the list, so only the wire holds its bytes.
	contains(t, "the server's messages", wire.String(), `"outcome":`+string(want))
}

// TestAFailedRunIsAnError checks that a failed run is a tool error whose
// text is the failure report.
func TestAFailedRunIsAnError(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil, nil)
	res := call(t, cs, "run_goal", map[string]any{"goal": "fail"})
	if !res.IsError {
		t.Error("a failed run is not a tool error")
	}
	sessionOf(t, res)
	o := outcomeOf(t, res)
	if o.Status != runtime.StatusFailed || len(o.Attempts) == 0 {
		t.Fatalf("outcome = %+v", o)
	}
	text := texts(t, res)[0]
	lines := strings.Split(text, "\n")
	if lines[0] != "Failed: fail" || lines[1] != "Failing step: "+o.FailingStep {
		t.Errorf("report = %q", text)
	}
	if len(lines) != 2+len(o.Attempts) || lines[len(lines)-1] != "- "+o.Attempts[len(o.Attempts)-1] {
		t.Errorf("report's attempts = %q, want %q", lines[2:], o.Attempts)
	}
	contains(t, "the report", text, `omega`)
	validates(t, cs, "run_goal", res.StructuredContent)
}

// TestARefusedRunAsksAndContinues checks a question without elicitation:
// the run comes back refused with the question, and continue_session
// carries the session on with the answer.
func TestARefusedRunAsksAndContinues(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil, nil)
	res := call(t, cs, "run_goal", map[string]any{"goal": "ask"})
	if res.IsError {
		t.Error("a refused run is a tool error")
	}
	id := sessionOf(t, res)
	if o := outcomeOf(t, res); o.Status != runtime.StatusRefused || o.Summary != "Which file should I change?" {
		t.Errorf("outcome = %+v", o)
	}
	if got := texts(t, res)[0]; got != "Which file should I change?" {
		t.Errorf("text = %q, want the question", got)
	}
	res = call(t, cs, "continue_session", map[string]any{"session": id, "input": "b.txt, please"})
	if res.IsError || outcomeOf(t, res).Status != runtime.StatusSucceeded {
		t.Fatalf("continue_session = %q", texts(t, res))
	}
	if sessionOf(t, res) != id || texts(t, res)[0] != "I will change b.txt." {
		t.Errorf("continue_session = %q", texts(t, res))
	}
}

// TestWithoutElicitationWritesAreSkipped checks that a client that cannot
// elicit gets the headless policy: the write is skipped, and the model
// reads why (the scenario expects it).
func TestWithoutElicitationWritesAreSkipped(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil, nil)
	res := call(t, cs, "run_goal", map[string]any{"goal": "write headless"})
	if o := outcomeOf(t, res); o.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome = %+v: the model did not read the headless skip", o)
	}
	ws := listSessions(t, cs).Sessions[0].Workspace
	if got := readFile(t, filepath.Join(ws, "a.txt")); got != "alpha\n" {
		t.Errorf("a.txt = %q: the skipped write ran", got)
	}
}

// TestBadInputIsAToolError checks that bad input gets one line saying what
// is wrong, as a tool error, and that the server keeps serving.
func TestBadInputIsAToolError(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil, nil)
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"run_goal", map[string]any{}, `run_goal: "goal" is required and must be a non-empty string`},
		{"run_goal", map[string]any{"goal": "  "}, `run_goal: "goal" is required and must be a non-empty string`},
		{"run_goal", map[string]any{"goal": 3}, `run_goal: "goal" is required and must be a non-empty string`},
		{"run_goal", map[string]any{"goal": "read a", "colour": "red"}, `run_goal: unknown argument "colour"; it takes goal, workspace, mode and model`},
		{"run_goal", map[string]any{"goal": "read a", "mode": "yolo"}, `run_goal: "mode" must be one of ask, reads, auto or plan, not "yolo"`},
		{"run_goal", map[string]any{"goal": "read a", "model": false}, `run_goal: "model" must be a string`},
		{"run_goal", []string{"read a"}, `run_goal: the arguments must be a JSON object`},
		{"run_goal", map[string]any{"goal": "read a", "workspace": missingWorkspace}, `run_goal: --workspace /no/such/folder: the folder does not exist`},
		{"continue_session", map[string]any{"session": "nope", "input": "hi"}, `unknown session "nope": list_sessions names the sessions this server holds`},
		{"continue_session", map[string]any{"session": "nope"}, `continue_session: "input" is required and must be a non-empty string`},
		{"list_sessions", map[string]any{"all": true}, `list_sessions: unknown argument "all"; it takes no arguments`},
	} {
		res := call(t, cs, c.tool, c.args)
		got := texts(t, res)
		if !res.IsError || len(got) != 1 || got[0] != c.want {
			t.Errorf("%s %v = %q (error %v), want %q", c.tool, c.args, got, res.IsError, c.want)
		}
	}
	if n := len(listSessions(t, cs).Sessions); n != 0 {
		t.Errorf("bad input left %d sessions", n)
	}
	if res := call(t, cs, "run_goal", map[string]any{"goal": "read a"}); res.IsError {
		t.Errorf("the server stopped serving: %q", texts(t, res))
	}
}

// TestNoSessionsYet checks list_sessions' text before any run.
func TestNoSessionsYet(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil, nil)
	res := call(t, cs, "list_sessions", nil)
	if got := texts(t, res); len(got) != 1 || got[0] != "No sessions yet." {
		t.Errorf("list_sessions = %q", got)
	}
	validates(t, cs, "list_sessions", res.StructuredContent)
}

// TestTwoGoalsRunAtOnce checks that two run_goal calls run side by side,
// each on its own session: each run's approval waits until the other's has
// been asked too, which only runs that overlap can do.
func TestTwoGoalsRunAtOnce(t *testing.T) {
	srv, _ := newServer(t)
	asked := make(chan struct{}, 2)
	both := make(chan struct{})
	cs := connect(t, srv, elicitFunc(func(ctx context.Context, message string) (*mcp.ElicitResult, error) {
		select {
		case asked <- struct{}{}:
		default:
			// A third request means an approval did not hold.
			return accept(map[string]any{"decision": "skip", "reason": "asked again"}), nil
		}
		select {
		case <-both:
			return accept(map[string]any{"decision": "approve"}), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}), nil)
	results := make(chan *mcp.CallToolResult, 2)
	for range 2 {
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_goal", Arguments: map[string]any{"goal": "write one"}})
			if err != nil {
				res = toolError(err.Error())
			}
			results <- res
		}()
	}
	wait(t, asked, "the first approval")
	wait(t, asked, "the second approval, while the first waits")
	list := listSessions(t, cs)
	if len(list.Sessions) != 2 || list.Sessions[0].State != "running" || list.Sessions[1].State != "running" {
		t.Errorf("while both wait, list_sessions = %+v", list)
	}
	close(both)
	ids := map[string]bool{}
	for range 2 {
		res := wait(t, results, "a result")
		if res.IsError || outcomeOf(t, res).Status != runtime.StatusSucceeded {
			t.Fatalf("run_goal = %q", texts(t, res))
		}
		ids[sessionOf(t, res)] = true
	}
	if len(ids) != 2 {
		t.Errorf("the two goals shared a session: %v", ids)
	}
	for _, s := range listSessions(t, cs).Sessions {
		if s.State != "idle" || readFile(t, filepath.Join(s.Workspace, "a.txt")) != "ALPHA\n" {
			t.Errorf("session %s: %s, a.txt not written", s.Session, s.State)
		}
	}
}
