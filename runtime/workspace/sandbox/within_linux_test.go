//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWithinConfinesCommands runs commands through a view made by Within,
// on the parent's spare and on a helper of their own: they change files
// under the view's paths and the temporary folder, and nothing else of the
// workspace; a path that did not exist when they started cannot be created,
// but can be written once it exists. The parent's own commands are not
// narrowed.
func TestWithinConfinesCommands(t *testing.T) {
	for _, how := range bothWays {
		t.Run(string(how), func(t *testing.T) { testWithinConfinesCommands(t, how) })
	}
}

func testWithinConfinesCommands(t *testing.T, how via) {
	f := newFixture(t, Config{Writable: []string{"../outside"}})
	docs, later := filepath.Join(f.ws, "docs"), filepath.Join(f.ws, "later")
	f.writeFile(filepath.Join(docs, "api", "index.md"), "old\n")
	f.writeFile(filepath.Join(f.ws, "top.txt"), "top\n")
	v := f.sb.Within([]string{docs, later})
	run := func(script string) (string, int) {
		t.Helper()
		return runVia(t, v, how, f.ws, script, "HOME="+f.home)
	}

	out, code := run(`echo new > docs/new.md && echo changed > docs/api/index.md && mkdir docs/sub && echo t > "$TMPDIR/t" && cat docs/new.md "$TMPDIR/t"`)
	if code != 0 {
		t.Fatalf("writing under docs failed (exit %d):\n%s", code, out)
	}
	wantContains(t, out, "new", "t")
	if data, _ := os.ReadFile(filepath.Join(docs, "api", "index.md")); string(data) != "changed\n" {
		t.Errorf("docs/api/index.md holds %q", data)
	}

	before := snapshot(t, f.base)
	for _, script := range []string{
		"echo changed > top.txt",
		"touch new-at-the-top.txt",
		"mkdir src",
		"mkdir later",
		"mv docs/new.md moved.md",
		"echo pwned > ../outside/victim", // the parent's extra folder
		"rm -r docs && mkdir docs",
	} {
		if out, code := run(script); code == 0 {
			t.Errorf("%q succeeded through the view:\n%s", script, out)
		}
	}
	// rm -r docs may empty docs before it fails on docs itself; nothing else
	// may change.
	after := snapshot(t, f.base)
	for p := range before {
		if within(p, docs) {
			delete(before, p)
			delete(after, p)
		}
	}
	sameSnapshot(t, "outside the view's paths", before, after)

	// Once the folder exists, the next command may write in it.
	if err := os.Mkdir(later, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, code := run("echo now > later/file.txt"); code != 0 {
		t.Errorf("writing a path made later failed (exit %d):\n%s", code, out)
	}

	// The parent is not narrowed.
	if out, code := runVia(t, f.sb, how, f.ws, "echo changed > top.txt", "HOME="+f.home); code != 0 {
		t.Errorf("the parent sandbox was narrowed too (exit %d):\n%s", code, out)
	}
}

// TestWithinKeepsGitProtected checks that a view holding the whole
// workspace keeps its .git read-only with protect_git.
func TestWithinKeepsGitProtected(t *testing.T) {
	f := newFixture(t, Config{ProtectGit: true})
	f.writeFile(filepath.Join(f.ws, ".git", "config"), "[core]\n")
	f.writeFile(filepath.Join(f.ws, "src", "a.go"), "package a\n")
	v := f.sb.Within([]string{f.ws})
	gitBefore := snapshot(t, filepath.Join(f.ws, ".git"))
	if out, code := runVia(t, v, viaSpare, f.ws, "echo changed > src/a.go && echo ok", "HOME="+f.home); code != 0 {
		t.Errorf("writing the workspace failed (exit %d):\n%s", code, out)
	}
	for _, script := range []string{"echo x >> .git/config", "mkdir .git/hooks"} {
		if out, code := runVia(t, v, viaSpare, f.ws, script, "HOME="+f.home); code == 0 {
			t.Errorf("%q succeeded through the view with protect_git:\n%s", script, out)
		}
	}
	sameSnapshot(t, ".git", gitBefore, snapshot(t, filepath.Join(f.ws, ".git")))
}
