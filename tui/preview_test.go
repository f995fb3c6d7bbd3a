package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

const pagerGo = "package pager\n\nfunc Pages(total, size int) int {\n\tif size <= 0 {\n\t\treturn 0\n\t}\n\treturn total / size\n}\n"

var pagerFixed = strings.Replace(pagerGo, "return total / size", "return (total + size - 1) / size", 1)

// filePreview builds the preview event of a change to path from old to new.
func filePreview(turn, index int, path, old, new, digest string, after ...int) runtime.CallPreviewed {
	pv := tool.Preview{Kind: tool.PreviewFile, Path: path, Old: old, New: new, Added: 1, Removed: 1, Digest: digest,
		OldLines: strings.Count(old, "\n"), NewLines: strings.Count(new, "\n")}
	return runtime.CallPreviewed{Turn: turn, Index: index, Kind: "file", Path: path, Summary: pv.Summary(), Added: 1, Removed: 1,
		Digest: digest, Provisional: len(after) > 0, After: after, Editable: true, Full: &pv}
}

// pendingEdit puts a reply on the board whose one call, an edit of
// pager.go, waits for approval with its preview, and moves focus to it.
func pendingEdit(t *testing.T, opts Options) (*harness, approvalRequest) {
	h := newHarness(t, opts)
	h.startRun("fix the pager")
	req := request(1, 1, 0, "edit_file", t0)
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "edit_file", `{"path":"pager.go","old":"return total / size","new":"return (total + size - 1) / size"}`, writes("pager.go"), 1),
	}},
		decide(1, 0, "ask", "mode:reads", "reads mode asks before a call that may change things"),
		filePreview(1, 0, "pager.go", pagerGo, pagerFixed, "sha256:first"),
		req)
	h.clock.advance(time.Second)
	return h, req
}

// TestPendingEditShowsItsDiff is what a person sees of an edit waiting for
// approval: the board row says what it changes, and the detail pane shows
// the change as a diff, marked - and + without colour.
func TestPendingEditShowsItsDiff(t *testing.T) {
	h, req := pendingEdit(t, Options{})
	screen := h.view()
	mustContain(t, screen, "#1 edit_file pager.go · +1 −1", "change: pager.go · +1 −1 · v side by side · f full screen",
		"7   -     return total / size", "  7 +     return (total + size - 1) / size")
	// y approves the change the person saw, bound to its digest.
	h.key("y")
	a, ok := answered(req)
	if !ok || !a.Approve || a.Digest != "sha256:first" || a.Content != nil {
		t.Fatalf("answer %+v %v", a, ok)
	}
}

// TestProvisionalAndStale follows an edit approved while an earlier write
// of its file was pending: its preview says it is provisional, and when the
// runtime withdraws the approval the board says why and asks again.
func TestProvisionalAndStale(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("go")
	write, edit := request(1, 1, 0, "write_file", t0), request(2, 1, 1, "edit_file", t0)
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		pc(0, "write_file", `{"path":"a.txt","content":"one\ntwo\n"}`, writes("a.txt"), 1),
		pc(1, "edit_file", `{"path":"a.txt","old":"two","new":"TWO"}`, writes("a.txt"), 2, 0),
	}},
		decide(1, 0, "ask", "mode:reads", "asks"), decide(1, 1, "ask", "mode:reads", "asks"),
		filePreview(1, 0, "a.txt", "one\n", "one\ntwo\n", "sha256:w"),
		runtime.CallPreviewed{Turn: 1, Index: 1, Kind: "file", Path: "a.txt", Summary: "would fail: old text not found in a.txt",
			Digest: "sha256:e1", Provisional: true, After: []int{0},
			Full: &tool.Preview{Kind: tool.PreviewFile, Path: "a.txt", Problem: "old text not found in a.txt", Digest: "sha256:e1"}},
		write, edit)
	h.clock.advance(time.Second)
	h.key("down")
	mustContain(t, h.view(), "a.txt (as of now) · would fail", "change: a.txt · would fail: old text not found in a.txt",
		"as of now: #1 changes a.txt first; the change is shown again once it has")
	h.key("y")
	if a, _ := answered(edit); a.Digest != "sha256:e1" {
		t.Fatalf("edit answer %+v", a)
	}
	h.key("up")
	h.key("y")
	h.feed(decide(1, 0, "run", "user", "approved"), decide(1, 1, "run", "user", "approved"),
		started(1, 0, "write_file", t0), finished(1, 0, "write_file", "success", "", "Replaced a.txt", 5),
		runtime.PreviewStale{Turn: 1, Index: 1, Approved: "sha256:e1", Digest: "sha256:e2", Why: "#1 write_file ran first and changed it"},
		filePreview(1, 1, "a.txt", "one\ntwo\n", "one\nTWO\n", "sha256:e2"),
		decide(1, 1, "ask", "mode:reads", "what it would do changed since it was approved (#1 write_file ran first and changed it), so it asks again"),
		request(3, 1, 1, "edit_file", t0))
	h.key("down")
	screen := h.view()
	mustContain(t, screen, "? needs approval again: #1 write_file ran first and changed it",
		"changed since it was approved: #1 write_file ran first and changed it; it did not run, and waits for approval again",
		"2   - two", "  2 + TWO")
	mustNotContain(t, screen, "(as of now)")
}

