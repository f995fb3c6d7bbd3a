package model

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/tool"
)

const twoSteps = `{"name": "t", "steps": [
  {"text": "first", "calls": [{"name": "read_file", "args": {"path": "a"}}, {"name": "x", "raw_args": "{\"p\":"}]},
  {"expect": ["contents of a"], "text": "done"}
]}`

func TestScriptedPositionComesFromTheConversation(t *testing.T) {
	sc, err := ParseScenario([]byte(twoSteps))
	if err != nil {
		t.Fatal(err)
	}
	m := NewScripted("scenario:t", sc).WithoutDelays()
	var deltas []string
	r, err := m.Reply(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "go"}}}, func(d Delta) {
		deltas = append(deltas, d.Text)
	})
	if err != nil || r.Text != "first" || len(r.Calls) != 2 || r.Stop != StopToolCalls {
		t.Fatalf("first reply %+v, %v", r, err)
	}
	if r.Calls[0].Arguments != `{"path":"a"}` || r.Calls[1].Arguments != `{"p":` || r.Calls[0].ID != "call_1_0" {
		t.Errorf("calls %+v", r.Calls)
	}
	if strings.Join(deltas, "") != "first" {
		t.Errorf("streamed %q", deltas)
	}
	// A conversation that already holds one reply gets the second step,
	// whoever plays it: a resumed session carries on where it stopped.
	conv := []Message{{Role: RoleUser, Text: "go"}, {Role: RoleAssistant, Text: "first"},
		{Role: RoleTool, Results: []tool.Result{{Content: "contents of a"}}}}
	r, err = NewScripted("again", sc).WithoutDelays().Reply(context.Background(), Request{Messages: conv}, nil)
	if err != nil || r.Text != "done" || r.Stop != StopEnd {
		t.Fatalf("second reply %+v, %v", r, err)
	}
	conv[2].Results[0].Content = "something else"
	_, err = m.Reply(context.Background(), Request{Messages: conv}, nil)
	if !errors.Is(err, ErrScriptEnded) || !strings.Contains(err.Error(), `step 2 expected the model to have read "contents of a"`) {
		t.Errorf("missing expectation: %v", err)
	}
	conv = append(conv, Message{Role: RoleAssistant})
	if _, err := m.Reply(context.Background(), Request{Messages: conv}, nil); !errors.Is(err, ErrScriptEnded) {
		t.Errorf("out of steps: %v", err)
	}
}

func TestScenarioErrorsNameStepAndField(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"steps": []}`, "field steps is empty"},
		{`{"name": "x"}`, "field steps is missing"},
		{`{"steps": [{}]}`, "step 1: a step needs text, calls or cut"},
		{`{"steps": [{"text": "a"}, {"calls": [{"name": "r", "args": {}, "raw_args": "{}"}]}]}`, "step 2: calls[0]: give args or raw_args, not both"},
		{`{"steps": [{"cut": {"args": {}}}]}`, "step 1: cut: field name is missing"},
		{`{"steps": [{"text": 5}]}`, "step 1: field text: expected a string, got a number"},
		{`{"steps": [{"text": "a", "expect": [""]}]}`, "step 1: expect[0]: an expected text must not be empty"},
		{`{"steps": [{"text": "a", "delay_ms": -1}]}`, "step 1: field delay_ms: must not be negative"},
		{`{"steps": [{"text": "a"}], "extra": 1}`, `unknown field "extra"`},
		{`{"steps": [{"text": "a"}]} trailing`, "unexpected data after the JSON value"},
	}
	for _, c := range cases {
		_, err := ParseScenario([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.in, err, c.want)
		}
	}
}

// TestScenarioErrorsAreInWords checks that a scenario that is not one is
// said in words a person who wrote the file can act on, whole: never a Go
// type, never a bare EOF.
func TestScenarioErrorsAreInWords(t *testing.T) {
	const shape = `a scenario is a JSON object such as {"steps": [{"text": "Done."}]}`
	cases := []struct{ in, want string }{
		{`[]`, "not a valid scenario: it is an array; " + shape},
		{``, "not a valid scenario: it is empty; " + shape},
		{" \n\t", "not a valid scenario: it is empty; " + shape},
		{`42`, "not a valid scenario: it is a number; " + shape},
		{`"steps"`, "not a valid scenario: it is a string; " + shape},
		{`null`, "not a valid scenario: it is null; " + shape},
		{`{"name": 5, "steps": [{"text": "a"}]}`, "not a valid scenario: field name: expected a string, got a number"},
		{`{"steps": {"text": "a"}}`, "not a valid scenario: field steps: expected an array, got an object"},
		{`{"steps": [{"calls": {"name": "r"}}]}`, "step 1: field calls: expected an array, got an object"},
		{`{"steps": [{"cut": "r"}]}`, "step 1: field cut: expected an object, got a string"},
		{`{"steps": [{"text": "a", "delay_ms": 1.5}]}`, "step 1: field delay_ms: expected a whole number, got a number (1.5)"},
		{`{"steps": [{"text": "a", "expect": [true]}]}`, "step 1: field expect: expected a string, got true or false"},
		{`{"stpes": [{"text": "a"}]}`, `not a valid scenario: unknown field "stpes"`},
		{`{"steps": [{"txet": "a"}]}`, `step 1: unknown field "txet"`},
		{`{"steps": [[]]}`, `step 1: it is an array; a step is a JSON object such as {"text": "Done."}`},
		{`{"steps": [{"text": "a"}], "tasks": {"look": []}}`, `tasks["look"]: it is an array; a task's script is a JSON object`},
		{`{"steps": [{"text": "a"}], "tasks": {"look": {"steps": [{"text": 1}]}}}`, `tasks["look"]: step 1: field text: expected a string, got a number`},
		{"{\n  \"steps\": [\n    {\"text\": \"a\",}\n  ]\n}", "not a valid scenario: invalid JSON at line 3, column 18: invalid character '}'"},
		{`{"steps": [{"text": "a"}]`, "not a valid scenario: invalid JSON: it ends in the middle of a value"},
	}
	for _, c := range cases {
		_, err := ParseScenario([]byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
			continue
		}
		for _, leak := range []string{"Go ", "struct", "json.", "model.", "EOF", "unmarshal", "expected int", "expected string", "expected []"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%q: the error %q says %q", c.in, err, leak)
			}
		}
	}
}

