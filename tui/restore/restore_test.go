package restore

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/tui/internal/parttest"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// TestMain draws everything without colour, so the goldens hold only text
// and no test depends on the terminal it runs in.
func TestMain(m *testing.M) {
	parttest.Colourless()
	os.Exit(m.Run())
}

// t0 is when the screen opens in every test; later is past its grace.
var (
	t0    = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	later = t0.Add(time.Second)
)

const hostile = parttest.Hostile

const pagerNow = `package pager

// Pager shows text a page at a time.
type Pager struct {
	lines []string
	top   int
	stopAtEnd bool
}

// Next shows the next page.
func (p *Pager) Next(h int) {
	if p.stopAtEnd && p.top+h >= len(p.lines) {
		return
	}
	p.top += h
}
`

const pagerBefore = `package pager

// Pager shows text a page at a time.
type Pager struct {
	lines []string
	top   int
}

// Next shows the next page.
func (p *Pager) Next(h int) {
	p.top += h
}
`

// undo returns the preview of undoing a turn that changed a file, added
// one, removed one, made a script executable, wrote a binary file and
// touched a file someone changed since; the conversation goes back too.
func undo() Preview {
	return Preview{
		Title: "undo turn 4",
		Files: []File{
			{Path: "pager.go", How: "restored", Before: pagerNow, After: pagerBefore},
			{Path: "notes.txt", How: "removed", Before: "first note\nsecond note\n"},
			{Path: "old.txt", How: "brought back", After: "kept for the record\n"},
			{Path: "run.sh", How: "mode", Before: "#!/bin/sh\necho hi\n", After: "#!/bin/sh\necho hi\n"},
			{Path: "assets/logo.png", How: "restored", Before: "\x89PNG\r\n\x1a\n\x00\x00new", After: "\x89PNG\r\n\x1a\n\x00\x00old!", Binary: true},
			{Path: "config.yaml", How: "restored", Before: "mode: fast\nretries: 5\n", After: "mode: fast\nretries: 3\n", Conflict: true},
			{Path: "build", How: "folder removed"},
		},
		Conversation: "the conversation goes back to before turn 4",
		NotCovered:   []string{"the command `make deploy` ran outside the workspace"},
		Digest:       "sha256:4f1c0de",
	}
}

// hostilePreview returns a preview whose paths, contents and notes carry
// escape sequences and control characters.
func hostilePreview() Preview {
	return Preview{
		Title: "undo " + hostile,
		Files: []File{
			{Path: "\x1b]8;;http://evil.example\x07link\x1b]8;;\x07.go", How: "restored", Before: "a\n" + hostile + "\n", After: "a\nb\x1b[31m\n", Conflict: true},
			{Path: "a\u202egnp.exe", How: "removed\x1b[2J", Before: "MZ\x1b]52;c;ZXZpbA==\x07\n"},
		},
		Conversation: "the conversation goes back " + hostile,
		NotCovered:   []string{hostile, "a\x1b[1Ab"},
		Digest:       "sha256:bad",
	}
}

var runes, paste = parttest.Runes, parttest.Paste

var (
	enter  = tea.KeyMsg{Type: tea.KeyEnter}
	esc    = tea.KeyMsg{Type: tea.KeyEscape}
	up     = tea.KeyMsg{Type: tea.KeyUp}
	down   = tea.KeyMsg{Type: tea.KeyDown}
	pgup   = tea.KeyMsg{Type: tea.KeyPgUp}
	pgdown = tea.KeyMsg{Type: tea.KeyPgDown}
)

func open(p Preview) Screen {
	s := New(DefaultKeyMap(), text.DefaultStyles())
	s.Show(p, t0)
	return s
}

// press sends msg at time at and fails unless the screen took it.
func press(t *testing.T, s *Screen, msg tea.KeyMsg, at time.Time) Action {
	t.Helper()
	act, ok := s.Update(msg, at)
	if !ok {
		t.Fatalf("the screen did not take %q", msg.String())
	}
	return act
}

func isZero(a Action) bool { return !a.Confirm && !a.Cancel && a.Digest == "" && a.Overwrite == nil }

// TestTypingAndTheGraceNeverConfirm sends a paste, several runes at once,
// and y and Enter inside the grace period: none confirms, and each says
// why. After the grace, y confirms with the preview's digest and keeps the
// conflicting file.
func TestTypingAndTheGraceNeverConfirm(t *testing.T) {
	s := open(undo())
	for _, msg := range []tea.KeyMsg{runes("yy"), runes("y\r"), paste("y"), paste("\r")} {
		if act := press(t, &s, msg, later); !isZero(act) || !s.Shown() {
			t.Fatalf("%q confirmed %+v", msg.String(), act)
		}
		if !strings.Contains(s.View(80, 30), "typed text is ignored") {
			t.Fatalf("%q was ignored without a word", msg.String())
		}
	}
	for _, msg := range []tea.KeyMsg{runes("y"), enter} {
		if act := press(t, &s, msg, t0.Add(DefaultGrace-time.Millisecond)); !isZero(act) || !s.Shown() {
			t.Fatalf("%q confirmed %+v inside the grace period", msg.String(), act)
		}
		if !strings.Contains(s.View(80, 30), "has just been shown") {
			t.Fatalf("%q was ignored in the grace period without a word", msg.String())
		}
	}
	act := press(t, &s, runes("y"), t0.Add(DefaultGrace))
	if !act.Confirm || act.Digest != undo().Digest || act.Overwrite != nil || act.Cancel {
		t.Fatalf("y gave %+v, want a confirmation bound to %q that overwrites nothing", act, undo().Digest)
	}
	if s.Shown() {
		t.Fatal("the screen stayed open after the confirmation")
	}
	if act, ok := s.Update(runes("y"), later); ok || !isZero(act) {
		t.Fatalf("a closed screen took a key: %+v", act)
	}
}

