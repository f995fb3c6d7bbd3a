package journal

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// TestReasoningPayloadsSurviveRedactionAndReplay writes a reply whose
// reasoning payloads look like tokens the redactor removes, and whose
// readable text holds a configured secret: the payloads come back byte for
// byte, since the provider checks them, and the secret does not reach the
// file.
func TestReasoningPayloadsSurviveRedactionAndReplay(t *testing.T) {
	const secret = "super-secret-value-42"
	dir := t.TempDir()
	w, err := Create(dir, header("reasoning"), redact.New(secret))
	if err != nil {
		t.Fatal(err)
	}
	parts := []model.Reasoning{
		// Base64url ciphertext in which an OpenAI key's shape turned up.
		{Source: "openai:gpt-5", Kind: model.ReasoningItem, Text: "Plan: read a.",
			Data: `{"id":"rs_1","type":"reasoning","encrypted_content":"gAAAAsk-proj-abcdefghijklmnop_QRS<&>\u2028"}`},
		{Source: "anthropic:claude-opus-4-7", Kind: model.ReasoningThinking, Text: "The key is " + secret + ".",
			Data: "EqQBCkYIBxgCKkBsk-ant-0123456789abcdefghij/+==", Calls: 1, AfterText: true},
		{Source: "anthropic:claude-opus-4-7", Kind: model.ReasoningRedacted, Data: "ghp_" + strings.Repeat("A1", 20)},
	}
	w.Event(runtime.RunStarted{Session: "reasoning", Goal: "g", Input: "g"})
	w.Event(runtime.TurnStarted{Turn: 1})
	w.Event(runtime.ReplyReceived{Turn: 1, Text: "Reading.", Reasoning: parts, Stop: "end", Calls: []runtime.PlannedCall{}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(Path(dir, "reasoning"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Errorf("the secret in the reasoning text reached the journal:\n%s", raw)
	}
	if strings.Contains(string(raw), "agenttui-payload-") {
		t.Errorf("a placeholder was left in the journal:\n%s", raw)
	}
	rp, err := Load(Path(dir, "reasoning"))
	if err != nil {
		t.Fatal(err)
	}
	got := rp.Session.Messages[1].Reasoning
	want := append([]model.Reasoning(nil), parts...)
	want[1].Text = "The key is " + redact.Marker + "."
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replayed reasoning\n%+v\nwant\n%+v", got, want)
	}
}

// TestReasoningStaysWithItsReplyAcrossAResume checks the rebuilt session
// holds each reply's reasoning on that reply, as the run kept it.
func TestReasoningStaysWithItsReplyAcrossAResume(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, header("r2"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	sc := &model.Scenario{Name: "j", Steps: []model.Step{
		{Thinking: "I should echo first.", Calls: []model.ScriptedCall{call("echo", `{"text":"one"}`)}},
		{Thinking: "Now finish.", Calls: []model.ScriptedCall{call("finish", `{"summary":"done"}`)}},
	}}
	a := newAgent(t, w.Event)
	a.Model = model.NewScripted("j", sc)
	live := runtime.NewSession("r2")
	if out := a.Run(t.Context(), live, "echo"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	w.Close()
	rp, err := Load(Path(dir, "r2"))
	if err != nil {
		t.Fatal(err)
	}
	var thoughts []string
	for _, m := range rp.Session.Messages {
		for _, r := range m.Reasoning {
			if m.Role != model.RoleAssistant {
				t.Errorf("reasoning on a %s message", m.Role)
			}
			thoughts = append(thoughts, r.Text)
		}
	}
	if want := []string{"I should echo first.", "Now finish."}; !reflect.DeepEqual(thoughts, want) {
		t.Errorf("reasoning %q, want %q", thoughts, want)
	}
	if !reflect.DeepEqual(rp.Session.Messages, live.Messages) {
		t.Errorf("the replayed conversation differs from the one the run had")
	}
}
