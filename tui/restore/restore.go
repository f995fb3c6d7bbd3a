// Package restore is the restore screen: what an undo, a redo or a rewind
// would do to the workspace and the conversation, shown before anything is
// done and confirmed by the person. It lists every file the restore
// touches, shows the selected one's diff from how it is now to how the
// restore leaves it, and says what goes back in the conversation and what
// cannot be brought back.
//
// Nothing is destroyed by default: a file someone changed after the changes
// being undone is kept as it is, unless the person chooses to overwrite it,
// file by file. Confirming is guarded as the grant chooser guards a grant:
// several runes in one message (typing, a paste) never confirm, and nothing
// is confirmed for a short grace period after the screen opens. The screen
// restores nothing itself: Update returns the preview's digest, which binds
// the confirmation to exactly what was shown, and the console restores.
package restore

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// DefaultGrace is how long confirming (and choosing to overwrite) is
// ignored after the screen opens: long enough that the Enter which sent
// /undo, or a key already on its way, cannot confirm what the person has
// not seen.
const DefaultGrace = 500 * time.Millisecond

// maxNotCovered is how many things that cannot be brought back the screen
// lists one per line before it only counts the rest.
const maxNotCovered = 4

// File is one file or folder the restore touches.
type File struct {
	// Path is the file's path in the workspace (untrusted).
	Path string
	// How is what the restore does to it: "restored", "removed", "brought
	// back", "mode", "folder removed", "folder made" or "unchanged".
	How string
	// Before is the file as it is now (untrusted).
	Before string
	// After is the file as the restore writes it (untrusted); "" for a
	// removal.
	After string
	// Binary says the file is not text, so there is no line diff to show.
	Binary bool
	// Conflict says someone changed the file after the changes being
	// undone: it is kept as it is unless the person chooses to overwrite
	// it.
	Conflict bool
}

// Preview is what a restore would do, as the console shows it before
// asking the person to confirm.
type Preview struct {
	// Title names the restore, e.g. "undo turn 4".
	Title string
	// Files are the files and folders the restore touches.
	Files []File
	// Conversation says how the conversation changes, e.g. "the
	// conversation goes back to before turn 3"; "" when it does not.
	Conversation string
	// NotCovered lists what the restore cannot bring back, such as a
	// command's effects outside the workspace (untrusted parts inside).
	NotCovered []string
	// Digest identifies exactly what the preview shows; a confirmation
	// carries it, so the restore can refuse if anything changed since.
	Digest string
}

// Action is what a key on the screen asks of the console: restore what the
// preview showed, or close without restoring. The zero Action asks for
// nothing.
type Action struct {
	// Confirm asks to restore what the preview bound to Digest shows.
	Confirm bool
	// Digest is the preview's digest, on Confirm.
	Digest string
	// Overwrite are the paths, as the preview gave them, of the
	// conflicting files the person chose to overwrite; every other
	// conflicting file is kept.
	Overwrite []string
	// Cancel says the person closed the screen without restoring.
	Cancel bool
}

// Screen is the restore screen. It takes the whole body of the console
// while it is open. Its zero value is not usable: make one with New.
type Screen struct {
	// Keys are the screen's keys.
	Keys KeyMap
	// Grace is how long Confirm and Overwrite are ignored after Show; New
	// sets DefaultGrace, and zero or less means no grace at all.
	Grace time.Duration

	styles    *text.Styles
	open      bool
	preview   Preview
	files     []shown
	overwrite []bool // per file: the person chose to overwrite it
	sel       int
	opened    time.Time
	note      string // what the last key said, until the selection moves
	// view sits behind a pointer because the console draws from a copy of
	// its model: the scroll and the laid-out diff must outlive View.
	view *viewState
}

// shown is a file of the preview made ready to draw.
type shown struct {
	path, how      string // clean
	diff           *diffview.Diff
	added, removed int
	binary         bool
	stat           string // "+3 −1", "binary", or ""
}

