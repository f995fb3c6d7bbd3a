package workspace

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// within returns an env over the same workspace whose tools are those of
// e.ws.Within(paths).
func (e *env) within(paths ...string) *env {
	e.t.Helper()
	v := *e
	v.ws = e.ws.Within(paths)
	v.tools = map[string]tool.Tool{}
	for _, tl := range v.ws.Tools() {
		v.tools[tl.Declaration().Name] = tl
	}
	return &v
}

// TestWithinNarrowsTheShellFootprint checks, without running anything,
// that a workspace made by Within footprints a sandboxed run_shell as
// writing only its paths and the temporary folder, says so in the call's
// sandbox and in run_shell's description, and drops a path escaping the
// root; other tools are unchanged.
func TestWithinNarrowsTheShellFootprint(t *testing.T) {
	e := sandboxEnv(t, sandbox.Config{}, sandbox.Support{ABI: 7})
	e.write("docs/a.md", "a\n")
	temp := e.ws.Sandbox().TempDir()
	docs := filepath.Join(e.root, "docs")
	v := e.within("docs/", "../outside", e.outside, "/etc", "docs/../docs")
	if v.ws.Root() != e.root {
		t.Errorf("root %q", v.ws.Root())
	}
	cmd := map[string]any{"command": "make docs"}
	if got, want := v.footprint("run_shell", cmd), tool.Writes(tool.Paths(docs, temp)).Normalized(); got.String() != want.String() {
		t.Errorf("footprint %v, want %v", got, want)
	}
	if got := v.footprint("run_shell", cmd); got.ConflictsWith(tool.Writes(tool.Paths(filepath.Join(e.root, "src", "a.go")))) ||
		!got.ConflictsWith(tool.Reads(tool.Paths(filepath.Join(docs, "a.md")))) {
		t.Errorf("footprint %v conflicts wrongly", got)
	}
	if s := v.sandboxOf(cmd); s == nil || !s.Sandboxed || !slices.Equal(s.Writable, []string{docs, temp}) || s.Temp != temp {
		t.Errorf("sandbox of a call %+v", s)
	}
	if got := v.footprint("run_shell", map[string]any{"command": "make", "sandbox": false}); !got.Scope.IsAnything() {
		t.Errorf("an unsandboxed call %v, want writes anything", got)
	}
	desc := v.tools["run_shell"].Declaration().Description
	wantContains(t, desc, "can change files only in "+docs+", $TMPDIR, and cannot open network connections")
	if strings.Contains(desc, "the workspace,") {
		t.Errorf("the description still offers the workspace:\n%s", desc)
	}
	// The other tools are the workspace's.
	if got, want := v.footprint("write_file", map[string]any{"path": "src/a.go", "content": "x"}), e.footprint("write_file", map[string]any{"path": "src/a.go", "content": "x"}); got.String() != want.String() {
		t.Errorf("write_file footprint %v, want %v", got, want)
	}
	// The parent is not narrowed.
	if got, want := e.footprint("run_shell", cmd), tool.Writes(tool.Paths(e.root, temp)).Normalized(); got.String() != want.String() {
		t.Errorf("the parent's footprint %v, want %v", got, want)
	}

	// Without a sandbox, run_shell is as the workspace's.
	plain := newEnv(t).within("docs")
	if got := plain.footprint("run_shell", cmd); !got.Scope.IsAnything() || plain.sandboxOf(cmd) != nil {
		t.Errorf("without a sandbox: %v", got)
	}
}

// TestWithinConfinesTheShell runs run_shell of a workspace made by
// Within([]string{"docs"}) in the sandbox: it writes under docs, and a
// write elsewhere in the workspace fails with the sandbox's note, changing
// nothing.
func TestWithinConfinesTheShell(t *testing.T) {
	e := sandboxEnv(t, sandbox.Config{}, needLandlock(t))
	e.write("docs/a.md", "a\n")
	e.write("top.txt", "top\n")
	v := e.within("docs")
	docs := filepath.Join(e.root, "docs")
	if got, want := v.footprint("run_shell", map[string]any{"command": "true"}), tool.Writes(tool.Paths(docs, e.ws.Sandbox().TempDir())).Normalized(); got.String() != want.String() {
		t.Errorf("footprint %v, want %v", got, want)
	}

	wantSuccess(t, v.call("run_shell", map[string]any{"command": `echo b > docs/b.md && echo changed >> docs/a.md && echo t > "$TMPDIR/t"`}))
	if got := e.read("docs/b.md") + e.read("docs/a.md"); got != "b\na\nchanged\n" {
		t.Errorf("docs holds %q", got)
	}

	before := snapshot(t, e.base)
	for _, script := range []string{"echo changed > top.txt", "mkdir src", "echo pwned > ../outside/victim"} {
		wantKind(t, v.call("run_shell", map[string]any{"command": script}), tool.KindOther,
			"Permission denied", "The sandbox may have blocked this command. It ran in a sandbox in which commands can change files only in "+docs+", $TMPDIR")
	}
	sameSnapshot(t, before, snapshot(t, e.base))

	// The workspace's own run_shell may still write there.
	wantSuccess(t, e.call("run_shell", map[string]any{"command": "echo changed > top.txt"}))
}