// TestMovedPreviewPausesTheApprovalKeys checks keystroke safety: when the
// change of the focused pending call moves, y is ignored for the grace
// period, as for a new request, so a key meant for the old change cannot
// approve the new one.
func TestMovedPreviewPausesTheApprovalKeys(t *testing.T) {
	h, req := pendingEdit(t, Options{})
	h.feed(filePreview(1, 0, "pager.go", pagerGo+"// more\n", pagerFixed+"// more\n", "sha256:second"))
	h.key("y")
	if _, ok := answered(req); ok {
		t.Fatal("y approved a change that had just moved")
	}
	mustContain(t, h.view(), "y ignored: the approvals under focus just changed")
	h.clock.advance(time.Second)
	h.key("y")
	if a, ok := answered(req); !ok || a.Digest != "sha256:second" {
		t.Fatalf("answer %+v %v", a, ok)
	}
}

// TestFullScreenDiffAndLayouts opens the change full screen, scrolls it,
// switches to side by side and back, and closes it.
func TestFullScreenDiffAndLayouts(t *testing.T) {
	var old, new strings.Builder
	for i := range 300 {
		old.WriteString("line " + strings.Repeat("x", i%7) + "\n")
		if i%50 == 25 {
			new.WriteString("changed line\n")
		} else {
			new.WriteString("line " + strings.Repeat("x", i%7) + "\n")
		}
	}
	h, _ := pendingEdit(t, Options{})
	h.feed(filePreview(1, 0, "big.txt", old.String(), new.String(), "sha256:big"))
	h.clock.advance(time.Second)
	h.key("f")
	screen := h.view()
	mustContain(t, screen, "── #1 edit_file · big.txt", "· unified · lines 1–", "esc closes · y approve · n skip · e edit")
	mustNotContain(t, screen, "Calls · turn 1")
	h.key("end")
	mustContain(t, h.view(), "    276 + changed line", "lines 22–54 of 54")
	h.key("v")
	mustContain(t, h.view(), "· split · lines", "│")
	h.key("v")
	h.key("esc")
	screen = h.view()
	mustContain(t, screen, "Calls · turn 1")
	if h.m.run == nil || h.m.run.stopping {
		t.Fatal("esc in the full-screen diff stopped the run")
	}
}

