// Package trust is the workspace trust screen: the question the console
// asks before it runs, for the first time, the hook commands and MCP
// servers a workspace's own configuration defines (or runs them again
// after they changed, which may be asked in the middle of a session, when a
// hook is found changed before it runs).
//
// A workspace's agenttui.json can name commands that agenttui would run on
// the person's machine around every tool call, and its .mcp.json programs
// that would run as MCP servers. Whoever wrote the workspace wrote those
// commands, so opening a folder must not be enough to run them: the screen
// lists exactly what the workspace defines and the person trusts it or
// not. Declining runs none of them in this console; the session still
// works without them.
//
// Answering is guarded as the restore screen and the grant chooser guard
// theirs: several runes in one message (typing, a paste) never answer, and
// no key answers for a short grace period after the screen opens, so keys
// typed for a goal before the question appeared cannot answer it. The
// screen records nothing itself: Update returns the answer, and the console
// records the decision and starts, or does not start, the hooks and the
// servers.
package trust

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// DefaultGrace is how long keys that answer are ignored after Show: long
// enough that a key already on its way when the question appeared, such as
// the last letters of a goal, cannot answer what the person has not read.
const DefaultGrace = 500 * time.Millisecond

// The screen's fixed words. They are plain so that the person can tell at
// a glance what runs, where, and what either answer does.
const (
	title        = "This workspace defines hooks"
	titleServers = "This workspace defines MCP servers"
	titleBoth    = "This workspace defines hooks and MCP servers"
	changed      = "They changed since you trusted them."
	hooksOnly    = "You trusted its hooks before; its MCP servers were not part of that."
	asks         = "asks agenttui to run these commands on your machine:"
	asksServers  = "asks agenttui to start these MCP servers on your machine:"
	askBoth      = "ask agenttui to run these on your machine:"
	sentence1    = "Hooks see every call and can allow, block or rewrite it."
	servers1     = "MCP servers run as programs on your machine, outside the sandbox."
	both1        = "Hooks see every call and can allow, block or rewrite it; MCP servers run as programs outside the sandbox."
	sentence2    = "Your own hooks (from ~/.config/agenttui) run either way."
	servers2     = "Your own hooks (~/.config/agenttui) and servers (--mcp-config) run either way."
	sentence3    = "If you do not trust them, none of them run; the session works without them."
)

// Question is what the screen asks about: the hook commands and MCP
// servers one workspace defines.
type Question struct {
	// Workspace is the folder whose configuration defines the hooks
	// (untrusted: the screen cleans it before drawing).
	Workspace string
	// File is the configuration file that defines the hooks, such as
	// /w/agenttui.json (untrusted).
	File string
	// Lines describe the hook commands, one line each, such as
	// "PreToolUse run_shell|Bash: ./hooks/check.sh (30 s)" (untrusted).
	Lines []string
	// ServersFile is the file that defines the MCP servers, such as
	// /w/.mcp.json, and Servers describe them, one line each, such as
	// "MCP server fs: npx -y server-filesystem ." (untrusted).
	ServersFile string
	Servers     []string
	// Changed says the person trusted an earlier version of these hooks,
	// so the screen says that they changed: the question is asked again
	// because what would run is no longer what was trusted.
	Changed bool
	// HooksOnly says what the person trusted before was the hooks alone,
	// before the workspace's MCP servers needed trust, so the screen says
	// that rather than that they changed.
	HooksOnly bool
}

// Action is what a key on the screen asks of the console. The zero Action
// asks for nothing.
type Action struct {
	// Answered says the person answered, and the screen closed.
	Answered bool
	// Trust, on an answer, says the person trusts the workspace's hooks
	// and they may run; false runs none of them in this console.
	Trust bool
	// Note says why a key did not answer, for the console to show. The
	// screen also draws it above its keys until the next key, so the
	// console may leave it there.
	Note string
}

// Screen is the workspace trust screen. It takes the whole screen while it
// is open. Its zero value is not usable: make one with New.
type Screen struct {
	// Keys are the screen's keys.
	Keys KeyMap
	// Grace is how long answering keys are ignored after Show; New sets
	// DefaultGrace, and zero or less means no grace at all.
	Grace time.Duration

	styles *text.Styles
	now    func() time.Time

	open      bool
	workspace string   // clean
	files     []string // clean, relative to the workspace when inside it
	lines     []string // clean: the hooks, then the servers
	hooks     bool     // some lines are hooks
	servers   bool     // some lines are servers
	changed   string   // what the screen says changed, or ""
	opened    time.Time
	note      string // what the last key said, until the next one
	// view sits behind a pointer because the console draws from a copy of
	// its model: how many rows the list had when last drawn must outlive
	// View, so that scrolling stops where the list ends.
	view *viewState
}

