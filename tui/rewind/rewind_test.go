package rewind

import (
	"os"
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

// t0 is when the picker opens in every test; later is past its grace.
var (
	t0    = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	later = t0.Add(time.Second)
)

const hostile = parttest.Hostile

// session returns the points of a session of three turns, oldest first:
// the goal, the reply that changed two files, a follow-up, the reply that
// changed six, and an answer after which nothing changed.
func session() []Point {
	return []Point{
		{Kind: "goal", Turn: 1, Text: "fix the pager so it stops at the end", Conversation: true, Code: true},
		{Kind: "reply", Turn: 1, Text: "Changed the pager to stop at the end.", Conversation: true, Code: true, Files: []File{
			{Path: "pager.go", Kind: "modified", Added: 3, Removed: 1},
			{Path: "notes.txt", Kind: "added"},
		}},
		{Kind: "followup", Turn: 2, Text: "also remove old.txt\nand make run.sh executable", Conversation: true, Code: true},
		{Kind: "reply", Turn: 2, Text: "Removed old.txt, made run.sh executable and tidied the rest.", Conversation: true, Code: true, Files: []File{
			{Path: "old.txt", Kind: "removed"},
			{Path: "run.sh", Kind: "mode"},
			{Path: "internal/pager/render.go", Kind: "modified", Added: 12, Removed: 40},
			{Path: "internal/pager/render_test.go", Kind: "modified", Added: 30},
			{Path: "README.md", Kind: "modified", Added: 1, Removed: 1},
			{Path: "docs/pager.md", Kind: "added"},
		}},
		{Kind: "answer", Turn: 3, Text: "yes, keep the old flag", Conversation: true, Code: false},
	}
}

// compacted returns a session whose first turns were compacted away, so
// its oldest points can only go back in the workspace.
func compacted() []Point {
	pts := session()
	pts[0].Conversation, pts[1].Conversation = false, false
	return pts
}

var runes, paste = parttest.Runes, parttest.Paste

var (
	enter = tea.KeyMsg{Type: tea.KeyEnter}
	esc   = tea.KeyMsg{Type: tea.KeyEscape}
	up    = tea.KeyMsg{Type: tea.KeyUp}
	down  = tea.KeyMsg{Type: tea.KeyDown}
)

func open(pts []Point) Picker {
	p := New(DefaultKeyMap(), text.DefaultStyles())
	p.Show(pts, t0)
	return p
}

// press sends msg at time at and fails unless the picker took it.
func press(t *testing.T, p *Picker, msg tea.KeyMsg, at time.Time) Action {
	t.Helper()
	act, ok := p.Update(msg, at)
	if !ok {
		t.Fatalf("the picker did not take %q", msg.String())
	}
	return act
}

// TestTypingAndTheGraceNeverChoose sends a paste, several runes at once and
// every choosing key inside the grace period: none chooses, and each says
// why. After the grace, 1 chooses the newest point in both ways.
func TestTypingAndTheGraceNeverChoose(t *testing.T) {
	p := open(session())
	p.Update(up, t0)   // the newest point stays selected: nothing is newer
	p.Update(down, t0) // the reply of turn 2, which allows both ways back
	for _, msg := range []tea.KeyMsg{runes("12"), runes("1\r"), paste("1"), paste("\r")} {
		if act := press(t, &p, msg, later); act != (Action{}) || !p.Shown() {
			t.Fatalf("%q chose %+v", msg.String(), act)
		}
		if !strings.Contains(p.View(80, 24), "typed text is ignored") {
			t.Fatalf("%q was ignored without a word", msg.String())
		}
	}
	for _, msg := range []tea.KeyMsg{enter, runes("1"), runes("2"), runes("3")} {
		if act := press(t, &p, msg, t0.Add(DefaultGrace-time.Millisecond)); act != (Action{}) || !p.Shown() {
			t.Fatalf("%q chose %+v inside the grace period", msg.String(), act)
		}
		if !strings.Contains(p.View(80, 24), "has just opened") {
			t.Fatalf("%q was ignored in the grace period without a word", msg.String())
		}
	}
	act := press(t, &p, runes("1"), t0.Add(DefaultGrace))
	if want := (Action{Point: 3, Code: true, Conversation: true}); act != want {
		t.Fatalf("1 chose %+v, want %+v", act, want)
	}
	if p.Shown() {
		t.Fatal("the picker stayed open after a choice")
	}
	if act, ok := p.Update(runes("1"), later); ok || act != (Action{}) {
		t.Fatalf("a closed picker took a key: %+v", act)
	}
}

// TestNoGraceWhenTurnedOff chooses at once when the console turns the
// grace period off.
func TestNoGraceWhenTurnedOff(t *testing.T) {
	p := open(session())
	p.Grace = 0
	p.Show(session(), t0)
	if act := press(t, &p, runes("3"), t0); act != (Action{Point: 4, Conversation: true}) {
		t.Fatalf("3 chose %+v", act)
	}
}

// TestDimmedChoicesDoNothing selects points that cannot go back in the
// workspace or in the conversation: their choices do nothing and say why,
// and Enter takes the only choice left.
func TestDimmedChoicesDoNothing(t *testing.T) {
	p := open(compacted())
	// The newest point: nothing changed in the workspace after it.
	for _, k := range []string{"1", "2"} {
		if act := press(t, &p, runes(k), later); act != (Action{}) {
			t.Fatalf("%s chose %+v at a point with no change after it", k, act)
		}
		if v := p.View(80, 24); !strings.Contains(v, "nothing changed in the workspace after this point") {
			t.Fatalf("%s did nothing without saying why:\n%s", k, v)
		}
	}
	if act := press(t, &p, enter, later); act != (Action{Point: 4, Conversation: true}) {
		t.Fatalf("enter chose %+v, want the conversation only", act)
	}

	p = open(compacted())
	for range 4 {
		press(t, &p, down, later)
	}
	// The oldest point: the conversation before it was compacted.
	for _, k := range []string{"1", "3"} {
		if act := press(t, &p, runes(k), later); act != (Action{}) {
			t.Fatalf("%s chose %+v at a compacted point", k, act)
		}
		if v := p.View(80, 24); !strings.Contains(v, "the conversation before this point was compacted") {
			t.Fatalf("%s did nothing without saying why:\n%s", k, v)
		}
	}
	if act := press(t, &p, enter, later); act != (Action{Point: 0, Code: true}) {
		t.Fatalf("enter chose %+v, want the code only", act)
	}

	p = open([]Point{{Kind: "goal", Turn: 1, Text: "x"}})
	for _, msg := range []tea.KeyMsg{enter, runes("1"), runes("2"), runes("3")} {
		if act := press(t, &p, msg, later); act != (Action{}) {
			t.Fatalf("%q chose %+v at a point allowing nothing", msg.String(), act)
		}
	}
	if v := p.View(80, 10); !strings.Contains(v, "nothing to go back to here") {
		t.Fatalf("a point allowing nothing does not say so:\n%s", v)
	}
}

// TestEscCancelsAtOnce closes the picker with Cancel, even inside the grace
// period, since cancelling changes nothing.
func TestEscCancelsAtOnce(t *testing.T) {
	p := open(session())
	if act := press(t, &p, esc, t0); act != (Action{Cancel: true}) || p.Shown() {
		t.Fatalf("esc gave %+v, shown %v", act, p.Shown())
	}
}

// TestSelectionMovesWithinThePoints moves past both ends and chooses by the
// index the points were given in, not the order they are listed in.
func TestSelectionMovesWithinThePoints(t *testing.T) {
	p := open(session())
	for range 10 {
		press(t, &p, runes("j"), later)
	}
	if act := press(t, &p, runes("2"), later); act != (Action{Point: 0, Code: true}) {
		t.Fatalf("the oldest point gave %+v", act)
	}
	p = open(session())
	for range 3 {
		press(t, &p, up, later)
	}
	press(t, &p, runes("k"), later)
	press(t, &p, down, later)
	if act := press(t, &p, runes("3"), later); act != (Action{Point: 3, Conversation: true}) {
		t.Fatalf("the second newest point gave %+v", act)
	}
}

// TestKeysLeftToTheConsole leaves a control key the picker does not use to
// the console, and keeps a stray letter from reaching what lies beneath.
func TestKeysLeftToTheConsole(t *testing.T) {
	p := open(session())
	if _, ok := p.Update(tea.KeyMsg{Type: tea.KeyCtrlC}, later); ok {
		t.Fatal("the picker took ctrl+c")
	}
	if act, ok := p.Update(runes("y"), later); !ok || act != (Action{}) {
		t.Fatalf("y gave %+v, taken %v", act, ok)
	}
}

// TestEmptySession draws and handles keys with no point to go back to.
func TestEmptySession(t *testing.T) {
	p := open(nil)
	if act := press(t, &p, enter, later); act != (Action{}) {
		t.Fatalf("enter chose %+v with no point", act)
	}
	press(t, &p, up, later)
	if v := p.View(60, 6); !strings.Contains(v, "nothing to go back to yet") {
		t.Fatalf("an empty picker does not say so:\n%s", v)
	}
}

// hostileSession returns points whose text and paths carry escape
// sequences and control characters.
func hostileSession() []Point {
	return []Point{
		{Kind: "goal", Turn: 1, Text: "rename " + hostile, Conversation: true, Code: true},
		{Kind: "reply", Turn: 1, Text: hostile + "done", Conversation: true, Code: true, Files: []File{
			{Path: "\x1b[31mred\x1b[0m.go", Kind: "modified", Added: 1, Removed: 1},
			{Path: "a\u202egnp.exe", Kind: "added"},
		}},
	}
}

// markdownSession returns points whose replies are Markdown, as models
// write them, and whose person's input has marks of its own.
func markdownSession() []Point {
	return []Point{
		{Kind: "goal", Turn: 1, Text: "rename `Pages` to **PageCount**", Conversation: true, Code: true},
		{Kind: "reply", Turn: 1, Text: "## The fix\n\nThe **last page** was lost to `total / size`; see [the spec](https://go.dev/ref/spec).",
			Conversation: true, Code: true, Files: []File{{Path: "pager.go", Kind: "modified", Added: 1, Removed: 1}}},
		{Kind: "reply", Turn: 2, Text: "- Removed `old.txt`\n- made _run.sh_ executable\n\n```sh\nchmod +x run.sh\n```", Conversation: true, Code: true},
	}
}

// TestRepliesReadAsPlainText lists a reply's Markdown as the plain text it
// reads as, and the person's input as they typed it.
func TestRepliesReadAsPlainText(t *testing.T) {
	p := open(markdownSession())
	out := p.View(120, 12)
	for _, want := range []string{
		"The fix⏎ The last page was lost to total / size; see the spec.",
		"Removed old.txt⏎ made run.sh executable⏎ chmod +x run.sh",
		"rename `Pages` to **PageCount**",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the picker lacks %q:\n%s", want, out)
		}
	}
	for _, mark := range []string{"##", "[the spec]", "https://go.dev", "`old.txt`", "_run.sh_", "```"} {
		if strings.Contains(out, mark) {
			t.Errorf("the picker shows the Markdown %q:\n%s", mark, out)
		}
	}
}

