package workspace

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
)

// escapeEnv is an env with every kind of way out of the workspace in place.
func escapeEnv(t *testing.T) *env {
	e := newEnv(t)
	e.write("a.txt", "inside a\n")
	e.write("sub/b.txt", "inside b\n")
	writeAt(t, filepath.Join(e.outside, "secret.txt"), "secret\n")
	writeAt(t, filepath.Join(e.outside, "a.txt"), "outside a\n")
	writeAt(t, filepath.Join(e.outside, "deep", "c.txt"), "outside c\n")
	writeAt(t, filepath.Join(e.evil, "x.txt"), "evil\n")
	e.symlink(filepath.Join(e.outside, "secret.txt"), "link-out.txt")
	e.symlink(e.outside, "dir-out")
	e.symlink("../outside/deep", "rel-dir-out")
	e.symlink(filepath.Join(e.outside, "made-by-link.txt"), "dangling-out.txt")
	return e
}

// escapes are paths that must be denied, for tools that take a file.
func (e *env) escapes() []string {
	return []string{
		"../outside/secret.txt",
		"sub/../../outside/secret.txt",
		filepath.Join(e.outside, "secret.txt"),
		"link-out.txt",
		"dir-out/secret.txt",
		// rel-dir-out is outside/deep, so .. after it is outside: the text
		// "rel-dir-out/../a.txt" looks like ws/a.txt but is outside/a.txt.
		"rel-dir-out/../a.txt",
		filepath.Join(e.evil, "x.txt"),
		"../ws-evil/x.txt",
		filepath.Join(e.root, "..", "outside", "secret.txt"),
		filepath.Join(e.root, "dir-out", "secret.txt"),
	}
}

// folderEscapes are folder paths that must be denied.
func (e *env) folderEscapes() []string {
	return []string{"..", "../outside", e.outside, "/etc", "dir-out", "rel-dir-out/..", e.evil, "sub/../..", "/"}
}

func TestEscapesAreDeniedAndTouchNothing(t *testing.T) {
	e := escapeEnv(t)
	outsideBefore := snapshot(t, e.outside)
	evilBefore := snapshot(t, e.evil)
	wsBefore := snapshot(t, e.root)
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}

	for _, p := range append(e.escapes(), "/etc/passwd") {
		e.wantDenied(e.call("read_file", map[string]any{"path": p}), p)
		e.wantDenied(e.call("grep", map[string]any{"pattern": ".", "path": p}), p)
		// The old text cannot be in any of these files, so even if the
		// check failed, nothing would be changed.
		e.wantDenied(e.call("edit_file", map[string]any{"path": p, "old": "\x01never\x01", "new": "x"}), p)
	}
	for _, p := range e.escapes() {
		e.wantDenied(e.call("write_file", map[string]any{"path": p, "content": "pwned\n"}), p)
		e.wantDenied(e.call("edit_file", map[string]any{"path": p, "old": "secret", "new": "pwned"}), p)
	}
	// New files outside: through a link to a folder, through a dangling
	// link, beside the workspace, and in /etc.
	for _, p := range []string{
		"dir-out/new.txt", "dir-out/newdir/new.txt", "dangling-out.txt", "../new.txt",
		filepath.Join(e.evil, "new.txt"), "rel-dir-out/../new.txt", "/etc/agenttui-must-not-exist.txt",
		"rel-dir-out/missing/../new.txt",
	} {
		e.wantDenied(e.call("write_file", map[string]any{"path": p, "content": "pwned\n"}), p)
	}
	for _, p := range e.folderEscapes() {
		e.wantDenied(e.call("list_dir", map[string]any{"path": p}), p)
		e.wantDenied(e.call("grep", map[string]any{"pattern": "secret", "path": p}), p)
	}
	for _, p := range []string{"../*", "../outside/**", "/etc/*", e.outside + "/*", e.evil + "/*", "sub/../../*"} {
		e.wantDenied(e.call("glob", map[string]any{"pattern": p}), p)
	}

	sameSnapshot(t, outsideBefore, snapshot(t, e.outside))
	sameSnapshot(t, evilBefore, snapshot(t, e.evil))
	sameSnapshot(t, wsBefore, snapshot(t, e.root))
	if _, err := os.Lstat("/etc/agenttui-must-not-exist.txt"); !os.IsNotExist(err) {
		t.Error("/etc/agenttui-must-not-exist.txt was created")
	}
	if after, _ := os.ReadFile("/etc/passwd"); string(after) != string(passwd) {
		t.Error("/etc/passwd changed")
	}
}