// TestEditorApprovesWithThePersonsVersion runs the editor flow with an
// editor that rewrites the file: the call is approved with the person's
// version and the same digest.
func TestEditorApprovesWithThePersonsVersion(t *testing.T) {
	var edited string
	h, req := pendingEdit(t, Options{Editor: func(path string) *exec.Cmd {
		edited = path
		return exec.Command("true")
	}})
	cmd := h.m.editChange(h.m.board.Focused())
	if cmd == nil {
		t.Fatalf("no editor command; note %q", h.m.note)
	}
	if got, _ := os.ReadFile(edited); string(got) != pagerFixed || filepath.Base(edited) != "pager.go" {
		t.Fatalf("the editor got %s holding %q", edited, got)
	}
	mine := strings.Replace(pagerFixed, "size - 1", "size-1", 1)
	if err := os.WriteFile(edited, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	h.update(editorDone{turn: 1, index: 0, reqID: req.ID, digest: "sha256:first", proposed: pagerFixed, file: edited, dir: filepath.Dir(edited)})
	a, ok := answered(req)
	if !ok || !a.Approve || a.Digest != "sha256:first" || a.Content == nil || *a.Content != mine {
		t.Fatalf("answer %+v %v", a, ok)
	}
	mustContain(t, h.view(), "approved #1 edit_file with your version of the change")
	if _, err := os.Stat(edited); !os.IsNotExist(err) {
		t.Error("the temporary file was left behind")
	}
}

// TestEditorWithoutChangesLeavesTheCallWaiting: quitting the editor
// without a change approves nothing, and a change that moved while the
// person edited is not approved either; their version is kept.
func TestEditorWithoutChangesLeavesTheCallWaiting(t *testing.T) {
	h, req := pendingEdit(t, Options{})
	dir := t.TempDir()
	file := filepath.Join(dir, "pager.go")
	os.WriteFile(file, []byte(pagerFixed), 0o600)
	h.update(editorDone{turn: 1, index: 0, reqID: req.ID, digest: "sha256:first", proposed: pagerFixed, file: file, dir: dir})
	if _, ok := answered(req); ok {
		t.Fatal("an unchanged file approved the call")
	}
	mustContain(t, h.view(), "no change made in the editor: #1 edit_file still waits for approval")

	os.MkdirAll(dir, 0o700)
	os.WriteFile(file, []byte("mine\n"), 0o600)
	h.feed(filePreview(1, 0, "pager.go", pagerGo+"x\n", pagerFixed+"x\n", "sha256:moved"))
	h.update(editorDone{turn: 1, index: 0, reqID: req.ID, digest: "sha256:first", proposed: pagerFixed, file: file, dir: dir})
	if _, ok := answered(req); ok {
		t.Fatal("a version made for a change that moved was approved")
	}
	mustContain(t, h.view(), "moved while you edited, so your version was not used (see the transcript)",
		"moved while you edited, so your version was not used; your version is kept in")
	if got, _ := os.ReadFile(file); string(got) != "mine\n" {
		t.Errorf("the person's version was lost: %q", got)
	}
}

// TestEditKeyNeedsAnEditableChange refuses e where there is nothing to
// edit, saying why.
func TestEditKeyNeedsAnEditableChange(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("go")
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "run_shell", `{"command":"make"}`, writesAnything(), 1)}},
		decide(1, 0, "ask", "mode:reads", "asks"),
		runtime.CallPreviewed{Turn: 1, Index: 0, Kind: "command", Digest: "sha256:c",
			Full: &tool.Preview{Kind: tool.PreviewCommand, Command: "make", Dir: ".", TimeoutS: 120}},
		request(1, 1, 0, "run_shell", t0))
	h.clock.advance(time.Second)
	h.key("e")
	screen := h.view()
	mustContain(t, screen, "this call's change cannot be edited", "command:", "│ make", "runs in the workspace folder · time limit 120 s")
}

// TestFinishedChangeStaysInTheTranscript checks that once a turn ends the
// transcript keeps the head of each change a call made.
func TestFinishedChangeStaysInTheTranscript(t *testing.T) {
	h, req := pendingEdit(t, Options{})
	h.key("y")
	if _, ok := answered(req); !ok {
		t.Fatal("not answered")
	}
	d := decide(1, 0, "run", "user", "approved")
	d.Digest = "sha256:first"
	f := finished(1, 0, "edit_file", "success", "", "Edited pager.go: replaced 1 occurrence at line 7.", 3)
	f.Diffstat = &runtime.Diffstat{Added: 1, Removed: 1}
	h.feed(d, started(1, 0, "edit_file", t0), f, runtime.TurnEnded{Turn: 1},
		runtime.ReplyReceived{Turn: 2, Calls: []runtime.PlannedCall{pc(0, "read_file", `{"path":"x"}`, reads("x"), 1)}})
	mustContain(t, h.view(), "✓ #1 edit_file pager.go · +1 −1 · succeeded", "7   -     return total / size")
	_ = approval.Answer{}
}

// TestCutResultIsSaid shows, in the details, that the model read a cut
// version of a call's output and how large the whole was.
func TestCutResultIsSaid(t *testing.T) {
	h := newHarness(t, Options{})
	h.startRun("go")
	f := finished(1, 0, "t__big", "success", "", "a line …[cut]… the end", 5)
	f.Whole = 9 << 20
	h.feed(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{pc(0, "t__big", `{"bytes":9437184}`, writesAnything(), 1)}},
		decide(1, 0, "run", "mode:auto", "auto"), started(1, 0, "t__big", t0), f)
	h.key("enter")
	mustContain(t, h.view(), "(not the whole output: that was 9 MiB, too much to read whole")
}
