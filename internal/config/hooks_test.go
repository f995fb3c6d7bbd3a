package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttui/agenttui/runtime/hooks"
)

func TestHooksKeyIsCheckedInOneLine(t *testing.T) {
	_, err := Parse("/w/agenttui.json", []byte(`{"hooks": {"PreTooluse": []}}`))
	want := "config /w/agenttui.json: hooks.PreTooluse: not a hook event; the events are PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	c, err := Parse("/w/agenttui.json", []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./again.sh"}]}]}}`))
	if err != nil || !c.Hooks.Has(hooks.Stop, "") {
		t.Errorf("a Stop hook was not read: %v", err)
	}
}

func TestLoadHooksSeparatesTheWorkspacesFromThePersonsOwn(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	user := filepath.Join(home, "agenttui", "config.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	// The person's file has a key the workspace's file would not need;
	// only its hooks are read.
	if err := os.WriteFile(user, []byte(`{"model": "openai:x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/check"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(ws, "agenttui.json")
	if err := os.WriteFile(own, []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./again.sh"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(own)
	if err != nil {
		t.Fatal(err)
	}
	set, err := LoadHooks(c, ws)
	if err != nil {
		t.Fatal(err)
	}
	if !set.User.Has(hooks.PreToolUse, "run_shell") || set.User.Has(hooks.Stop, "") {
		t.Errorf("the person's hooks: %v", set.User.Describe())
	}
	if !set.Workspace.Has(hooks.Stop, "") || set.WorkspaceFile != own || !set.Workspace[hooks.Stop][0].Hooks[0].Workspace {
		t.Errorf("the workspace's hooks: %v from %q", set.Workspace.Describe(), set.WorkspaceFile)
	}
	// Read from the person's own file, every hook is theirs.
	uc, err := Load(user)
	if err != nil {
		t.Fatal(err)
	}
	if set, err = LoadHooks(uc, ws); err != nil || !set.Workspace.Empty() || !set.User.Has(hooks.PreToolUse, "Bash") {
		t.Errorf("from the person's file: %v, %v, %v", set.User.Describe(), set.Workspace.Describe(), err)
	}
	// A bad hook in the person's file is said in one line naming it.
	if err := os.WriteFile(user, []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHooks(c, ws); err == nil || !filepath.IsAbs(err.(*Error).File) || err.(*Error).File != user {
		t.Errorf("a bad hook in the person's file: %v", err)
	}
}
