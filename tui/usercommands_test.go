package tui

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/internal/usercommands"
	"github.com/agenttui/agenttui/runtime"
)

// fileCmds are command files as usercommands.Load would give them.
func fileCmds() []usercommands.Command {
	return []usercommands.Command{
		{Name: "fix", Description: "fix an issue by number", ArgumentHint: "[issue-number] [priority]",
			Body: "Fix issue #$1 with priority $2.", Path: filepath.Join(ws, ".claude", "commands", "fix.md"), Project: true},
		{Name: "frontend:component", Description: "make a component", ArgumentHint: "<name>",
			Body: "Make a $ARGUMENTS component.", Path: filepath.Join(ws, ".claude", "commands", "frontend", "component.md"), Project: true},
		{Name: "release-notes", Description: "write the release notes",
			Body: "Write the release notes; run !`git log` yourself.", Path: "/home/p/.claude/commands/release-notes.md"},
		{Name: "review", Description: "review the diff \x1b[31mred\x1b[0m", ArgumentHint: "[focus]\x07",
			Body: "Review the diff.", Path: "/home/p/.config/agenttui/commands/review.md"},
	}
}

// TestFileCommandsMenuGolden pins the menu for "/re", where built-in
// commands and command files meet: the files' hints, and their tags in a
// column of their own.
func TestFileCommandsMenuGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 32}} {
		t.Run(fmt.Sprint(size[0]), func(t *testing.T) {
			h := newHarness(t, Options{Commands: fileCmds()})
			h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			h.typeText("/re")
			screen := h.view()
			checkScreen(t, screen, size[0], size[1])
			if strings.ContainsAny(screen, "\x1b\a") {
				t.Fatalf("a file's text reached the screen raw: %q", screen)
			}
			mustContain(t, screen, "/reasoning <level>", "/release-notes", "(user)", "write the release notes", "/review [focus]")
			golden.RequireEqual(t, []byte(screen+"\n"))
		})
	}
}

func TestFileCommandMenuAndCompletion(t *testing.T) {
	h := newHarness(t, Options{Commands: fileCmds()})
	h.typeText("/fi")
	mustContain(t, h.view(), "▸ /fix [issue-number] [priority]  (project)  fix an issue by number")
	h.key("tab")
	if got := h.m.input.Value(); got != "/fix " {
		t.Fatalf("tab completed to %q", got)
	}
	h.m.input.SetValue("/front")
	h.key("tab")
	if got := h.m.input.Value(); got != "/frontend:component " {
		t.Fatalf("tab completed to %q", got)
	}
	// Without command files the menu has no tag column.
	h = newHarness(t, Options{})
	h.typeText("/he")
	mustContain(t, h.view(), "▸ /help  every key and command")
}

func TestFileCommandSendsItsExpansion(t *testing.T) {
	inputs := make(chan string, 1)
	h := newHarness(t, Options{Commands: fileCmds(), Run: recordingRun(inputs)})
	h.command(`/fix 123 "very high"`)
	sent, ok := startedWith(t, h, inputs)
	if want := "Fix issue #123 with priority very high."; !ok || sent != want {
		t.Fatalf("the run got %q (%v), want %q", sent, ok, want)
	}
	if h.m.input.Value() != "" {
		t.Fatalf("the input kept %q", h.m.input.Value())
	}
	h.feed(runtime.RunStarted{Session: "s", Goal: sent, Input: sent, Model: "scenario:test"})
	screen := h.view()
	mustContain(t, screen, `goal › /fix 123 "very high"`, `Goal: /fix 123 "very high"`)
	mustNotContain(t, screen, "Fix issue #123")
	if hist := h.m.input.History(); len(hist) == 0 || hist[len(hist)-1] != `/fix 123 "very high"` {
		t.Fatalf("the history holds %q", hist)
	}
	// The next input is shown as it was sent.
	out := runtime.Succeeded("done", nil)
	h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
	h.command("and the tests")
	<-inputs
	h.feed(runtime.RunStarted{Session: "s", Goal: sent, Input: "and the tests", Model: "scenario:test"})
	mustContain(t, h.view(), "you › and the tests", `Goal: /fix 123 "very high"`)
}

