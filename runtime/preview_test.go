package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace"
)

// question is an approval request a test answers.
type question struct {
	req    AskRequest
	answer chan Flow
}

// askWrites is a hook that asks about every call that may change
// something and hands each request to the test.
type askWrites struct{ questions chan question }

func newAskWrites() *askWrites { return &askWrites{questions: make(chan question, 16)} }

func (h *askWrites) Review(_ context.Context, c CallInfo) Flow {
	if IsControl(c.Call.Name) || c.Touches.ReadsOnly() {
		return Continue("test", "reads")
	}
	return Ask("test", "it writes", func(ctx context.Context, req AskRequest) Flow {
		q := question{req: req, answer: make(chan Flow, 1)}
		h.questions <- q
		select {
		case f := <-q.answer:
			return f
		case <-ctx.Done():
			return Skip("test", "stopped")
		}
	})
}

// next waits for the next request.
func (h *askWrites) next(t *testing.T) question {
	t.Helper()
	select {
	case q := <-h.questions:
		return q
	case <-time.After(10 * time.Second):
		t.Fatal("no approval request came")
		return question{}
	}
}

// previewWorkspace returns the workspace tools over a new folder holding
// files.
func previewWorkspace(t *testing.T, files map[string]string) (string, []tool.Tool) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tools, err := workspace.Tools(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, tools
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestApprovalOfAProvisionalPreviewAsksAgain is the case of a person who
// approves an edit while it still waits for an earlier write of the same
// file: what they saw is not what the edit would do once the write has
// run, so the edit asks again with the new change, and runs only once that
// is approved.
func TestApprovalOfAProvisionalPreviewAsksAgain(t *testing.T) {
	dir, tools := previewWorkspace(t, map[string]string{"a.txt": "one\n"})
	rec := newRecorder()
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{
			call("write_file", `{"path":"a.txt","content":"one\ntwo\n"}`),
			call("edit_file", `{"path":"a.txt","old":"two","new":"TWO"}`),
		}},
		model.Step{Expect: []string{"Replaced a.txt", "Edited a.txt"}, Text: "done"})
	a := newAgent(t, m, rec, tools...)
	hook := newAskWrites()
	a.Hooks = []Hook{hook}
	out := runAsync(context.Background(), a, NewSession("s"), "go")

	first, second := hook.next(t), hook.next(t)
	if first.req.Index != 0 {
		first, second = second, first
	}
	// The edit's preview is provisional: the write comes first, and the
	// text the edit replaces is not in the file yet.
	edit := second.req
	if edit.Preview == nil || !strings.Contains(edit.Preview.Summary(), "would fail: old text not found") {
		t.Fatalf("edit preview: %+v", edit.Preview)
	}
	prov := rec.await(t, "a provisional preview of the edit", func(e Event) bool {
		p, ok := e.(CallPreviewed)
		return ok && p.Index == 1 && p.Provisional
	}).(CallPreviewed)
	if len(prov.After) != 1 || prov.After[0] != 0 {
		t.Errorf("provisional after %v, want [0]", prov.After)
	}
	if first.req.Preview == nil || first.req.Preview.Summary() != "overwrites 1 line (+1 −0)" {
		t.Fatalf("write preview: %+v", first.req.Preview)
	}

	// The person approves the edit first, then the write. Each answer
	// reaches the run from a goroutine of its own, so the write is approved
	// only once the run has taken the edit's approval, or the two could
	// arrive the other way round.
	second.answer <- Approved("user", "approved", edit.Preview.Digest)
	rec.await(t, "the edit's approval", func(e Event) bool {
		d, ok := e.(CallDecision)
		return ok && d.Index == 1 && d.Decision == DecisionRun
	})
	first.answer <- Approved("user", "approved", first.req.Preview.Digest)

	// The edit comes back with the change it would now make.
	again := hook.next(t)
	if again.req.Index != 1 || again.req.Preview == nil || again.req.Preview.Summary() != "+1 −1" {
		t.Fatalf("second request: index %d preview %+v", again.req.Index, again.req.Preview)
	}
	if !strings.Contains(again.req.Reason, "#1 write_file ran first and changed it") {
		t.Errorf("reason %q", again.req.Reason)
	}
	stale := rec.await(t, "the stale approval", func(e Event) bool { _, ok := e.(PreviewStale); return ok }).(PreviewStale)
	if stale.Index != 1 || stale.Approved != edit.Preview.Digest || stale.Digest != again.req.Preview.Digest {
		t.Errorf("stale %+v", stale)
	}
	if startedOf(rec.snapshot(), 1) {
		t.Fatal("the edit started on the approval of a preview that no longer held")
	}
	again.answer <- Approved("user", "approved", again.req.Preview.Digest)

	if o := awaitOutcome(t, out); o.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", o)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "one\nTWO\n" {
		t.Errorf("a.txt = %q, want both changes", got)
	}
	f, _ := finishedOf(rec.snapshot(), 1)
	if f.Diffstat == nil || *f.Diffstat != (Diffstat{Added: 1, Removed: 1}) {
		t.Errorf("edit diffstat %+v", f.Diffstat)
	}
	// The journal and the headless stream carry the digest of what was
	// approved, never the file's content.
	var decisions []CallDecision
	for _, e := range rec.snapshot() {
		if d, ok := e.(CallDecision); ok && d.Index == 1 && d.Decision == DecisionRun {
			decisions = append(decisions, d)
		}
		if p, ok := e.(CallPreviewed); ok {
			line, _ := EncodeEvent(p)
			if strings.Contains(string(line), "one\\n") {
				t.Errorf("a preview event carries file content: %s", line)
			}
		}
	}
	if len(decisions) != 2 || decisions[0].Digest != edit.Preview.Digest || decisions[1].Digest != again.req.Preview.Digest {
		t.Errorf("run decisions of the edit: %+v", decisions)
	}
}

