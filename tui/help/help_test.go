package help

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
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

const title = "Keys and commands"

// console returns sections like the console's own: its keys, its slash
// commands and a person's commands from files, one of them hostile.
func console() []Section {
	return []Section{
		{Title: "Anywhere", Rows: []Row{
			{Key: "tab", Desc: "focus input → board → transcript"},
			{Key: "shift+tab", Desc: "approval mode ask → reads → auto → plan"},
			{Key: "esc", Desc: "stop the turn; close a prompt; leave a task"},
			{Key: "ctrl+c ×2", Desc: "quit"},
			{Key: "? / f1", Desc: "this help (? outside the input)"},
		}},
		{Title: "On the board", Note: "(approvals are ignored for ½ s after the call under focus changes)", Rows: []Row{
			{Key: "↑/k", Desc: "focus the previous call"},
			{Key: "↓/j", Desc: "focus the next call"},
			{Key: "y", Desc: "approve the focused call"},
			{Key: "n", Desc: "skip the focused call (reason, enter)"},
			{Key: "g", Desc: "session grant: tool, or tool in a folder"},
			{Key: "a", Desc: "approve every pending call of the batch"},
			{Key: "A", Desc: "approve every pending call"},
			{Key: "enter", Desc: "details; on a task, open its calls (esc back)"},
			{Key: "e", Desc: "edit a pending write in $EDITOR (save = y)"},
		}},
		{Title: "In the input and the transcript", Rows: []Row{
			{Key: "enter", Desc: "send the goal, answer, command or skip reason"},
			{Key: "ctrl+j", Desc: "new line (also alt+enter, shift+enter)"},
			{Key: "↑/ctrl+p", Desc: "earlier input (↑ on the first line)"},
			{Key: "↓/ctrl+n", Desc: "later input (↓ on the last line)"},
			{Key: "ctrl+r", Desc: "search earlier inputs"},
			{Key: "ctrl+g", Desc: "edit the input in $VISUAL/$EDITOR"},
			{Key: "tab", Desc: "complete the /command the menu shows"},
			{Key: "home", Desc: "the start of the session"},
			{Key: "end", Desc: "the end, following new output"},
			{Key: "t", Desc: "show or fold the model's thinking"},
			{Key: "pgup", Desc: "scroll up (transcript, or expanded details)"},
			{Key: "pgdn", Desc: "scroll down; the mouse wheel scrolls too"},
		}},
		{Title: "Slash commands", Note: "(type / in the input; tab completes)", Rows: []Row{
			{Key: "/help", Desc: "every key and command"},
			{Key: "/mode <ask|reads|auto|plan>", Desc: "set the approval mode (shift+tab cycles it)"},
			{Key: "/model <provider:name>", Desc: "switch the model from the next turn, e.g. anthropic:claude-opus-4-7"},
			{Key: "/reasoning <level>", Desc: "how hard the model reasons: off, low, medium, high, max, default"},
			{Key: "/compact [focus]", Desc: "compact the conversation to free context"},
			{Key: "/undo", Desc: "put back the files the last reply changed, after showing what it writes"},
			{Key: "/rewind", Desc: "go back to an earlier point: code, conversation or both"},
			{Key: "/export [file]", Desc: "write the transcript as Markdown"},
			{Key: "/quit", Desc: "quit the console"},
			{Key: "//text", Desc: "send text that begins with /"},
		}},
		{Title: "Your commands", Note: "(from command files: each sends its file's text, with your arguments)", Rows: []Row{
			{Key: "/fix [issue-number] [priority]", Desc: "fix an issue by number", Aside: "project · .claude/commands/fix.md"},
			{Key: "/release-notes", Desc: "write the release notes", Aside: "~/.claude/commands/release-notes.md"},
			{Key: "/review [focus]\a", Desc: "review the diff " + parttest.Hostile, Aside: "~/.config/agenttui/commands/review.md"},
		}},
	}
}

func open(width, height int) Model {
	m := New(DefaultKeyMap(), text.DefaultStyles())
	m.Show(title, console())
	m.SetSize(width, height)
	return m
}

var (
	up       = tea.KeyMsg{Type: tea.KeyUp}
	down     = tea.KeyMsg{Type: tea.KeyDown}
	pgup     = tea.KeyMsg{Type: tea.KeyPgUp}
	pgdown   = tea.KeyMsg{Type: tea.KeyPgDown}
	home     = tea.KeyMsg{Type: tea.KeyHome}
	end      = tea.KeyMsg{Type: tea.KeyEnd}
	space    = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	esc      = tea.KeyMsg{Type: tea.KeyEscape}
	f1       = tea.KeyMsg{Type: tea.KeyF1}
	enter    = tea.KeyMsg{Type: tea.KeyEnter}
	tab      = tea.KeyMsg{Type: tea.KeyTab}
	runes    = parttest.Runes
	paste    = parttest.Paste
	checkFit = parttest.CheckScreen
)