func TestFileCommandNamesAndPrefixes(t *testing.T) {
	inputs := make(chan string, 1)
	cmds := append(fileCmds(), usercommands.Command{Name: "he", Description: "say hello", Body: "Say hello."},
		usercommands.Command{Name: "help", Description: "shadows the built-in", Body: "never"})
	h := newHarness(t, Options{Commands: cmds, Run: recordingRun(inputs)})
	// An exact name wins over a built-in's prefix.
	h.command("/he")
	if h.m.help.Shown() {
		t.Fatal("/he opened the help rather than running the file /he")
	}
	if sent, ok := startedWith(t, h, inputs); !ok || sent != "Say hello." {
		t.Fatalf("/he sent %q (%v)", sent, ok)
	}
	h.m.stop("test")
	out := runtime.Failed("x", "stopped", nil)
	h.feed(runDone{run: h.m.run, outcome: out})
	// A built-in's name is the built-in's, even when a file has it.
	h.command("/help")
	if !h.m.help.Shown() || h.m.run != nil {
		t.Fatal("/help did not open the help")
	}
	h.key("esc")
	// A prefix is matched against the command files too, and must be
	// unique.
	h.command("/re")
	mustContain(t, h.view(), "/re could be /reasoning or /resume or /redo or /rewind or /release-notes or /review: type more of it")
	h.command("/fr button")
	if sent, ok := startedWith(t, h, inputs); !ok || sent != "Make a button component." {
		t.Fatalf("/fr sent %q (%v)", sent, ok)
	}
	h.m.stop("test")
	h.feed(runDone{run: h.m.run, outcome: out})
	// An unknown command says that there are more than the built-ins.
	h.command("/nothing")
	mustContain(t, h.view(), "and 5 of yours that /help lists")
	// Nothing is run from the file: its text goes as it is, with the
	// arguments after it when it has no placeholder.
	h.command("/release-notes for v2")
	if sent, _ := startedWith(t, h, inputs); sent != "Write the release notes; run !`git log` yourself.\n\nARGUMENTS: for v2" {
		t.Fatalf("/release-notes sent %q", sent)
	}
}

func TestHelpListsFileCommands(t *testing.T) {
	h := newHarness(t, Options{Commands: fileCmds()})
	h.command("/help")
	h.update(tea.WindowSizeMsg{Width: 200, Height: 60})
	screens := h.helpScreens("pgdown")
	mustContain(t, screens, "Your commands", "/fix [issue-number] [priority]", "fix an issue by number · project · .claude/commands/fix.md",
		"/release-notes", "/home/p/.claude/commands/release-notes.md")
	if strings.ContainsAny(screens, "\x1b\a") {
		t.Fatal("a file's text reached the help raw")
	}
	h = newHarness(t, Options{})
	h.command("/help")
	mustNotContain(t, h.helpScreens("pgdown"), "Your commands")
}

