package tui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/agenttui/agenttui/runtime"
)

// mdAnswer is a model's answer with a heading, emphasis, a list, a link, a
// fenced code block and a table.
const mdAnswer = "## The fix\n\nThe **last page** was lost to integer division; see [the docs](https://go.dev/ref/spec#Arithmetic_operators).\n\n" +
	"1. round up\n2. test it\n\n" +
	"```go\nfunc Pages(total, size int) int {\n\treturn (total + size - 1) / size\n}\n```\n\n" +
	"| items | pages before | pages after |\n|---|---|---|\n| 40 | 2 | 2 |\n| 45 | 2 | 3 |\n"

// TestScreensGolden pins the screen, without colour (as under NO_COLOR), at
// two widths: a multi-line input, an input taller than it may grow (the
// layout shrinks to fit, and the text scrolls), the slash-command menu, and
// a Markdown answer with a code block and a table.
func TestScreensGolden(t *testing.T) {
	scenes := []struct {
		name string
		set  func(h *harness)
	}{
		{"multi_line_input", func(h *harness) {
			h.typeText("Fix the pager:")
			h.update(tea.KeyMsg{Type: tea.KeyCtrlJ})
			h.update(paste("- the last page is missing\n- and add a test for 45 items at 20 a page, which used to give two pages"))
		}},
		{"layout_shrinks", func(h *harness) {
			for i := 1; i <= 12; i++ {
				if i > 1 {
					h.update(tea.KeyMsg{Type: tea.KeyCtrlJ})
				}
				h.typeText(fmt.Sprintf("line %d of a long prompt", i))
			}
		}},
		{"slash_menu", func(h *harness) { h.typeText("/") }},
		{"markdown_answer", func(h *harness) {
			h.startRun("fix the pager")
			h.feed(runtime.RunStarted{Goal: "fix the pager", Input: "fix the pager", Model: "scenario:test", At: runtime.Time{Time: t0}},
				runtime.ReplyReceived{Turn: 1, Text: mdAnswer}, runtime.TurnEnded{Turn: 1})
			out := runtime.Succeeded("Fixed.", nil)
			h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
		}},
	}
	for _, sc := range scenes {
		for _, size := range [][2]int{{80, 24}, {120, 32}} {
			t.Run(fmt.Sprintf("%s_%d", sc.name, size[0]), func(t *testing.T) {
				h := newHarness(t, Options{})
				h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				sc.set(h)
				screen := h.view()
				checkScreen(t, screen, size[0], size[1])
				if strings.Contains(screen, "\x1b") {
					t.Fatal("escape sequences on a screen without colour")
				}
				golden.RequireEqual(t, []byte(screen+"\n"))
			})
		}
	}
}

func TestMarkdownOnlyOnceTheReplyIsComplete(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("fix the pager")
	h.feed(runtime.TurnStarted{Turn: 1}, runtime.TextDelta{Turn: 1, Text: mdAnswer[:strings.Index(mdAnswer, "| 45")]})
	streaming := h.view()
	mustContain(t, streaming, "```go", "|---|---|---|", "## The fix")
	h.feed(runtime.ReplyReceived{Turn: 1, Text: mdAnswer})
	done := h.view()
	mustNotContain(t, done, "```", "|---|")
	mustContain(t, done, "◆ ## The fix", "    func Pages(total, size int) int {", "        return (total + size - 1) / size",
		"the docs https://go.dev/ref/spec#Arithmetic_operators", "items", "| pages before", "| 3")
	// A reply the run ended in the middle of is no complete document: it
	// stays plain.
	h.feed(runtime.TurnStarted{Turn: 2}, runtime.TextDelta{Turn: 2, Text: "```go\nhalf"})
	out := runtime.Failed("x", "turn 2", []string{"stopped"})
	h.feed(runtime.RunFinished{Outcome: out})
	mustContain(t, h.view(), "◆ ```go")
}

func TestMarkdownAnswerIsSanitised(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("x")
	h.feed(runtime.ReplyReceived{Turn: 1, Text: "# Hi\x1b[2J\n\n[x](http://a\x1b]8;;http://evil\x07b) &#x1b;[31m \u202Eevil\n\n```\n\x1b]52;c;eA==\x07\n```"})
	screen := h.view()
	if strings.ContainsAny(screen, "\x1b\a\u202e") {
		t.Fatalf("the answer reached the terminal raw: %q", screen)
	}
	mustContain(t, screen, "# Hi␛", "␛[31m", "⟨U+202E⟩evil")
}

// TestEditorForTheInput runs the console as a program: Ctrl+G opens the
// input in the editor (a script standing in for one, which records what it
// was given and writes a two-line prompt), what it saved becomes the input,
// and Enter sends it.
func TestEditorForTheInput(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	editor := func(path string) *exec.Cmd {
		return exec.Command("sh", "-c", `cp "$1" "$2" && printf 'from the editor\nsecond line\n' > "$1"`, "editor", path, seen)
	}
	inputs := make(chan string, 1)
	m := New(Options{Bridge: NewBridge(nil), Run: recordingRun(inputs), Editor: editor, Model: "scenario:test", Workspace: dir})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	wait("Goal ›")
	tm.Type("draft")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlG})
	wait("enter sends it")
	if got, _ := os.ReadFile(seen); string(got) != "draft" {
		t.Fatalf("the editor was given %q", got)
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	select {
	case in := <-inputs:
		if in != "from the editor\nsecond line" {
			t.Fatalf("sent %q", in)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("enter did not send what the editor saved")
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// TestEditorFailureKeepsTheInput checks that an editor that fails leaves
// the input as it was.
func TestEditorFailureKeepsTheInput(t *testing.T) {
	m := New(Options{Bridge: NewBridge(nil), Run: recordingRun(make(chan string, 1)), Model: "scenario:test",
		Editor: func(string) *exec.Cmd { return exec.Command("sh", "-c", "exit 3") }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	tm.Type("keep me")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlG})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("the input is as it was")) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	if got := final.input.Value(); got != "keep me" {
		t.Fatalf("input after a failed editor = %q", got)
	}
}