// viewState is what the screen keeps between draws.
type viewState struct {
	offset int // the first command shown
	rows   int // the lines the list took when last drawn; 0 before
}

// New returns a closed screen with keys, drawing with styles. now tells
// the time for the grace period; nil means time.Now, and tests pass a fake
// clock so that they need not sleep.
func New(keys KeyMap, styles *text.Styles, now func() time.Time) Screen {
	if now == nil {
		now = time.Now
	}
	return Screen{Keys: keys, Grace: DefaultGrace, styles: styles, now: now, view: &viewState{}}
}

// Show opens the screen on q; the grace period starts now. The question's
// text is cleaned once here, so that no draw can forget to.
func (s *Screen) Show(q Question) {
	ws := text.CleanLine(q.Workspace)
	var files, lines []string
	add := func(file string, more []string) {
		file = text.CleanLine(file)
		if rel := text.Relative(ws, file); rel != file && rel != "." {
			// The workspace is on the line above: its name need not be
			// read twice, and the file's own name then fits a narrow
			// line.
			file = rel
		}
		files = append(files, file)
		for _, l := range more {
			lines = append(lines, text.CleanLine(l))
		}
	}
	if len(q.Lines) > 0 || len(q.Servers) == 0 {
		add(q.File, q.Lines)
	}
	if len(q.Servers) > 0 {
		add(q.ServersFile, q.Servers)
	}
	s.open, s.workspace, s.files, s.lines = true, ws, files, lines
	s.hooks, s.servers = len(q.Lines) > 0 || len(q.Servers) == 0, len(q.Servers) > 0
	switch {
	case q.HooksOnly:
		s.changed = hooksOnly
	case q.Changed:
		s.changed = changed
	default:
		s.changed = ""
	}
	s.opened, s.note = s.now(), ""
	s.view = &viewState{}
}

// Hide closes the screen without an answer, as when the console stops
// waiting for one; the console then runs none of the workspace's hooks.
func (s *Screen) Hide() {
	s.open, s.workspace, s.files, s.lines, s.hooks, s.servers, s.changed, s.note = false, "", nil, nil, false, false, "", ""
	s.view = &viewState{}
}

// Shown reports whether the screen is open.
func (s *Screen) Shown() bool { return s.open }

// Armed reports whether the grace period after Show is over, so that the
// answering keys work.
func (s *Screen) Armed() bool { return s.Grace <= 0 || !s.now().Before(s.opened.Add(s.Grace)) }

// Update handles a key while the screen is open. Trust and Decline answer
// and close the screen; Up and Down scroll the commands; every other key
// only returns a Note. The console handles its own keys that work
// everywhere, such as ctrl+c, before it hands a key to the screen.
func (s *Screen) Update(msg tea.KeyMsg) Action {
	if !s.open {
		return Action{}
	}
	if msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) {
		// Several runes in one message are typing or a paste, never an
		// answer: "tt" or a pasted goal must not trust anything.
		return s.say("typed text is ignored here: " + s.which())
	}
	switch {
	case key.Matches(msg, s.Keys.Up):
		s.scroll(-s.step(msg))
	case key.Matches(msg, s.Keys.Down):
		s.scroll(s.step(msg))
	case key.Matches(msg, s.Keys.Trust), key.Matches(msg, s.Keys.Decline):
		// Declining waits for the grace period too: it turns off hooks
		// the person may count on, such as one that blocks risky
		// commands, so a stray n or esc has a cost as well.
		if !s.Armed() {
			return s.say("wait a moment: the question just appeared; read it, then answer")
		}
		trust := key.Matches(msg, s.Keys.Trust)
		s.Hide()
		return Action{Answered: true, Trust: trust}
	default:
		return s.say(s.which())
	}
	return Action{}
}

// say keeps note to draw and returns it to the console.
func (s *Screen) say(note string) Action {
	s.note = note
	return Action{Note: note}
}

// which names the keys that answer, as the notes say them.
func (s *Screen) which() string {
	what := "these hooks"
	switch {
	case s.hooks && s.servers:
		what = "these hooks and servers"
	case s.servers:
		what = "these servers"
	}
	return "press " + s.Keys.Trust.Help().Key + " to trust and run " + what + ", or " + s.Keys.Decline.Help().Key + " not to run them"
}

