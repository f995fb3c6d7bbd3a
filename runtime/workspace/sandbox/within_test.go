package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWithinView checks, without running anything, what a view made by
// Within lets commands change: only its paths inside the workspace and the
// temporary folder, not the parent's extra folders or worktree git folders;
// a path that does not exist is listed but not given to the helper; .git
// stays protected when a path holds it; the view shares the parent's spares
// and temporary folder, and its Close leaves them alone.
func TestWithinView(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, extra := filepath.Join(base, "ws"), filepath.Join(base, "extra")
	docs, api, missing := filepath.Join(ws, "docs"), filepath.Join(ws, "docs", "api"), filepath.Join(ws, "notyet")
	for _, d := range []string{ws, extra, api, filepath.Join(ws, ".git"), filepath.Join(ws, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(extra, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	sb, err := New(ws, Config{Writable: []string{"../extra"}}, Support{ABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sb.gitDirs = []string{filepath.Join(base, "gitdir")} // as a worktree's
	temp := sb.TempDir()

	v := sb.Within([]string{docs, api + "/", missing, filepath.Join(base, "other"), "relative", docs, ws + "/../ws-evil", filepath.Join(ws, "link")})
	wantWritable := []string{docs, api, missing, filepath.Join(ws, "link"), temp}
	if got := v.Writable(); !slices.Equal(got, wantWritable) {
		t.Errorf("writable %v, want %v", got, wantWritable)
	}
	if p := v.Protected(); p != nil {
		t.Errorf("protected %v, want none", p)
	}
	if !v.Enabled() || v.Mode() != WorkspaceWrite || v.TempDir() != temp || v.Why() != "" || v.spares != sb.spares {
		t.Errorf("view: enabled %v, mode %s, temp %q, why %q, shares spares %v", v.Enabled(), v.Mode(), v.TempDir(), v.Why(), v.spares == sb.spares)
	}
	if got, want := v.Status(), "shell: sandboxed (workspace-write within docs, docs/api, notyet and link, no network)"; got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	for path, want := range map[string]bool{
		filepath.Join(docs, "a.md"): true, filepath.Join(api, "b.md"): true, filepath.Join(temp, "t"): true, "/dev/null": true,
		filepath.Join(missing, "x"): false, filepath.Join(ws, "link", "x"): false, filepath.Join(ws, "top.txt"): false,
		filepath.Join(ws, "src", "a.go"): false, filepath.Join(ws, ".git", "config"): false, filepath.Join(extra, "x"): false,
		filepath.Join(base, "gitdir", "HEAD"): false, filepath.Join(ws, "docsx"): false, "/etc/passwd": false,
	} {
		if v.CanWrite(path) != want {
			t.Errorf("CanWrite(%s) = %v", path, !want)
		}
	}
	if pol := v.policy(); !slices.Equal(pol.Write, []string{docs, api, temp}) || pol.Protected != nil || pol.Network {
		t.Errorf("policy %+v", pol)
	}
	// A path made later is given to the commands started after.
	if err := os.Mkdir(missing, 0o755); err != nil {
		t.Fatal(err)
	}
	if pol := v.policy(); !slices.Equal(pol.Write, []string{docs, api, missing, temp}) {
		t.Errorf("policy once the path exists %+v", pol)
	}
	if !v.CanWrite(filepath.Join(missing, "x")) {
		t.Error("a path made later is still not writable")
	}

	// A view of a view keeps what both allow.
	vv := v.Within([]string{ws, filepath.Join(api, "x"), filepath.Join(ws, "src")})
	if got, want := vv.Writable(), []string{docs, api, missing, filepath.Join(ws, "link"), filepath.Join(api, "x"), temp}; !slices.Equal(got, want) {
		t.Errorf("view of a view: writable %v, want %v", got, want)
	}
	none := sb.Within(nil)
	if got := none.Writable(); !slices.Equal(got, []string{temp}) || none.CanWrite(filepath.Join(ws, "a")) {
		t.Errorf("a view of nothing: writable %v", got)
	}
	if got := none.Status(); got != "shell: sandboxed (workspace-write within nothing of the workspace, no network)" {
		t.Errorf("status of a view of nothing %q", got)
	}

	// Closing a view leaves the parent's spares and temporary folder.
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(temp); err != nil {
		t.Errorf("a view's Close removed the temporary folder: %v", err)
	}
	if sb.Writable()[0] != ws {
		t.Errorf("the parent changed: %v", sb.Writable())
	}

	// With protect_git, .git stays read-only in a view that holds it, and a
	// path inside it is never writable.
	pg, err := New(ws, Config{ProtectGit: true, Network: true}, Support{ABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	git := filepath.Join(ws, ".git")
	whole := pg.Within([]string{ws})
	if p := whole.Protected(); !slices.Equal(p, []string{git}) {
		t.Errorf("protected %v", p)
	}
	if whole.CanWrite(filepath.Join(git, "config")) || !whole.CanWrite(filepath.Join(ws, "src", "a.go")) {
		t.Error("the whole workspace with protect_git")
	}
	if pol := whole.policy(); !slices.Equal(pol.Protected, []string{git}) || !slices.Equal(pol.Write, []string{ws, pg.TempDir()}) || !pol.Network {
		t.Errorf("policy of the whole workspace with protect_git %+v", pol)
	}
	if got := whole.Status(); got != "shell: sandboxed (workspace-write within ., network allowed)" {
		t.Errorf("status %q", got)
	}
	hooks := pg.Within([]string{filepath.Join(git, "hooks"), docs})
	if p := hooks.Protected(); !slices.Equal(p, []string{git}) || hooks.CanWrite(filepath.Join(git, "hooks", "pre-commit")) {
		t.Errorf("a path inside .git: protected %v", p)
	}
	if pol := hooks.policy(); !slices.Equal(pol.Write, []string{docs, pg.TempDir()}) || !slices.Equal(pol.Protected, []string{git}) {
		t.Errorf("policy with a path inside .git %+v", pol)
	}
	if p := pg.Within([]string{docs}).Protected(); p != nil {
		t.Errorf("a view away from .git protects %v", p)
	}

	// In read-only mode a view changes nothing: only the temporary folder
	// is writable.
	ro, err := New(ws, Config{Mode: ReadOnly}, Support{ABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rv := ro.Within([]string{docs})
	if got := rv.Writable(); !slices.Equal(got, []string{ro.TempDir()}) || rv.CanWrite(filepath.Join(docs, "a")) ||
		rv.Status() != ro.Status() || !slices.Equal(rv.policy().Write, ro.policy().Write) || rv.spares != ro.spares {
		t.Errorf("read-only view: writable %v, status %q", got, rv.Status())
	}

	// A sandbox that is off, or none, is its own view.
	off, err := New(ws, Config{Mode: Off}, Support{ABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	if off.Within([]string{docs}) != off {
		t.Error("a view of an off sandbox is not the sandbox")
	}
	var nilSandbox *Sandbox
	if nilSandbox.Within([]string{docs}) != nil {
		t.Error("a view of no sandbox is not nil")
	}
}
