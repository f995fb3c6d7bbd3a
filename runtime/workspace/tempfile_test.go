package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
)

// cancelAfterChunks cancels the returned context once the write in progress
// has written n chunks.
func cancelAfterChunks(t *testing.T, n int) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	chunks := 0
	afterChunk = func() {
		if chunks++; chunks == n {
			cancel()
		}
	}
	t.Cleanup(func() { afterChunk = nil })
	return ctx
}

// A write cancelled halfway leaves the target as it was and no temporary
// file, for a new file and a replaced one, with write_file and edit_file;
// the model reads that it was cancelled.
func TestCancelledWriteLeavesNothingBehind(t *testing.T) {
	e := newEnv(t)
	e.write("old.txt", "before\n")
	big := strings.Repeat("x", 3*writeChunk)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"write_file", map[string]any{"path": "new.txt", "content": big}, "the call was cancelled before new.txt was written, so it is unchanged"},
		{"write_file", map[string]any{"path": "old.txt", "content": big}, "the call was cancelled before old.txt was written, so it is unchanged"},
		{"edit_file", map[string]any{"path": "old.txt", "old": "before", "new": big}, "the call was cancelled before old.txt was written, so it is unchanged"},
	} {
		r := e.callCtx(cancelAfterChunks(t, 1), c.tool, c.args)
		wantKind(t, r, tool.KindCancelled, c.want)
		noTempFiles(t, e.root)
	}
	if _, err := os.Lstat(filepath.Join(e.root, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("the cancelled write created new.txt: %v", err)
	}
	if got := e.read("old.txt"); got != "before\n" {
		t.Fatalf("the cancelled write changed old.txt: %.20q", got)
	}
	// A write that panics halfway leaves no temporary file either.
	afterChunk = func() { panic("halfway") }
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the hook did not panic")
			}
		}()
		e.call("write_file", map[string]any{"path": "new.txt", "content": big})
	}()
	noTempFiles(t, e.root)
	// Uncancelled, the same write goes through.
	afterChunk = nil
	if r := e.call("write_file", map[string]any{"path": "new.txt", "content": big}); !r.Outcome().IsSuccess() {
		t.Fatalf("write: %v", r.Output)
	}
	noTempFiles(t, e.root)
}

// The killed write's child: it writes docs/a.txt in the workspace named by
// the environment and kills itself, SIGKILL, halfway through.
const envKilledWrite = "WORKSPACE_KILLED_WRITE"

// TestKilledWriteChild is the child's side; it does nothing in a normal run.
func TestKilledWriteChild(t *testing.T) {
	root := os.Getenv(envKilledWrite)
	if root == "" {
		t.Skip("only run by TestKilledWriteIsHiddenAndCollected")
	}
	w, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	afterChunk = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	for _, tl := range w.Tools() {
		if tl.Declaration().Name == "write_file" {
			tl.Call(context.Background(), mustJSON(t, map[string]any{"path": "docs/a.txt", "content": strings.Repeat("needle\n", writeChunk)}))
		}
	}
	t.Fatal("the write finished: the hook did not kill the process")
}

// A write killed outright leaves its temporary file; list_dir, glob and
// grep never show it, and the next write into its folder removes it, with
// the other leftovers whose writer is gone, but neither a file of a writer
// still alive nor a file that only looks alike.
func TestKilledWriteIsHiddenAndCollected(t *testing.T) {
	e := newEnv(t)
	e.write("docs/a.txt", "old\n")
	child := exec.Command(os.Args[0], "-test.run=^TestKilledWriteChild$")
	child.Env = append(os.Environ(), envKilledWrite+"="+e.root)
	out, err := child.CombinedOutput()
	if ws, ok := child.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed (%v):\n%s", err, out)
	}
	docs := filepath.Join(e.root, "docs")
	killed := leftovers(t, docs)
	if len(killed) != 1 || !strings.HasPrefix(killed[0], fmt.Sprintf(".a.txt.agenttui-%d-", child.Process.Pid)) {
		t.Fatalf("the killed write left %v", killed)
	}
	// This process's own name for a write it is not doing, and one of a
	// writer that is alive (this test's parent).
	mine := fmt.Sprintf(".b.txt.agenttui-%d-%016x.tmp", os.Getpid(), 7)
	alive := fmt.Sprintf(".c.txt.agenttui-%d-%016x.tmp", os.Getppid(), 8)
	e.write("docs/"+mine, "needle\n")
	e.write("docs/"+alive, "needle\n")
	e.write("docs/.d.txt.tmp", "a file of the person's\n")

	if got := text(t, e.call("list_dir", map[string]any{"path": "docs"})); strings.Contains(got, "agenttui-") || !strings.Contains(got, ".d.txt.tmp") {
		t.Fatalf("list_dir shows:\n%s", got)
	}
	if got := text(t, e.call("glob", map[string]any{"pattern": "**/.*"})); strings.Contains(got, "agenttui-") || !strings.Contains(got, ".d.txt.tmp") {
		t.Fatalf("glob shows:\n%s", got)
	}
	if got := text(t, e.call("grep", map[string]any{"pattern": "needle"})); strings.Contains(got, "agenttui-") {
		t.Fatalf("grep shows:\n%s", got)
	}

	if r := e.call("write_file", map[string]any{"path": "docs/e.txt", "content": "new\n"}); !r.Outcome().IsSuccess() {
		t.Fatalf("write: %v", r.Output)
	}
	if got := leftovers(t, docs); !slices.Equal(got, []string{alive}) {
		t.Fatalf("after the next write the leftovers are %v, want only %s", got, alive)
	}
	if got := e.read("docs/.d.txt.tmp"); got != "a file of the person's\n" {
		t.Fatalf("a look-alike was touched: %q", got)
	}
	if got := e.read("docs/a.txt"); got != "old\n" {
		t.Fatalf("the killed write changed a.txt: %.20q", got)
	}
}

// leftovers lists the temporary files of writes in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if isWriteTemp(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// A temporary file's name stays within what a folder takes, however long
// the target's name, and is recognised as one.
func TestTempNameOfALongName(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("é", 127) // 254 bytes
	if r := e.call("write_file", map[string]any{"path": long, "content": "x"}); !r.Outcome().IsSuccess() {
		t.Fatalf("write: %v", r.Output)
	}
	root, err := os.OpenRoot(e.root)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	name, f, done, err := createTemp(root, ".", long, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	f.Close()
	if len(name) > maxNameBytes || !isWriteTemp(name) || stale(name) {
		t.Fatalf("temporary name %q (%d bytes): recognised %v, stale %v", name, len(name), isWriteTemp(name), stale(name))
	}
	done()
	if !stale(name) {
		t.Fatalf("%s is not stale once its write is done", name)
	}
}
