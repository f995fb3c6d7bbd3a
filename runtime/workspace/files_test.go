package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
)

// numbered returns lines from..to of a file whose line i is "line i", as
// read_file shows them.
func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", i, i)
	}
	return b.String()
}

func linesFile(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	e := newEnv(t)
	e.write("five.txt", linesFile(5))
	e.write("no-newline.txt", "one\ntwo")
	e.write("empty.txt", "")

	if got := wantSuccess(t, e.call("read_file", map[string]any{"path": "five.txt"})); got != numbered(1, 5) {
		t.Errorf("whole file:\n%s", got)
	}
	if got := wantSuccess(t, e.call("read_file", map[string]any{"path": "no-newline.txt"})); got != "     1\tone\n     2\ttwo\n" {
		t.Errorf("last line without newline: %q", got)
	}
	got := wantSuccess(t, e.call("read_file", map[string]any{"path": "five.txt", "offset": 2, "limit": 2}))
	want := numbered(2, 3) + "… showed lines 2-3 of 5; call read_file with offset=4 to read more\n"
	if got != want {
		t.Errorf("offset and limit:\n%s\nwant:\n%s", got, want)
	}
	if got := wantSuccess(t, e.call("read_file", map[string]any{"path": "five.txt", "offset": 4})); got != numbered(4, 5) {
		t.Errorf("offset to the end:\n%s", got)
	}
	if got := wantSuccess(t, e.call("read_file", map[string]any{"path": "empty.txt"})); got != "(empty.txt is empty)" {
		t.Errorf("empty file: %q", got)
	}
	wantKind(t, e.call("read_file", map[string]any{"path": "five.txt", "offset": 6}), tool.KindInvalidArgs,
		"offset 6 is past the end of five.txt, which has 5 lines")
	wantKind(t, e.call("read_file", map[string]any{"path": "no-newline.txt", "offset": 3}), tool.KindInvalidArgs,
		"offset 3 is past the end of no-newline.txt, which has 2 lines")
	e.write("one.txt", "only\n")
	wantKind(t, e.call("read_file", map[string]any{"path": "one.txt", "offset": 2}), tool.KindInvalidArgs,
		"offset 2 is past the end of one.txt, which has 1 line")
	wantKind(t, e.call("read_file", map[string]any{"path": "missing.txt"}), tool.KindNotFound,
		"missing.txt does not exist (no such file); use list_dir or glob")
	wantKind(t, e.call("read_file", map[string]any{"path": "five.txt/x"}), tool.KindNotFound, "part of the path is a file")
	if err := os.Mkdir(filepath.Join(e.root, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantKind(t, e.call("read_file", map[string]any{"path": "folder"}), tool.KindInvalidArgs, "folder is a folder, not a file; use list_dir")
	wantKind(t, e.call("read_file", map[string]any{"path": "."}), tool.KindInvalidArgs, "is a folder")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantKind(t, e.callCtx(ctx, "read_file", map[string]any{"path": "five.txt"}), tool.KindCancelled, "cancelled")
}

func TestReadFileCutsLargeFiles(t *testing.T) {
	e := newEnv(t)
	e.write("big.txt", linesFile(5400))
	got := wantSuccess(t, e.call("read_file", map[string]any{"path": "big.txt"}))
	note := "… cut at line 2000 of 5400 (read_file shows at most 2000 lines or 256 KiB per call); " +
		"call read_file with offset=2001 to read more\n"
	if got != numbered(1, 2000)+note {
		t.Errorf("large file ends with %q", got[max(0, len(got)-300):])
	}
	// Following the note reads on, and a large limit is capped.
	got = wantSuccess(t, e.call("read_file", map[string]any{"path": "big.txt", "offset": 2001, "limit": 5000}))
	if !strings.HasPrefix(got, numbered(2001, 2001)) || !strings.HasSuffix(got, "call read_file with offset=4001 to read more\n") {
		t.Errorf("second page: starts %q, ends %q", got[:20], got[len(got)-80:])
	}
	got = wantSuccess(t, e.call("read_file", map[string]any{"path": "big.txt", "offset": 4001}))
	if got != numbered(4001, 5400) {
		t.Errorf("last page ends %q", got[len(got)-80:])
	}

	// 1000-byte lines reach the byte cap long before the line cap.
	long := strings.Repeat("x", 1000)
	e.write("wide.txt", strings.Repeat(long+"\n", 1000))
	got = wantSuccess(t, e.call("read_file", map[string]any{"path": "wide.txt"}))
	if len(got) > readMaxBytes+300 {
		t.Errorf("output is %d bytes, over the cap", len(got))
	}
	shown := strings.Count(got, long)
	wantContains(t, got, fmt.Sprintf("… cut at line %d of 1000", shown), fmt.Sprintf("offset=%d to read more", shown+1))
	if shown < 200 || shown >= 1000 {
		t.Errorf("%d lines shown", shown)
	}

	// A single long line is cut, and the note says where to see it whole.
	e.write("line.txt", "short\n"+strings.Repeat("é", 5000)+"\nend\n")
	got = wantSuccess(t, e.call("read_file", map[string]any{"path": "line.txt"}))
	wantContains(t, got, "     1\tshort\n", "… [line cut: 10000 bytes in all]\n", "     3\tend\n", "1 long line(s) were cut at 4096 bytes")
	if strings.Contains(got, "\uFFFD") {
		t.Error("a long line was cut in the middle of a character")
	}
}

func TestReadFileRefusesBinaryAndSpecialFiles(t *testing.T) {
	e := newEnv(t)
	e.write("nul.bin", "ELF\x00\x01\x02 text after")
	e.write("latin.bin", strings.Repeat("\xff\xfe\xe9", 100))
	e.write("mostly-text.txt", "caf\xe9 au lait, "+strings.Repeat("plain ascii text ", 20)+"\n")
	wantKind(t, e.call("read_file", map[string]any{"path": "nul.bin"}), tool.KindInvalidArgs,
		"nul.bin looks like a binary file (it contains NUL bytes)")
	wantKind(t, e.call("read_file", map[string]any{"path": "latin.bin"}), tool.KindInvalidArgs,
		"latin.bin looks like a binary file (most of it is not UTF-8 text)")
	// A stray invalid byte in text does not make it binary.
	wantContains(t, wantSuccess(t, e.call("read_file", map[string]any{"path": "mostly-text.txt"})), "caf\uFFFD au lait")

	// A named pipe must be refused, not block the call.
	if err := syscall.Mkfifo(filepath.Join(e.root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantKind(t, e.call("read_file", map[string]any{"path": "fifo"}), tool.KindInvalidArgs, "fifo is not a regular file (it is a named pipe)")
	wantKind(t, e.call("edit_file", map[string]any{"path": "fifo", "old": "a", "new": "b"}), tool.KindInvalidArgs, "named pipe")
	wantKind(t, e.call("write_file", map[string]any{"path": "fifo", "content": "x"}), tool.KindInvalidArgs, "not a regular file")
}

func TestReadFilePermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	e := newEnv(t)
	e.write("private.txt", "x\n")
	if err := os.Chmod(filepath.Join(e.root, "private.txt"), 0); err != nil {
		t.Fatal(err)
	}
	wantKind(t, e.call("read_file", map[string]any{"path": "private.txt"}), tool.KindPermissionDenied, "permission denied")
}

func TestWriteFile(t *testing.T) {
	e := newEnv(t)
	got := wantSuccess(t, e.call("write_file", map[string]any{"path": "a/b/c.txt", "content": "one\ntwo"}))
	if got != "Created a/b/c.txt: 7 bytes, 2 lines." {
		t.Errorf("create: %q", got)
	}
	if e.read("a/b/c.txt") != "one\ntwo" {
		t.Error("content not written")
	}
	info, _ := os.Stat(filepath.Join(e.root, "a/b/c.txt"))
	if perm := info.Mode().Perm(); perm&0o600 != 0o600 || perm&0o111 != 0 || perm&^0o644 != 0 {
		t.Errorf("new file mode %v, want 0644 less the umask", perm)
	}

	e.write("script.sh", "old\n")
	if err := os.Chmod(filepath.Join(e.root, "script.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	got = wantSuccess(t, e.call("write_file", map[string]any{"path": filepath.Join(e.root, "script.sh"), "content": "new\n"}))
	if got != "Replaced script.sh: 4 bytes, 1 line." {
		t.Errorf("replace: %q", got)
	}
	info, _ = os.Stat(filepath.Join(e.root, "script.sh"))
	if info.Mode().Perm() != 0o750 || e.read("script.sh") != "new\n" {
		t.Errorf("replace lost the mode (%v) or content", info.Mode().Perm())
	}
	if got := wantSuccess(t, e.call("write_file", map[string]any{"path": "empty.txt", "content": ""})); got != "Created empty.txt: 0 bytes, 0 lines." {
		t.Errorf("empty: %q", got)
	}

	// Writing through a link inside the workspace changes its target and
	// keeps the link.
	e.write("target.txt", "t\n")
	e.symlink("target.txt", "link.txt")
	wantSuccess(t, e.call("write_file", map[string]any{"path": "link.txt", "content": "via link\n"}))
	if e.read("target.txt") != "via link\n" {
		t.Error("target not written through the link")
	}
	if fi, _ := os.Lstat(filepath.Join(e.root, "link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}

	wantKind(t, e.call("write_file", map[string]any{"path": "a/b", "content": "x"}), tool.KindInvalidArgs, "a/b is a folder")
	wantKind(t, e.call("write_file", map[string]any{"path": ".", "content": "x"}), tool.KindInvalidArgs, "is a folder")
	wantKind(t, e.call("write_file", map[string]any{"path": "script.sh/x.txt", "content": "x"}), tool.KindInvalidArgs,
		"part of its path is a file, not a folder")
	wantKind(t, e.call("write_file", map[string]any{"path": "missing/../x.txt", "content": "x"}), tool.KindInvalidArgs,
		"give a path without ..")
	noTempFiles(t, e.root)
}

// noTempFiles fails if a temporary file of an atomic write was left behind.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".tmp") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestEditFile(t *testing.T) {
	e := newEnv(t)
	const orig = "package main\n\nfunc a() {}\nfunc b() {}\nfunc a2() {}\n"
	e.write("m.go", orig)
	if err := os.Chmod(filepath.Join(e.root, "m.go"), 0o600); err != nil {
		t.Fatal(err)
	}

	got := wantSuccess(t, e.call("edit_file", map[string]any{"path": "m.go", "old": "func b() {}", "new": "func b() { return }"}))
	if got != "Edited m.go: replaced 1 occurrence at line 4." {
		t.Errorf("edit: %q", got)
	}
	edited := strings.Replace(orig, "func b() {}", "func b() { return }", 1)
	if e.read("m.go") != edited {
		t.Errorf("content after edit:\n%s", e.read("m.go"))
	}
	if info, _ := os.Stat(filepath.Join(e.root, "m.go")); info.Mode().Perm() != 0o600 {
		t.Errorf("edit changed the mode to %v", info.Mode().Perm())
	}

	wantKind(t, e.call("edit_file", map[string]any{"path": "m.go", "old": "func c()", "new": "x"}), tool.KindInvalidArgs,
		"old text not found in m.go; nothing was changed")
	out := wantKind(t, e.call("edit_file", map[string]any{"path": "m.go", "old": "func a", "new": "func z"}), tool.KindInvalidArgs,
		"old text appears 2 times in m.go; nothing was changed", "more of the surrounding text", "replace_all")
	if e.read("m.go") != edited {
		t.Errorf("a refused edit changed the file; message was %q", out)
	}
	wantKind(t, e.call("edit_file", map[string]any{"path": "m.go", "old": "func", "new": "func"}), tool.KindInvalidArgs,
		"old and new are the same")
	wantKind(t, e.call("edit_file", map[string]any{"path": "m.go", "old": "", "new": "x"}), tool.KindInvalidArgs, "old must not be empty")

	got = wantSuccess(t, e.call("edit_file", map[string]any{"path": "m.go", "old": "func a", "new": "func z", "replace_all": true}))
	if got != "Edited m.go: replaced 2 occurrences, the first at line 3." {
		t.Errorf("replace_all: %q", got)
	}
	if e.read("m.go") != strings.ReplaceAll(edited, "func a", "func z") {
		t.Errorf("content after replace_all:\n%s", e.read("m.go"))
	}

	wantKind(t, e.call("edit_file", map[string]any{"path": "nope.go", "old": "a", "new": "b"}), tool.KindNotFound,
		"nope.go does not exist (no such file); use write_file to create it")
	if _, err := os.Stat(filepath.Join(e.root, "nope.go")); !os.IsNotExist(err) {
		t.Error("editing a missing file created it")
	}
	wantKind(t, e.call("edit_file", map[string]any{"path": ".", "old": "a", "new": "b"}), tool.KindInvalidArgs, "is a folder")
	e.write("crlf.txt", "one\r\ntwo\r\n")
	wantKind(t, e.call("edit_file", map[string]any{"path": "crlf.txt", "old": "one\ntwo", "new": "x"}), tool.KindInvalidArgs,
		"Windows line endings")
	e.write("bin", "a\x00b")
	wantKind(t, e.call("edit_file", map[string]any{"path": "bin", "old": "a", "new": "b"}), tool.KindInvalidArgs, "binary")
	noTempFiles(t, e.root)
}