// TestFileChangedOnDiskAfterApprovalAsksAgain changes the file between
// the person's approval and the call's start (from the approver itself, the
// last moment before the runtime learns of the approval): the call must not
// run on that approval.
func TestFileChangedOnDiskAfterApprovalAsksAgain(t *testing.T) {
	dir, tools := previewWorkspace(t, map[string]string{"a.txt": "alpha\nbeta\n"})
	rec := newRecorder()
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{call("edit_file", `{"path":"a.txt","old":"beta","new":"BETA"}`)}},
		model.Step{Expect: []string{"Edited a.txt"}, Text: "done"})
	a := newAgent(t, m, rec, tools...)
	hook := newAskWrites()
	a.Hooks = []Hook{hook}
	out := runAsync(context.Background(), a, NewSession("s"), "go")

	q := hook.next(t)
	if q.req.Preview == nil || q.req.Preview.Summary() != "+1 −1" {
		t.Fatalf("preview %+v", q.req.Preview)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("ALPHA\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q.answer <- Approved("user", "approved", q.req.Preview.Digest)

	again := hook.next(t)
	if !strings.Contains(again.req.Reason, "a.txt changed since the approval") || !strings.Contains(again.req.Preview.New, "ALPHA\nBETA") {
		t.Fatalf("second request: %q %+v", again.req.Reason, again.req.Preview)
	}
	if startedOf(rec.snapshot(), 0) {
		t.Fatal("the edit started although the file changed after the approval")
	}
	again.answer <- Approved("user", "approved", again.req.Preview.Digest)
	if o := awaitOutcome(t, out); o.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", o)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "ALPHA\nBETA\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// TestUnboundApprovalRunsAsItIsNow checks that an approval that showed
// nothing (a mode, a rule, a grant, or an approver that sends no digest)
// is not bound: the call runs on the file as it is.
func TestUnboundApprovalRunsAsItIsNow(t *testing.T) {
	dir, tools := previewWorkspace(t, map[string]string{"a.txt": "x\n"})
	rec := newRecorder()
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{call("write_file", `{"path":"a.txt","content":"y\n"}`)}},
		model.Step{Text: "done"})
	a := newAgent(t, m, rec, tools...)
	hook := newAskWrites()
	a.Hooks = []Hook{hook}
	out := runAsync(context.Background(), a, NewSession("s"), "go")
	q := hook.next(t)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q.answer <- Continue("grant:write_file", "allowed by a grant of this session")
	if o := awaitOutcome(t, out); o.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", o)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "y\n" {
		t.Errorf("a.txt = %q", got)
	}
	for _, e := range rec.snapshot() {
		if _, ok := e.(PreviewStale); ok {
			t.Fatal("an unbound approval went stale")
		}
	}
	// The preview taken at the start, which shows what was written, was
	// published, and the result carries its line counts.
	last := CallPreviewed{}
	for _, e := range rec.snapshot() {
		if p, ok := e.(CallPreviewed); ok {
			last = p
		}
	}
	if last.Summary != "overwrites 1 line (+1 −1)" || last.Full == nil || last.Full.Old != "changed\n" {
		t.Errorf("last preview %+v", last)
	}
}

