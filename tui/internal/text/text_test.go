package text

import (
	"encoding/json"
	"strings"
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

// TestWrapBreaksOnceAtSpaces wraps at spaces only, keeps words joined by a
// no-break space and hyphenated words whole, breaks inside a word only when
// it is wider than the line (after a "/" or "-" where one fits), and never
// passes the width.
func TestWrapBreaksOnceAtSpaces(t *testing.T) {
	cmd := "agenttui" + NoBreak + "--model" + NoBreak + "openai:gpt-x"
	for _, tc := range []struct {
		in   string
		w    int
		want []string
	}{
		{"fits as it is", 20, []string{"fits as it is"}},
		{"", 5, []string{""}},
		{"the README can be read meanwhile", 16, []string{"the README can", "be read", "meanwhile"}},
		{"re-reading pager.go", 12, []string{"re-reading", "pager.go"}},
		{"and run " + cmd + " (or not)", 30, []string{"and run", "agenttui --model openai:gpt-x", "(or not)"}},
		{"run " + cmd, 60, []string{"run agenttui --model openai:gpt-x"}},
		{"xx abcdefghij yy", 4, []string{"xx", "abcd", "efgh", "ij", "yy"}},
		{"  indented words here", 12, []string{"  indented", "words here"}},
		{"two  spaces  kept", 20, []string{"two  spaces  kept"}},
		{"two  spaces  dropped at the break", 12, []string{"two  spaces", "dropped at", "the break"}},
		{"世界世界世界", 5, []string{"世界", "世界", "世界"}},
		{"first line\nsecond one here", 10, []string{"first line", "second one", "here"}},
		// A word wider than the line breaks after a slash or hyphen that
		// fits, where there is one.
		{"~/.claude/commands/release-notes.md", 28, []string{"~/.claude/commands/release-", "notes.md"}},
		{"from ~/.claude/commands/x.md", 12, []string{"from", "~/.claude/", "commands/", "x.md"}},
	} {
		got := Wrap(tc.in, tc.w)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tc.w || strings.Contains(l, NoBreak) {
				t.Errorf("Wrap(%q, %d) drew %q", tc.in, tc.w, l)
			}
		}
	}
}
