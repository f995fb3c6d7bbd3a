package model

import (
	"context"
	"errors"
	"strings"
	"testing"

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
		{`{"steps": [{"text": 5}]}`, "step 1: field text: expected string, got number"},
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
