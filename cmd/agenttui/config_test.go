package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "agenttui.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBadConfigurationIsOneLineAndExit2(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"not JSON", `{"mode": `, "not a JSON object"},
		{"not an object", `[1]`, "not a JSON object"},
		{"unknown key", `{"colour": "blue"}`, `colour: unknown key (known keys: model, mode, max_parallel`},
		{"wrong type", `{"max_parallel": "eight"}`, "max_parallel: expected a whole number, got a string"},
		{"bad mode", `{"mode": "yolo"}`, `mode: unknown mode "yolo"`},
		{"zero parallel", `{"max_parallel": 0}`, "max_parallel: must be a whole number of at least 1, not 0"},
		{"bad duration", `{"budgets": {"max_time": "soon"}}`, `budgets.max_time: "soon" is not a positive duration`},
		{"bad idle timeout", `{"stream_idle_timeout": "0s"}`, `stream_idle_timeout: "0s" is not a positive duration such as "15m" or "90s"`},
		{"idle timeout a number", `{"stream_idle_timeout": 90}`, `stream_idle_timeout: expected a duration such as "15m" or "90s"`},
		{"negative retries", `{"model_retries": -1}`, "model_retries: must be a whole number of at least 0, not -1"},
		{"retries a string", `{"model_retries": "4"}`, "model_retries: expected a whole number, got a string"},
		{"unknown budget", `{"budgets": {"max_tokens": 5}}`, "budgets.max_tokens: unknown key"},
		{"rules not an array", `{"rules": {"tool": "x"}}`, "rules: expected an array of rules, got an object"},
		{"rule unknown key", `{"rules": [{"tool": "x", "decision": "allow", "when": "always"}]}`, "rules[0].when: unknown key"},
		{"rule bad decision", `{"rules": [{"tool": "x", "decision": "maybe"}]}`, `rules[0].decision: must be allow, ask or deny, not "maybe"`},
		{"rule without tool", `{"rules": [{"decision": "deny"}]}`, "rules[0].tool: missing"},
		{"rule bad pattern", `{"rules": [{"tool": "write_file", "args": {"path": "docs/[a"}, "decision": "allow"}]}`, "rules[0].args.path: unclosed [ in pattern"},
		{"rule arg not a string", `{"rules": [{"tool": "w", "args": {"path": 3}, "decision": "allow"}]}`, "rules[0].args: path: expected a string, got a number"},
		{"second rule wrong", `{"rules": [{"tool": "a", "decision": "allow"}, {"tool": 5, "decision": "deny"}]}`, "rules[1].tool: expected a string, got a number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := workspaceWithNotes(t)
			path := writeConfig(t, ws, c.body)
			r := runBinary(t, ws, "", "run", "--scenario", scenario(t, "succeeds.json"), "read the notes")
			if r.code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", r.code, r.stderr)
			}
			line := strings.TrimRight(r.stderr, "\n")
			if strings.Contains(line, "\n") || !strings.HasPrefix(line, "agenttui: config "+path+": ") || !strings.Contains(line, c.want) {
				t.Errorf("stderr %q\nwant one line naming %s and containing %q", r.stderr, path, c.want)
			}
		})
	}
}

func TestConfigFileLocations(t *testing.T) {
	ws := workspaceWithNotes(t)
	// A --config that does not exist is an error.
	r := runBinary(t, ws, "", "run", "--config", "missing.json", "--scenario", scenario(t, "succeeds.json"), "go")
	if r.code != 2 || !strings.Contains(r.stderr, "config file missing.json cannot be read") {
		t.Errorf("missing --config: exit %d, %q", r.code, r.stderr)
	}
	// The user's config.json under XDG_CONFIG_HOME is read when the
	// workspace has none: its deny rule decides.
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "agenttui"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(xdg, "agenttui", "config.json"),
		[]byte(`{"rules":[{"tool":"read_file","decision":"deny","reason":"No reading today."}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", xdg)
	r = runBinary(t, ws, "", "run", "--scenario", scenario(t, "succeeds.json"), "--json", "go")
	if !strings.Contains(r.stdout, `"decision":"skip","by":"rule:1","reason":"No reading today."`) {
		t.Errorf("the user's config was not applied:\n%s", r.stdout)
	}
	// The workspace's agenttui.json wins over the user's file, and flags win
	// over both.
	writeConfig(t, ws, `{"mode": "plan"}`)
	r = runBinary(t, ws, "", "run", "--scenario", scenario(t, "succeeds.json"), "--json", "go")
	if !strings.Contains(r.stdout, `"mode":"plan"`) || strings.Contains(r.stdout, "No reading today") {
		t.Errorf("the workspace config should win:\n%s", r.stdout)
	}
	r = runBinary(t, ws, "", "run", "--mode", "auto", "--scenario", scenario(t, "succeeds.json"), "--json", "go")
	if !strings.Contains(r.stdout, `"mode":"auto"`) {
		t.Errorf("--mode should win over the config:\n%s", r.stdout)
	}
}

func TestHeadlessAllowAndDenyFlags(t *testing.T) {
	ws := workspaceWithNotes(t)
	sc := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(sc, []byte(`{"name": "rules", "steps": [
	  {"calls": [
	    {"name": "write_file", "args": {"path": "docs/a.md", "content": "a"}},
	    {"name": "write_file", "args": {"path": "docs/../secrets/x", "content": "b"}},
	    {"name": "run_shell", "args": {"command": "rm -rf docs"}},
	    {"name": "run_shell", "args": {"command": "echo hi"}},
	    {"name": "read_file", "args": {"path": "notes.txt"}}
	  ]},
	  {"expect": ["Deleting is not allowed"], "text": "done"}
	]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, ws, `{"rules": [{"name": "no-rm", "tool": "run_shell", "args": {"command": "rm *"}, "decision": "deny", "reason": "Deleting is not allowed here."}]}`)
	r := runBinary(t, ws, "", "run", "--scenario", sc, "--json",
		"--allow", "write_file(path=docs/**)", "--deny", "read_file(path=*.txt)", "write things")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got []string
	for _, ev := range events(t, r.stdout) {
		if ev["type"] == "call_decision" {
			got = append(got, ev["decision"].(string)+" by "+ev["by"].(string))
		}
	}
	want := []string{
		"run by rule:--allow write_file(path=docs/**)",
		"skip by headless",
		"skip by rule:no-rm",
		"skip by headless",
		"skip by rule:--deny read_file(path=*.txt)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("decisions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(ws, "docs", "a.md")); err != nil {
		t.Error("the allowed write did not happen")
	}
	if _, err := os.Stat(filepath.Join(ws, "secrets")); !os.IsNotExist(err) {
		t.Error("docs/../secrets/x was written: the allow rule was dodged")
	}
	r = runBinary(t, ws, "", "run", "--scenario", sc, "--allow", "write_file(path=[x", "go")
	if r.code != 2 || !strings.Contains(r.stderr, "--allow: rule") {
		t.Errorf("a bad --allow rule: exit %d, %q", r.code, r.stderr)
	}
}
