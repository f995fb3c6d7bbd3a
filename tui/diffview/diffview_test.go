package diffview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/internal/freshproc"
)

var (
	colour  = Style{Profile: termenv.TrueColor, Dark: true}
	noColor = Style{Profile: termenv.Ascii}
)

// pager is a small Go file; the fix changes one line in its middle.
const pager = `package pager

// Pages returns how many pages of size items hold total items.
func Pages(total, size int) int {
	if size <= 0 {
		return 0
	}
	return total / size
}

// Offset returns the index of the first item of page n.
func Offset(n, size int) int {
	return (n - 1) * size
}
`

var fixed = strings.Replace(pager, "return total / size", "return (total + size - 1) / size", 1)

// draw lays d out and returns every line, checking that none is wider
// than width.
func draw(t *testing.T, d *Diff, width int, layout Layout, st Style) string {
	t.Helper()
	v := d.Layout(width, layout, st)
	lines := v.Lines(0, v.Len())
	if len(lines) != v.Len() {
		t.Fatalf("%d lines drawn, Len says %d", len(lines), v.Len())
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Fatalf("line %d is %d columns wide, more than %d: %q", i, w, width, l)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestGoldens pins the drawing of the diff view in the cases a person
// meets: an edit in the middle of a file, a new file, an overwrite, CRLF
// line endings, a file without a final newline, a binary file, lines wider
// than the pane, no colour, and the side-by-side layout.
func TestGoldens(t *testing.T) {
	long := strings.Repeat("x", 30) + " " + strings.Repeat("y", 80) + " the end"
	cases := []struct {
		name          string
		path          string
		old, new      string
		width         int
		layout        Layout
		style         Style
		added, remove int
	}{
		{"edit_middle", "pager.go", pager, fixed, 80, Unified, colour, 1, 1},
		{"edit_middle_no_color", "pager.go", pager, fixed, 80, Unified, noColor, 1, 1},
		{"new_file", "notes.md", "", "# Notes\n\n- one\n- two\n", 80, Unified, noColor, 4, 0},
		{"overwrite", "config.json", "{\n  \"a\": 1,\n  \"b\": 2\n}\n", "{\n  \"a\": 10\n}\n", 80, Unified, noColor, 1, 2},
		{"crlf", "win.txt", "one\r\ntwo\r\nthree\r\n", "one\r\n2\r\nthree\r\n", 80, Unified, noColor, 1, 1},
		{"crlf_to_lf", "win.txt", "one\r\ntwo\r\n", "one\ntwo\n", 80, Unified, noColor, 2, 2},
		{"no_final_newline", "a.txt", "first\nlast", "first\nlast line", 80, Unified, noColor, 1, 1},
		{"binary", "logo.png", "\x89PNG\x00\x01", "\x89PNG\x00\x02\x03", 80, Unified, noColor, 0, 0},
		{"wider_than_pane", "long.txt", "short\n" + long + "\n", "short\n" + strings.Replace(long, "the end", "THE END", 1) + "\n", 60, Unified, noColor, 1, 1},
		{"split_160", "pager.go", pager, fixed, 160, Split, colour, 1, 1},
		{"split_160_no_color", "pager.go", pager, strings.Replace(fixed, "// Offset returns", "// Offset returns, from 1,", 1) + "\nfunc Last() {}\n", 160, Split, noColor, 4, 2},
		{"escapes_inert", "evil.txt", "ok\n", "ok\n\x1b]8;;http://evil\x07click\x1b]8;;\x07 \x1b[2J\u202eevil\n", 80, Unified, colour, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := New(tc.path, tc.old, tc.new)
			if a, r := d.Stat(); a != tc.added || r != tc.remove {
				t.Errorf("stat +%d −%d, want +%d −%d", a, r, tc.added, tc.remove)
			}
			out := draw(t, d, tc.width, tc.layout, tc.style)
			if tc.style.Profile == termenv.Ascii && strings.Contains(out, "\x1b") {
				t.Fatalf("escape sequences without colour:\n%q", out)
			}
			if tc.name == "escapes_inert" {
				// The only escapes left are the view's own colours.
				plain := ansi.Strip(out)
				if strings.ContainsAny(plain, "\x1b\x07\u202e") || !strings.Contains(plain, "␛") {
					t.Fatalf("untrusted escapes reached the drawing: %q", plain)
				}
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestLinesAreMarkedWithoutColour checks what the goldens show, in words:
// without colour, removed and added lines still read as such.
func TestLinesAreMarkedWithoutColour(t *testing.T) {
	out := draw(t, New("pager.go", pager, fixed), 80, Unified, noColor)
	for _, want := range []string{
		" 8    -     return total / size", "    8 +     return (total + size - 1) / size", "@@ -5,7 +5,7 @@",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// TestLinesOnDemand checks that a View draws the same lines whatever
// window is asked for, and draws only what is asked.
func TestLinesOnDemand(t *testing.T) {
	old, new := bigFile(2000, 40)
	d := New("big.go", old, new)
	v := d.Layout(100, Unified, colour)
	all := v.Lines(0, v.Len())
	fresh := d.Layout(100, Unified, colour)
	for from := 0; from < v.Len(); from += 37 {
		got := fresh.Lines(from, from+10)
		want := all[from:min(from+10, len(all))]
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("lines %d–%d differ when drawn on their own", from, from+10)
		}
	}
	lazy := d.Layout(100, Unified, colour)
	lazy.Lines(100, 120)
	if len(lazy.drawn) > 25 {
		t.Errorf("%d items drawn for 20 lines", len(lazy.drawn))
	}
}

// bigFile returns a Go-like file of n lines and a version with changes
// lines changed, spread evenly.
func bigFile(n, changes int) (string, string) {
	var old, new strings.Builder
	for i := range n {
		line := fmt.Sprintf("\tvalue%d := compute(%d, \"text\") // a comment\n", i, i)
		old.WriteString(line)
		if i%(n/changes) == n/changes/2 {
			line = fmt.Sprintf("\tvalue%d := computeBetter(%d, true)\n", i, i)
		}
		new.WriteString(line)
	}
	return old.String(), new.String()
}

// BenchmarkDiff computes the diff of a 10,000-line file with 20 scattered
// changes.
func BenchmarkDiff(b *testing.B) {
	old, new := bigFile(10000, 20)
	for b.Loop() {
		if a, _ := New("big.go", old, new).Stat(); a != 20 {
			b.Fatal(a)
		}
	}
}

// BenchmarkDrawFrame draws one 40-line window of a laid-out diff, as the
// full-screen view does each frame once its lines are drawn, for files of
// growing size: the cost must not grow with the file.
func BenchmarkDrawFrame(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		old, new := bigFile(n, 20)
		v := New("big.go", old, new).Layout(120, Unified, colour)
		mid := v.Len() / 2
		v.Lines(mid, mid+40)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			for b.Loop() {
				if len(v.Lines(mid, mid+40)) != 40 {
					b.Fatal("short frame")
				}
			}
		})
	}
}

// BenchmarkFirstDraw lays out and draws the first screen of a 10,000-line
// file's diff, highlighting included: what the first frame of a new diff
// costs.
func BenchmarkFirstDraw(b *testing.B) {
	old, new := bigFile(10000, 20)
	d := New("big.go", old, new)
	for b.Loop() {
		v := d.Layout(120, Unified, colour)
		v.Lines(0, 40)
	}
}

// BenchmarkFirstDiffInProcess computes the diff of a 10,000-line Go file
// with 20 changes and lays out and highlights its first screen, once in a
// fresh process for each measurement: the first diff a console shows,
// paying for what is set up on first use (the lexer registry, Go's lexer).
func BenchmarkFirstDiffInProcess(b *testing.B) {
	freshproc.Measure(b, "TestFirstDiffInProcess")
}

func TestFirstDiffInProcess(t *testing.T) {
	old, new := bigFile(10000, 20)
	freshproc.Child(t, "TestFirstDiffInProcess", func() {
		New("big.go", old, new).Layout(120, Unified, colour).Lines(0, 40)
	})
}
