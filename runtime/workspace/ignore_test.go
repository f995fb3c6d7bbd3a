package workspace

import (
	"path/filepath"
	"strings"
	"testing"
)

// ignoreEnv is a workspace that is a git repository with ignore files at
// several levels. Every file holds the word needle, so grep shows which
// files were searched.
func ignoreEnv(t *testing.T) *env {
	e := newEnv(t)
	e.write(".git/HEAD", "ref: refs/heads/main needle\n")
	e.write(".git/info/exclude", "# git's own, for this clone only\nexcluded.txt\n/local-only/\n")
	e.write(".gitignore", strings.Join([]string{
		"# logs, but not the one we keep",
		"*.log",
		"!keep.log",
		"/build/",       // anchored: only the root's build folder
		"out/",          // folders only: a file named out stays
		"!out/keep.txt", // cannot bring back a file of an ignored folder
		"cache",         // any level, file or folder
		"docs/*.tmp",    // a slash in the middle anchors it too
		"",
	}, "\n"))
	e.write("src/.gitignore", "!important.log\ngenerated/\n*.gen.go\r\n")
	e.write("src/deep/.ignore", "secret.txt\n!*.log\n")
	writeAt(t, filepath.Join(e.base, "xdg", "git", "ignore"), "*.swp\n")
	for _, f := range []string{
		"a.log", "keep.log", "excluded.txt", "local-only/x.txt", "build/b.txt", "out/o.txt", "out/keep.txt",
		"cache/c.txt", "docs/a.tmp", "docs/a.md",
		"src/main.go", "src/main.go.swp", "src/excluded.txt", "src/local-only/x.txt", "src/build/b.txt",
		"src/out", "src/cache", "src/docs/a.tmp", "src/important.log", "src/other.log",
		"src/generated/g.go", "src/x.gen.go",
		"src/deep/d.go", "src/deep/d.log", "src/deep/secret.txt",
	} {
		e.write(f, "needle\n")
	}
	return e
}

func TestIgnoreFilesInGlob(t *testing.T) {
	e := ignoreEnv(t)
	got := wantSuccess(t, e.call("glob", map[string]any{"pattern": "**"}))
	want := strings.Join([]string{
		".gitignore",
		"docs/",
		"docs/a.md",
		"keep.log", // !keep.log wins over *.log
		"src/",
		"src/.gitignore",
		"src/build/", // /build/ is anchored to the root
		"src/build/b.txt",
		"src/deep/",
		"src/deep/.ignore",
		"src/deep/d.go",
		"src/deep/d.log", // .ignore's !*.log wins over .gitignore's *.log
		"src/docs/",
		"src/docs/a.tmp",    // docs/*.tmp is anchored to the root
		"src/important.log", // the nested .gitignore's negation
		"src/local-only/",   // info/exclude's /local-only/ is anchored
		"src/local-only/x.txt",
		"src/main.go", // and not src/main.go.swp: the global excludes file
		"src/out",     // out/ matches folders only
		"… 14 ignored path(s) left out (.gitignore, .ignore or git's excludes): a.log, build/, cache/, docs/a.tmp, " +
			"excluded.txt and 9 more; call again with include_ignored: true to include them",
		"",
	}, "\n")
	if got != want {
		t.Errorf("glob **:\n%s\nwant:\n%s", got, want)
	}

	got = wantSuccess(t, e.call("glob", map[string]any{"pattern": "**/*.log"}))
	want = "keep.log\nsrc/deep/d.log\nsrc/important.log\n" +
		"… 7 ignored path(s) left out (.gitignore, .ignore or git's excludes): a.log, build/, cache/, local-only/, " +
		"out/ and 2 more; call again with include_ignored: true to include them\n"
	if got != want {
		t.Errorf("glob **/*.log:\n%s\nwant:\n%s", got, want)
	}

	// Nothing ignored can match: no note.
	if got := wantSuccess(t, e.call("glob", map[string]any{"pattern": "src/deep/*.go"})); got != "src/deep/d.go\n" {
		t.Errorf("glob src/deep/*.go: %q", got)
	}
	got = wantSuccess(t, e.call("glob", map[string]any{"pattern": "src/generated/*.go"}))
	want = "No paths match src/generated/*.go.\n… 1 ignored path(s) left out (.gitignore, .ignore or git's excludes): " +
		"src/generated/; call again with include_ignored: true to include them"
	if got != want {
		t.Errorf("glob of an ignored folder:\n%s\nwant:\n%s", got, want)
	}

	got = wantSuccess(t, e.call("glob", map[string]any{"pattern": "**/*.log", "include_ignored": true}))
	want = "a.log\nkeep.log\nsrc/deep/d.log\nsrc/important.log\nsrc/other.log\n"
	if got != want {
		t.Errorf("glob with include_ignored:\n%s\nwant:\n%s", got, want)
	}
	got = wantSuccess(t, e.call("glob", map[string]any{"pattern": "out/*", "include_ignored": true}))
	if got != "out/keep.txt\nout/o.txt\n" {
		t.Errorf("glob out/* with include_ignored: %q", got)
	}
}

