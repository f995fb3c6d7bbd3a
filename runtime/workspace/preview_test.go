package workspace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
)

// preview asks the tool name for the preview of args.
func (e *env) preview(name string, args any) tool.Preview {
	e.t.Helper()
	pv, ok := e.tools[name].(tool.Previewer)
	if !ok {
		e.t.Fatalf("%s does not preview its calls", name)
	}
	p, err := pv.Preview(context.Background(), mustJSON(e.t, args))
	if err != nil {
		e.t.Fatalf("preview of %s: %v", name, err)
	}
	if !strings.HasPrefix(p.Digest, "sha256:") {
		e.t.Fatalf("preview of %s has no digest: %+v", name, p)
	}
	return p
}

func TestOnlyChangingToolsPreview(t *testing.T) {
	e := newEnv(t)
	for name, tl := range e.tools {
		_, previews := tl.(tool.Previewer)
		_, revises := tl.(tool.Reviser)
		wantPreview := name == "write_file" || name == "edit_file" || name == "run_shell"
		wantRevise := name == "write_file" || name == "edit_file"
		if previews != wantPreview || revises != wantRevise {
			t.Errorf("%s: previews %v revises %v", name, previews, revises)
		}
	}
}

func TestPreviewOfAnEdit(t *testing.T) {
	e := newEnv(t)
	e.write("pager.go", "package pager\n\nfunc Pages(total, size int) int {\n\treturn total / size\n}\n")
	args := map[string]any{"path": "pager.go", "old": "return total / size", "new": "return (total + size - 1) / size"}
	p := e.preview("edit_file", args)
	if p.Kind != tool.PreviewFile || p.Path != "pager.go" || p.Created || p.Overwrite || p.Problem != "" {
		t.Fatalf("preview %+v", p)
	}
	if !strings.Contains(p.Old, "return total / size") || !strings.Contains(p.New, "return (total + size - 1) / size") {
		t.Errorf("old %q new %q", p.Old, p.New)
	}
	if p.Added != 1 || p.Removed != 1 || p.Summary() != "+1 −1" || p.OldLines != 5 || p.NewLines != 5 {
		t.Errorf("stat %+v, summary %q", p, p.Summary())
	}
	// The preview changed nothing, and it is what the call does.
	if got := e.read("pager.go"); got != p.Old {
		t.Fatalf("the preview changed the file: %q", got)
	}
	wantSuccess(t, e.call("edit_file", args))
	if got := e.read("pager.go"); got != p.New {
		t.Errorf("the call wrote %q, the preview showed %q", got, p.New)
	}
	// The same preview now would fail, and says why.
	again := e.preview("edit_file", args)
	if !strings.HasPrefix(again.Summary(), "would fail: old text not found in pager.go") || again.Digest == p.Digest {
		t.Errorf("after the edit: %q %s", again.Summary(), again.Digest)
	}
}

func TestPreviewOfWrites(t *testing.T) {
	e := newEnv(t)
	created := e.preview("write_file", map[string]any{"path": "docs/new.md", "content": "a\nb\nc\n"})
	if !created.Created || created.Old != "" || created.Summary() != "new file, 3 lines" || created.Added != 3 {
		t.Errorf("new file: %+v %q", created, created.Summary())
	}
	if _, err := os.Stat(filepath.Join(e.root, "docs")); !os.IsNotExist(err) {
		t.Fatalf("the preview made the folder: %v", err)
	}
	e.write("big.txt", strings.Repeat("line\n", 40))
	over := e.preview("write_file", map[string]any{"path": "big.txt", "content": "line\nLINE\n"})
	if !over.Overwrite || over.Summary() != "overwrites 40 lines (+1 −39)" {
		t.Errorf("overwrite: %q", over.Summary())
	}
	same := e.preview("write_file", map[string]any{"path": "big.txt", "content": strings.Repeat("line\n", 40)})
	if same.Summary() != "no change" || same.Changed() {
		t.Errorf("same content: %q", same.Summary())
	}
}

