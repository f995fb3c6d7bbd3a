package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

func TestResumeInterruptedReply(t *testing.T) {
	read := pathTool("read", false, okBody("fresh read"))
	write := pathTool("write", true, okBody("written"))
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{
			call("read", `{"path":"a"}`), call("read", `{"path":"b"}`),
			call("write", `{"path":"c"}`), call("write", `{"path":"d"}`),
			call("remember", `{"key":"k","value":1}`),
		}},
		model.Step{Expect: []string{"recorded read", "fresh read", "may have partly run", "was not run"},
			Calls: []model.ScriptedCall{call("finish", `{"summary":"resumed"}`)}},
	)
	rec := newRecorder()
	a := newAgent(t, m, rec, read, write)
	a.Hooks = []Hook{HookFunc(func(context.Context, CallInfo) Flow { return Continue("test", "") })}

	// The session as a journal would rebuild it: the first reply is in the
	// conversation, its first call finished, the second (a read) and third
	// (a write) had started, the fourth had not.
	s := sessionAfterFirstReply(t, m)
	intr := &Interrupted{Turn: 1, Calls: []InterruptedCall{
		{Started: true, Finished: &FinishedCall{Outcome: tool.Succeeded(), Result: tool.Result{CallID: "call_1_0", Name: "read", Content: "recorded read"}}},
		{Started: true},
		{Started: true},
		{},
		{Started: true, Finished: &FinishedCall{Outcome: tool.Succeeded(), Result: tool.Result{CallID: "call_1_4", Name: "remember", Content: "Remembered k."}}},
	}}
	out := a.Resume(context.Background(), s, intr)
	if out.Status != StatusSucceeded || string(out.ExtractedData) != `{"k":1}` {
		t.Fatalf("outcome %+v %s", out, out.ExtractedData)
	}
	if read.count() != 1 {
		t.Errorf("the in-doubt read ran %d times, want once (the finished one must not run again)", read.count())
	}
	if write.count() != 0 {
		t.Errorf("a write ran after the restart (%d times)", write.count())
	}
	res := resultsOf(t, s, 1)
	want := []string{
		"recorded read",
		"fresh read",
		feedback.NotFinished("write", true, tool.Writes(tool.Paths("/w/c")), RestartReason),
		feedback.NotFinished("write", false, tool.Writes(tool.Paths("/w/d")), RestartReason),
		"Remembered k.",
	}
	for i := range want {
		if res[i].Content != want[i] {
			t.Errorf("call %d: got %q, want %q", i, res[i].Content, want[i])
		}
	}
	events := rec.snapshot()
	if rs, ok := events[0].(RunStarted); !ok || !rs.Resumed {
		t.Errorf("the first event should be a resumed run_started: %s", describe(events[:1]))
	}
	if f, _ := finishedOf(events, 2); !f.NotFinished || !f.Started || !strings.Contains(f.Result, "session restarted") || f.DurationMS != 0 {
		t.Errorf("in-doubt write event %+v; its duration is unknown, so 0", f)
	}
}

// sessionAfterFirstReply returns a session as a journal rebuilds it after a
// stop in the middle of the first reply: the goal, and m's first reply.
func sessionAfterFirstReply(t *testing.T, m model.Model) *Session {
	t.Helper()
	s := NewSession("s")
	s.Goal = "go"
	s.Messages = []model.Message{{Role: model.RoleUser, Text: "go"}}
	reply, err := m.Reply(context.Background(), model.Request{Messages: s.Messages}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Messages = append(s.Messages, model.Message{Role: model.RoleAssistant, Calls: reply.Calls})
	return s
}

func TestResumeBetweenTurnsEndsWithRecordedFinish(t *testing.T) {
	s := NewSession("s")
	s.Goal = "go"
	s.Messages = []model.Message{
		{Role: model.RoleUser, Text: "go"},
		{Role: model.RoleAssistant, Calls: []tool.Call{{ID: "1", Name: "finish", Arguments: `{"summary":"all done","data":{"x":1}}`}}},
		{Role: model.RoleTool, Results: []tool.Result{{CallID: "1", Name: "finish", Content: "Finished"}}},
	}
	a := newAgent(t, script(t, model.Step{Text: "must not be asked"}), nil)
	out := a.Resume(context.Background(), s, nil)
	if out.Status != StatusSucceeded || out.Summary != "all done" {
		t.Errorf("outcome %+v", out)
	}
}

func TestResumeInvalidReplyGetsItsFeedback(t *testing.T) {
	s := NewSession("s")
	s.Goal = "go"
	s.Messages = []model.Message{
		{Role: model.RoleUser, Text: "go"},
		{Role: model.RoleAssistant, Calls: []tool.Call{{ID: "1", Name: "read", Arguments: `[1]`}}},
	}
	m := script(t, model.Step{Text: "x"}, model.Step{Expect: []string{"must be a JSON object"}, Text: "recovered"})
	a := newAgent(t, m, nil, pathTool("read", false, okBody("r")))
	out := a.Resume(context.Background(), s, &Interrupted{Turn: 1, Calls: []InterruptedCall{{}}})
	if out.Status != StatusSucceeded || out.Summary != "recovered" {
		t.Errorf("outcome %+v", out)
	}
}

// A kill can land after the reply holding finish was journaled and before the
// finish call was taken. Finish changes nothing outside the session, so the
// resumed run takes it and ends as the model asked, instead of asking the
// model for a reply it has already given.
func TestResumeTakesAnUntakenFinish(t *testing.T) {
	write := pathTool("write", true, okBody("written"))
	m := script(t, model.Step{Calls: []model.ScriptedCall{
		call("write", `{"path":"c"}`),
		call("finish", `{"summary":"first"}`),
		call("finish", `{"summary":"second"}`),
	}})
	rec := newRecorder()
	a := newAgent(t, m, rec, write)
	s := sessionAfterFirstReply(t, m)
	intr := &Interrupted{Turn: 1, Calls: []InterruptedCall{{Started: true}, {}, {}}}
	out := a.Resume(context.Background(), s, intr)
	if out.Status != StatusSucceeded || out.Summary != "first" {
		t.Fatalf("outcome %+v, want succeeded with the first finish's summary", out)
	}
	if write.count() != 0 {
		t.Errorf("the in-doubt write ran again (%d times)", write.count())
	}
	res := resultsOf(t, s, 1)
	if !strings.Contains(res[0].Content, "may have partly run") {
		t.Errorf("in-doubt write reads %q", res[0].Content)
	}
	if !strings.Contains(res[2].Content, "already ends the run") {
		t.Errorf("second finish reads %q", res[2].Content)
	}
}