// words returns the screen's title and its three sentences for what the
// workspace defines.
func (s *Screen) words() (string, [3]string) {
	switch {
	case s.hooks && s.servers:
		return titleBoth, [3]string{both1, servers2, sentence3}
	case s.servers:
		return titleServers, [3]string{servers1, servers2, sentence3}
	}
	return title, [3]string{sentence1, sentence2, sentence3}
}

// step is how far a scrolling key moves the list: a page for pgup and
// pgdown, a line for the others.
func (s *Screen) step(msg tea.KeyMsg) int {
	if msg.Type == tea.KeyPgUp || msg.Type == tea.KeyPgDown {
		return max(1, s.view.rows-2)
	}
	return 1
}

// scroll moves the list d commands down (up when d is negative), no
// further than its ends as last drawn.
func (s *Screen) scroll(d int) {
	v := s.view
	v.offset = min(max(0, v.offset+d), maxOffset(len(s.lines), v.rows))
	s.note = ""
}

// maxOffset is the first command shown when a list of n commands in rows
// lines is scrolled to its end. The list shows a "more" line at each end
// that has more, when it has the three lines that needs.
func maxOffset(n, rows int) int {
	switch {
	case rows <= 0:
		// Not drawn yet: View clamps it when it knows the size.
		return max(0, n-1)
	case n <= rows:
		return 0
	case rows < 3:
		return n - rows
	}
	return n - rows + 1
}

// View draws the screen in exactly height lines of at most width columns:
// the title, the workspace, the commands it would run, whether they
// changed, what hooks can do, and the keys. On a short screen the spacing
// goes first, then the explanation and then commands, which scroll; the
// keys stay on the last line at every height.
func (s Screen) View(width, height int) string {
	if width <= 0 || height <= 0 || !s.open || s.view == nil {
		return text.JoinLines(nil, max(height, 0))
	}
	st := s.styles
	if height == 1 {
		return s.hints(width, len(s.lines) > 0)
	}
	body := height - 2 // between the title and the keys
	var note []string
	if s.note != "" && body >= 4 {
		note = []string{st.Warn.Render(text.Cut(s.note, width))}
		body--
	}

	ws := []string{s.workspaceLine(width)}
	intro := s.intro(width)
	var chg []string
	if s.changed != "" {
		chg = []string{st.Warn.Render(text.Cut(s.changed, width))}
	}
	heading, sentences := s.words()
	var expl [3][]string
	for i, sentence := range sentences {
		for _, l := range wrapWords(strings.Fields(sentence), width) {
			expl[i] = append(expl[i], st.Dim.Render(l))
		}
	}

	// What must show takes its room first: where, what file, at least a
	// few commands, and that they changed. The rest gets room in order of
	// use while it fits, and the list whatever is left.
	n := len(s.lines)
	listMin := min(max(n, 1), 3)
	need := func() int { return len(ws) + len(intro) + len(chg) + listMin }
	// On a very short screen even that is too much: the list shrinks to
	// one command (it still scrolls), then the sentence naming the file
	// to a line, then it goes, and then the workspace; a change is said
	// to the last.
	if need() > body {
		listMin = 1
	}
	if need() > body && len(intro) > 1 {
		intro = []string{text.Cut(strings.Join(intro, " "), width)}
	}
	if need() > body {
		intro = nil
	}
	if need() > body {
		ws = nil
	}
	used := need()
	var gapTop, gapIntro, gapExpl bool
	var keep [3]bool
	fits := func(k int) bool {
		if used+k > body {
			return false
		}
		used += k
		return true
	}
	keep[0] = fits(len(expl[0]))
	keep[1] = fits(len(expl[1]))
	gapTop = fits(1)
	gapExpl = (keep[0] || keep[1]) && fits(1)
	gapIntro = fits(1)
	keep[2] = keep[1] && fits(len(expl[2]))
	rows := min(listMin+max(0, body-used), max(n, 1))
	list := s.list(width, rows)

	lines := []string{st.Title.Render(text.Cut(heading, width))}
	if gapTop {
		lines = append(lines, "")
	}
	lines = append(lines, ws...)
	if gapIntro {
		lines = append(lines, "")
	}
	lines = append(lines, intro...)
	lines = append(lines, list...)
	lines = append(lines, chg...)
	if gapExpl {
		lines = append(lines, "")
	}
	for i, e := range expl {
		if keep[i] {
			lines = append(lines, e...)
		}
	}
	lines = lines[:min(len(lines), 1+body)]
	for len(lines) < 1+body {
		lines = append(lines, "")
	}
	lines = append(lines, note...)
	lines = append(lines, s.hints(width, n > rows))
	for i, l := range lines {
		lines[i] = text.Cut(l, width)
	}
	return text.JoinLines(lines, height)
}

