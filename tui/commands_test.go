package tui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
)

// command types line in the input and presses Enter, and runs what that
// starts in the background, as bubbletea would.
func (h *harness) command(line string) {
	h.t.Helper()
	h.m.setFocus(focusInput)
	h.m.input.SetValue(line)
	launch(h.update(keyMsg("enter")))
}

// commandMsg is command for a command whose work answers with a message,
// which it returns.
func (h *harness) commandMsg(line string) tea.Msg {
	h.t.Helper()
	h.m.setFocus(focusInput)
	h.m.input.SetValue(line)
	msg := runCmd(h.update(keyMsg("enter")))
	if msg == nil {
		h.t.Fatalf("%s answered nothing", line)
	}
	return msg
}

// runCmd runs cmd, and the commands of its batches, each in its own
// goroutine as bubbletea would, and returns the first message one of them
// sends that is the answer to a command: a quit, or the end of a slash
// command's work. Others (the Bridge's wait, the spinner) are left to
// themselves. It returns nil when no command could send such a message.
func runCmd(cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	answers := make(chan tea.Msg, 16)
	pending := 0
	var run func(c tea.Cmd)
	run = func(c tea.Cmd) {
		pending++
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				answers <- b
				return
			}
			answers <- msg
		}()
	}
	run(cmd)
	timeout := time.After(10 * time.Second)
	for pending > 0 {
		select {
		case msg := <-answers:
			pending--
			switch m := msg.(type) {
			case tea.BatchMsg:
				for _, c := range m {
					if c != nil {
						run(c)
					}
				}
			case compacted, sessionSwitched, sessionsListed, restorePlanned, restoreDone, tea.QuitMsg:
				return m
			}
		case <-timeout:
			// The commands left are ones that wait for events (the
			// Bridge) or time (the spinner): none answers a command.
			return nil
		}
	}
	return nil
}

func TestUnknownCommandIsNeverSent(t *testing.T) {
	inputs := make(chan string, 1)
	h := newHarness(t, Options{Run: recordingRun(inputs)})
	h.command("/frobnicate now")
	if h.m.run != nil {
		t.Fatal("an unknown command was sent to the model")
	}
	// The list is longer than the screen is wide: the note line holds it
	// whole, the transcript wraps it.
	if want := "unknown command /frobnicate; the commands are /help /mode /model /reasoning /compact /clear /sessions /resume /undo /redo /rewind /export /quit"; !strings.HasPrefix(h.m.note, want) {
		t.Fatalf("note %q, want it to begin %q", h.m.note, want)
	}
	mustContain(t, h.view(), "unknown command /frobnicate; the commands are /help /mode /model /reasoning", "/quit (start with // to send")
	if h.m.input.Value() != "/frobnicate now" {
		t.Fatalf("the unknown command left the input as %q; it should stay to be mended", h.m.input.Value())
	}
	h.command("/c")
	mustContain(t, h.view(), "/c could be /compact or /clear: type more of it")
	if h.m.run != nil {
		t.Fatal("an ambiguous command was sent")
	}
	// "//" sends a message that begins with "/".
	h.command("//etc/hosts is wrong")
	if in, ok := startedWith(t, h, inputs); !ok || in != "/etc/hosts is wrong" {
		t.Fatalf("// sent %q (%v)", in, ok)
	}
}

func TestHelpAndQuitCommands(t *testing.T) {
	h := newHarness(t, Options{})
	h.command("/he") // a unique prefix is enough
	if !h.m.help.Shown() {
		t.Fatal("/help did not open the help")
	}
	mustContain(t, h.helpScreens("pgdown"), "Slash commands", "/model <provider:name>", "/export [file]", "/quit", "ctrl+r", "ctrl+g", "ctrl+j")
	h.key("esc")
	if _, ok := h.commandMsg("/quit").(tea.QuitMsg); !ok {
		t.Fatal("/quit did not quit")
	}
}

