package screen

import (
	"bytes"
	"strings"
	"testing"
)

// TestScreenWritesOnlyChangedRows checks the console's own renderer: the
// first frame is drawn whole, a later one only where it differs, and the
// same frame again writes nothing at all.
func TestScreenWritesOnlyChangedRows(t *testing.T) {
	var out bytes.Buffer
	s := New(&out)
	s.Resize(10, 3)
	s.Draw("one\ntwo\nthree")
	first := out.String()
	for _, want := range []string{"\x1b[2J", "\x1b[1;1H\x1b[mone", "\x1b[2;1H\x1b[mtwo", "\x1b[3;1H\x1b[mthree"} {
		if !strings.Contains(first, want) {
			t.Fatalf("first frame lacks %q: %q", want, first)
		}
	}
	out.Reset()
	s.Draw("one\nTWO\nthree")
	if got := out.String(); strings.Contains(got, "one") || strings.Contains(got, "three") || !strings.Contains(got, "\x1b[2;1H\x1b[mTWO\x1b[m\x1b[K") {
		t.Fatalf("second frame rewrote more than the changed row: %q", got)
	}
	out.Reset()
	s.Draw("one\nTWO\nthree")
	if out.Len() != 0 {
		t.Fatalf("an unchanged frame wrote %q", out.String())
	}
	// A row as wide as the screen is not followed by an erase, which would
	// remove its last character; a row wider is cut.
	s.Draw("0123456789\nTWO\n0123456789ABC")
	got := out.String()
	if strings.Contains(got, "0123456789\x1b[m\x1b[K") || strings.Contains(got, "ABC") {
		t.Fatalf("full-width rows mishandled: %q", got)
	}
	// A new size repaints everything.
	out.Reset()
	s.Resize(20, 2)
	s.Draw("one\nTWO\nextra")
	if got := out.String(); !strings.Contains(got, "\x1b[2J") || !strings.Contains(got, "one") || strings.Contains(got, "extra") {
		t.Fatalf("repaint after resize: %q", got)
	}
}