func TestScriptedCutAndDelaysHonourCancel(t *testing.T) {
	sc, _ := ParseScenario([]byte(`{"steps": [{"delay_ms": 60000, "text": "slow", "cut": {"name": "w", "raw_args": "{\"c\":\"aa"}}]}`))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewScripted("s", sc).Reply(ctx, Request{}, func(Delta) {}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled request should end the delay: %v", err)
	}
	r, err := NewScripted("s", sc).WithoutDelays().Reply(context.Background(), Request{}, nil)
	if err != nil || r.Cut == nil || r.Cut.Arguments != `{"c":"aa` || r.Stop != StopOutputLimit {
		t.Errorf("cut reply %+v, %v", r, err)
	}
}

func TestScenarioCarriesItsPerson(t *testing.T) {
	data, err := os.ReadFile("testdata/scenarios/person.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Workspace != "person.txtar" || sc.Steps[0].Input != "Tidy the notes." || sc.Steps[1].Input != "" ||
		sc.Steps[2].Input != "the first\nand the second" {
		t.Fatalf("workspace %q, inputs %q %q %q", sc.Workspace, sc.Steps[0].Input, sc.Steps[1].Input, sc.Steps[2].Input)
	}
	want := []Decision{
		{Kind: DecisionApprove}, {Kind: DecisionSkip, Reason: "not b"}, {Kind: DecisionGrant, Grant: GrantFolder},
		{Kind: DecisionGrant, Grant: GrantSandboxed}, {Kind: DecisionSkip},
	}
	for i, w := range want {
		if d := sc.Steps[0].Calls[i].Decision; d == nil || *d != w {
			t.Errorf("call %d: decision %+v, want %+v", i, d, w)
		}
	}
	if sc.Steps[1].Calls[0].Decision != nil {
		t.Errorf("a call with no decision got %+v", sc.Steps[1].Calls[0].Decision)
	}
	// The decisions are written back in the forms they were read in.
	for i, w := range []string{`"approve"`, `{"skip":"not b"}`, `{"grant":"folder"}`, `{"grant":"sandboxed"}`, `"skip"`} {
		if got := sc.Steps[0].Calls[i].Decision.String(); got != w {
			t.Errorf("call %d is written %s, want %s", i, got, w)
		}
	}
	// The person's fields change nothing the model does.
	m := NewScripted("p", sc).WithoutDelays()
	r, err := m.Reply(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "something else entirely"}}}, nil)
	if err != nil || r.Text != "Writing two files." || len(r.Calls) != 5 || r.Calls[4].Arguments != `{"path": "a.txt"}` {
		t.Fatalf("reply %+v, %v", r, err)
	}
}