func TestModelCommand(t *testing.T) {
	h := newHarness(t, Options{})
	h.command("/model openai:gpt-4o")
	mustContain(t, h.view(), "switching the model is not available in this console")

	var asked []string
	h = newHarness(t, Options{SwitchModel: func(spec string) (string, error) {
		asked = append(asked, spec)
		if spec == "anthropic:claude" {
			return "", errors.New("ANTHROPIC_API_KEY is not set, so anthropic:claude cannot be used")
		}
		return spec, nil
	}})
	h.command("/model anthropic:claude")
	mustContain(t, h.view(), "the model stays scenario:test: ANTHROPIC_API_KEY is not set", "model scenario:test")
	h.command("/model openai:gpt-4o")
	mustContain(t, h.view(), "model switched to openai:gpt-4o from the next run", "· model openai:gpt-4o ·")
	h.startRun("goal")
	h.command("/model openai:gpt-5")
	mustContain(t, h.view(), "model switched to openai:gpt-5 from the next turn")
	if strings.Join(asked, ",") != "anthropic:claude,openai:gpt-4o,openai:gpt-5" {
		t.Fatalf("SwitchModel was asked for %v", asked)
	}
}

// TestCompactCommandEscStops presses Esc while /compact waits on the
// model: the compaction's context is cancelled, and the screen says the
// conversation was not compacted.
func TestCompactCommandEscStops(t *testing.T) {
	started := make(chan struct{})
	h := newHarness(t, Options{Compact: func(ctx context.Context, _ string) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}})
	h.m.setFocus(focusInput)
	h.m.input.SetValue("/compact")
	cmd := h.update(keyMsg("enter"))
	mustContain(t, h.view(), "compacting the conversation… (esc stops it)")
	answer := make(chan tea.Msg, 1)
	go func() { answer <- runCmd(cmd) }()
	<-started
	h.key("esc")
	msg := <-answer
	if c, ok := msg.(compacted); !ok || !errors.Is(c.err, context.Canceled) {
		t.Fatalf("Esc did not stop the compaction: %#v", msg)
	}
	h.update(msg)
	mustContain(t, h.view(), "compaction stopped; the conversation is as it was")
}

func TestCompactCommand(t *testing.T) {
	h := newHarness(t, Options{})
	h.command("/compact")
	mustContain(t, h.view(), "compaction is not available in this build yet")

	var focus string
	inputs := make(chan string, 1)
	h = newHarness(t, Options{Compact: func(_ context.Context, f string) error { focus = f; return nil }, Run: recordingRun(inputs)})
	msg := h.commandMsg("/compact keep the test names")
	if _, ok := msg.(compacted); !ok || focus != "keep the test names" {
		t.Fatalf("/compact sent %#v with focus %q", msg, focus)
	}
	h.typeText("queued meanwhile")
	h.key("enter")
	if h.m.run != nil || h.m.queued != "queued meanwhile" {
		t.Fatal("input sent while compacting did not wait")
	}
	launch(h.update(msg))
	mustContain(t, h.view(), "compacted the conversation")
	if in, ok := startedWith(t, h, inputs); !ok || in != "queued meanwhile" {
		t.Fatalf("the input sent while compacting started as %q (%v), want it started once compaction was done", in, ok)
	}
}

func TestClearCommand(t *testing.T) {
	h := newHarness(t, Options{NewSession: func() (Opened, error) { return Opened{ID: "s-2", Model: "scenario:test"}, nil }})
	h.startRun("first goal")
	h.feed(runtime.ReplyReceived{Turn: 1, Text: "I looked around."})
	h.command("/clear")
	mustContain(t, h.view(), "/clear waits until the run ends")
	out := runtime.Succeeded("done", nil)
	h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out}, usage(100, 10))
	msg := h.commandMsg("/clear")
	if _, ok := msg.(sessionSwitched); !ok {
		t.Fatalf("/clear sent %#v", msg)
	}
	h.update(msg)
	screen := h.view()
	mustNotContain(t, screen, "first goal", "I looked around.", "tokens", "succeeded")
	mustContain(t, screen, "session s-2", "Goal: none yet", "Goal ›")
	if h.m.last != nil || !h.m.export.Empty() {
		t.Fatal("the old session's outcome or export survived /clear")
	}
}

