package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/cmdfiles"
)

// write writes content to the file p, making its folders.
func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestDigest(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	script := filepath.Join(ws, ".claude", "hooks", "check.sh")
	other := filepath.Join(ws, "hooks", "other.sh")
	far := filepath.Join(outside, "far.sh")
	write(t, script, "#!/bin/sh\nexit 0\n")
	write(t, other, "#!/bin/sh\nexit 0\n")
	write(t, far, "#!/bin/sh\nexit 0\n")
	write(t, filepath.Join(ws, "hooks.log"), "")
	c := Config{
		PreToolUse: {{Matcher: "Bash", Hooks: []Command{
			cmd(`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --strict >> ./hooks.log 2>&1`),
			cmd("sh ./hooks/other.sh; " + far),
		}}},
	}
	d := Digest(ws, c)
	if len(d) != 64 || Digest(ws, c) != d {
		t.Fatalf("digest %q is not a stable hex SHA-256", d)
	}
	same := func(what string, want bool) {
		t.Helper()
		if got := Digest(ws, c) == d; got != want {
			t.Errorf("%s: digest unchanged = %v; want %v", what, got, want)
		}
		d = Digest(ws, c)
	}

	write(t, far, "#!/bin/sh\nexit 2\n")
	same("a script outside the workspace changed", true)
	write(t, filepath.Join(ws, "hooks.log"), "a line the hook wrote\n")
	same("the hook's log changed", true)
	write(t, script, "#!/bin/sh\nexit 2\n")
	same("a script named through $CLAUDE_PROJECT_DIR changed", false)
	write(t, other, "#!/bin/sh\nexit 2\n")
	same("a script named by a relative path changed", false)

	c[PreToolUse][0].Hooks[1].Timeout = 5
	same("the timeout changed", false)
	c[PreToolUse][0].Hooks[1].OnError = OnErrorDeny
	same("on_error changed", false)
	c[PreToolUse][0].Matcher = "Bash|Edit"
	same("the matcher changed", false)
	c[Stop] = []Group{{Hooks: []Command{cmd("${AGENTTUI_PROJECT_DIR}/hooks/other.sh")}}}
	same("a command was added", false)
	write(t, other, "#!/bin/sh\nexit 3\n")
	same("a script named through ${AGENTTUI_PROJECT_DIR} changed", false)
	if Digest(outside, c) == d {
		t.Error("the same hooks in another workspace give the same digest")
	}

	// A script that escapes the workspace by "..", and one too large to be
	// a script, are not read.
	big := filepath.Join(ws, "big.sh")
	write(t, big, strings.Repeat("x", cmdfiles.MaxScript+1))
	c[Stop] = []Group{{Hooks: []Command{cmd("./big.sh ../" + filepath.Base(outside) + "/far.sh")}}}
	d = Digest(ws, c)
	write(t, big, strings.Repeat("y", cmdfiles.MaxScript+1))
	write(t, far, "#!/bin/sh\nexit 4\n")
	same("files not read changed", true)
}

// TestDigestNoticesScriptsNamedWithoutASlash edits the script of sh hook.sh
// and the makefile of make -s -f hooks.mk check after they were trusted:
// each edit changes the digest, so the person is asked again.
func TestDigestNoticesScriptsNamedWithoutASlash(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "hook.sh"), "exit 0\n")
	write(t, filepath.Join(ws, "hooks.mk"), "check:\n\ttrue\n")
	for _, c := range []struct{ command, file string }{{"sh hook.sh", "hook.sh"}, {"make -s -f hooks.mk check", "hooks.mk"}} {
		hooks := one(PreToolUse, "", cmd(c.command))
		trusted := Digest(ws, hooks)
		write(t, filepath.Join(ws, c.file), "touch pwned\n")
		if Digest(ws, hooks) == trusted {
			t.Errorf("%q: editing %s after trust leaves the digest as it was", c.command, c.file)
		}
	}
}

// TestDigestIsTheOneTrustedBefore pins the digest of hooks that run a
// script by a path with a slash, as trust stores written before scripts
// named without one were noticed hold it: such an entry stays trusted.
func TestDigestIsTheOneTrustedBefore(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "hooks", "check.sh"), "#!/bin/sh\nexit 0\n")
	c := Config{
		PreToolUse: {{Matcher: "Bash", Hooks: []Command{{Type: "command", Command: "./hooks/check.sh >> ./hooks.log", Timeout: 30}}}},
		Stop:       {{Hooks: []Command{{Type: "command", Command: `"$CLAUDE_PROJECT_DIR"/hooks/check.sh`, OnError: OnErrorDeny}}}},
	}
	if got, want := Digest(ws, c), "c8d1a86194361b84d758fd99b538ffeaa24cc4749983bd246fe7edc6c198e595"; got != want {
		t.Errorf("digest %s; the one trusted before is %s", got, want)
	}
}

func TestTrustStore(t *testing.T) {
	state := t.TempDir()
	path := filepath.Join(state, "agenttui", "sub", "trusted-hooks.json")
	store := TrustStore{Path: path}
	a, b := filepath.Join(state, "a"), filepath.Join(state, "b")

	if ok, err := store.Trusted(a, "d1"); ok || err != nil {
		t.Fatalf("empty store: %v, %v", ok, err)
	}
	if err := store.Trust(a, "d1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.Trusted(a, "d1"); !ok || err != nil {
		t.Fatalf("after Trust: %v, %v", ok, err)
	}
	// The workspace is known however it is written.
	if ok, _ := store.Trusted(filepath.Join(a, "..", "a")+"/", "d1"); !ok {
		t.Error("the same workspace written another way is not trusted")
	}
	if ok, _ := store.Trusted(a, "d2"); ok {
		t.Error("another digest is trusted")
	}
	if ok, _ := store.Trusted(b, "d1"); ok {
		t.Error("another workspace is trusted")
	}
	if err := store.Trust(b, "d2"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := store.Trusted(a, "d1"); !ok {
		t.Error("trusting b dropped a")
	}
	if err := store.Trust(a, "d3"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := store.Trusted(a, "d1"); ok {
		t.Error("the old digest is still trusted")
	}
	if ok, _ := store.Trusted(b, "d2"); !ok {
		t.Error("trusting a again dropped b")
	}

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", fi.Mode())
	}
	if di, err := os.Stat(filepath.Dir(path)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, %v", di.Mode(), err)
	}
	var f trustFile
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &f); err != nil || f.Workspaces[a].Digest != "d3" || f.Workspaces[a].Trusted.IsZero() {
		t.Errorf("file %s: %v", data, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}

	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok, err := store.Trusted(a, "d3")
	if ok || err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("corrupt store: %v, %v", ok, err)
	}
	if err := store.Trust(a, "d4"); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.Trusted(a, "d4"); !ok || err != nil {
		t.Fatalf("after overwriting a corrupt store: %v, %v", ok, err)
	}

	if ok, err := (TrustStore{}).Trusted(a, "d4"); ok || err != nil {
		t.Errorf("zero store: %v, %v", ok, err)
	}
	if err := (TrustStore{}).Trust(a, "d4"); err == nil {
		t.Error("zero store: Trust succeeded")
	}
}
