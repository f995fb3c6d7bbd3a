//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestProtectedHookFiles protects a trusted hook's script deep in the
// workspace and one at its root, as a session does once the person trusts
// the workspace's hooks: sandboxed commands cannot write, truncate, rename
// over, replace, delete or move them, whichever way the command started,
// but they still change the files beside them and the rest of the
// workspace.
func TestProtectedHookFiles(t *testing.T) {
	for _, how := range bothWays {
		t.Run(string(how), func(t *testing.T) {
			f := newFixture(t, Config{})
			f.via = how
			pre := filepath.Join(f.ws, "hooks", "pre.sh")
			root := filepath.Join(f.ws, "hook.sh")
			f.writeFile(pre, "#!/bin/sh\nexit 0\n")
			f.writeFile(root, "exit 0\n")
			f.writeFile(filepath.Join(f.ws, "hooks", "other.sh"), "exit 0\n")
			f.writeFile(filepath.Join(f.ws, "hooks", "lib", "util.sh"), "exit 0\n")
			f.writeFile(filepath.Join(f.ws, "src", "a.go"), "package a\n")
			f.sb.SetProtected([]string{pre, root})
			hooksBefore := snapshot(t, filepath.Join(f.ws, "hooks"))
			delete(hooksBefore, filepath.Join(f.ws, "hooks", "other.sh"))
			delete(hooksBefore, filepath.Join(f.ws, "hooks", "lib", "util.sh"))
			rootBefore, _ := os.ReadFile(root)

			for _, script := range []string{
				"echo 'touch pwned' >> hooks/pre.sh",
				": > hooks/pre.sh",
				"echo evil > hook.sh",
				"sed -i s/0/1/ hooks/pre.sh",
				"mv hooks/other.sh hooks/pre.sh",
				"cp hooks/other.sh hook.sh",
				"rm -f hooks/pre.sh",
				"rm -f hook.sh",
				"ln -sf other.sh hooks/pre.sh",
				"mv hooks hooks.old",
				"rm -rf hooks",
				"mv hooks/pre.sh src/",
			} {
				f.mustFail(script)
			}
			after := snapshot(t, filepath.Join(f.ws, "hooks"))
			for p, v := range hooksBefore {
				if after[p] != v {
					t.Errorf("%s changed: %q → %q", p, v, after[p])
				}
			}
			if data, _ := os.ReadFile(root); string(data) != string(rootBefore) {
				t.Errorf("the protected hook.sh at the root changed: %q", data)
			}

			// Beside them, the workspace works as before, but that nothing
			// can be made directly in a folder on the way to a protected
			// file.
			f.mustSucceed("echo changed > hooks/other.sh && echo more >> hooks/lib/util.sh && mkdir hooks/lib/new && echo n > hooks/lib/new/f")
			f.mustSucceed("echo changed > src/a.go && mkdir -p src/b && mv src/a.go src/b/a.go && rm src/b/a.go")
			f.mustFail("touch hooks/new.sh")
			f.mustFail("touch new-at-the-top")
		})
	}
}

// TestProtectedIsReported checks what the sandbox says of protected files:
// Protected lists them (resolved through a link, and beside .git), CanWrite
// refuses them and new entries beside them, a view holding them protects
// them too, and SetProtected replaces the set.
func TestProtectedIsReported(t *testing.T) {
	f := newFixture(t, Config{ProtectGit: true})
	pre := filepath.Join(f.ws, "scripts", "pre.sh")
	f.writeFile(pre, "exit 0\n")
	if err := os.Symlink("scripts", filepath.Join(f.ws, "hooks")); err != nil {
		t.Fatal(err)
	}
	git := filepath.Join(f.ws, ".git")
	f.sb.SetProtected([]string{filepath.Join(f.ws, "hooks", "pre.sh"), filepath.Join(f.ws, "scripts"), filepath.Join(f.ws, "none.sh"), "/etc/passwd"})
	want := []string{git, filepath.Join(f.ws, "hooks", "pre.sh"), pre}
	if got := f.sb.Protected(); !slices.Equal(got, want) {
		t.Errorf("protected %q; want %q", got, want)
	}
	if f.sb.CanWrite(pre) || f.sb.CanWrite(filepath.Join(f.ws, "scripts", "new.sh")) || f.sb.CanWrite(filepath.Join(f.ws, "new")) {
		t.Error("CanWrite allows a protected file, or a new one beside it")
	}
	if !f.sb.CanWrite(filepath.Join(f.ws, "scripts")) {
		t.Error("CanWrite refuses the folder that holds a protected file, which exists and whose contents may change")
	}
	if got := f.sb.Within([]string{filepath.Join(f.ws, "scripts")}).Protected(); !slices.Equal(got, []string{pre}) {
		t.Errorf("a view of the folder protects %q", got)
	}
	f.mustFail("echo x > scripts/pre.sh")
	f.sb.SetProtected(nil)
	if got := f.sb.Protected(); !slices.Equal(got, []string{git}) {
		t.Errorf("after SetProtected(nil): %q", got)
	}
	f.mustSucceed("echo x > scripts/pre.sh")
}