// TestPickerGolden pins the picker's drawing at 80 and 120 columns, without
// colour: newest first, the files under each reply, the choices dimmed
// where the selection cannot take them, a short screen scrolled to the
// selection, hostile text made harmless, and replies' Markdown as plain
// text.
func TestPickerGolden(t *testing.T) {
	for _, tc := range []struct {
		name          string
		points        []Point
		keys          []tea.KeyMsg
		width, height int
	}{
		{"newest_80", session(), nil, 80, 24},
		{"newest_120", session(), nil, 120, 24},
		{"reply_with_many_files_80", session(), []tea.KeyMsg{down}, 80, 24},
		{"compacted_oldest_120", compacted(), []tea.KeyMsg{down, down, down, down}, 120, 24},
		{"scrolled_short_80", session(), []tea.KeyMsg{down, down, down, down}, 80, 8},
		{"narrow_40", compacted(), []tea.KeyMsg{down}, 40, 12},
		{"hostile_80", hostileSession(), nil, 80, 12},
		{"hostile_120", hostileSession(), []tea.KeyMsg{down}, 120, 12},
		{"empty_80", nil, nil, 80, 6},
		{"markdown_80", markdownSession(), nil, 80, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := open(tc.points)
			for _, k := range tc.keys {
				p.Update(k, later)
			}
			out := p.View(tc.width, tc.height)
			checkScreen(t, out, tc.width, tc.height)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestHostileTextNeverReachesTheTerminal draws hostile points in colour and
// finds none of their escape sequences or control characters in what is
// drawn.
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	p := open(hostileSession())
	for _, sel := range []tea.KeyMsg{up, down} {
		p.Update(sel, later)
		out := p.View(120, 12)
		for _, bad := range []string{"\x1b[2J", "\x1b]", "\x07", "\r", "\x1b[31m", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Fatalf("%q reached the terminal:\n%q", bad, out)
			}
		}
		if !strings.Contains(out, "\x1b[") {
			t.Fatal("the test draws without colour, so it checks nothing")
		}
	}
}

// TestEveryWidthFits draws the picker at many widths and heights, small
// ones all, with each point selected: no line passes the width, there are exactly as many lines as asked for, and the selection
// is in view whenever there is a line for the list.
func TestEveryWidthFits(t *testing.T) {
	p := open(session())
	for _, moves := range [][]tea.KeyMsg{nil, {down}, {down}, {down}, {down}, {up}, {up}, {up}, {up}} {
		for _, k := range moves {
			p.Update(k, later)
		}
		for _, w := range widths() {
			for _, h := range heights {
				out := p.View(w, h)
				checkScreen(t, out, w, h)
				if w >= 4 && h >= 2 && !strings.Contains(out, text.SymFocus) {
					t.Fatalf("%d×%d: the selection is out of view:\n%s", w, h, out)
				}
			}
		}
	}
}

var checkScreen = parttest.CheckScreen

// TestLabels names each kind of point as the picker lists it, and cleans a
// kind it does not know.
func TestLabels(t *testing.T) {
	for kind, want := range map[string]string{"goal": "goal · turn 2", "answer": "answer · turn 2", "followup": "follow-up · turn 2", "reply": "turn 2"} {
		if got := label(Point{Kind: kind, Turn: 2}); got != want {
			t.Errorf("label(%s) = %q, want %q", kind, got, want)
		}
	}
	if got := label(Point{Kind: "x\x1b[2J", Turn: 1}); strings.Contains(got, "\x1b") {
		t.Errorf("an unknown kind reached the screen raw: %q", got)
	}
}

// heights are the heights the fitting tests draw at: every one up to where
// all of a part shows, then a tall one.
var heights = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 30}

var widths = parttest.Widths