// press sends keys in turn and returns the last action.
func press(m *Model, keys ...tea.Msg) Action {
	var act Action
	for _, k := range keys {
		*m, act = m.Update(k)
	}
	return act
}

// TestHelpGolden pins the help at 80×24 and 120×40, at its start and
// scrolled to its end (where /quit and the person's commands are), a page
// down, on a narrow screen, and at a size where it all fits and says
// nothing of scrolling.
func TestHelpGolden(t *testing.T) {
	for _, tc := range []struct {
		name          string
		width, height int
		keys          []tea.Msg
	}{
		{"top_80x24", 80, 24, nil},
		{"end_80x24", 80, 24, []tea.Msg{end}},
		{"page_down_80x24", 80, 24, []tea.Msg{pgdown}},
		{"top_120x40", 120, 40, nil},
		{"end_120x40", 120, 40, []tea.Msg{end}},
		{"narrow_40x14", 40, 14, []tea.Msg{pgdown, pgdown}},
		{"fits_120x80", 120, 80, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := open(tc.width, tc.height)
			press(&m, tc.keys...)
			out := m.View(tc.width, tc.height)
			checkFit(t, out, tc.width, tc.height)
			golden.RequireEqual(t, []byte(out+"\n"))
		})
	}
}

// pages scrolls m from its start to its end with next, and returns every
// view on the way.
func pages(t *testing.T, m Model, width, height int, next tea.Msg) []string {
	t.Helper()
	var views []string
	for range 200 {
		v := m.View(width, height)
		views = append(views, v)
		if strings.Contains(v, "the end ·") || !strings.Contains(v, "more ·") {
			return views
		}
		press(&m, next)
		if m.View(width, height) == v {
			t.Fatalf("%d×%d: %q did not scroll:\n%s", width, height, next, v)
		}
	}
	t.Fatalf("%d×%d: %q never reached the end", width, height, next)
	return nil
}

// TestScrollingReachesEveryRow pages through the help with each of the
// keys that scroll down, at the two sizes the console is used at and at a
// narrow one, and finds every key and every description on the way.
func TestScrollingReachesEveryRow(t *testing.T) {
	for _, size := range [][2]int{{80, 18}, {120, 34}, {44, 12}} {
		for _, next := range []tea.Msg{down, runes("j"), pgdown, space, tea.MouseMsg{Button: tea.MouseButtonWheelDown}} {
			w, h := size[0], size[1]
			m := open(w, h)
			views := pages(t, m, w, h, next)
			if len(views) < 2 {
				t.Fatalf("%d×%d: the help fits, so this test scrolls nothing", w, h)
			}
			// The descriptions wrap, so a description is found with its
			// lines joined.
			var all []string
			for _, v := range views {
				for _, l := range strings.Split(v, "\n") {
					all = append(all, strings.TrimSpace(l))
				}
			}
			joined := strings.Join(all, " ")
			for _, s := range console() {
				for _, r := range s.Rows {
					for _, want := range []string{text.CleanLine(r.Key), text.CleanLine(r.Desc)} {
						if w > 60 && !strings.Contains(joined, want) {
							t.Fatalf("%d×%d with %q: %q is never shown", w, h, next, want)
						}
					}
					if !strings.Contains(joined, text.Cut(text.CleanLine(r.Key), w-indent)) {
						t.Fatalf("%d×%d with %q: the key %q is never shown", w, h, next, r.Key)
					}
				}
			}
		}
	}
}

var more = regexp.MustCompile(`↓ (\d+) more · ↑↓ pgup pgdn home end scroll · esc or \? closes`)