// viewState is what the screen keeps between draws.
type viewState struct {
	offset  int // the first line of the diff shown
	page    int // the diff's height when last drawn, which a page scrolls
	listTop int // the first file of the list shown
	// The laid-out diff of one file at one width.
	file, width int
	layout      diffview.Layout
	lines       *diffview.View
}

// New returns a closed screen with keys, drawing with styles.
func New(keys KeyMap, styles *text.Styles) Screen {
	return Screen{Keys: keys, Grace: DefaultGrace, styles: styles, view: &viewState{file: -1}}
}

// Show opens the screen on p at time now, from which the grace period
// runs. Every conflicting file starts kept.
func (s *Screen) Show(p Preview, now time.Time) {
	p.Files, p.NotCovered = slices.Clone(p.Files), slices.Clone(p.NotCovered)
	s.open, s.preview, s.opened, s.note, s.sel = true, p, now, "", 0
	s.files = make([]shown, len(p.Files))
	s.overwrite = make([]bool, len(p.Files))
	for i, f := range p.Files {
		sh := shown{path: text.CleanLine(f.Path), how: text.CleanLine(f.How), binary: f.Binary}
		if !f.Binary && textual(f.How) {
			sh.diff = diffview.New(f.Path, f.Before, f.After)
			sh.binary = sh.diff.Binary()
			if !sh.binary {
				sh.added, sh.removed = sh.diff.Stat()
			}
		}
		switch {
		case sh.binary:
			sh.stat = "binary"
		case sh.added > 0 || sh.removed > 0:
			sh.stat = fmt.Sprintf("+%d −%d", sh.added, sh.removed)
		}
		s.files[i] = sh
	}
	s.view = &viewState{file: -1}
}

// textual reports whether a file the restore treats so has contents to
// compare: a folder has none.
func textual(how string) bool { return how != "folder removed" && how != "folder made" }

// Hide closes the screen without restoring.
func (s *Screen) Hide() {
	s.open, s.preview, s.files, s.overwrite, s.note = false, Preview{}, nil, nil, ""
	s.view = &viewState{file: -1}
}

// Shown reports whether the screen is open.
func (s *Screen) Shown() bool { return s.open }

// Armed reports whether, at now, the grace period after Show is over, so
// that the confirming keys work; the console's hints say so.
func (s *Screen) Armed(now time.Time) bool { return s.Grace <= 0 || !now.Before(s.opened.Add(s.Grace)) }

// Update handles a key while the screen is open, at time now. It reports
// whether the key was the screen's: every key it binds and all typed text
// are, so typing never reaches what lies beneath; a key it does not use
// (ctrl+c, say) is left to the console. Confirm and Cancel close the
// screen.
func (s *Screen) Update(msg tea.KeyMsg, now time.Time) (Action, bool) {
	if !s.open {
		return Action{}, false
	}
	if msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) {
		// Several runes in one message are typing or a paste, never a
		// confirmation.
		s.note = "typed text is ignored while a restore waits: press " + first(s.Keys.Confirm) + " to confirm or " + first(s.Keys.Cancel) + " to cancel"
		return Action{}, true
	}
	armed := s.Armed(now)
	switch {
	case key.Matches(msg, s.Keys.Cancel):
		s.Hide()
		return Action{Cancel: true}, true
	case key.Matches(msg, s.Keys.Up):
		s.move(-1)
	case key.Matches(msg, s.Keys.Down):
		s.move(1)
	case key.Matches(msg, s.Keys.Scroll):
		page := max(1, s.view.page)
		if ks := s.Keys.Scroll.Keys(); len(ks) > 0 && msg.String() == ks[0] {
			page = -page
		}
		s.view.offset = max(0, s.view.offset+page)
	case key.Matches(msg, s.Keys.Overwrite):
		switch {
		case s.sel >= len(s.files) || !s.preview.Files[s.sel].Conflict:
			s.note = first(s.Keys.Overwrite) + " only overwrites a file changed since the changes being undone; this one is restored as listed"
		case !armed:
			s.note = "ignored: the restore has just been shown; look, then press " + first(s.Keys.Overwrite) + " again"
		default:
			s.overwrite[s.sel] = !s.overwrite[s.sel]
			if s.overwrite[s.sel] {
				s.note = s.files[s.sel].path + " will be overwritten: the changes made to it since are lost"
			} else {
				s.note = s.files[s.sel].path + " is kept as it is now"
			}
		}
	case key.Matches(msg, s.Keys.Confirm):
		if !armed {
			s.note = "ignored: the restore has just been shown; look, then confirm again"
			return Action{}, true
		}
		act := Action{Confirm: true, Digest: s.preview.Digest}
		for i, f := range s.preview.Files {
			if f.Conflict && s.overwrite[i] {
				act.Overwrite = append(act.Overwrite, f.Path)
			}
		}
		s.Hide()
		return act, true
	case msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace:
		s.note = first(s.Keys.Confirm) + " confirms the restore, " + first(s.Keys.Cancel) + " cancels it"
	default:
		return Action{}, false
	}
	return Action{}, true
}