func TestIgnoreFilesInListDir(t *testing.T) {
	e := ignoreEnv(t)
	got := wantSuccess(t, e.call("list_dir", map[string]any{}))
	want := ".gitignore\ndocs/\nkeep.log\nsrc/\n" +
		"… 6 ignored path(s) left out (.gitignore, .ignore or git's excludes): a.log, build/, cache/, excluded.txt, " +
		"local-only/ and 1 more; call again with include_ignored: true to list them\n"
	if got != want {
		t.Errorf("list_dir root:\n%s\nwant:\n%s", got, want)
	}
	got = wantSuccess(t, e.call("list_dir", map[string]any{"path": "src/deep"}))
	want = ".ignore\nd.go\nd.log\n… 1 ignored path(s) left out (.gitignore, .ignore or git's excludes): secret.txt; " +
		"call again with include_ignored: true to list them\n"
	if got != want {
		t.Errorf("list_dir src/deep:\n%s\nwant:\n%s", got, want)
	}
	// An ignored folder named outright is listed whole.
	if got := wantSuccess(t, e.call("list_dir", map[string]any{"path": "out"})); got != "keep.txt\no.txt\n" {
		t.Errorf("list_dir out: %q", got)
	}
	if got := wantSuccess(t, e.call("list_dir", map[string]any{"path": "src/generated"})); got != "g.go\n" {
		t.Errorf("list_dir src/generated: %q", got)
	}
	got = wantSuccess(t, e.call("list_dir", map[string]any{"path": "docs", "include_ignored": true}))
	if got != "a.md\na.tmp\n" {
		t.Errorf("list_dir docs with include_ignored: %q", got)
	}
	// A folder whose every entry is ignored.
	e.write("logs/x.log", "")
	got = wantSuccess(t, e.call("list_dir", map[string]any{"path": "logs"}))
	want = "(logs is empty)\n… 1 ignored path(s) left out (.gitignore, .ignore or git's excludes): x.log; " +
		"call again with include_ignored: true to list them"
	if got != want {
		t.Errorf("list_dir logs:\n%s\nwant:\n%s", got, want)
	}
}