// TestEditedApprovalWritesThePersonsVersion approves an edit with the
// person's own version: the file holds it, and the model reads that the
// person changed its edit and how.
func TestEditedApprovalWritesThePersonsVersion(t *testing.T) {
	dir, tools := previewWorkspace(t, map[string]string{"pager.go": "package pager\n\nfunc Pages(total, size int) int {\n\treturn total / size\n}\n"})
	rec := newRecorder()
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{
			call("edit_file", `{"path":"pager.go","old":"return total / size","new":"return (total + size - 1) / size"}`),
		}},
		model.Step{Expect: []string{"The person edited your change to pager.go", "+\tif size <= 0 {"}, Text: "done"})
	a := newAgent(t, m, rec, tools...)
	hook := newAskWrites()
	a.Hooks = []Hook{hook}
	out := runAsync(context.Background(), a, NewSession("s"), "go")
	q := hook.next(t)
	mine := strings.Replace(q.req.Preview.New, "\treturn (total", "\tif size <= 0 {\n\t\treturn 0\n\t}\n\treturn (total", 1)
	q.answer <- ApprovedEdited("user", "approved", q.req.Preview.Digest, mine)
	o := awaitOutcome(t, out)
	if o.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", o)
	}
	if got := readFile(t, filepath.Join(dir, "pager.go")); got != mine {
		t.Errorf("pager.go = %q, want the person's version", got)
	}
	f, _ := finishedOf(rec.snapshot(), 0)
	if !strings.Contains(f.Result, "The person edited your change to pager.go before approving it") ||
		!strings.Contains(f.Result, "@@") || f.Diffstat == nil || *f.Diffstat != (Diffstat{Added: 4, Removed: 1}) {
		t.Errorf("result %q diffstat %+v", f.Result, f.Diffstat)
	}
	for _, e := range rec.snapshot() {
		if d, ok := e.(CallDecision); ok && d.Decision == DecisionRun && !d.Edited {
			t.Errorf("the decision does not say the person edited the call: %+v", d)
		}
	}
}

// TestBuiltInResultIsBounded reads a file larger than the bound set on
// the agent: the model reads its start and end, and read_file's own advice
// on getting the rest.
func TestBuiltInResultIsBounded(t *testing.T) {
	_, tools := previewWorkspace(t, map[string]string{"big.txt": strings.Repeat("0123456789 abcdefghij\n", 2000)})
	rec := newRecorder()
	m := script(t,
		model.Step{Calls: []model.ScriptedCall{call("read_file", `{"path":"big.txt"}`)}},
		model.Step{Expect: []string{"of this result were cut here", "Read the rest with read_file's offset and limit."}, Text: "done"})
	a := newAgent(t, m, rec, tools...)
	a.MaxResultBytes = 8192
	if o := a.Run(context.Background(), NewSession("s"), "read"); o.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", o)
	}
	f, _ := finishedOf(rec.snapshot(), 0)
	if len(f.Result) > 8192 || f.Whole < 40000 || !strings.HasPrefix(f.Result, "     1\t0123456789") {
		t.Errorf("result of %d bytes, whole %d:\n%.200s", len(f.Result), f.Whole, f.Result)
	}
}