// TestSaysWhatIsBeyondTheView reads the lines at the top and the bottom:
// at the start, how many lines are below and which keys scroll; scrolled,
// how many are above and in which section the view begins; at the end,
// that it is the end.
func TestSaysWhatIsBeyondTheView(t *testing.T) {
	m := open(80, 20)
	v := m.View(80, 20)
	lines := strings.Split(v, "\n")
	if !strings.HasPrefix(lines[0], title+" · esc or ? closes this") {
		t.Fatalf("the first line is %q", lines[0])
	}
	got := more.FindStringSubmatch(lines[len(lines)-1])
	if got == nil {
		t.Fatalf("the last line does not say there is more: %q", lines[len(lines)-1])
	}
	below, _ := strconv.Atoi(got[1])
	if total := len(m.body(80)); below != total-(20-2) {
		t.Fatalf("the last line says %d more of %d lines in 18 rows", below, total)
	}
	if strings.Contains(v, "above") {
		t.Fatalf("the start says something is above:\n%s", v)
	}
	press(&m, down, down, down)
	lines = strings.Split(m.View(80, 20), "\n")
	if lines[1] != "↑ 3 above · Anywhere, continued" {
		t.Fatalf("scrolled by 3, the line under the title is %q", lines[1])
	}
	if got := more.FindStringSubmatch(lines[len(lines)-1]); got == nil || got[1] != strconv.Itoa(below-2) {
		// One line more is hidden at the top, for the line that says so.
		t.Fatalf("scrolled by 3, the last line is %q", lines[len(lines)-1])
	}
	press(&m, end)
	lines = strings.Split(m.View(80, 20), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "the end · ") {
		t.Fatalf("at the end, the last line is %q", last)
	}
	if !strings.Contains(lines[len(lines)-2], "~/.config/agenttui/commands/review.md") {
		t.Fatalf("at the end, the last row is not the last row given:\n%s", strings.Join(lines, "\n"))
	}
	// Where everything fits, nothing is said of scrolling.
	m = open(120, 80)
	if v := m.View(120, 80); strings.Contains(v, "more ·") || strings.Contains(v, "the end ·") || strings.Contains(v, "above ·") {
		t.Fatalf("a help that fits talks of scrolling:\n%s", v)
	}
}

// firstRow returns the first line of the body in view at 80×20.
func firstRow(m Model) string {
	lines := strings.Split(m.View(80, 20), "\n")
	if strings.HasPrefix(lines[1], "↑") {
		return lines[2]
	}
	return lines[1]
}

// TestScrollingKeys moves by a line, a page and to the ends with each key
// that does, and never past an end.
func TestScrollingKeys(t *testing.T) {
	m := open(80, 20)
	body := m.body(80)
	start := firstRow(m)
	press(&m, up, pgup, home, runes("k"), runes("g"), tea.MouseMsg{Button: tea.MouseButtonWheelUp})
	if firstRow(m) != start {
		t.Fatal("the help scrolled up past its start")
	}
	for _, k := range []tea.Msg{down, runes("j")} {
		m = open(80, 20)
		press(&m, k)
		if got := firstRow(m); got != body[1].text {
			t.Fatalf("%q showed %q first, want %q", k, got, body[1].text)
		}
	}
	m = open(80, 20)
	press(&m, down, down, up)
	if got := firstRow(m); got != body[1].text {
		t.Fatalf("↓↓↑ showed %q first, want %q", got, body[1].text)
	}
	// A page is the rows in view when scrolled (20, less the title, the
	// line above and the line below), less one kept for context.
	for _, k := range []tea.Msg{pgdown, space} {
		m = open(80, 20)
		press(&m, k)
		if got := firstRow(m); got != body[16].text {
			t.Fatalf("%q showed %q first, want %q", k, got, body[16].text)
		}
		press(&m, pgup)
		if got := firstRow(m); got != body[0].text {
			t.Fatalf("pgup after %q showed %q first", k, got)
		}
	}
	for _, k := range []tea.Msg{end, runes("G")} {
		m = open(80, 20)
		press(&m, k)
		atEnd := m.View(80, 20)
		press(&m, down, pgdown, space, end, tea.MouseMsg{Button: tea.MouseButtonWheelDown})
		if m.View(80, 20) != atEnd || !strings.Contains(atEnd, "the end") {
			t.Fatalf("%q then more keys down moved past the end:\n%s", k, m.View(80, 20))
		}
		for _, top := range []tea.Msg{home, runes("g")} {
			back := m
			press(&back, top)
			if firstRow(back) != start {
				t.Fatalf("%q after %q did not go back to the start", top, k)
			}
		}
	}
	m = open(80, 20)
	press(&m, tea.MouseMsg{Button: tea.MouseButtonWheelDown})
	if got := firstRow(m); got != body[wheelLines].text {
		t.Fatalf("the wheel showed %q first, want %q", got, body[wheelLines].text)
	}
}

