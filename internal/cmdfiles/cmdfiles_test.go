package cmdfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workspace returns a folder holding the files named, empty.
func workspace(t *testing.T, files ...string) string {
	t.Helper()
	ws := t.TempDir()
	for _, f := range files {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// rel returns the paths relative to ws, joined by spaces.
func rel(ws string, paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		r, err := filepath.Rel(ws, p)
		if err != nil {
			r = p
		}
		out[i] = r
	}
	return strings.Join(out, " ")
}

func TestShell(t *testing.T) {
	ws := workspace(t, "hook.sh", "hooks.mk", "Makefile", "sub/Makefile", "hooks/pre.sh", "check.py", "lib.sh", "data.json",
		"in.sh", "hooks/inner.sh", "script.js")
	cases := []struct {
		command string
		want    string
	}{
		// Named without a slash, the script is still the hook's code.
		{"sh hook.sh", "hook.sh"},
		{"bash -e -o pipefail hook.sh --flag", "hook.sh"},
		{"make -s -f hooks.mk check", "hooks.mk"},
		{"make --file=hooks.mk check", "hooks.mk"},
		{"make --file hooks.mk", "hooks.mk"},
		{"make -fhooks.mk", "hooks.mk"},
		// make without -f reads its folder's makefile, or -C's.
		{"make -s lint", "Makefile"},
		{"make -C sub lint", "sub/Makefile"},
		{"python3 check.py", "check.py"},
		// An option's value is not the script; the one after it is,
		// even before it exists.
		{"bash -e -o pipefail later.sh", "later.sh"},
		{"python -W ignore -u later.py", "later.py"},
		{"node -r ./hooks/inner.sh later.js", "hooks/inner.sh later.js"},
		{"perl -e 'print 1' later.pl", ""},
		{"node script.js", "script.js"},
		{"FOO=1 env -i nice -n 5 python -u check.py", "check.py"},
		{"source lib.sh && . ./lib.sh", "lib.sh"},
		// A shell's -c script is a command in its turn.
		{`bash -c 'sh hook.sh && make -f hooks.mk'`, "hook.sh hooks.mk"},
		{`sh -ec "cd hooks && sh inner.sh"`, "hooks/inner.sh"},
		// A cd moves where relative words are found.
		{"cd hooks; sh inner.sh", "hooks/inner.sh"},
		// Paths with a slash count whether or not they exist.
		{"./hooks/pre.sh && ./hooks/gone.sh", "hooks/pre.sh hooks/gone.sh"},
		// An interpreter's script counts even before it exists.
		{"sh not-yet.sh", "not-yet.sh"},
		// Every word naming an existing file counts; other words do not.
		{"jq -r .name data.json", "data.json"},
		{"echo hook", ""},
		// sh < in.sh runs in.sh; > out names what the hook writes.
		{"sh < in.sh > hook.sh 2>&1", "in.sh"},
		{"./hooks/pre.sh>>log.txt 2>err.txt", "hooks/pre.sh"},
		{"./hooks/pre.sh &> hook.sh", "hooks/pre.sh"},
		{"cat <<EOF\nhook.sh\nEOF\nsh lib.sh", "lib.sh"},
		{"cat <<-'X' <<Y\n\thook.sh\n\tX\nhooks.mk\nY", ""},
		{"./hooks/ sub/ && sh hook.sh", "hook.sh"},
		// Code and modules are not files.
		{"python -c 'import os' && python -m hooks", ""},
		// The workspace's variables stand for it; home and outside paths
		// are not the workspace's.
		{`"$CLAUDE_PROJECT_DIR"/hooks/pre.sh ${AGENTTUI_PROJECT_DIR}/lib.sh ~/bin/x /etc/passwd ../x.sh`, "hooks/pre.sh lib.sh"},
		{"sh hook.sh # and hooks.mk", "hook.sh"},
	}
	for _, c := range cases {
		if got := rel(ws, Shell(ws, c.command)); got != c.want {
			t.Errorf("%q: got %q; want %q", c.command, got, c.want)
		}
	}
}

func TestArgv(t *testing.T) {
	ws := workspace(t, "server.js", "srv/main.py", "hook.sh")
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"node", "server.js"}, "server.js"},
		{[]string{"python3", "srv/main.py", "--port", "1"}, "srv/main.py"},
		{[]string{"./srv/main.py"}, "srv/main.py"},
		{[]string{"sh", "-c", "sh hook.sh; touch marker"}, "hook.sh"},
		// A package's name has a slash, so it counts as a path that
		// does not exist; "." is the workspace, a folder.
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}, "@modelcontextprotocol/server-filesystem"},
	}
	for _, c := range cases {
		if got := rel(ws, Argv(ws, ws, c.argv)); got != c.want {
			t.Errorf("%q: got %q; want %q", c.argv, got, c.want)
		}
	}
}