func TestOldScenariosReadAsBefore(t *testing.T) {
	// Every scenario written before the person's fields existed reads with
	// none of them set.
	files, _ := filepath.Glob("testdata/scenarios/*.json")
	read := 0
	for _, f := range files {
		if filepath.Base(f) == "person.json" {
			continue
		}
		data, _ := os.ReadFile(f)
		sc, err := ParseScenario(data)
		if err != nil {
			continue
		}
		read++
		if sc.Workspace != "" {
			t.Errorf("%s: workspace %q", f, sc.Workspace)
		}
		for i, s := range sc.Steps {
			if s.Input != "" {
				t.Errorf("%s step %d: input %q", f, i+1, s.Input)
			}
			for _, c := range s.Calls {
				if c.Decision != nil {
					t.Errorf("%s step %d: decision %v", f, i+1, c.Decision)
				}
			}
		}
	}
	if read < 4 {
		t.Fatalf("only %d old scenarios read", read)
	}
}

func TestPersonFieldErrorsNameStepAndField(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"workspace": "../ws.txtar", "steps": [{"text": "a"}]}`, `field workspace: "../ws.txtar" is not a path inside the scenario's folder`},
		{`{"workspace": "/tmp/ws.txtar", "steps": [{"text": "a"}]}`, `field workspace: "/tmp/ws.txtar" is not a path inside`},
		{`{"workspace": "a/./ws.txtar", "steps": [{"text": "a"}]}`, `field workspace: "a/./ws.txtar" is not a path inside`},
		{`{"workspace": 3, "steps": [{"text": "a"}]}`, `field workspace: expected a string, got a number`},
		{`{"steps": [{"text": "a"}, {"input": "  ", "text": "b"}]}`, "step 2: field input: must not be blank"},
		{`{"steps": [{"input": 4, "text": "b"}]}`, "step 1: field input: expected a string, got a number"},
		{`{"steps": [{"input": "go"}]}`, "step 1: a step needs text, calls or cut"},
		{`{"steps": [{"calls": [{"name": "r"}, {"name": "w", "decision": "aprove"}]}]}`,
			`step 1: calls[1]: field decision: unknown decision "aprove": use "approve", "skip", {"skip": "the reason"} or {"grant": "tool" | "folder" | "sandboxed"}`},
		{`{"steps": [{"text": "a"}, {"calls": [{"name": "w", "decision": "grant"}]}]}`, `step 2: calls[0]: field decision: "grant" needs its kind`},
		{`{"steps": [{"calls": [{"name": "w", "decision": {"grant": "everything"}}]}]}`, `step 1: calls[0]: field decision: unknown grant "everything": use tool`},
		{`{"steps": [{"calls": [{"name": "w", "decision": {"skip": 3}}]}]}`, `step 1: calls[0]: field decision: skip: expected a string, got 3`},
		{`{"steps": [{"calls": [{"name": "w", "decision": {"skip": "a", "grant": "tool"}}]}]}`, `step 1: calls[0]: field decision: an object decision has exactly one field`},
		{`{"steps": [{"calls": [{"name": "w", "decision": {"approve": "yes"}}]}]}`, `step 1: calls[0]: field decision: unknown field "approve"`},
		{`{"steps": [{"calls": [{"name": "w", "decision": true}]}]}`, `step 1: calls[0]: field decision: true is not a decision`},
		{`{"steps": [{"cut": {"name": "w", "raw_args": "{", "decision": "approve"}}]}`, "step 1: cut: field decision: a call cut off by the output limit never runs"},
		{`{"steps": [{"calls": [{"name": "w", "reason": "x"}]}]}`, `step 1: unknown field "reason"`},
	}
	for _, c := range cases {
		_, err := ParseScenario([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.in, err, c.want)
		}
	}
}

func TestSpeedDividesTheDelays(t *testing.T) {
	sc, _ := ParseScenario([]byte(`{"steps": [{"delay_ms": 800, "text": "one two three four"}]}`))
	var slept time.Duration
	m := NewScripted("s", sc)
	m.sleep = func(_ context.Context, d time.Duration) error { slept += d; return nil }
	if _, err := m.WithSpeed(4).Reply(context.Background(), Request{}, func(Delta) {}); err != nil {
		t.Fatal(err)
	}
	if slept != 200*time.Millisecond {
		t.Fatalf("at speed 4 an 800 ms step slept %v, want 200ms", slept)
	}
}

