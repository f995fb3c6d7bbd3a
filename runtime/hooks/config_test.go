package hooks

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, empty := range []string{"", "null", " {} ", "{\"Stop\": null}", `{"Stop": [{"hooks": []}]}`} {
		c, err := Parse([]byte(empty))
		if err != nil || !c.Empty() {
			t.Errorf("Parse(%q) = %v, %v; want an empty Config", empty, c, err)
		}
	}
	c, err := Parse([]byte(`{
		"PreToolUse": [
			{"matcher": "run_shell|Bash", "hooks": [
				{"type": "command", "command": "~/bin/check", "timeout": 30},
				{"type": "command", "command": "./x.sh", "timeout": 0.5, "on_error": "deny"}]},
			{"matcher": null, "hooks": [{"type": "command", "command": "a", "on_error": "ignore"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "./hooks/again.sh"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pre := c[PreToolUse]
	if len(pre) != 2 || len(pre[0].Hooks) != 2 || len(c[Stop]) != 1 || c.Empty() {
		t.Fatalf("got %+v", c)
	}
	want := Command{Type: "command", Command: "./x.sh", Timeout: 0.5, OnError: OnErrorDeny}
	if pre[0].Hooks[1] != want || pre[0].Matcher != "run_shell|Bash" || pre[0].re == nil {
		t.Errorf("got %+v", pre[0])
	}
	if pre[1].Matcher != "" || pre[1].re != nil || pre[1].Hooks[0].OnError != "ignore" {
		t.Errorf("got %+v", pre[1])
	}
}

func TestParseErrors(t *testing.T) {
	const in = `hooks.Stop[0].hooks[0]`
	for _, tt := range []struct{ raw, want string }{
		{`[]`, `hooks: must be an object whose keys are hook events`},
		{`{"Stop": [`, `hooks: not valid JSON: unexpected EOF`},
		{`{"Stop": []} x`, `hooks: not valid JSON: more follows the object`},
		{`{"PreTooluse": []}`, `hooks.PreTooluse: not a hook event; the events are PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart`},
		{"{\"Pre\\nTool\": []}", `hooks."Pre\nTool": not a hook event; the events are PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart`},
		{`{"Stop": [], "Stop": []}`, `hooks.Stop: is given twice`},
		{`{"Stop": {}}`, `hooks.Stop: must be a list of groups, each with "matcher" and "hooks"`},
		{`{"Stop": ["x"]}`, `hooks.Stop[0]: must be an object with "matcher" and "hooks"`},
		{`{"Stop": [{}]}`, `hooks.Stop[0].hooks: is missing`},
		{`{"Stop": [{"hooks": {}}]}`, `hooks.Stop[0].hooks: must be a list of commands`},
		{`{"Stop": [{"hooks": [], "matchers": "x"}]}`, `hooks.Stop[0].matchers: not a key of a group; a group has "matcher" and "hooks"`},
		{`{"PreToolUse": [{"matcher": 3, "hooks": []}]}`, `hooks.PreToolUse[0].matcher: must be a string`},
		{`{"PreToolUse": [{"matcher": "(", "hooks": []}]}`, "hooks.PreToolUse[0].matcher: not a regular expression: error parsing regexp: missing closing ): `(`"},
		{`{"Stop": [{"hooks": [3]}]}`, in + `: must be an object with "type" and "command"`},
		{`{"Stop": [{"hooks": [{"command": "a"}]}]}`, in + `.type: is missing; it must be "command"`},
		{`{"Stop": [{"hooks": [{"type": "prompt", "command": "a"}]}]}`, in + `.type: "prompt" hooks are not supported; only "command"`},
		{`{"Stop": [{"hooks": [{"type": 1, "command": "a"}]}]}`, in + `.type: must be "command"`},
		{`{"Stop": [{"hooks": [{"type": "command"}]}]}`, in + `.command: is missing`},
		{`{"PreToolUse": [{"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": " \t"}]}]}`,
			`hooks.PreToolUse[0].hooks[1].command: is empty`},
		{`{"Stop": [{"hooks": [{"type": "command", "command": ["a"]}]}]}`, in + `.command: must be a string`},
		{`{"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": 0}]}]}`, in + `.timeout: must be a positive number of seconds`},
		{`{"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": -1}]}]}`, in + `.timeout: must be a positive number of seconds`},
		{`{"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": "30"}]}]}`, in + `.timeout: must be a positive number of seconds`},
		{`{"Stop": [{"hooks": [{"type": "command", "command": "a", "on_error": "maybe"}]}]}`, in + `.on_error: must be "deny" or "ignore"`},
		{`{"Stop": [{"hooks": [{"type": "command", "command": "a", "async": true}]}]}`,
			in + `.async: not a key of a hook; a hook has "type", "command", "timeout" and "on_error"`},
		{`{"Stop": [{"hooks": [{"type": "command", "command": "a", "command": "b"}]}]}`, in + `.command: is given twice`},
	} {
		c, err := Parse([]byte(tt.raw))
		if err == nil {
			t.Errorf("Parse(%s) = %v; want error %s", tt.raw, c, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%s):\n got %s\nwant %s", tt.raw, err, tt.want)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("Parse(%s): error of more than one line", tt.raw)
		}
	}
}

func TestMergeMarkTrusted(t *testing.T) {
	// Room to spare in user's list: a Merge that appended to it would
	// write there.
	spare := make([]Group, 1, 4)
	spare[0] = Group{Matcher: "Bash", Hooks: []Command{cmd("user")}}
	user := Config{PreToolUse: spare}
	ws := Config{
		PreToolUse: {{Hooks: []Command{cmd("ws1"), cmd("ws2")}}},
		Stop:       {{Hooks: []Command{cmd("ws3")}}},
	}.MarkWorkspace()
	if (Config{}).Empty() != true || ws.Empty() {
		t.Fatal("Empty")
	}
	for _, g := range ws[PreToolUse] {
		for _, c := range g.Hooks {
			if !c.Workspace {
				t.Fatalf("%s not marked", c.Command)
			}
		}
	}
	all := user.Merge(ws)
	if len(all[PreToolUse]) != 2 || all[PreToolUse][0].Hooks[0].Command != "user" || len(all[Stop]) != 1 {
		t.Fatalf("merged %+v", all)
	}
	if len(user[PreToolUse]) != 1 || len(ws[PreToolUse]) != 1 {
		t.Fatal("Merge changed its operands")
	}
	if spare[:2][1].Hooks != nil {
		t.Fatal("Merge wrote into its receiver's list")
	}

	all = user.Merge(ws)
	trusted := all.Trusted()
	if len(trusted[PreToolUse]) != 1 || trusted[PreToolUse][0].Hooks[0].Command != "user" {
		t.Fatalf("trusted %+v", trusted)
	}
	if _, ok := trusted[Stop]; ok {
		t.Fatal("an event left without groups is kept")
	}
	if !all.Has(Stop, "") || trusted.Has(Stop, "") || !trusted.Has(PreToolUse, "run_shell") || trusted.Has(PreToolUse, "read_file") {
		t.Fatal("Has")
	}
	if len(all[Stop]) != 1 {
		t.Fatal("Trusted changed its receiver")
	}

	plain := Config{Stop: {{Hooks: []Command{cmd("a")}}}}
	_ = plain.MarkWorkspace()
	if plain[Stop][0].Hooks[0].Workspace {
		t.Fatal("MarkWorkspace changed its receiver")
	}
}

func TestDescribe(t *testing.T) {
	c := Config{
		SessionStart: {{Matcher: "startup", Hooks: []Command{cmd("echo hi")}}},
		Stop:         {{Hooks: []Command{{Type: "command", Command: "./hooks/again.sh", OnError: OnErrorDeny}}}},
		PreToolUse: {
			{Matcher: "run_shell|Bash", Hooks: []Command{
				{Type: "command", Command: "~/bin/check", Timeout: 30},
				{Type: "command", Command: "./x.sh", Timeout: 0.5, OnError: OnErrorDeny},
			}},
			{Matcher: "*", Hooks: []Command{cmd("a")}},
		},
		PostToolUse:      {{Hooks: []Command{cmd("b")}}},
		UserPromptSubmit: {{Hooks: []Command{cmd("printf 'a\nb' \x1b[2J \u202e")}}},
	}
	want := []string{
		"PreToolUse run_shell|Bash: ~/bin/check (30 s)",
		"PreToolUse run_shell|Bash: ./x.sh (0.5 s, deny on error)",
		"PreToolUse *: a",
		"PostToolUse *: b",
		`UserPromptSubmit: printf 'a\nb' \x1b[2J \u202e`,
		"Stop: ./hooks/again.sh (deny on error)",
		"SessionStart: echo hi",
	}
	if got := c.Describe(); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := visible("a\xffb"); got != `a\xffb` {
		t.Errorf("visible = %q", got)
	}
}

// cmd returns a command entry running command.
func cmd(command string) Command { return Command{Type: "command", Command: command} }
