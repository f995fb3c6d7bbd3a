package mdtranscript

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/internal/eventtest"
)

func kind(s string) *string { return &s }

// session feeds a Log a session with a question, an answer, calls that
// succeed, fail and are skipped, and a run cut off mid-reply.
func session() *Log {
	l := New()
	l.Workspace = "/w"
	at := runtime.Time{Time: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	for _, e := range []runtime.Event{
		runtime.RunStarted{Session: "s-1", Goal: "fix the pager", Input: "fix the pager", Model: "scenario:test", At: at},
		runtime.TurnStarted{Turn: 1},
		runtime.TextDelta{Turn: 1, Text: "Reading "},
		runtime.ReplyReceived{Turn: 1, Text: "Reading **both** files.", Calls: []runtime.PlannedCall{
			{Index: 0, Name: "read_file", Args: json.RawMessage(`{"path":"pager.go"}`)},
			{Index: 1, Name: "run_shell", Args: json.RawMessage(`{"command":"cat secret"}`)},
			{Index: 2, Name: "write_file", Args: json.RawMessage(`{"path":"x","content":"` + strings.Repeat("a", MaxArgs) + `"}`)},
		}},
		runtime.CallDecision{Turn: 1, Index: 0, Decision: "run", By: "mode:reads"},
		runtime.CallDecision{Turn: 1, Index: 1, Decision: "run", By: "user"},
		runtime.CallDecision{Turn: 1, Index: 2, Decision: "skip", By: "user", Reason: "no"},
		runtime.CallFinished{Turn: 1, Index: 0, Name: "read_file", Outcome: "success", Result: "package pager\n```\nfenced\n```\n", DurationMS: 12},
		runtime.CallFinished{Turn: 1, Index: 1, Name: "run_shell", Outcome: "error", Kind: kind("timeout"), Code: "timeout:1s",
			Result: "key sk-abcdefghijklmnopqrstuvwx\x1b[2J\n" + strings.Repeat("line\n", 30), DurationMS: 1500},
		runtime.CallFinished{Turn: 1, Index: 2, Name: "write_file", Outcome: "skipped", Result: "Skipped by the person: no"},
		runtime.TurnEnded{Turn: 1},
		runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{{Index: 0, Name: "ask_user", Args: json.RawMessage(`{"question":"Which page?"}`)}}},
		runtime.CallFinished{Turn: 2, Index: 0, Name: "ask_user", Outcome: "success", Result: "asked"},
		runtime.RunFinished{Outcome: runtime.GoalOutcome{Status: runtime.StatusRefused, Summary: "Which page?"}},
		runtime.RunStarted{Session: "s-1", Input: "the last\none", Model: "scenario:test", At: at},
		runtime.Notice{Level: "warning", Text: "a server stopped"},
		runtime.ReplyReceived{Turn: 3, Text: "Done.", Calls: []runtime.PlannedCall{{Index: 0, Name: "finish", Args: json.RawMessage(`{"summary":"Fixed"}`)}}},
		runtime.RunFinished{Outcome: runtime.Succeeded("Fixed the last page.", json.RawMessage(`{"pages":3}`))},
		runtime.RunStarted{Session: "s-1", Input: "and now?", Model: "scenario:test", At: at},
		runtime.TurnStarted{Turn: 4},
		runtime.TextDelta{Turn: 4, Text: "I was saying"},
		runtime.RunFinished{Outcome: runtime.Failed("and now?", "turn 4", []string{"stopped: the person stopped the turn"})},
	} {
		l.Add(e)
	}
	return l
}