func TestIgnoreFilesInGrep(t *testing.T) {
	e := ignoreEnv(t)
	got := wantSuccess(t, e.call("grep", map[string]any{"pattern": "needle"}))
	want := strings.Join([]string{
		"docs/a.md:1: needle",
		"keep.log:1: needle",
		"src/build/b.txt:1: needle",
		"src/deep/d.go:1: needle",
		"src/deep/d.log:1: needle",
		"src/docs/a.tmp:1: needle",
		"src/important.log:1: needle",
		"src/local-only/x.txt:1: needle",
		"src/main.go:1: needle",
		"src/out:1: needle",
		"… 14 ignored path(s) not searched (.gitignore, .ignore or git's excludes): a.log, build/, cache/, " +
			"docs/a.tmp, excluded.txt and 9 more; call again with include_ignored: true to search them",
		"",
	}, "\n")
	if got != want {
		t.Errorf("grep needle:\n%s\nwant:\n%s", got, want)
	}

	got = wantSuccess(t, e.call("grep", map[string]any{"pattern": "needle", "include": "*.log"}))
	want = "keep.log:1: needle\nsrc/deep/d.log:1: needle\nsrc/important.log:1: needle\n" +
		"… 7 ignored path(s) not searched (.gitignore, .ignore or git's excludes): a.log, build/, cache/, " +
		"local-only/, out/ and 2 more; call again with include_ignored: true to search them\n"
	if got != want {
		t.Errorf("grep include *.log:\n%s\nwant:\n%s", got, want)
	}

	got = wantSuccess(t, e.call("grep", map[string]any{"pattern": "needle", "include": "*.log", "include_ignored": true}))
	want = "a.log:1: needle\nkeep.log:1: needle\nsrc/deep/d.log:1: needle\nsrc/important.log:1: needle\nsrc/other.log:1: needle\n"
	if got != want {
		t.Errorf("grep with include_ignored:\n%s\nwant:\n%s", got, want)
	}

	// Paths named outright are searched whatever the ignore files say: an
	// ignored folder, a folder inside one, an ignored file.
	explicit := map[string]string{
		"build":         "build/b.txt:1: needle\n",
		"out":           "out/keep.txt:1: needle\nout/o.txt:1: needle\n",
		"src/generated": "src/generated/g.go:1: needle\n",
		"a.log":         "a.log:1: needle\n",
		"src/deep":      "src/deep/d.go:1: needle\nsrc/deep/d.log:1: needle\n… 1 ignored path(s) not searched (.gitignore, .ignore or git's excludes): src/deep/secret.txt; call again with include_ignored: true to search them\n",
	}
	for p, want := range explicit {
		if got := wantSuccess(t, e.call("grep", map[string]any{"pattern": "needle", "path": p})); got != want {
			t.Errorf("grep in %s:\n%s\nwant:\n%s", p, got, want)
		}
	}
	// read_file reads an ignored file.
	if got := wantSuccess(t, e.call("read_file", map[string]any{"path": "src/x.gen.go"})); got != "     1\tneedle\n" {
		t.Errorf("read_file of an ignored file: %q", got)
	}
}

// TestGlobalExcludesFile checks that core.excludesFile, when set, replaces
// the default global file.
func TestGlobalExcludesFile(t *testing.T) {
	e := newEnv(t)
	e.write("a.bak", "")
	e.write("a.swp", "")
	e.write("a.txt", "")
	writeAt(t, filepath.Join(e.base, "xdg", "git", "ignore"), "*.swp\n")
	if got := wantSuccess(t, e.call("glob", map[string]any{"pattern": "*"})); !strings.HasPrefix(got, "a.bak\na.txt\n… 1 ignored") {
		t.Errorf("default global excludes file: %q", got)
	}
	writeAt(t, filepath.Join(e.base, "home", ".gitconfig"), "[core]\n\texcludesFile = ~/my-ignores\n")
	writeAt(t, filepath.Join(e.base, "home", "my-ignores"), "*.bak\n")
	if got := wantSuccess(t, e.call("glob", map[string]any{"pattern": "*"})); !strings.HasPrefix(got, "a.swp\na.txt\n… 1 ignored") {
		t.Errorf("core.excludesFile: %q", got)
	}
}