// first returns the first key of b, as the screen names it in its hints.
func first(b key.Binding) string {
	if ks := b.Keys(); len(ks) > 0 {
		return ks[0]
	}
	return b.Help().Key
}

// move selects the file d places down the list, and shows its diff from
// the top.
func (s *Screen) move(d int) {
	if len(s.files) == 0 {
		return
	}
	s.sel = min(max(s.sel+d, 0), len(s.files)-1)
	s.view.offset = 0
	s.note = ""
}

// View draws the screen in exactly height lines of at most width columns:
// the title, the files, the selected file's diff, what happens to the
// conversation, what cannot be brought back, and a line of keys.
func (s *Screen) View(width, height int) string {
	if width <= 0 || height <= 0 {
		return text.JoinLines(nil, max(height, 0))
	}
	st := s.styles
	lines := []string{st.Title.Render(text.Cut(s.title(), width))}
	if height == 1 {
		return lines[0]
	}
	body := height - 2 // between the title and the line of keys
	var foot []string
	if c := s.preview.Conversation; c != "" {
		foot = append(foot, st.Accent.Render(text.Cut("↶ "+text.CleanLine(c), width)))
	}
	if nc := s.preview.NotCovered; len(nc) > 0 {
		items := make([]string, 0, maxNotCovered)
		for i, item := range nc {
			if i == maxNotCovered-1 && len(nc) > maxNotCovered {
				items = append(items, st.Dim.Render(text.Cut(fmt.Sprintf("  … and %d more", len(nc)-i), width)))
				break
			}
			items = append(items, text.Cut("  • "+text.CleanLine(item), width))
		}
		// On a short screen the selected file, and three lines of its
		// diff, come before the list of what is not brought back; that
		// there is such a thing is always said.
		if len(s.files) > 0 && len(foot)+1+len(items) > body-1-4 {
			foot = append(foot, st.Warn.Render(text.Cut("Not brought back: "+text.Plural(len(nc), "thing")+", listed on a taller screen", width)))
		} else {
			foot = append(foot, st.Warn.Render(text.Cut(fmt.Sprintf("Not brought back (%d):", len(nc)), width)))
			foot = append(foot, items...)
		}
	}
	if len(s.files) == 0 {
		mid := []string{"", st.Dim.Render(text.Cut("No file changes: the workspace stays as it is.", width))}
		lines = append(lines, fit(append(mid, foot...), body)...)
	} else {
		// The list and the diff share what the conversation line and
		// the things not brought back leave; those go first when the
		// screen is short, the selected file never does.
		foot = foot[:min(len(foot), max(0, body-1))]
		rest := body - len(foot)
		list := min(len(s.files), max(1, rest/3))
		if rest-list < 3 {
			list = min(len(s.files), rest)
		}
		lines = append(lines, s.list(width, list)...)
		if d := rest - list; d > 0 {
			lines = append(lines, s.diff(width, d)...)
		}
		// What happens beside the files stays in one place, just above
		// the keys, however long the diff.
		for len(lines) < 1+rest {
			lines = append(lines, "")
		}
		lines = append(lines, foot...)
	}
	for len(lines) < height-1 {
		lines = append(lines, "")
	}
	lines = append(lines[:min(len(lines), height-1)], s.hint(width))
	for i, l := range lines {
		lines[i] = text.Cut(l, width)
	}
	return text.JoinLines(lines, height)
}