// TestClosingAndOtherKeys closes the help with each closing key, and
// keeps it open under every other key, typed text and pastes included:
// none of the board's keys gets through, and each says how to close it.
func TestClosingAndOtherKeys(t *testing.T) {
	for _, k := range []tea.Msg{esc, runes("?"), runes("q"), f1} {
		m := open(80, 24)
		if act := press(&m, k); act != (Action{Close: true}) || m.Shown() {
			t.Fatalf("%q gave %+v, shown %v", k, act, m.Shown())
		}
		if act := press(&m, down); act != (Action{}) {
			t.Fatalf("a closed help acted on a key: %+v", act)
		}
	}
	for _, k := range []tea.Msg{runes("y"), runes("n"), runes("a"), runes("A"), enter, tab, runes("yes"), paste("?"), paste("q"), runes("?q")} {
		m := open(80, 24)
		before := m.View(80, 24)
		act := press(&m, k)
		if act.Close || !m.Shown() {
			t.Fatalf("%q closed the help", k)
		}
		if !strings.Contains(act.Note, "esc or ? closes it") {
			t.Fatalf("%q did nothing without a word: %+v", k, act)
		}
		if m.View(80, 24) != before {
			t.Fatalf("%q changed the help", k)
		}
	}
	m := open(80, 24)
	press(&m, end, esc)
	m.Show(title, console())
	if !strings.Contains(m.View(80, 24), "Anywhere") {
		t.Fatal("the help opened again where it was left, not at its start")
	}
}

// TestUsesItsWidth finds every description whole on its key's line where
// the width allows, and the keys of a section in a column as wide as its
// widest key; on a narrower screen, a description wraps under itself.
func TestUsesItsWidth(t *testing.T) {
	m := open(120, 80)
	v := m.View(120, 80)
	for _, want := range []string{
		"  ctrl+c ×2  quit",
		"  ? / f1     this help (? outside the input)",
		"  y      approve the focused call",
		"  /model <provider:name>       switch the model from the next turn, e.g. anthropic:claude-opus-4-7",
		"  /undo                        put back the files the last reply changed, after showing what it writes",
		"  /fix [issue-number] [priority]  fix an issue by number · project · .claude/commands/fix.md",
		"On the board (approvals are ignored for ½ s after the call under focus changes)",
	} {
		if !strings.Contains(v, want+"\n") {
			t.Errorf("at 120 columns, no line %q in:\n%s", want, v)
		}
	}
	m = open(60, 80)
	v = m.View(60, 80)
	for _, want := range []string{
		"  /model <provider:name>       switch the model from the",
		"                               next turn, e.g.",
		"                               anthropic:claude-opus-4-7",
		"  /fix [issue-number] [priority]",
		"                                fix an issue by number",
		"  /release-notes                write the release notes",
		"                                ~/.claude/commands/release-",
	} {
		if !strings.Contains(v, want+"\n") {
			t.Errorf("at 60 columns, no line %q in:\n%s", want, v)
		}
	}
}

// TestHostileTextNeverReachesTheTerminal draws a command file's hostile
// name and description in colour and finds none of their escape
// sequences or control characters.
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	m := open(120, 80)
	out := m.View(120, 80)
	for _, bad := range []string{"\x1b[2J", "\x1b]", "\x07", "\r"} {
		if strings.Contains(out, bad) {
			t.Fatalf("%q reached the terminal:\n%q", bad, out)
		}
	}
	if !strings.Contains(out, "\x1b[") {
		t.Fatal("the test draws without colour, so it checks nothing")
	}
	if !strings.Contains(ansi.Strip(out), "review the diff ␛␛␛click␛ me␍") {
		t.Fatalf("the hostile description is not shown made harmless:\n%s", ansi.Strip(out))
	}
}

// TestEveryWidthFits draws the help at many widths and heights, at its
// start, a page down and at its end: no line passes the width, there are
// exactly as many lines as asked for, and where there is room for the
// line that says so, the help says there is more.
func TestEveryWidthFits(t *testing.T) {
	for _, w := range parttest.Widths() {
		// One help, laid out once for the width, sized for each height.
		shown := open(w, 0)
		for _, h := range []int{1, 2, 3, 4, 5, 6, 8, 12, 18, 24, 34, 40, 120} {
			shown.SetSize(w, h)
			for _, keys := range [][]tea.Msg{nil, {pgdown}, {end}, {end, up}} {
				m := shown
				press(&m, keys...)
				out := m.View(w, h)
				checkFit(t, out, w, h)
				last := out[strings.LastIndex(out, "\n")+1:]
				if n := len(m.body(w)); n+1 > h && w >= 12 && !strings.HasPrefix(last, "↓ ") && !strings.HasPrefix(last, "the end ·") {
					t.Fatalf("%d×%d after %q: %d lines in %d rows, and nothing says so:\n%s", w, h, keys, n, h, out)
				}
			}
		}
	}
	// The size drawn at may differ from the size last given: the view
	// keeps to its own.
	m := open(80, 24)
	press(&m, end)
	checkFit(t, m.View(40, 6), 40, 6)
	checkFit(t, m.View(160, 100), 160, 100)
}
