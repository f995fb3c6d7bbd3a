// Package diffview draws the change between two versions of a text file for
// a terminal: a unified diff with line numbers and three lines of context,
// or the two versions side by side, with removed and added lines coloured,
// marked with - and + (so the diff reads without colour too), and
// highlighted by file type.
//
// A Diff is computed once from the two texts. Laying it out at a width, in
// a layout and a style gives a View whose lines are drawn on demand and
// kept, so drawing the part of a long diff that is on screen costs the same
// whatever the size of the file.
//
// Both texts are untrusted: escape sequences and control characters are
// made visible before anything is drawn.
package diffview

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/internal/sanitize"
)

// Context is how many unchanged lines are shown around each change.
const Context = 3

// SplitWidth is the narrowest width at which the side-by-side layout is
// chosen by default: below it each side would be too narrow to read.
const SplitWidth = 140

// tabWidth is how many columns a tab advances to.
const tabWidth = 4

// Layout is how the two versions are arranged.
type Layout int

// The layouts.
const (
	// Unified shows removed and added lines one after the other, with the
	// old and new line numbers.
	Unified Layout = iota
	// Split shows the old version on the left and the new on the right.
	Split
)

// String returns "unified" or "split".
func (l Layout) String() string {
	if l == Split {
		return "split"
	}
	return "unified"
}

// For returns the layout a pane of width columns shows by default.
func For(width int) Layout {
	if width >= SplitWidth {
		return Split
	}
	return Unified
}

// op is what a line of a hunk does.
type op uint8

const (
	opEqual op = iota
	opDelete
	opInsert
)

// line is one line of a hunk, ready to draw: its text is clean and has no
// line ending.
type line struct {
	op     op
	oldNum int // 0 on an added line
	newNum int // 0 on a removed line
	text   string
	// cr says the line ended with a carriage return that the header does
	// not account for (the file mixes line endings, or they change).
	cr bool
	// noEOL says the line is the last of its version and has no newline.
	noEOL bool
}

// hunk is a run of changes with its context.
type hunk struct {
	oldStart, oldCount int
	newStart, newCount int
	lines              []line
}

// Diff is the change from one version of a file to another.
type Diff struct {
	path  string
	hunks []hunk
	// Added and Removed count the added and removed lines.
	added, removed int
	// binary says one version is not text: there is no line diff.
	binary         bool
	oldLen, newLen int
	// crlf says both versions end every line with CRLF, which the lines
	// then do not show.
	crlf bool
	// maxNum is the largest line number shown, for the gutter's width.
	maxNum int
}

// New computes the diff from old to new of the file at path (which picks
// the syntax highlighting).
func New(path, old, new string) *Diff {
	d := &Diff{path: path, oldLen: len(old), newLen: len(new)}
	if strings.IndexByte(old, 0) >= 0 || strings.IndexByte(new, 0) >= 0 {
		d.binary = true
		return d
	}
	if old == new {
		return d
	}
	d.crlf = allCRLF(old) && allCRLF(new)
	a, b := splitLines(old), splitLines(new)
	diffs := lcs.DiffLines(a, b)
	for i := 0; i < len(diffs); {
		// A hunk takes every change that lies within twice the context
		// of the one before it, as diff -u does.
		j := i + 1
		for j < len(diffs) && diffs[j].Start-diffs[j-1].End <= 2*Context {
			j++
		}
		d.addHunk(a, b, diffs[i:j])
		i = j
	}
	return d
}

// addHunk adds the hunk of the changes ds, with their context, to the
// diff of a and b (lines with their endings).
func (d *Diff) addHunk(a, b []string, ds []lcs.Diff) {
	first, last := ds[0], ds[len(ds)-1]
	from := max(0, first.Start-Context)
	to := min(len(a), last.End+Context)
	h := hunk{oldStart: from + 1, newStart: first.ReplStart - (first.Start - from) + 1}
	add := func(op op, oldNum, newNum int, raw string) {
		ln := line{op: op, oldNum: oldNum, newNum: newNum}
		ln.noEOL = !strings.HasSuffix(raw, "\n")
		raw = strings.TrimSuffix(raw, "\n")
		if strings.HasSuffix(raw, "\r") {
			raw = strings.TrimSuffix(raw, "\r")
			ln.cr = !d.crlf
		}
		ln.text = clean(raw)
		h.lines = append(h.lines, ln)
		switch op {
		case opDelete:
			h.oldCount++
			d.removed++
		case opInsert:
			h.newCount++
			d.added++
		default:
			h.oldCount++
			h.newCount++
		}
		d.maxNum = max(d.maxNum, oldNum, newNum)
	}
	pos := from
	for _, c := range ds {
		// Before a change the two versions are aligned by it.
		for i := pos; i < c.Start; i++ {
			add(opEqual, i+1, c.ReplStart-(c.Start-i)+1, a[i])
		}
		for i := c.Start; i < c.End; i++ {
			add(opDelete, i+1, 0, a[i])
		}
		for i := c.ReplStart; i < c.ReplEnd; i++ {
			add(opInsert, 0, i+1, b[i])
		}
		pos = c.End
	}
	for i := pos; i < to; i++ {
		add(opEqual, i+1, last.ReplEnd+(i-last.End)+1, a[i])
	}
	d.hunks = append(d.hunks, h)
}

// splitLines splits s into its lines, each with its newline; a last line
// without one is kept as it is.
func splitLines(s string) []string {
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// Stat returns how many lines the change adds and removes.
func (d *Diff) Stat() (added, removed int) { return d.added, d.removed }

// Empty reports whether the two versions are the same.
func (d *Diff) Empty() bool { return !d.binary && len(d.hunks) == 0 }

// Binary reports whether a version is not text, so there is no line diff.
func (d *Diff) Binary() bool { return d.binary }

// allCRLF reports whether s has lines and ends each of them with CRLF (a
// last line without a newline aside).
func allCRLF(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

// clean makes one line of untrusted text safe to draw, with its tabs
// expanded to the next tab stop (sanitize.Line would make each a single
// space, which misaligns indented code).
func clean(raw string) string {
	if !strings.Contains(raw, "\t") {
		return sanitize.Line(raw)
	}
	var b strings.Builder
	col := 0
	for i, part := range strings.Split(raw, "\t") {
		if i > 0 {
			pad := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", pad))
			col += pad
		}
		c := sanitize.Line(part)
		b.WriteString(c)
		col += ansi.StringWidth(c)
	}
	return b.String()
}

// Head returns the diff cut to its first n lines of changes and context,
// and how many lines were left out; the transcript keeps such a head of
// each change so that a long session's memory does not hold whole files.
func (d *Diff) Head(n int) (*Diff, int) {
	h := *d
	h.hunks = nil
	left := 0
	for _, hk := range d.hunks {
		switch {
		case n <= 0:
			left += len(hk.lines)
		case len(hk.lines) <= n:
			h.hunks = append(h.hunks, hk)
			n -= len(hk.lines)
		default:
			cut := hk
			cut.lines = append([]line(nil), hk.lines[:n]...)
			h.hunks = append(h.hunks, cut)
			left += len(hk.lines) - n
			n = 0
		}
	}
	return &h, left
}
