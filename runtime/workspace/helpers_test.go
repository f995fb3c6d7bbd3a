package workspace

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
)

// env is a workspace in a temporary folder, beside folders that lie outside
// it: base/ws is the workspace, base/outside and base/ws-evil are not.
type env struct {
	t       testing.TB
	base    string
	root    string
	outside string
	evil    string
	ws      *Workspace
	tools   map[string]tool.Tool
}

func newEnv(t testing.TB) *env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{
		t:       t,
		base:    base,
		root:    filepath.Join(base, "ws"),
		outside: filepath.Join(base, "outside"),
		evil:    filepath.Join(base, "ws-evil"),
		tools:   map[string]tool.Tool{},
	}
	for _, d := range []string{e.root, e.outside, e.evil} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The ignore rules read git's user and system configuration: keep the
	// machine's own out of the tests.
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "xdg"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	e.ws, err = New(e.root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range e.ws.Tools() {
		e.tools[tl.Declaration().Name] = tl
	}
	return e
}

// write creates the workspace file rel with content, and its folders.
func (e *env) write(rel, content string) {
	e.t.Helper()
	writeAt(e.t, filepath.Join(e.root, rel), content)
}

func writeAt(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read returns the content of the workspace file rel.
func (e *env) read(rel string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// symlink makes the workspace entry rel a symbolic link to target.
func (e *env) symlink(target, rel string) {
	e.t.Helper()
	if err := os.Symlink(target, filepath.Join(e.root, rel)); err != nil {
		e.t.Fatal(err)
	}
}

// call runs the tool name with args encoded as JSON.
func (e *env) call(name string, args any) tool.Return {
	e.t.Helper()
	return e.callCtx(context.Background(), name, args)
}

func (e *env) callCtx(ctx context.Context, name string, args any) tool.Return {
	e.t.Helper()
	tl, ok := e.tools[name]
	if !ok {
		e.t.Fatalf("no tool %s", name)
	}
	return tl.Call(ctx, mustJSON(e.t, args))
}

// footprint returns the footprint of a call to name with args.
func (e *env) footprint(name string, args any) tool.Touches {
	e.t.Helper()
	fp, ok := e.tools[name].(tool.Footprinter)
	if !ok {
		e.t.Fatalf("%s is not a Footprinter", name)
	}
	got, err := fp.Footprint(mustJSON(e.t, args))
	if err != nil {
		e.t.Fatalf("footprint of %s %v: %v", name, args, err)
	}
	return got
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	if raw, ok := v.(string); ok {
		return json.RawMessage(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// text returns the output of r, which the workspace tools always make a
// string.
func text(t testing.TB, r tool.Return) string {
	t.Helper()
	s, ok := r.Output.(string)
	if !ok {
		t.Fatalf("output is %T, not a string", r.Output)
	}
	return s
}

// wantSuccess fails unless r succeeded, and returns its text.
func wantSuccess(t *testing.T, r tool.Return) string {
	t.Helper()
	out := text(t, r)
	if !r.Outcome().IsSuccess() {
		t.Fatalf("outcome %v (%s), want success; output:\n%s", r.Outcome(), r.Outcome().Reason(), out)
	}
	return out
}

// wantKind fails unless r is an error of kind k whose output contains every
// string of want, and returns its text.
func wantKind(t *testing.T, r tool.Return, k tool.FailureKind, want ...string) string {
	t.Helper()
	out := text(t, r)
	if !r.Outcome().IsErrorKind(k) {
		t.Fatalf("outcome %v %v, want error %v; output:\n%s", r.Outcome(), r.Outcome().Failure(), k, out)
	}
	wantContains(t, out, want...)
	return out
}

// wantDenied fails unless r was denied as outside the workspace.
func (e *env) wantDenied(r tool.Return, given string) {
	e.t.Helper()
	out := text(e.t, r)
	if !r.Outcome().IsDenied() {
		e.t.Fatalf("%s: outcome %v, want denied; output:\n%s", given, r.Outcome(), out)
	}
	want := given + " is outside the workspace " + e.root + "; only files inside it can be read or changed"
	if out != want || r.Outcome().Reason() != want {
		e.t.Fatalf("%s: denial reads %q, want %q", given, out, want)
	}
}

func wantContains(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("output lacks %q:\n%s", w, out)
		}
	}
}

// snapshot returns every file under dir with its content, and every folder
// and link, so a test can check that nothing there changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			got[p] = "link:" + target
			return err
		case d.IsDir():
			got[p] = "dir"
		default:
			data, err := os.ReadFile(p)
			got[p] = "file:" + string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed: %q → %q", p, v, after[p])
		}
	}
	for p, v := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared: %q", p, v)
		}
	}
}