// workspaceLine names the folder the hooks belong to, cutting a long path
// at its start so that the folder's own name stays.
func (s Screen) workspaceLine(width int) string {
	const label = "Workspace: "
	ws := s.workspace
	if ws == "" {
		ws = "(not named)"
	}
	if width < len(label)+8 {
		return s.styles.Bold.Render(cutFront(ws, width))
	}
	return s.styles.Dim.Render(label) + s.styles.Bold.Render(cutFront(ws, width-len(label)))
}

// intro says which file asks for the commands, wrapped at spaces; the file
// stays whole on its line, or loses its start on a very narrow screen.
func (s Screen) intro(width int) []string {
	var words []string
	for i, f := range s.files {
		if f == "" {
			f = "The workspace's configuration"
		}
		if i > 0 {
			words = append(words, "and")
		}
		words = append(words, cutFront(f, width))
	}
	if len(words) == 0 {
		words = []string{"The workspace's configuration"}
	}
	say := asks
	switch {
	case len(s.files) > 1:
		say = askBoth
	case s.servers:
		say = asksServers
	}
	return wrapWords(append(words, strings.Fields(say)...), width)
}

// list draws the commands in rows lines from where the person scrolled,
// with a line at each end saying how many more there are that way.
func (s Screen) list(width, rows int) []string {
	st := s.styles
	n := len(s.lines)
	if n == 0 {
		return []string{st.Dim.Render(text.Cut("  (no commands listed)", width))}
	}
	v := s.view
	v.rows = rows
	v.offset = min(v.offset, maxOffset(n, rows))
	o := v.offset
	more := rows >= 3 && n > rows
	items := rows
	above := more && o > 0
	if above {
		items--
	}
	below := more && o+items < n
	if below {
		items--
	}
	var out []string
	if above {
		out = append(out, st.Dim.Render(text.Cut(fmt.Sprintf("  … %d more (↑)", o), width)))
	}
	for i := o; i < min(n, o+items); i++ {
		out = append(out, st.Dim.Render("  • ")+text.Cut(s.lines[i], max(0, width-4)))
	}
	if below {
		out = append(out, st.Dim.Render(text.Cut(fmt.Sprintf("  … %d more (↓)", n-o-items), width)))
	}
	return out
}

// graceHint takes the keys' place while the grace period lasts.
const graceHint = "read the list first: t and n answer in a moment"

// hints draws the keys. The answers come first and keep their words while
// they fit; a narrow screen gets shorter words before anything is cut.
func (s Screen) hints(width int, scrollable bool) string {
	st := s.styles
	if !s.Armed() {
		// The keys do nothing yet; saying so shows the person when they
		// start to, since the console draws again when they do.
		return st.Dim.Render(text.Cut(graceHint, width))
	}
	t, d := s.Keys.Trust.Help(), s.Keys.Decline.Help()
	full := [][2]string{{t.Key, t.Desc}, {d.Key, d.Desc}}
	forms := [][][2]string{full, {{t.Key, "trust"}, {d.Key, "do not run"}}, {{t.Key, "trust"}, {d.Key, "no"}}}
	if scrollable {
		scroll := [2]string{s.Keys.Up.Help().Key + " " + s.Keys.Down.Help().Key, "scroll"}
		forms = append([][][2]string{append(full[:len(full):len(full)], scroll)}, forms...)
	}
	plain := func(f [][2]string) string {
		parts := make([]string, len(f))
		for i, p := range f {
			parts[i] = p[0] + " " + p[1]
		}
		return strings.Join(parts, " · ")
	}
	for _, f := range forms {
		if ansi.StringWidth(plain(f)) <= width {
			parts := make([]string, len(f))
			for i, p := range f {
				parts[i] = st.Key.Render(p[0]) + " " + st.Dim.Render(p[1])
			}
			return strings.Join(parts, st.Dim.Render(" · "))
		}
	}
	return st.Dim.Render(text.Cut(plain(forms[len(forms)-1]), width))
}

// wrapWords lays clean words out in lines of at most width columns, broken
// only between words; a word wider than a line is cut rather than broken
// across lines.
func wrapWords(words []string, width int) []string {
	var out []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = text.Cut(w, width)
		case ansi.StringWidth(line)+1+ansi.StringWidth(w) <= width:
			line += " " + w
		default:
			out = append(out, line)
			line = text.Cut(w, width)
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// cutFront shortens clean text to at most w columns by cutting its start,
// so a long path keeps its last, most telling part.
func cutFront(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw <= w {
		return s
	}
	return ansi.TruncateLeft(s, sw-w+1, "…")
}
