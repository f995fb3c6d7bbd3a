package diffview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// FuzzDiff draws the diff of fuzzed file contents in both layouts, with and
// without colour: it never panics, every line fits the width, the view has
// as many lines as it says, and the untrusted text draws nothing of its own
// (no escape sequence but the view's colours).
func FuzzDiff(f *testing.F) {
	olds, _ := filepath.Glob("testdata/pairs/*.old")
	if len(olds) == 0 {
		f.Fatal("no seed pairs")
	}
	for _, p := range olds {
		old, err1 := os.ReadFile(p)
		new, err2 := os.ReadFile(strings.TrimSuffix(p, ".old") + ".new")
		if err1 != nil || err2 != nil {
			f.Fatal(err1, err2)
		}
		f.Add(string(old), string(new), uint8(80))
	}
	f.Fuzz(func(t *testing.T, old, new string, w uint8) {
		width := 20 + int(w)
		d := New("f.go", old, new)
		for _, layout := range []Layout{Unified, Split} {
			for _, st := range []Style{{Profile: termenv.Ascii}, {Profile: termenv.TrueColor, Dark: true}} {
				v := d.Layout(width, layout, st)
				lines := v.Lines(0, v.Len())
				if len(lines) != v.Len() {
					t.Fatalf("%d lines drawn, Len says %d", len(lines), v.Len())
				}
				for _, l := range lines {
					if ansi.StringWidth(l) > width {
						t.Fatalf("a line of %d columns at width %d: %q", ansi.StringWidth(l), width, l)
					}
					plain := ansi.Strip(l)
					if strings.ContainsAny(plain, "\x1b\x07\r\u009b") {
						t.Fatalf("a control character reached the drawing: %q", plain)
					}
					if st.Profile == termenv.Ascii && strings.Contains(l, "\x1b") {
						t.Fatalf("an escape sequence without colour: %q", l)
					}
				}
			}
		}
	})
}