func TestPreviewDigestFollowsTheFile(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "one\n")
	args := map[string]any{"path": "a.txt", "content": "two\n"}
	first := e.preview("write_file", args)
	if e.preview("write_file", args).Digest != first.Digest {
		t.Fatal("two previews of the same state differ")
	}
	e.write("a.txt", "ONE\n")
	if e.preview("write_file", args).Digest == first.Digest {
		t.Fatal("the digest did not change when the file did")
	}
	if e.preview("write_file", map[string]any{"path": "a.txt", "content": "three\n"}).Digest == first.Digest {
		t.Fatal("the digest did not change with the proposed content")
	}
}

func TestPreviewBounds(t *testing.T) {
	e := newEnv(t)
	huge := strings.Repeat("x", tool.MaxPreviewBytes+1)
	e.write("huge.txt", huge)
	p := e.preview("edit_file", map[string]any{"path": "huge.txt", "old": "xx", "new": "y"})
	if !p.TooLarge || p.Old != "" || p.Summary() != "too large to preview: 1 MiB" {
		t.Errorf("huge edit: %q", p.Summary())
	}
	w := e.preview("write_file", map[string]any{"path": "new.txt", "content": strings.Repeat("z", 3<<20)})
	if !w.TooLarge || w.New != "" || w.Summary() != "too large to preview: 3 MiB" {
		t.Errorf("huge write: %q", w.Summary())
	}
	// A change to a file too large to read still changes the digest.
	e.write("huge.txt", huge+"more")
	if q := e.preview("edit_file", map[string]any{"path": "huge.txt", "old": "xx", "new": "y"}); q.Digest == p.Digest {
		t.Error("the digest of a large file did not follow it")
	}

	e.write("blob.bin", "\x00\x01\x02binary")
	b := e.preview("write_file", map[string]any{"path": "blob.bin", "content": "text now\n"})
	if !b.Binary || b.Old != "" || b.Summary() != "binary file, 9 B" {
		t.Errorf("binary: %q", b.Summary())
	}
	eb := e.preview("edit_file", map[string]any{"path": "blob.bin", "old": "binary", "new": "x"})
	if !strings.Contains(eb.Summary(), "looks like a binary file") {
		t.Errorf("edit of binary: %q", eb.Summary())
	}
}

