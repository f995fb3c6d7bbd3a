package hooks

import "testing"

func TestClaudeName(t *testing.T) {
	for tool, want := range map[string]string{
		"run_shell": "Bash", "edit_file": "Edit", "write_file": "Write", "read_file": "Read",
		"glob": "Glob", "grep": "Grep", "list_dir": "LS", "web_fetch": "WebFetch", "task": "Task",
		"fs__read": "mcp__fs__read", "plan": "", "__x": "", "x__": "", "Bash": "",
	} {
		if got := ClaudeName(tool); got != want {
			t.Errorf("ClaudeName(%q) = %q; want %q", tool, got, want)
		}
	}
}

func TestMatches(t *testing.T) {
	for _, tt := range []struct {
		matcher, tool string
		want          bool
	}{
		{"Bash", "run_shell", true},
		{"run_shell", "run_shell", true},
		{"bash", "run_shell", false},
		{"run", "run_shell", false},
		{"Bas", "run_shell", false},
		{"Edit|Write", "edit_file", true},
		{"Edit|Write", "write_file", true},
		{"Edit|Write", "read_file", false},
		{"MultiEdit", "edit_file", true},
		{"Edit", "edit_file_x", false},
		{"edit_file", "edit_file_x", false},
		{"mcp__fs__.*", "fs__read", true},
		{"fs__.*", "fs__read", true},
		{"mcp__fs__.*", "fs_read", false},
		{"mcp__fs__.*", "git__log", false},
		{"mcp__.*", "fs__read", true},
		{"", "anything", true},
		{"*", "anything", true},
		{"Task", "task", true},
		{"LS", "list_dir", true},
		{"WebFetch|Read", "web_fetch", true},
	} {
		c, err := Parse([]byte(`{"PreToolUse": [{"matcher": "` + tt.matcher + `", "hooks": []}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := c[PreToolUse][0].Matches(tt.tool); got != tt.want {
			t.Errorf("%q matches %q = %v; want %v", tt.matcher, tt.tool, got, tt.want)
		}
		// A Group built in code, without Parse, matches alike.
		if got := (Group{Matcher: tt.matcher}).Matches(tt.tool); got != tt.want {
			t.Errorf("unparsed %q matches %q = %v; want %v", tt.matcher, tt.tool, got, tt.want)
		}
	}
	if (Group{Matcher: "("}).Matches("(") {
		t.Error("a matcher that is not a regular expression matches")
	}
}