// fit cuts lines to at most n.
func fit(lines []string, n int) []string { return lines[:min(len(lines), max(n, 0))] }

// title says what the restore is, how much it touches, and how to answer.
func (s *Screen) title() string {
	t := text.CleanLine(s.preview.Title)
	if t == "" {
		t = "restore"
	}
	if r, n := utf8.DecodeRuneInString(t); r != utf8.RuneError {
		t = string(unicode.ToUpper(r)) + t[n:]
	}
	switch {
	case len(s.files) > 0:
		t += ": " + text.Plural(len(s.files), "file")
		kept, over := 0, 0
		for i, f := range s.preview.Files {
			switch {
			case f.Conflict && s.overwrite[i]:
				over++
			case f.Conflict:
				kept++
			}
		}
		if kept > 0 {
			t += fmt.Sprintf(", %d changed since and kept", kept)
		}
		if over > 0 {
			t += fmt.Sprintf(", %d to overwrite", over)
		}
	case s.preview.Conversation != "":
		t += ": the conversation only"
	default:
		t += ": nothing to change"
	}
	return t + " — " + first(s.Keys.Confirm) + " confirm · " + first(s.Keys.Cancel) + " cancel"
}

// list draws the files in h lines, scrolled so the selected one is in view.
func (s *Screen) list(width, h int) []string {
	st := s.styles
	v := s.view
	if s.sel < v.listTop {
		v.listTop = s.sel
	}
	if s.sel >= v.listTop+h {
		v.listTop = s.sel - h + 1
	}
	v.listTop = min(v.listTop, max(0, len(s.files)-h))
	howW, statW, pathW := 0, 0, 0
	for _, f := range s.files {
		howW = max(howW, ansi.StringWidth(f.how))
		statW = max(statW, ansi.StringWidth(f.stat))
		pathW = max(pathW, ansi.StringWidth(f.path))
	}
	// With a conflict in the list, a column of "!" marks each one where
	// even a narrow screen shows it.
	conflictW, flagW := 0, 0
	for _, f := range s.preview.Files {
		if f.Conflict {
			conflictW, flagW = len("  ")+ansi.StringWidth(conflictNote(true)), 2
		}
	}
	pathW = min(pathW, max(12, width-2-flagW-2-howW-2-statW-conflictW))
	var out []string
	for i := v.listTop; i < len(s.files) && len(out) < h; i++ {
		f := s.files[i]
		mark := "  "
		if i == s.sel {
			mark = text.SymFocus + " "
		}
		switch {
		case s.preview.Files[i].Conflict:
			mark += "! "
		case flagW > 0:
			mark += "  "
		}
		line := mark + text.Pad(cutFront(f.path, pathW), pathW) + "  " + text.Pad(f.how, howW)
		if statW > 0 {
			line += "  " + text.Pad(s.stat(f), statW)
		}
		if s.preview.Files[i].Conflict {
			note := conflictNote(s.overwrite[i])
			if s.overwrite[i] {
				note = st.Err.Render(note)
			} else {
				note = st.Warn.Render(note)
			}
			line += "  " + note
		}
		line = strings.TrimRight(line, " ")
		if i == s.sel {
			line = st.Focused.Render(text.Pad(line, width))
		}
		out = append(out, text.Cut(line, width))
	}
	return out
}