func TestInsidePathsAreAllowed(t *testing.T) {
	e := escapeEnv(t)
	e.symlink("sub", "sub-link")
	e.symlink("a.txt", "a-link.txt")
	alias := filepath.Join(e.base, "ws-alias")
	if err := os.Symlink(e.root, alias); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"a.txt", "./a.txt", "sub/../a.txt", "sub-link/../a.txt", "a-link.txt",
		filepath.Join(e.root, "a.txt"), filepath.Join(alias, "a.txt"), "sub-link/b.txt/../../a.txt",
	} {
		if p == "sub-link/b.txt/../../a.txt" {
			// b.txt is a file, so the kernel cannot go through it.
			wantKind(t, e.call("read_file", map[string]any{"path": p}), tool.KindNotFound)
			continue
		}
		out := wantSuccess(t, e.call("read_file", map[string]any{"path": p}))
		if out != "     1\tinside a\n" {
			t.Errorf("read_file %s = %q", p, out)
		}
	}
	// The root itself, by every name.
	for _, p := range []string{".", "", e.root, alias, "sub/.."} {
		wantContains(t, wantSuccess(t, e.call("list_dir", map[string]any{"path": p})), "a.txt\n", "sub/\n")
	}
}

func TestResolve(t *testing.T) {
	e := escapeEnv(t)
	e.symlink("sub", "sub-link")
	e.symlink("loop1", "loop2")
	e.symlink("loop2", "loop1")
	cases := []struct {
		in, want string
		missing  bool
	}{
		{"a.txt", "a.txt", false},
		{"sub/../a.txt", "a.txt", false},
		{"sub-link/b.txt", "sub/b.txt", false},
		{"sub-link/../a.txt", "a.txt", false},
		{"new/dir/file.txt", "new/dir/file.txt", true},
		{"sub-link/new.txt", "sub/new.txt", true},
		{"./sub//b.txt", "sub/b.txt", false},
		{".", ".", false},
		{"", ".", false},
	}
	for _, c := range cases {
		res, err := e.ws.resolve(c.in)
		if err != nil {
			t.Errorf("resolve(%q): %v", c.in, err)
			continue
		}
		if res.rel != c.want || res.abs != filepath.Join(e.root, c.want) || res.missing != c.missing {
			t.Errorf("resolve(%q) = %+v, want rel %q missing %v", c.in, res, c.want, c.missing)
		}
	}
	// Our own check must refuse these, not only os.Root behind it.
	for _, p := range append(e.escapes(), e.evil, "/", "..") {
		var outside *outsideError
		if _, err := e.ws.resolve(p); !errors.As(err, &outside) {
			t.Errorf("resolve(%q) = %v, want outside the workspace", p, err)
		}
	}
	for p, want := range map[string]bool{e.root: true, e.root + "/x": true, e.evil: false, e.root + "x": false, e.base: false} {
		if got := e.ws.inside(p); got != want {
			t.Errorf("inside(%s) = %v, want %v", p, got, want)
		}
	}
	// If a link changes between the check and the operation, os.Root's
	// refusal is turned into the same denial.
	root, err := os.OpenRoot(e.root)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := root.Open("link-out.txt"); !escapedRoot(err) {
		t.Fatalf("os.Root error not recognised as an escape: %v", err)
	} else {
		e.wantDenied(e.ws.pathFailure(err, "link-out.txt", "link-out.txt", "missing"), "link-out.txt")
	}
	if _, err := e.ws.resolve("new/../a.txt"); err == nil {
		t.Error(".. after a missing folder must not resolve")
	}
	r := e.call("read_file", map[string]any{"path": "new/../a.txt"})
	wantKind(t, r, tool.KindInvalidArgs, "new/../a.txt cannot be used", "give a path without ..")
	r = e.call("read_file", map[string]any{"path": "a\x00.txt"})
	wantKind(t, r, tool.KindInvalidArgs, `path "a\u0000.txt" holds a NUL character, which no file name can contain`)
	r = e.call("read_file", map[string]any{"path": filepath.Join(e.root, "a.txt", "x")})
	wantKind(t, r, tool.KindNotFound, filepath.Join(e.root, "a.txt", "x")+" does not exist: part of the path is a file")
	r = e.call("read_file", map[string]any{"path": "loop1"})
	wantKind(t, r, tool.KindInvalidArgs, "too many symbolic links")
}

