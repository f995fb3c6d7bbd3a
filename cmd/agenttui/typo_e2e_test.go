package main

import (
	"strings"
	"testing"
)

// TestMistypedCommands checks that a first argument one or two edits from a
// command is refused in one line that names the command, with exit 2,
// rather than run as a goal.
func TestMistypedCommands(t *testing.T) {
	for word, want := range map[string]string{"sesions": "sessions", "evl": "eval", "mpc": "mcp", "Sessions": "sessions", "rnu": "run"} {
		r := runBinary(t, t.TempDir(), "", word)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, `did you mean "`+want+`"?`) ||
			!strings.Contains(r.stderr, "(see agenttui --help;") {
			t.Errorf("agenttui %s: exit %d, stderr %q", word, r.code, r.stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"evl", "suite.json"}, `did you mean "eval"?`},
		{[]string{"sessions", "exprot", "20261202-080249-c5d22d4a"}, `did you mean "agenttui sessions export"?`},
	} {
		r := runBinary(t, t.TempDir(), "", c.args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("agenttui %q: exit %d, stderr %q", c.args, r.code, r.stderr)
		}
	}
}

// TestOneWordGoalsStillRun checks that what is no typo of a command goes to
// the console as its goal: one-word goals far from every command, a goal of
// more words, and any word after --. Without a terminal the console says
// it needs one, which shows the goal got that far.
func TestOneWordGoalsStillRun(t *testing.T) {
	for _, args := range [][]string{{"fix"}, {"test"}, {"go"}, {"lint"}, {"fix sesions"}, {"sesions "}, {"--", "sesions"}} {
		r := runBinary(t, t.TempDir(), "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "the console needs a terminal") {
			t.Errorf("agenttui %q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	// And in a terminal, the one-word goal runs.
	term := startConsole(t, e2eCols, e2eRows, nil, "fix", "--workspace", workspaceWithNotes(t), "--scenario", scenario(t, "succeeds.json"))
	s := term.WaitFor("✓ Succeeded", e2eStep)
	if !strings.Contains(s, "goal › fix") {
		t.Errorf("the console does not show the goal fix:\n%s", s)
	}
	if code := quitConsole(t, term); code != 0 {
		t.Errorf("exit code %d", code)
	}
}