// TestOverwriteOnlyConflicts presses o on files nobody changed since, which
// does nothing, and on the conflicting one, where it toggles; Enter then
// confirms with that file to overwrite.
func TestOverwriteOnlyConflicts(t *testing.T) {
	s := open(undo())
	for i := range len(undo().Files) {
		if i > 0 {
			press(t, &s, down, later)
		}
		if undo().Files[i].Conflict {
			continue
		}
		press(t, &s, runes("o"), later)
		if s.overwrite[i] {
			t.Fatalf("o marked %s, which nobody changed since, to overwrite", undo().Files[i].Path)
		}
		if !strings.Contains(s.View(100, 30), "only overwrites a file changed since") {
			t.Fatalf("o on %s did nothing without a word", undo().Files[i].Path)
		}
	}
	press(t, &s, up, later)
	if v := s.View(100, 30); !strings.Contains(v, "config.yaml") || !strings.Contains(v, "changed since — kept") {
		t.Fatalf("the conflict is not shown as kept:\n%s", v)
	}
	// Inside the grace period o does nothing either.
	s.Show(undo(), later)
	for range 5 {
		press(t, &s, down, later)
	}
	press(t, &s, runes("o"), later)
	if slices.Contains(s.overwrite, true) {
		t.Fatal("o toggled inside the grace period")
	}
	press(t, &s, runes("o"), later.Add(time.Second))
	if v := s.View(100, 30); !strings.Contains(v, "changed since — will be overwritten") {
		t.Fatalf("o did not mark the conflict to overwrite:\n%s", v)
	}
	press(t, &s, runes("o"), later.Add(time.Second))
	press(t, &s, runes("o"), later.Add(time.Second))
	act := press(t, &s, enter, later.Add(time.Second))
	if !act.Confirm || act.Digest != "sha256:4f1c0de" || !slices.Equal(act.Overwrite, []string{"config.yaml"}) {
		t.Fatalf("enter gave %+v, want config.yaml overwritten", act)
	}

	s = open(undo())
	for range 5 {
		press(t, &s, down, later)
	}
	press(t, &s, runes("o"), later)
	press(t, &s, runes("o"), later)
	if act := press(t, &s, runes("y"), later); !act.Confirm || act.Overwrite != nil {
		t.Fatalf("o pressed twice still overwrites: %+v", act)
	}
}

// TestCancel closes the screen with n or Esc, even inside the grace period,
// since cancelling restores nothing.
func TestCancel(t *testing.T) {
	for _, msg := range []tea.KeyMsg{esc, runes("n")} {
		s := open(undo())
		if act := press(t, &s, msg, t0); !act.Cancel || act.Confirm || s.Shown() {
			t.Fatalf("%q gave %+v, shown %v", msg.String(), act, s.Shown())
		}
	}
}

// TestKeysLeftToTheConsole leaves a control key the screen does not use to
// the console, and keeps a stray letter from reaching what lies beneath.
func TestKeysLeftToTheConsole(t *testing.T) {
	s := open(undo())
	if _, ok := s.Update(tea.KeyMsg{Type: tea.KeyCtrlC}, later); ok {
		t.Fatal("the screen took ctrl+c")
	}
	if act, ok := s.Update(runes("a"), later); !ok || !isZero(act) {
		t.Fatalf("a gave %+v, taken %v", act, ok)
	}
}

// TestScrollTheDiff pages through a long diff and back, and starts the next
// file's diff at its top.
func TestScrollTheDiff(t *testing.T) {
	long := strings.Repeat("line\n", 200)
	s := open(Preview{Title: "undo turn 2", Files: []File{
		{Path: "long.txt", How: "removed", Before: long},
		{Path: "short.txt", How: "removed", Before: "x\n"},
	}, Digest: "d"})
	if v := s.View(80, 20); !strings.Contains(v, "lines 1–") {
		t.Fatalf("the diff does not start at its top:\n%s", v)
	}
	press(t, &s, pgdown, later)
	v := s.View(80, 20)
	if strings.Contains(v, "lines 1–") || !strings.Contains(v, "of 201") {
		t.Fatalf("pgdown did not scroll:\n%s", v)
	}
	for range 100 {
		press(t, &s, pgdown, later)
	}
	if v := s.View(80, 20); !strings.Contains(v, "–201 of 201") {
		t.Fatalf("scrolling stopped short of the end:\n%s", v)
	}
	for range 100 {
		press(t, &s, pgup, later)
	}
	if v := s.View(80, 20); !strings.Contains(v, "lines 1–") {
		t.Fatalf("pgup did not scroll back to the top:\n%s", v)
	}
	press(t, &s, pgdown, later)
	press(t, &s, down, later)
	if v := s.View(80, 20); !strings.Contains(v, "short.txt · removed · − now, + after · lines 1–") {
		t.Fatalf("the next file's diff does not start at its top:\n%s", v)
	}
}