func TestSessionsAndResumeCommands(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 30, 0, 0, time.Local)
	h := newHarness(t, Options{
		Sessions: func() ([]SessionInfo, error) {
			return []SessionInfo{{ID: "s-2", LastActivity: at, Outcome: "succeeded", Goal: "write the docs"},
				{ID: "s-1", LastActivity: at.Add(-time.Hour), Outcome: "interrupted", Goal: "fix the pager"}}, nil
		},
		Resume: func(id string) (Opened, error) {
			if id != "s-1" {
				return Opened{}, errors.New("no session " + id)
			}
			return Opened{ID: "s-1", Model: "scenario:old", History: []runtime.Event{
				runtime.RunStarted{Session: "s-1", Goal: "fix the pager", Input: "fix the pager", Model: "scenario:old"},
				runtime.ReplyReceived{Turn: 1, Text: "Which page?"},
				runtime.RunFinished{Outcome: runtime.GoalOutcome{Status: runtime.StatusRefused, Summary: "Which page?"}},
			}}, nil
		},
	})
	h.update(h.commandMsg("/sessions"))
	mustContain(t, h.view(), "2 session(s) of this workspace", "s-2 · 2026-11-30 09:30 · succeeded · write the docs",
		"s-1 · 2026-11-30 08:30 · interrupted · fix the pager")
	h.update(h.commandMsg("/resume s-9"))
	mustContain(t, h.view(), "could not open session s-9: no session s-9")
	h.command("/resume")
	mustContain(t, h.view(), "/resume needs a session id")
	h.update(h.commandMsg("/resume s-1"))
	screen := h.view()
	mustContain(t, screen, "session s-1", "model scenario:old", "goal › fix the pager", "Which page?", "Answer ›")
	mustNotContain(t, screen, "2 session(s)")
}

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, Options{Workspace: dir})
	h.command("/export")
	mustContain(t, h.view(), "nothing to export yet")
	h.startRun("read the notes")
	h.feed(runtime.RunStarted{Session: "s-1", Goal: "read the notes", Input: "read the notes", Model: "scenario:test"},
		runtime.ReplyReceived{Turn: 1, Text: "Reading **notes.txt**.", Calls: []runtime.PlannedCall{pc(0, "read_file", `{"path":"notes.txt"}`, reads("notes.txt"), 1)}},
		finished(1, 0, "read_file", "success", "", "     1\tbuy milk", 3), runtime.TurnEnded{Turn: 1})
	out := runtime.Succeeded("The notes say to buy milk.", json.RawMessage(`{"item":"milk"}`))
	h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
	h.m.session = "s-1"
	h.command("/export")
	path := filepath.Join(dir, "agenttui-s-1.md")
	mustContain(t, h.view(), "exported the transcript as Markdown to "+path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Goal\n\n> read the notes", "Reading **notes.txt**.", "**#1 `read_file`** · success",
		"\"path\": \"notes.txt\"", "buy milk", "### Outcome: succeeded", "\"item\": \"milk\""} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the export lacks %q:\n%s", want, data)
		}
	}
	h.command("/export sub/x.md")
	mustContain(t, h.view(), "could not write "+filepath.Join(dir, "sub/x.md"))
	h.command("/export " + filepath.Join(dir, "other.md"))
	if _, err := os.Stat(filepath.Join(dir, "other.md")); err != nil {
		t.Fatalf("/export to an absolute path: %v", err)
	}
}

func TestSlashMenu(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("/")
	screen := h.view()
	mustContain(t, screen, "▸ /help", "every key and command", "/mode <ask|reads|auto|plan>", "… 7 more", "tab complete")
	// However small the terminal, the menu leaves the screen whole.
	for _, size := range [][2]int{{MinWidth, MinHeight}, {60, 16}, {120, 40}} {
		h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkScreen(t, h.view(), size[0], size[1])
	}
	h.typeText("ex")
	mustContain(t, h.view(), "▸ /export [file]", "write the transcript as Markdown")
	h.key("tab")
	if got := h.m.input.Value(); got != "/export " {
		t.Fatalf("tab completed to %q", got)
	}
	h.m.input.SetValue("/mo")
	h.key("down")
	h.key("tab")
	if got := h.m.input.Value(); got != "/model " {
		t.Fatalf("↓ then tab completed to %q", got)
	}
	h.m.input.SetValue("/mode ")
	mustContain(t, h.view(), "▸ ask", "reads  run calls that only read", "plan   read-only")
	h.typeText("p")
	h.key("tab")
	if got := h.m.input.Value(); got != "/mode plan" {
		t.Fatalf("tab completed the mode to %q", got)
	}
	// Esc closes the menu; with a run going it does not stop it.
	h.startRun("goal")
	h.setFocusToInput()
	h.typeText("/")
	h.key("esc")
	if h.m.run.stopping || len(h.m.input.Menu()) != 0 {
		t.Fatal("esc with the menu open stopped the run, or left the menu open")
	}
	h.key("esc")
	if !h.m.run.stopping {
		t.Fatal("a second esc did not stop the run")
	}
	// The focus key still moves focus when no menu is open.
	h.m.input.Reset()
	h.key("tab")
	if h.m.focus != focusBoard {
		t.Fatalf("tab moved focus to the %s", h.m.focus)
	}
}
