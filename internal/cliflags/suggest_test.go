package cliflags

import "testing"

var commands = []string{"run", "mcp", "eval", "sessions"}

// TestSuggestCatchesTypos checks the typos a person makes of agenttui's
// commands: a letter missing, doubled, swapped or wrong, in any case.
func TestSuggestCatchesTypos(t *testing.T) {
	for word, want := range map[string]string{
		"sesions": "sessions", "sessons": "sessions", "sessionss": "sessions", "Sessions": "sessions",
		"sessoins": "sessions", "sesion": "sessions", "sesisons": "sessions",
		"evl": "eval", "evla": "eval", "eval": "eval", "evall": "eval", "EVAL": "eval", "eavl": "eval",
		"mpc": "mcp", "mc": "mcp", "mcpp": "mcp", "mvp": "mcp",
		"rn": "run", "rnu": "run", "runn": "run", "urn": "run",
	} {
		if got, ok := Suggest(word, commands); !ok || got != want {
			t.Errorf("Suggest(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
}

// TestSuggestLeavesGoalsAlone checks that one-word goals, and words too
// far from every command, are not taken for commands: two edits would turn
// a three-letter command into almost any short word.
func TestSuggestLeavesGoalsAlone(t *testing.T) {
	for _, word := range []string{
		"fix", "test", "go", "lint", "build", "help", "docs", "refactor", "review", "deploy", "format",
		"rm", "up", "ls", "cd", "ok", "al", "ev", "e", "r", "mv", "sum", "readme", "session-notes",
		"", "tests", "vet", "fmt",
	} {
		if got, ok := Suggest(word, commands); ok {
			t.Errorf("Suggest(%q) = %q, want no suggestion", word, got)
		}
	}
}

// TestDistance pins the distance itself, swaps counting one edit.
func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3},
		{"mpc", "mcp", 1}, {"ab", "ba", 1}, {"abc", "ca", 3}, {"sesions", "sessions", 1},
		{"fix", "run", 3}, {"test", "eval", 4}, {"héllo", "hello", 1},
	} {
		if got := distance([]rune(c.a), []rune(c.b)); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