func TestPreviewProblems(t *testing.T) {
	e := newEnv(t)
	e.write("dup.txt", "a\na\n")
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"edit_file", map[string]any{"path": "missing.txt", "old": "a", "new": "b"}, "would fail: missing.txt does not exist"},
		{"edit_file", map[string]any{"path": "dup.txt", "old": "a", "new": "b"}, "would fail: old text appears 2 times in dup.txt"},
		{"edit_file", map[string]any{"path": "../outside/x", "old": "a", "new": "b"}, "would fail: the path is outside the workspace"},
		{"write_file", map[string]any{"path": "/etc/passwd", "content": "x"}, "would fail: the path is outside the workspace"},
		{"write_file", map[string]any{"path": ".", "content": "x"}, "would fail: the path names the workspace folder itself"},
	} {
		if got := e.preview(tc.name, tc.args).Summary(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestPreviewOfAShellCommand(t *testing.T) {
	e := newEnv(t)
	p := e.preview("run_shell", map[string]any{"command": "go test ./...", "timeout_s": 900})
	if p.Kind != tool.PreviewCommand || p.Command != "go test ./..." || p.Dir != "." || p.TimeoutS != 600 {
		t.Errorf("preview %+v", p)
	}
	if d := e.preview("run_shell", map[string]any{"command": "ls"}); d.TimeoutS != 120 || d.Digest == p.Digest {
		t.Errorf("default: %+v", d)
	}
}

// TestReviseEdit checks that a person's version of an edited file becomes
// edit_file arguments that leave exactly that version.
func TestReviseEdit(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "one\ntwo\nthree\ntwo\nfour\n")
	args := map[string]any{"path": "a.txt", "old": "three", "new": "3"}
	shown := e.preview("edit_file", args)
	mine := "one\ntwo\nTHREE\ntwo\nfour\nfive\n"
	raw, _, err := e.tools["edit_file"].(tool.Reviser).Revise(mustJSON(t, args), shown, mine)
	if err != nil {
		t.Fatal(err)
	}
	r := e.tools["edit_file"].Call(context.Background(), raw)
	wantSuccess(t, r)
	if got := e.read("a.txt"); got != mine {
		t.Fatalf("file %q, want %q (args %s)", got, mine, raw)
	}

	w := map[string]any{"path": "b.txt", "content": "model\n"}
	raw, _, err = e.tools["write_file"].(tool.Reviser).Revise(mustJSON(t, w), e.preview("write_file", w), "person\n")
	if err != nil {
		t.Fatal(err)
	}
	wantSuccess(t, e.tools["write_file"].Call(context.Background(), raw))
	if got := e.read("b.txt"); got != "person\n" {
		t.Fatalf("b.txt %q", got)
	}
}

// TestReplacementProperty checks Replacement on random files and random
// changes: the old text occurs once, and replacing it gives what was
// wanted.
func TestReplacementProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "x", "", "a\n", "\n", "b\nb\n", "\r\n"}
	gen := func(n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteString(words[r.IntN(len(words))])
		}
		return sb.String()
	}
	for i := range 5000 {
		cur := gen(1 + r.IntN(12))
		want := gen(r.IntN(12))
		if cur == want || cur == "" {
			continue
		}
		old, repl, err := Replacement(cur, want)
		if err != nil {
			t.Fatalf("case %d: %q → %q: %v", i, cur, want, err)
		}
		if strings.Count(cur, old) != 1 {
			t.Fatalf("case %d: %q occurs %d times in %q", i, old, strings.Count(cur, old), cur)
		}
		if got := strings.Replace(cur, old, repl, 1); got != want {
			t.Fatalf("case %d: %q → %q gave %q (old %q new %q)", i, cur, want, got, old, repl)
		}
	}
	if _, _, err := Replacement("", "x"); err == nil {
		t.Error("an empty file has no text to replace")
	}
}

func TestLineStat(t *testing.T) {
	for _, tc := range []struct {
		old, new     string
		added, remov int
	}{
		{"a\nb\n", "a\nb\n", 0, 0},
		{"a\nb\n", "a\nB\n", 1, 1},
		{"a\nb", "a\nb\n", 1, 1},
		{"", "x\ny\n", 2, 0},
		{"x\ny\n", "", 0, 2},
		{"a\r\nb\r\n", "a\nb\n", 2, 2},
	} {
		a, r := LineStat(tc.old, tc.new)
		if a != tc.added || r != tc.remov {
			t.Errorf("%q → %q: +%d −%d, want +%d −%d", tc.old, tc.new, a, r, tc.added, tc.remov)
		}
	}
}

// BenchmarkPreviewLargeEdit previews a write to a 10,000-line file with 20
// scattered changes: reading the file, the line statistics and the digest.
func BenchmarkPreviewLargeEdit(b *testing.B) {
	e := newEnv(b)
	var old, new strings.Builder
	for i := range 10000 {
		line := fmt.Sprintf("\tvalue%d := compute(%d) // a line of ordinary Go code\n", i, i)
		old.WriteString(line)
		if i%500 == 250 {
			line = fmt.Sprintf("\tvalue%d := computeBetter(%d, true)\n", i, i)
		}
		new.WriteString(line)
	}
	e.write("big.go", old.String())
	args := mustJSON(b, map[string]any{"path": "big.go", "content": new.String()})
	pv := e.tools["write_file"].(tool.Previewer)
	b.ReportAllocs()
	for b.Loop() {
		p, err := pv.Preview(context.Background(), args)
		if err != nil || p.Added != 20 || p.Removed != 20 {
			b.Fatalf("%v %+v", err, p.Summary())
		}
	}
}
