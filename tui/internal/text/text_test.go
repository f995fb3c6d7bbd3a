package text

import (
	"encoding/json"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestCutNeverPassesTheWidth cuts text of wide runes and styled text to a
// width, with one ellipsis where something was cut.
func TestCutNeverPassesTheWidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello world", 6, "hello…"},
		{"世界世界", 5, "世界…"},
		{"already cut…x", 12, "already cut…"},
		{"x", 0, ""},
	} {
		got := Cut(tc.in, tc.w)
		if got != tc.want || ansi.StringWidth(got) > max(tc.w, 0) {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}

// TestShortArgsKeepsTheModelsOrder renders arguments on one line in the order
// the model sent them, quoting only strings with spaces, and cleans them.
func TestShortArgsKeepsTheModelsOrder(t *testing.T) {
	for raw, want := range map[string]string{
		`{"path":"b.go","content":"two words","n":3}`: `path=b.go  content="two words"  n=3`,
		`{}`:                 "(no arguments)",
		`"not an object"`:    `"not an object"`,
		`{"a":"x\u001b[2J"}`: "a=x␛",
	} {
		if got := ShortArgs(json.RawMessage(raw)); got != want {
			t.Errorf("ShortArgs(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestCleanExpandsTabsToTheirStops replaces tabs by the spaces up to the next
// stop of four columns, so the terminal never sees one.
func TestCleanExpandsTabsToTheirStops(t *testing.T) {
	if got := Clean("a\tbc\td\n\te"); got != "a   bc  d\n    e" {
		t.Fatalf("Clean = %q", got)
	}
}