func TestFileCommandSwitchesTheModelForItsRun(t *testing.T) {
	var asked []string
	fail := ""
	switchModel := func(spec string) (string, error) {
		asked = append(asked, spec)
		if spec == fail {
			return "", errors.New("OPENAI_API_KEY is not set, so " + spec + " cannot be used")
		}
		return spec, nil
	}
	inputs := make(chan string, 1)
	cmds := []usercommands.Command{{Name: "quick", Description: "a quick answer", Model: "openai:gpt-5-mini", Body: "Answer: $ARGUMENTS"}}
	h := newHarness(t, Options{Commands: cmds, Run: recordingRun(inputs), SwitchModel: switchModel})
	h.command("/quick why")
	if sent, ok := startedWith(t, h, inputs); !ok || sent != "Answer: why" {
		t.Fatalf("/quick sent %q (%v)", sent, ok)
	}
	mustContain(t, h.view(), "model switched to openai:gpt-5-mini for /quick; it goes back to scenario:test when this run ends",
		"· model openai:gpt-5-mini ·")
	out := runtime.Succeeded("because", nil)
	h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
	mustContain(t, h.view(), "/quick's run ended; the model is scenario:test again", "· model scenario:test ·")
	if strings.Join(asked, ",") != "openai:gpt-5-mini,scenario:test" {
		t.Fatalf("SwitchModel was asked for %v", asked)
	}

	// A model that cannot be used: nothing is sent, the line stays.
	fail, asked = "openai:gpt-5-mini", nil
	h.command("/quick again")
	if h.m.run != nil {
		t.Fatal("the command was sent although its model could not be used")
	}
	if got := h.m.input.Value(); got != "/quick again" {
		t.Fatalf("the input holds %q", got)
	}
	mustContain(t, h.view(), "/quick was not sent: it runs on openai:gpt-5-mini, which cannot be used, so the model stays scenario:test:")
	if want := "/quick was not sent: it runs on openai:gpt-5-mini, which cannot be used, so the model stays scenario:test: OPENAI_API_KEY is not set"; !strings.HasPrefix(h.m.note, want) {
		t.Fatalf("note %q, want it to begin %q", h.m.note, want)
	}

	// A /model during the run stands when the run ends.
	fail = ""
	h.command("/quick once more")
	<-inputs
	h.command("/model openai:gpt-5")
	out = runtime.Succeeded("ok", nil)
	h.feed(runtime.RunFinished{Outcome: out}, runDone{run: h.m.run, outcome: out})
	mustContain(t, h.view(), "/quick's run ended; the model stays openai:gpt-5, chosen during it")
	if strings.Join(asked, ",") != "openai:gpt-5-mini,openai:gpt-5-mini,openai:gpt-5" {
		t.Fatalf("SwitchModel was asked for %v", asked)
	}

	// Without SwitchModel nothing is sent.
	h = newHarness(t, Options{Commands: cmds, Run: recordingRun(inputs)})
	h.command("/quick why")
	if h.m.run != nil || h.m.input.Value() != "/quick why" {
		t.Fatalf("run %v, input %q", h.m.run != nil, h.m.input.Value())
	}
	mustContain(t, h.view(), "/quick was not sent: it runs on openai:gpt-5-mini, and the model cannot be switched in this console")
}

func TestFileCommandWhileOpeningOrRunning(t *testing.T) {
	inputs := make(chan string, 1)
	h := newHarness(t, Options{Open: func() {}, Commands: fileCmds(), Run: recordingRun(inputs)})
	h.command("/fix 7 low")
	if h.m.run != nil {
		t.Fatal("a run started before the session was open")
	}
	mustContain(t, h.view(), "your input starts as soon as it is open")
	launch(h.update(eventsMsg{Opened{ID: "s2"}}))
	if sent, ok := startedWith(t, h, inputs); !ok || sent != "Fix issue #7 with priority low." {
		t.Fatalf("the queued command sent %q (%v)", sent, ok)
	}
	h.feed(runtime.RunStarted{Session: "s2", Goal: "Fix issue #7 with priority low.", Input: "Fix issue #7 with priority low."})
	mustContain(t, h.view(), "goal › /fix 7 low")

	// While a run goes, the line waits in the input, as ordinary input
	// does.
	h.command("/fix 8")
	if got := h.m.input.Value(); got != "/fix 8" || !strings.Contains(h.m.note, "a run is going") {
		t.Fatalf("input %q, note %q", got, h.m.note)
	}

	// Queued before a session with history opened: it waits in the
	// input as typed.
	h = newHarness(t, Options{Open: func() {}, Commands: fileCmds(), Run: recordingRun(inputs)})
	h.command("/fix 9")
	h.feed(Opened{ID: "s3", History: refusedHistory()})
	if h.m.run != nil || h.m.input.Value() != "/fix 9" {
		t.Fatalf("run %v, input %q", h.m.run != nil, h.m.input.Value())
	}
}
