package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
)

// TestErrorsCarryTheFileAndTheKey checks that a command can tell what is
// wrong from the error's type and fields, not only from its message.
func TestErrorsCarryTheFileAndTheKey(t *testing.T) {
	_, err := Parse("a.json", []byte(`{"budgets": {"max_time": "soon"}}`))
	var ce *Error
	if !errors.As(err, &ce) || ce.File != "a.json" || ce.Key != "budgets.max_time" ||
		err.Error() != `config a.json: budgets.max_time: "soon" is not a positive duration such as "15m" or "90s"` {
		t.Errorf("a bad duration: %#v, %q", err, err)
	}
	_, err = Parse("a.json", []byte(`[1]`))
	if !errors.As(err, &ce) || ce.Key != "" || err.Error() != "config a.json: not a JSON object: expected an object, got an array" {
		t.Errorf("not an object: %#v, %q", err, err)
	}

	missing := filepath.Join(t.TempDir(), "missing.json")
	var re *ReadError
	if _, err := Find(missing, t.TempDir()); !errors.As(err, &re) || !errors.Is(err, os.ErrNotExist) ||
		err.Error() != "config file "+missing+" cannot be read: no such file or directory" {
		t.Errorf("a missing --config: %#v, %q", err, err)
	}
	if _, err := Load(missing); !errors.As(err, &re) || re.File != missing {
		t.Errorf("loading a missing file: %#v", err)
	}

	var fe *FlagError
	if _, err := FlagRules(nil, []string{"write_file(path=[x"}); !errors.As(err, &fe) || fe.Flag != "--deny" {
		t.Errorf("a bad --deny: %#v", err)
	}
}

// TestFindLooksInTheWorkspaceThenTheUsersFolder checks the order in which
// the configuration file is looked for.
func TestFindLooksInTheWorkspaceThenTheUsersFolder(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	if got, err := Find("", ws); err != nil || got != "" {
		t.Fatalf("with no file: %q, %v", got, err)
	}
	user := filepath.Join(home, "agenttui", "config.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := Find("", ws); got != user {
		t.Errorf("with the user's file: %q, want %q", got, user)
	}
	local := filepath.Join(ws, "agenttui.json")
	if err := os.WriteFile(local, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := Find("", ws); got != local {
		t.Errorf("with the workspace's file: %q, want %q", got, local)
	}
}

func TestTaskMaxTurns(t *testing.T) {
	c, err := Parse("a.json", []byte(`{"budgets": {"task_max_turns": 12}}`))
	if err != nil || c.TaskTurns() != 12 {
		t.Fatalf("task_max_turns: %v, %v", c, err)
	}
	if _, err := Parse("a.json", []byte(`{"budgets": {"task_max_turns": 0}}`)); err == nil ||
		!strings.Contains(err.Error(), "budgets.task_max_turns") {
		t.Fatalf("a zero task_max_turns: %v", err)
	}
	if (*Config)(nil).TaskTurns() != 0 {
		t.Fatal("no configuration has task turns")
	}
}

func TestWebProvenanceAndProtectedRules(t *testing.T) {
	c, err := Parse("a.json", []byte(`{"web": {"allow_private": true}, "provenance": {"untrusted": ["web", "shell"]},
	  "rules": [{"tool": "web_fetch", "argument": "url", "from": ["person", "workspace"], "decision": "deny"},
	            {"tool": "run_shell", "decision": "allow", "provenance": "allow"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !c.WebAllowPrivate || len(c.Rules) != 2 || c.Rules[0].Argument != "url" || c.Rules[1].Provenance != "allow" {
		t.Fatalf("config %+v", c)
	}
	untrusted := c.UntrustedSource()
	for s, want := range map[tool.Source]bool{
		{Kind: tool.SourceWeb, Name: "a.example"}:               true,
		{Kind: tool.SourceShell}:                                true,
		{Kind: tool.SourceMCP, Name: "fs/read"}:                 false,
		{Kind: tool.SourceWorkspace, Name: "a.go", Fresh: true}: false,
	} {
		if got := untrusted(s); got != want {
			t.Errorf("%s untrusted: %v, want %v", s.Label(), got, want)
		}
	}
	// A command that read a new file is judged as the file would be.
	c, err = Parse("a.json", []byte(`{"provenance": {"untrusted": ["new_files"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	untrusted = c.UntrustedSource()
	for s, want := range map[tool.Source]bool{
		{Kind: tool.SourceShell, Fresh: true}:                   true,
		{Kind: tool.SourceShell}:                                false,
		{Kind: tool.SourceWorkspace, Name: "a.go", Fresh: true}: true,
	} {
		if got := untrusted(s); got != want {
			t.Errorf("with new_files, %s (fresh %v) untrusted: %v, want %v", s.Label(), s.Fresh, got, want)
		}
	}
	for _, bad := range []struct{ body, key string }{
		{`{"provenance": {"untrusted": ["ftp"]}}`, "provenance.untrusted"},
		{`{"web": {"allow_public": true}}`, "web.allow_public"},
		{`{"rules": [{"tool": "web_fetch", "from": ["person"]}]}`, "rules[0].argument"},
		{`{"rules": [{"tool": "web_fetch", "argument": "url", "from": ["moon"]}]}`, "rules[0].from"},
		{`{"rules": [{"tool": "run_shell", "decision": "ask", "provenance": "allow"}]}`, "rules[0].provenance"},
	} {
		_, err := Parse("a.json", []byte(bad.body))
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != bad.key {
			t.Errorf("%s: %v, want an error at %s", bad.body, err, bad.key)
		}
	}
}
