package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/history"
	"github.com/agenttui/agenttui/internal/termtest"
)

// The end-to-end tests of the input: multi-line pastes, the history kept
// across consoles, the editor, and the slash commands that act on the
// session.

// command types line in the input, one key per write, and presses Enter.
func command(t *testing.T, term *termtest.Term, line string) {
	t.Helper()
	term.Type(line)
	term.WaitFor(line, e2eStep)
	term.Key("enter")
}

// sessionID returns the session the header names.
func sessionID(t *testing.T, screen string) string {
	t.Helper()
	m := regexp.MustCompile(`· session (\S+)`).FindStringSubmatch(screenRows(screen)[0])
	if m == nil {
		t.Fatalf("the header names no session:\n%s", screen)
	}
	return m[1]
}

// TestConsolePasteMultiLine pastes three lines, as a terminal sends them
// (bracketed, with CR and CRLF line breaks), then adds a fourth after
// Shift+Enter: nothing is sent until Enter, and the model reads all four
// lines as one message.
func TestConsolePasteMultiLine(t *testing.T) {
	sc := writeScenario(t, `{"name": "paste", "steps": [
	  {"expect": ["line one\nline two\nline three\nline four"], "text": "Got all four lines."}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", t.TempDir(), "--scenario", sc)
	term.WaitFor("Goal ›", e2eStep)
	term.Send("\x1b[200~line one\rline two\r\nline three\x1b[201~")
	s := term.WaitFor("line three", e2eStep)
	if !strings.Contains(s, "Goal › line one\n         line two\n         line three") {
		t.Fatalf("the paste is not in the input as three lines:\n%s", s)
	}
	if !strings.Contains(s, "Goal: none yet") || !strings.Contains(screenRows(s)[e2eRows-1], "idle") {
		t.Fatalf("the paste sent the input:\n%s", s)
	}
	term.Send("\x1b[13;2u") // Shift+Enter, as a terminal reporting it as CSI u sends it
	term.Type("line four")
	s = term.WaitFor("line four", e2eStep)
	if !strings.Contains(s, "         line three\n         line four") || !strings.Contains(s, "Goal: none yet") {
		t.Fatalf("Shift+Enter did not start a new line, or sent the input:\n%s", s)
	}
	term.Key("enter")
	s = term.WaitFor("✓ Succeeded", e2eStep)
	if !strings.Contains(s, "Got all four lines.") || !strings.Contains(s, "goal › line one") {
		t.Fatalf("the run did not get the four lines:\n%s", s)
	}
}

// TestConsoleHistoryAcrossRestarts sends a goal holding a secret, quits,
// and opens the console again on the same workspace: ↑ recalls the goal,
// with the secret redacted, and the history file holds no secret.
func TestConsoleHistoryAcrossRestarts(t *testing.T) {
	ws := workspaceWithNotes(t)
	sc := scenario(t, "succeeds.json")
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", sc)
	term.WaitFor("Goal ›", e2eStep)
	command(t, term, "read the notes with sk-abcdefghijklmnopqrstuvwx")
	term.WaitFor("✓ Succeeded", e2eStep)
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	term = startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", sc)
	term.WaitFor("Goal ›", e2eStep)
	term.Key("up")
	s := term.WaitFor("Goal › read the notes with [redacted]", e2eStep)
	if strings.Contains(s, "sk-abc") {
		t.Fatalf("the recalled goal shows the secret:\n%s", s)
	}
	term.Key("down")
	term.WaitForFunc("the empty input again", func(s string) bool { return !strings.Contains(s, "Goal › read the notes") }, e2eStep)
	quitConsole(t, term)

	data, err := os.ReadFile(history.File(filepath.Join(os.Getenv("XDG_STATE_HOME"), "agenttui", "history"), ws))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "read the notes with [redacted]") || strings.Contains(string(data), "sk-abc") {
		t.Fatalf("the history file holds %s", data)
	}
}

// TestConsoleExport runs a session with a call, then /export writes it as
// Markdown: the goal, the model's text, the call with its arguments, its
// outcome and result, and the outcome.
func TestConsoleExport(t *testing.T) {
	ws := workspaceWithNotes(t)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", scenario(t, "succeeds.json"), "read the notes")
	s := term.WaitFor("✓ Succeeded", e2eStep)
	id := sessionID(t, s)
	command(t, term, "/export session.md")
	term.WaitFor("exported the transcript as Markdown to "+filepath.Join(ws, "session.md"), e2eStep)
	data, err := os.ReadFile(filepath.Join(ws, "session.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	for _, want := range []string{
		"# agenttui session " + id, "- Model: `scenario:succeeds`", "- Workspace: `" + ws + "`",
		"## Goal\n\n> read the notes",
		"### Turn 1\n\nReading the notes.",
		"**#1 `read_file`** · success", "{\n  \"path\": \"notes.txt\"\n}", "remember the milk",
		"**#1 `remember`** · success", "**#2 `finish`** · success",
		"### Outcome: succeeded\n\n> The note says to remember the milk.", "\"source\": \"notes.txt\"",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lacks %q:\n%s", want, md)
		}
	}
}

// TestConsoleEditorForTheInput opens the input in $EDITOR with Ctrl+G (a
// script standing in for an editor, which writes a prompt): the console
// comes back whole, what the script wrote is the input, and Enter sends it.
func TestConsoleEditorForTheInput(t *testing.T) {
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nprintf 'goal from the editor\\nwith a second line\\n' > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := writeScenario(t, `{"name": "edited", "steps": [
	  {"expect": ["goal from the editor\nwith a second line"], "text": "Read the goal from the editor."}]}`)
	term := startConsole(t, e2eCols, e2eRows, []string{"EDITOR=" + editor, "VISUAL="}, "--workspace", t.TempDir(), "--scenario", sc)
	term.WaitFor("Goal ›", e2eStep)
	term.Type("draft")
	term.Key("ctrl+g")
	s := term.WaitForFunc("the console back with the editor's text", func(s string) bool {
		return wholeScreen(e2eRows)(s) && strings.Contains(s, "Goal › goal from the editor\n         with a second line")
	}, e2eStep)
	if !strings.Contains(s, "enter sends it") {
		t.Fatalf("no word that the input is what the editor saved:\n%s", s)
	}
	out := string(term.Output())
	if i, j := strings.LastIndex(out, "\x1b[?1049l"), strings.LastIndex(out, "\x1b[?1049h"); i < 0 || j < i {
		t.Fatal("the console did not leave its screen for the editor and come back to it")
	}
	term.Key("enter")
	s = term.WaitFor("✓ Succeeded", e2eStep)
	if !strings.Contains(s, "Read the goal from the editor.") {
		t.Fatalf("the run did not get the editor's text:\n%s", s)
	}
}

// TestConsoleSessionCommands lists the workspace's sessions, starts a new
// one with /clear, goes back to the first with /resume, and tries /model
// without a key and with a compatible server.
func TestConsoleSessionCommands(t *testing.T) {
	ws := workspaceWithNotes(t)
	term := startConsole(t, e2eCols, e2eRows, []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL="},
		"--workspace", ws, "--scenario", scenario(t, "succeeds.json"), "read the notes")
	s := term.WaitFor("✓ Succeeded", e2eStep)
	first := sessionID(t, s)

	command(t, term, "/sessions")
	s = term.WaitFor("1 session(s) of this workspace", e2eStep)
	if !strings.Contains(s, "▸ "+first+" · ") || !strings.Contains(s, "succeeded · read the notes") {
		t.Fatalf("/sessions does not list the session:\n%s", s)
	}

	command(t, term, "/clear")
	s = term.WaitForFunc("a new session", func(s string) bool {
		return strings.Contains(s, "Goal: none yet") && !strings.Contains(screenRows(s)[0], first)
	}, e2eStep)
	if strings.Contains(s, "The note says") {
		t.Fatalf("/clear left the old transcript:\n%s", s)
	}
	second := sessionID(t, s)

	command(t, term, "/model openai:gpt-4o")
	s = term.WaitFor("the model stays scenario:succeeds: OPENAI_API_KEY is not set", e2eStep)

	command(t, term, "/resume "+first)
	s = term.WaitFor("the transcript above is session "+first, e2eStep)
	for _, want := range []string{"goal › read the notes", "The note says to remember the milk.", "· session " + first} {
		if !strings.Contains(s, want) {
			t.Fatalf("the resumed session lacks %q:\n%s", want, s)
		}
	}
	if second == first {
		t.Fatal("/clear kept the session id")
	}
}

// TestConsoleModelCommandSwitches switches to a model served by a
// compatible server (no request is made until the next turn).
func TestConsoleModelCommandSwitches(t *testing.T) {
	term := startConsole(t, e2eCols, e2eRows, []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL=http://127.0.0.1:9/v1"},
		"--workspace", t.TempDir(), "--scenario", scenario(t, "succeeds.json"))
	term.WaitFor("Goal ›", e2eStep)
	command(t, term, "/model openai:llama3")
	s := term.WaitFor("model switched to openai:llama3 from the next run", e2eStep)
	if !strings.Contains(screenRows(s)[0], "model openai:llama3") {
		t.Fatalf("the header does not name the new model:\n%s", s)
	}
}