func TestNewRejectsBadRoots(t *testing.T) {
	dir := t.TempDir()
	if _, err := Tools(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing root must be refused")
	}
	file := filepath.Join(dir, "f")
	writeAt(t, file, "x")
	if _, err := Tools(file); err == nil {
		t.Error("a file root must be refused")
	}
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	w, err := New(filepath.Join(dir, "alias"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(real)
	if w.Root() != want {
		t.Errorf("Root() = %s, want the resolved %s", w.Root(), want)
	}
}

func TestFootprints(t *testing.T) {
	e := escapeEnv(t)
	e.symlink("a.txt", "a-link.txt")
	readA := e.footprint("read_file", map[string]any{"path": "a.txt"})
	readB := e.footprint("read_file", map[string]any{"path": "sub/b.txt"})
	writeC := e.footprint("write_file", map[string]any{"path": "new/c.txt", "content": "c"})
	writeA := e.footprint("write_file", map[string]any{"path": "a.txt", "content": "a"})
	editA := e.footprint("edit_file", map[string]any{"path": filepath.Join(e.root, "a.txt"), "old": "a", "new": "b"})

	if want := tool.Reads(tool.Paths(filepath.Join(e.root, "a.txt"))); !equalTouches(readA, want) {
		t.Errorf("read_file a.txt footprint = %v, want %v", readA, want)
	}
	if want := tool.Writes(tool.Paths(filepath.Join(e.root, "new", "c.txt"))); !equalTouches(writeC, want) {
		t.Errorf("write_file of a new file footprint = %v, want %v", writeC, want)
	}
	for _, pair := range [][2]tool.Touches{{readA, readB}, {readA, writeC}, {readB, writeC}} {
		if pair[0].ConflictsWith(pair[1]) {
			t.Errorf("%v and %v must not conflict", pair[0], pair[1])
		}
	}
	if !writeA.ConflictsWith(readA) || !editA.ConflictsWith(readA) || !writeA.ConflictsWith(editA) {
		t.Error("writing a.txt must conflict with reading or editing it")
	}
	for _, alias := range []string{"sub/../a.txt", "./a.txt", "a-link.txt", filepath.Join(e.root, "sub", "..", "a.txt")} {
		if got := e.footprint("read_file", map[string]any{"path": alias}); !equalTouches(got, readA) {
			t.Errorf("footprint of %s = %v, want %v", alias, got, readA)
		}
	}
	// Paths outside footprint as given; the call is denied when it runs.
	cases := map[string]string{
		"../outside/secret.txt": filepath.Join(e.outside, "secret.txt"),
		"/etc/passwd":           "/etc/passwd",
		"/etc/../etc/passwd":    "/etc/passwd",
		"link-out.txt":          filepath.Join(e.root, "link-out.txt"),
		"new/../x.txt":          filepath.Join(e.root, "x.txt"),
	}
	for in, want := range cases {
		if got := e.footprint("read_file", map[string]any{"path": in}); !equalTouches(got, tool.Reads(tool.Paths(want))) {
			t.Errorf("footprint of %s = %v, want reads %s", in, got, want)
		}
	}
	others := []struct {
		name string
		args map[string]any
		want tool.Touches
	}{
		{"list_dir", map[string]any{}, tool.Reads(tool.Paths(e.root))},
		{"glob", map[string]any{"pattern": "**/*.go"}, tool.Reads(tool.Paths(e.root))},
		{"grep", map[string]any{"pattern": "x"}, tool.Reads(tool.Paths(e.root))},
		{"run_shell", map[string]any{"command": "true"}, tool.Writes(tool.Anything())},
	}
	for _, c := range others {
		if got := e.footprint(c.name, c.args); !equalTouches(got, c.want) {
			t.Errorf("%s footprint = %v, want %v", c.name, got, c.want)
		}
	}
	if got := e.footprint("grep", map[string]any{"pattern": "x", "path": "sub"}); !equalTouches(got, tool.Reads(tool.Paths(filepath.Join(e.root, "sub")))) {
		t.Errorf("grep in sub footprint = %v", got)
	}
	if got := e.footprint("list_dir", map[string]any{"path": "sub/"}); !equalTouches(got, tool.Reads(tool.Paths(filepath.Join(e.root, "sub")))) {
		t.Errorf("list_dir sub/ footprint = %v", got)
	}
	// Deterministic for the same state.
	again := e.footprint("read_file", map[string]any{"path": "a.txt"})
	if !equalTouches(again, readA) {
		t.Error("footprints differ between two calls")
	}
	fp := e.tools["read_file"].(tool.Footprinter)
	if _, err := fp.Footprint(json.RawMessage(`{"path": 3}`)); err == nil {
		t.Error("undecodable arguments must be an error")
	}
}

func equalTouches(a, b tool.Touches) bool {
	a, b = a.Normalized(), b.Normalized()
	return a.Access == b.Access && a.Scope.IsAnything() == b.Scope.IsAnything() &&
		slices.Equal(a.Scope.PathList(), b.Scope.PathList())
}

func TestDeclarations(t *testing.T) {
	e := newEnv(t)
	var names []string
	for _, tl := range e.ws.Tools() {
		d := tl.Declaration()
		names = append(names, d.Name)
		if _, ok := tl.(tool.Footprinter); !ok {
			t.Errorf("%s is not a Footprinter", d.Name)
		}
		if len(d.Description) < 100 {
			t.Errorf("%s: description too short: %q", d.Name, d.Description)
		}
		var s struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(d.Parameters, &s); err != nil {
			t.Fatalf("%s: schema: %v", d.Name, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties || s.Required == nil {
			t.Errorf("%s: schema is not strict: %s", d.Name, d.Parameters)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %s is not a property", d.Name, r)
			}
		}
		readOnly := map[string]bool{"read_file": true, "list_dir": true, "glob": true, "grep": true, "web_fetch": true}[d.Name]
		if d.Annotations.ReadOnly != readOnly {
			t.Errorf("%s: ReadOnly = %v", d.Name, d.Annotations.ReadOnly)
		}
	}
	want := []string{"read_file", "list_dir", "glob", "grep", "write_file", "edit_file", "run_shell", "web_fetch"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	// Arguments the schema does not declare are refused, not ignored.
	r := e.call("read_file", `{"path": "a", "ofset": 3}`)
	wantKind(t, r, tool.KindInvalidArgs, "read_file did not run", "ofset")
}