func TestMarkdownGolden(t *testing.T) {
	md := session().Markdown(redact.New(), time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	golden.RequireEqual(t, []byte(md))
}

func TestMarkdownHoldsTheSession(t *testing.T) {
	md := session().Markdown(redact.New(), time.Now())
	for _, want := range []string{
		"# agenttui session s-1", "- Model: `scenario:test`", "- Workspace: `/w`",
		"## Goal\n\n> fix the pager", "### Turn 1\n\nReading **both** files.",
		"**#1 `read_file`** · success · 12ms · decision: run (mode:reads)", "{\n  \"path\": \"pager.go\"\n}",
		"````text\npackage pager\n```\nfenced\n```\n````", // a longer fence around a result holding one
		"**#2 `run_shell`** · error: timed out after 1s · 1.5s", "… (11 more lines)",
		"**#3 `write_file`** · skipped", "… (", "more bytes)",
		"## Answer\n\n> the last\n> one", "*warning: a server stopped*",
		"### Outcome: the agent asks a question\n\n> Which page?",
		"### Outcome: succeeded\n\n> Fixed the last page.", "\"pages\": 3",
		"## Follow-up\n\n> and now?", "I was saying\n\n*(the reply was cut off here)*", "### Outcome: failed",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "sk-abc") || !strings.Contains(md, redact.Marker) {
		t.Error("a secret reached the export")
	}
	if strings.Contains(md, "\x1b") || !strings.Contains(md, "␛") {
		t.Error("an escape sequence reached the export")
	}
	if New().Empty() != true || session().Empty() {
		t.Error("Empty is wrong")
	}
}

// thoughtfulSession feeds a Log a session whose model thinks: a reply with
// readable thinking and tokens, one whose reasoning the provider hid, one
// whose thinking only the usage counts, and a run cut off while the model
// thought; the model's price is known.
func thoughtfulSession() *Log {
	l := New()
	l.Workspace = "/w"
	at := runtime.Time{Time: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	total := eventtest.Used(48_000, 41_000, 2_100, 0.07)
	for _, e := range []runtime.Event{
		runtime.RunStarted{Session: "s-2", Goal: "fix the pager", Input: "fix the pager", Model: "anthropic:claude-test", At: at},
		runtime.TurnStarted{Turn: 1},
		runtime.ThinkingDelta{Turn: 1, Text: "The pager loses"},
		runtime.UsageReported{Turn: 1, Usage: eventtest.Used(20_000, 0, 1_500, 0.05), Total: eventtest.Used(20_000, 0, 1_500, 0.05)},
		runtime.ReplyReceived{Turn: 1, Text: "Reading pager.go.", Reasoning: []model.Reasoning{
			eventtest.Thought("The pager loses its last page.\n\nProbably integer division\x1b[2J; read pager.go first.", 1400)},
			Calls: []runtime.PlannedCall{{Index: 0, Name: "read_file", Args: json.RawMessage(`{"path":"pager.go"}`)}}},
		runtime.CallFinished{Turn: 1, Index: 0, Name: "read_file", Outcome: "success", Result: "package pager", DurationMS: 3},
		runtime.TurnEnded{Turn: 1},
		runtime.ReplyReceived{Turn: 2, Reasoning: []model.Reasoning{eventtest.HiddenThought()},
			Calls: []runtime.PlannedCall{{Index: 0, Name: "finish", Args: json.RawMessage(`{"summary":"Fixed"}`)}}},
		runtime.RunFinished{Outcome: runtime.Succeeded("Fixed the last page.", nil), Usage: &total},
		runtime.RunStarted{Session: "s-2", Input: "and the tests?", Model: "anthropic:claude-test", At: at},
		runtime.UsageReported{Turn: 3, Usage: model.Usage{InputTokens: 500, OutputTokens: 300, ReasoningTokens: 256}, Total: model.Usage{InputTokens: 48_500, OutputTokens: 2_400}},
		runtime.ReplyReceived{Turn: 3, Text: "They pass."},
		runtime.TurnStarted{Turn: 4},
		runtime.ThinkingDelta{Turn: 4, Text: "Half a thought"},
		runtime.RunFinished{Outcome: runtime.Failed("and the tests?", "turn 4", []string{"stopped: the person stopped the turn"})},
	} {
		l.Add(e)
	}
	return l
}

// TestMarkdownWithThinkingGolden pins the thinking in an export, as a quote
// headed "Thinking" before the reply's text, and the session's usage in the
// export's head; the usage's cost is unknown once a model of unknown price
// has replied.
func TestMarkdownWithThinkingGolden(t *testing.T) {
	md := thoughtfulSession().Markdown(redact.New(), time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	golden.RequireEqual(t, []byte(md))
	for _, want := range []string{
		"- Usage: tokens 48k in · 2.4k out\n",
		"### Turn 1\n\n> **Thinking** · 1.4k tokens\n>\n> The pager loses its last page.\n>\n> Probably integer division␛; read pager.go first.\n\nReading pager.go.\n",
		"### Turn 2\n\n> **Thinking** · reasoning hidden by the provider\n\n#### Calls of turn 2",
		"### Turn 3\n\n> **Thinking** · reasoning hidden by the provider · 256 tokens\n\nThey pass.",
		"> **Thinking**\n>\n> Half a thought\n\n*(the reply was cut off here)*",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "\x1b") {
		t.Error("an escape sequence reached the export")
	}
	// The cost shows while every model's price is known.
	l := thoughtfulSession()
	total := eventtest.Used(48_000, 41_000, 2_100, 0.07)
	l.Add(runtime.RunFinished{Outcome: runtime.Succeeded("ok", nil), Usage: &total})
	if md := l.Markdown(redact.New(), time.Now()); !strings.Contains(md, "- Usage: tokens 48k in (41k cached) · 2.1k out · $0.07\n") {
		t.Errorf("the export's usage:\n%s", md)
	}
}