// TestIgnoreFilesAboveTheWorkspace covers a workspace that is a folder of a
// repository: the ignore files between the repository root and the
// workspace apply, anchored where they are, unless they ignore the
// workspace itself.
func TestIgnoreFilesAboveTheWorkspace(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "xdg"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := filepath.Join(base, "repo")
	writeAt(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeAt(t, filepath.Join(repo, ".git", "info", "exclude"), "*.tmp\n")
	writeAt(t, filepath.Join(repo, ".gitignore"), "*.log\n/pkg/app/gen/\n/pkg/app/top.txt\nbuild/\n")
	writeAt(t, filepath.Join(repo, "pkg", ".gitignore"), "*.o\n")
	for _, f := range []string{"a.log", "a.o", "a.tmp", "a.go", "gen/g.go", "sub/gen/g.go", "top.txt", "sub/top.txt"} {
		writeAt(t, filepath.Join(repo, "pkg", "app", f), "")
	}
	got := globAt(t, filepath.Join(repo, "pkg", "app"), "**/*")
	want := "a.go\nsub/\nsub/gen/\nsub/gen/g.go\nsub/top.txt\n" +
		"… 5 ignored path(s) left out (.gitignore, .ignore or git's excludes): a.log, a.o, a.tmp, gen/, top.txt; " +
		"call again with include_ignored: true to include them\n"
	if got != want {
		t.Errorf("glob in pkg/app:\n%s\nwant:\n%s", got, want)
	}

	// A workspace inside a folder its repository ignores: the repository's
	// rules would hide everything, so they are left aside.
	writeAt(t, filepath.Join(repo, "build", "out", "x.log"), "")
	writeAt(t, filepath.Join(repo, "build", "out", ".gitignore"), "*.txt\n")
	writeAt(t, filepath.Join(repo, "build", "out", "x.txt"), "")
	if got := globAt(t, filepath.Join(repo, "build", "out"), "*"); !strings.HasPrefix(got, ".gitignore\nx.log\n… 1 ignored") {
		t.Errorf("glob in an ignored folder:\n%s", got)
	}
}

// TestIgnoreFilesOfLinkedWorktree checks that a linked worktree, whose .git
// is a file naming its git folder, reads info/exclude from the common git
// folder.
func TestIgnoreFilesOfLinkedWorktree(t *testing.T) {
	e := newEnv(t)
	common := filepath.Join(e.base, "main.git")
	writeAt(t, filepath.Join(common, "info", "exclude"), "*.secret\n")
	writeAt(t, filepath.Join(common, "worktrees", "ws", "commondir"), "../..\n")
	e.write(".git", "gitdir: "+filepath.Join(common, "worktrees", "ws")+"\n")
	e.write("a.secret", "")
	e.write("a.txt", "")
	if got := wantSuccess(t, e.call("glob", map[string]any{"pattern": "*"})); !strings.HasPrefix(got, "a.txt\n… 1 ignored path(s) left out") {
		t.Errorf("glob in a linked worktree: %q", got)
	}
}

// TestIgnoreFileLinksAreNotFollowed: git reads no ignore file through a
// symbolic link, and a link must not lead the walk outside either.
func TestIgnoreFileLinksAreNotFollowed(t *testing.T) {
	e := newEnv(t)
	writeAt(t, filepath.Join(e.outside, "rules"), "*.txt\n")
	e.symlink(filepath.Join(e.outside, "rules"), ".gitignore")
	e.write("a.txt", "")
	if got := wantSuccess(t, e.call("glob", map[string]any{"pattern": "*.txt"})); got != "a.txt\n" {
		t.Errorf("a linked .gitignore was read: %q", got)
	}
}

// globAt runs glob in a workspace rooted at dir.
func globAt(t *testing.T, dir, pattern string) string {
	t.Helper()
	w, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range w.Tools() {
		if tl.Declaration().Name == "glob" {
			return wantSuccess(t, tl.Call(t.Context(), mustJSON(t, map[string]any{"pattern": pattern})))
		}
	}
	t.Fatal("no glob tool")
	return ""
}