// TestConversationOnly confirms a rewind that changes no file: the screen
// says what happens to the conversation and that the workspace stays.
func TestConversationOnly(t *testing.T) {
	s := open(Preview{Title: "rewind to turn 3", Conversation: "the conversation goes back to before turn 3", Digest: "conv"})
	v := s.View(80, 12)
	for _, want := range []string{"Rewind to turn 3: the conversation only — y confirm · n cancel", "the conversation goes back to before turn 3", "the workspace stays as it is"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, v)
		}
	}
	press(t, &s, runes("o"), later)
	press(t, &s, down, later)
	if act := press(t, &s, enter, later); !act.Confirm || act.Digest != "conv" || act.Overwrite != nil {
		t.Fatalf("enter gave %+v", act)
	}
}

// TestScreenGolden pins the screen's drawing at 80 and 120 columns, without
// colour: a changed file, a removed one, a binary one, a conflict kept and
// one to overwrite, a conversation-only rewind, a short and a narrow
// screen, hostile text made harmless, and a file the checkpoint could not
// record listed as not restorable.
func TestScreenGolden(t *testing.T) {
	downs := func(n int) []tea.KeyMsg { return slices.Repeat([]tea.KeyMsg{down}, n) }
	for _, tc := range []struct {
		name          string
		preview       Preview
		keys          []tea.KeyMsg
		width, height int
	}{
		{"changed_80", undo(), nil, 80, 34},
		{"changed_120", undo(), nil, 120, 34},
		{"changed_split_150", undo(), nil, 150, 34},
		{"removed_80", undo(), downs(1), 80, 24},
		{"binary_120", undo(), downs(4), 120, 24},
		{"mode_80", undo(), downs(3), 80, 24},
		{"folder_80", undo(), downs(6), 80, 24},
		{"conflict_kept_80", undo(), downs(5), 80, 24},
		{"conflict_kept_120", undo(), downs(5), 120, 24},
		{"conflict_overwritten_120", undo(), append(downs(5), runes("o")), 120, 24},
		{"conversation_only_80", Preview{Title: "rewind to turn 3", Conversation: "the conversation goes back to before turn 3", Digest: "c"}, nil, 80, 10},
		{"short_80", undo(), downs(5), 80, 9},
		{"narrow_40", undo(), downs(5), 40, 20},
		{"hostile_80", hostilePreview(), nil, 80, 20},
		{"not_restorable_80", Preview{Title: "undo turn 1", Files: []File{{Path: "new.txt", How: "removed", Before: "small\n"}},
			NotCovered: []string{"big.bin: not restorable, larger than 8 MiB after turn 1"}, Digest: "n"}, nil, 80, 14},
		{"hostile_removed_120", hostilePreview(), downs(1), 120, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(tc.preview)
			for _, k := range tc.keys {
				s.Update(k, later)
			}
			out := s.View(tc.width, tc.height)
			checkScreen(t, out, tc.width, tc.height)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestHostileTextNeverReachesTheTerminal draws the hostile preview in
// colour, each file selected, and finds none of its escape sequences or
// control characters in what is drawn.
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	s := open(hostilePreview())
	for _, sel := range []tea.KeyMsg{up, down} {
		s.Update(sel, later)
		out := s.View(120, 20)
		for _, bad := range []string{"\x1b[2J", "\x1b]", "\x07", "\r", "\x1b[1A", "\u202e", "ZXZpbA=="} {
			if strings.Contains(out, bad) {
				t.Fatalf("%q reached the terminal:\n%q", bad, out)
			}
		}
		if !strings.Contains(out, "\x1b[") {
			t.Fatal("the test draws without colour, so it checks nothing")
		}
	}
}

// TestEveryWidthFits draws the screen at many widths and heights, small
// ones all, each file selected in turn: no line passes the width, there are exactly as many lines as asked for, and the
// selected file is in view whenever the screen has room for the list.
func TestEveryWidthFits(t *testing.T) {
	s := open(undo())
	for i := range len(undo().Files) {
		if i > 0 {
			s.Update(down, later)
		}
		for _, w := range widths() {
			for _, h := range heights {
				out := s.View(w, h)
				checkScreen(t, out, w, h)
				if w >= 4 && h >= 3 && !strings.Contains(out, text.SymFocus) {
					t.Fatalf("%d×%d: the selected file is out of view:\n%s", w, h, out)
				}
			}
		}
	}
}

var checkScreen = parttest.CheckScreen

// heights are the heights the fitting tests draw at: every one up to where
// the footer no longer crowds the diff, then taller ones.
var heights = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 17, 20, 30}

var widths = parttest.Widths