func TestCarriesPerson(t *testing.T) {
	for in, want := range map[string]bool{
		`{"steps": [{"text": "a"}]}`:                                                       false,
		`{"steps": [{"text": "a"}, {"input": "go", "text": "b"}]}`:                         true,
		`{"steps": [{"calls": [{"name": "w"}, {"name": "w", "decision": "skip"}]}]}`:       true,
		`{"workspace": "w.txtar", "steps": [{"calls": [{"name": "w"}], "delay_ms": 100}]}`: false,
	} {
		sc, err := ParseScenario([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if sc.CarriesPerson() != want {
			t.Errorf("%s: carries its person %v, want %v", in, !want, want)
		}
	}
}

// branching is a scenario whose last reply says what was written, by what
// the model read two replies before it.
const branching = `{"steps": [
  {"calls": [{"name": "write_file", "args": {"path": "CHANGELOG.md", "content": "x"}}]},
  {"calls": [{"name": "ask_user", "args": {"question": "Keep it?"}}]},
  {"expect": ["yes"], "text": "Done, without a changelog.",
   "variants": [
     {"when_read": ["Created CHANGELOG.md", "no tests"], "text": "Done, with a changelog and no tests."},
     {"when_read": ["Created CHANGELOG.md"], "expect": ["yes"], "text": "Done, with a changelog."}]}]}`

// TestScriptedVariantFollowsWhatWasRead checks that a step's variant plays
// when the model has read all of its texts anywhere in the conversation,
// the first matching one winning, and the step as written otherwise; and
// that a variant's own expectations hold.
func TestScriptedVariantFollowsWhatWasRead(t *testing.T) {
	sc, err := ParseScenario([]byte(branching))
	if err != nil {
		t.Fatal(err)
	}
	m := NewScripted("s", sc).WithoutDelays()
	conv := func(written, answer string) []Message {
		return []Message{{Role: RoleUser, Text: "go"}, {Role: RoleAssistant},
			{Role: RoleTool, Results: []tool.Result{{Content: written}}}, {Role: RoleAssistant},
			{Role: RoleTool, Results: []tool.Result{{Content: "Keep it?"}}}, {Role: RoleUser, Text: answer}}
	}
	for _, tc := range []struct{ written, answer, want string }{
		{"Created CHANGELOG.md: 1 byte, 1 line.", "yes", "Done, with a changelog."},
		{"Created CHANGELOG.md: 1 byte, 1 line.", "yes, no tests", "Done, with a changelog and no tests."},
		{"Skipped by the person, who gave no reason; the call was not run.", "yes", "Done, without a changelog."},
	} {
		r, err := m.Reply(context.Background(), Request{Messages: conv(tc.written, tc.answer)}, nil)
		if err != nil || r.Text != tc.want {
			t.Errorf("after %q and %q: %q, %v; want %q", tc.written, tc.answer, r.Text, err, tc.want)
		}
	}
	// The model's own words are not what it read.
	own := conv("Skipped by the person.", "yes")
	own[3].Text = "Created CHANGELOG.md"
	if r, _ := m.Reply(context.Background(), Request{Messages: own}, nil); r.Text != "Done, without a changelog." {
		t.Errorf("the model's own text chose a variant: %q", r.Text)
	}
	if _, err := m.Reply(context.Background(), Request{Messages: conv("Created CHANGELOG.md", "no")}, nil); err == nil ||
		!strings.Contains(err.Error(), `step 3 expected the model to have read "yes"`) {
		t.Errorf("the variant's expectation: %v", err)
	}
}

// TestVariantErrorsNameStepAndField checks what a scenario's variants may
// not be.
func TestVariantErrorsNameStepAndField(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"steps": [{"text": "a", "variants": [{"text": "b"}]}]}`, "step 1: variants[0]: field when_read is missing"},
		{`{"steps": [{"text": "a", "variants": [{"when_read": [""], "text": "b"}]}]}`, "step 1: variants[0]: when_read[0]: a text to look for must not be empty"},
		{`{"steps": [{"text": "a", "variants": [{"when_read": ["x"]}]}]}`, "step 1: variants[0]: a step needs text, calls or cut"},
		{`{"steps": [{"text": "a", "variants": [{"when_read": ["x"], "input": "go", "text": "b"}]}]}`, "step 1: variants[0]: field input: a variant is the model's reply"},
		{`{"steps": [{"text": "a", "variants": [{"when_read": ["x"], "text": "b", "variants": [{"when_read": ["y"], "text": "c"}]}]}]}`,
			"step 1: variants[0]: field variants: a variant has no variants of its own"},
		{`{"steps": [{"text": "a", "variants": [{"when_read": ["x"], "calls": [{"name": "w", "decision": "approve"}]}]}]}`,
			"step 1: variants[0]: calls[0]: field decision: the autopilot answers only the calls of a step without variants"},
		{`{"steps": [{"calls": [{"name": "w", "decision": "approve"}], "variants": [{"when_read": ["x"], "text": "b"}]}]}`,
			"step 1: calls[0]: field decision: a step with variants records no decisions"},
		{`{"steps": [{"text": "a", "variants": [{"when_read": ["x"], "text": "b", "mood": 1}]}]}`, `unknown field "mood"`},
	}
	for _, c := range cases {
		_, err := ParseScenario([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.in, err, c.want)
		}
	}
}
