package mdtranscript

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
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
		runtime.CallFinished{Turn: 1, Index: 1, Name: "run_shell", Outcome: "error", Kind: kind("timeout"),
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
		"**#2 `run_shell`** · error: timeout · 1.5s", "… (11 more lines)",
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