// conflictNote says what happens to a file changed since the changes being
// undone.
func conflictNote(overwrite bool) string {
	if overwrite {
		return "changed since — will be overwritten"
	}
	return "changed since — kept"
}

// stat draws a file's added and removed lines, coloured when the terminal
// has colour; the signs say it without.
func (s *Screen) stat(f shown) string {
	if f.binary || f.stat == "" {
		return s.styles.Dim.Render(f.stat)
	}
	return s.styles.OK.Render(fmt.Sprintf("+%d", f.added)) + " " + s.styles.Err.Render(fmt.Sprintf("−%d", f.removed))
}

// diff draws the selected file's diff in h lines: a header, then the diff
// from the file as it is now (−) to the file as the restore leaves it (+),
// scrolled to where the person left it.
func (s *Screen) diff(width, h int) []string {
	st := s.styles
	f, pf := s.files[s.sel], s.preview.Files[s.sel]
	head := "── " + f.path + " · " + f.how
	var sub []string
	if pf.Conflict && !s.overwrite[s.sel] {
		sub = append(sub, st.Warn.Render(text.Cut("   changed since: kept as it is now · "+first(s.Keys.Overwrite)+" overwrites it with the + side below", width)))
	}
	var body []string
	switch {
	case f.binary:
		body = []string{st.Dim.Render(fmt.Sprintf("   binary file: no line diff (%s now → %s after)", size(len(pf.Before)), size(len(pf.After))))}
	case f.how == "folder removed":
		body = []string{st.Dim.Render("   a folder: the restore removes it")}
	case f.how == "folder made":
		body = []string{st.Dim.Render("   a folder: the restore makes it again")}
	case f.diff == nil || f.diff.Empty():
		note := "   the contents stay as they are"
		switch f.how {
		case "mode":
			note = "   only the file's mode changes; the contents stay as they are"
		case "removed":
			note = "   an empty file: the restore removes it"
		case "brought back":
			note = "   an empty file: the restore makes it again"
		}
		body = []string{st.Dim.Render(note)}
	}
	v := s.view
	if body == nil {
		layout := diffview.For(width)
		if v.lines == nil || v.file != s.sel || v.width != width || v.layout != layout {
			v.file, v.width, v.layout = s.sel, width, layout
			v.lines = f.diff.Layout(width, layout, text.DiffStyle())
		}
		n := max(1, h-1-len(sub))
		v.page = n
		v.offset = min(v.offset, max(0, v.lines.Len()-n))
		end := min(v.lines.Len(), v.offset+n)
		head += fmt.Sprintf(" · − now, + after · lines %d–%d of %d", v.offset+1, end, v.lines.Len())
		body = v.lines.Lines(v.offset, end)
	}
	out := append([]string{st.Title.Render(text.Cut(head, width))}, sub...)
	out = append(out, body...)
	return fit(out, h)
}

// hint draws what the last key said, or the keys that work now.
func (s *Screen) hint(width int) string {
	st := s.styles
	if s.note != "" {
		return st.Warn.Render(text.Cut(s.note, width))
	}
	// The answers come first: a narrow screen cuts the end of the line.
	parts := []string{first(s.Keys.Confirm) + " confirm", first(s.Keys.Cancel) + " cancel"}
	for _, f := range s.preview.Files {
		if f.Conflict {
			parts = append(parts, first(s.Keys.Overwrite)+" keep or overwrite")
			break
		}
	}
	if len(s.files) > 1 {
		parts = append(parts, s.Keys.Up.Help().Key+" "+s.Keys.Down.Help().Key+" file")
	}
	if len(s.files) > 0 {
		parts = append(parts, s.Keys.Scroll.Help().Key+" scroll")
	}
	return st.Dim.Render(text.Cut(strings.Join(parts, " · "), width))
}

// cutFront shortens clean text to at most w columns by cutting its start,
// so a long path keeps its file name.
func cutFront(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw <= w {
		return s
	}
	return ansi.TruncateLeft(s, sw-w+1, "…")
}

// size words a file's size for a binary file's note.
func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
