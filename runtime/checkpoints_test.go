package runtime_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace"
)

// recordingModel is a scripted model that keeps every request it was sent.
type recordingModel struct {
	model.Model
	mu       sync.Mutex // guards requests
	requests [][]model.Message
}

func (r *recordingModel) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	r.mu.Lock()
	r.requests = append(r.requests, slices.Clone(req.Messages))
	r.mu.Unlock()
	return r.Model.Reply(ctx, req, onDelta)
}

func step(text string, calls ...model.ScriptedCall) model.Step {
	return model.Step{Text: text, Calls: calls}
}

func call(name string, args any) model.ScriptedCall {
	b, _ := json.Marshal(args)
	return model.ScriptedCall{Name: name, Args: b}
}

func finish(summary string) model.Step {
	return step("", call("finish", map[string]any{"summary": summary}))
}

// setup returns a workspace with a few files, an agent over its tools, and
// a session with a checkpoint store.
func setup(t *testing.T, steps ...model.Step) (string, *runtime.Agent, *runtime.Session, *recordingModel) {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "a.txt", "alpha\nbeta\n")
	write(t, dir, "b.txt", "bravo\n")
	write(t, dir, ".gitignore", "node_modules/\n")
	write(t, dir, "node_modules/pkg.js", "module\n")
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog(ws.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	rm := &recordingModel{Model: model.NewScripted("test", &model.Scenario{Name: "test", Steps: steps}).WithoutDelays()}
	a := &runtime.Agent{Model: rm, Catalog: cat}
	store, err := checkpoint.Open(checkpoint.Options{Dir: t.TempDir(), Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s := runtime.NewSession("s1")
	s.Checkpoints = &runtime.CheckpointStore{Store: store, Workspace: dir}
	return dir, a, s, rm
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// state describes a folder exactly: every path, its mode and its content.
func state(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", rel, info.Mode())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			line += " " + hex.EncodeToString(sum[:8])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func restore(t *testing.T, a *runtime.Agent, s *runtime.Session, r *runtime.Restore, overwrite ...string) runtime.RestoreFinished {
	t.Helper()
	digest := ""
	if r.Plan != nil {
		digest = r.Plan.Digest
	}
	fin, err := a.Restore(context.Background(), s, r, digest, overwrite)
	if err != nil {
		t.Fatal(err)
	}
	return fin
}

// The shell changes of a reply are taken back with its file tools' own,
// byte for byte, and brought back again by /redo; the model is told.
func TestUndoAndRedoAReplyWithShellChanges(t *testing.T) {
	dir, a, s, rm := setup(t,
		step("changing", call("write_file", map[string]any{"path": "new.txt", "content": "fresh\n"}),
			call("edit_file", map[string]any{"path": "a.txt", "old": "beta", "new": "gamma"}),
			call("run_shell", map[string]any{"command": "rm b.txt && mkdir d && echo x > d/f.txt && chmod +x a.txt"})),
		finish("done"),
		finish("again"))
	before := state(t, dir)
	if out := a.Run(context.Background(), s, "change things"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	after := state(t, dir)
	if before == after {
		t.Fatal("the reply changed nothing")
	}
	if len(s.Changes) != 1 || s.Changes[0].Kind != "reply" || s.Changes[0].After == "" {
		t.Fatalf("changes %+v", s.Changes)
	}
	var files []string
	for _, f := range s.Changes[0].Files {
		files = append(files, f.Path+":"+f.Kind)
	}
	want := []string{"a.txt:modified", "b.txt:removed", "d/f.txt:added", "new.txt:added"}
	if !slices.Equal(files, want) {
		t.Fatalf("files %v, want %v", files, want)
	}

	r, err := s.PlanUndo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Conflicts()) != 0 {
		t.Fatalf("conflicts %v", r.Conflicts())
	}
	restore(t, a, s, r)
	if got := state(t, dir); got != before {
		t.Fatalf("after the undo the workspace is\n%s\nnot as before\n%s", got, before)
	}
	for _, w := range []string{"run_shell (rm b.txt", "write_file (new.txt)", "b.txt (brought back)", "new.txt (removed)", "a.txt (restored)"} {
		if !strings.Contains(s.Note, w) {
			t.Errorf("the note lacks %q:\n%s", w, s.Note)
		}
	}
	if _, err := s.PlanUndo(context.Background()); !errors.Is(err, runtime.ErrNothingToRestore) {
		t.Fatalf("a second undo: %v", err)
	}

	r, err = s.PlanRedo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	restore(t, a, s, r)
	if got := state(t, dir); got != after {
		t.Fatalf("after the redo the workspace is\n%s\nnot as the reply left it\n%s", got, after)
	}
	note := s.Note
	if !strings.Contains(note, "redid") {
		t.Fatalf("the note lacks the redo:\n%s", note)
	}
	// The next request carries every note, before the person's input.
	if out := a.Run(context.Background(), s, "go on"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	last := rm.requests[len(rm.requests)-1]
	if msg := last[len(last)-1]; !strings.HasPrefix(msg.Text, "[agenttui] The person undid") || !strings.HasSuffix(msg.Text, note+"\n\ngo on") {
		t.Fatalf("the request's input is %q", msg.Text)
	}
	if s.Note != "" {
		t.Fatalf("the note was not used up: %q", s.Note)
	}
	// Undo works again after the redo.
	if r, err = s.PlanUndo(context.Background()); err != nil {
		t.Fatal(err)
	}
	restore(t, a, s, r)
	if got := state(t, dir); got != before {
		t.Fatalf("the second undo left\n%s", got)
	}
}

// A file the person changed after the reply is shown as a conflict and kept,
// unless the person chooses to overwrite it.
func TestUndoKeepsWhatThePersonChanged(t *testing.T) {
	dir, a, s, _ := setup(t,
		step("", call("edit_file", map[string]any{"path": "a.txt", "old": "beta", "new": "gamma"}),
			call("write_file", map[string]any{"path": "b.txt", "content": "changed\n"})),
		finish("done"))
	a.Run(context.Background(), s, "go")
	write(t, dir, "a.txt", "the person's own\n")
	r, err := s.PlanUndo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Conflicts(); !slices.Equal(c, []string{"a.txt"}) {
		t.Fatalf("conflicts %v", c)
	}
	fin := restore(t, a, s, r)
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "the person's own\n" {
		t.Fatalf("a.txt was overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != "bravo\n" {
		t.Fatalf("b.txt was not restored: %q", b)
	}
	if !slices.Equal(fin.Kept, []string{"a.txt"}) || !strings.Contains(fin.Note, "left as they are: a.txt") {
		t.Fatalf("kept %v, note %q", fin.Kept, fin.Note)
	}
}

// A plan made before the workspace changed is refused, and nothing is
// written.
func TestRestoreRefusesAStalePreview(t *testing.T) {
	dir, a, s, _ := setup(t, step("", call("write_file", map[string]any{"path": "b.txt", "content": "changed\n"})), finish("done"))
	a.Run(context.Background(), s, "go")
	r, err := s.PlanUndo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "b.txt", "moved under the preview\n")
	if _, err := a.Restore(context.Background(), s, r, r.Plan.Digest, nil); !errors.Is(err, runtime.ErrRestoreStale) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != "moved under the preview\n" {
		t.Fatalf("b.txt: %q", b)
	}
	if _, err := a.Restore(context.Background(), s, r, "another digest", nil); !errors.Is(err, runtime.ErrRestoreStale) {
		t.Fatalf("a digest the person did not see: %v", err)
	}
}

// A rewind of the conversation makes the next request the one made at that
// point, with the note before the input.
func TestRewindConversationRepeatsTheRequest(t *testing.T) {
	dir, a, s, rm := setup(t,
		step("", call("write_file", map[string]any{"path": "new.txt", "content": "one\n"})),
		finish("first"),
		step("", call("edit_file", map[string]any{"path": "a.txt", "old": "beta", "new": "gamma"})),
		finish("second"),
		step("", call("edit_file", map[string]any{"path": "a.txt", "old": "beta", "new": "delta"})),
		finish("third"))
	a.Run(context.Background(), s, "goal")
	a.Run(context.Background(), s, "follow up")
	atFollowUp := rm.requests[2]
	points := s.RewindPoints()
	follow := slices.IndexFunc(points, func(p runtime.RewindPoint) bool { return p.Kind == "followup" })
	if follow < 0 || !points[follow].Code || points[follow].Text != "follow up" {
		t.Fatalf("points %+v", points)
	}
	// The conversation and the code go back together.
	r, err := s.PlanRewind(context.Background(), follow, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Input != "follow up" || r.Messages != len(atFollowUp)-1 {
		t.Fatalf("input %q, messages %d (the request had %d)", r.Input, r.Messages, len(atFollowUp))
	}
	restore(t, a, s, r)
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha\nbeta\n" {
		t.Fatalf("a.txt: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err != nil {
		t.Fatalf("the first run's file is gone: %v", err)
	}
	a.Run(context.Background(), s, r.Input)
	again := rm.requests[4]
	if len(again) != len(atFollowUp) || !slices.EqualFunc(again[:len(again)-1], atFollowUp[:len(atFollowUp)-1], sameMessage) {
		t.Fatalf("the request after the rewind differs from the one at the point:\n%+v\n%+v", again, atFollowUp)
	}
	want := "[agenttui] The person rewound the conversation to before turn 3; what came after is gone from it. " +
		"The workspace was rewound with it.\n\nfollow up"
	if got := again[len(again)-1].Text; got != want {
		t.Fatalf("input %q, want %q", got, want)
	}
}

// A rewind of the conversation alone tells the model which files later
// turns left changed.
func TestRewindConversationOnlySaysWhatStays(t *testing.T) {
	_, a, s, _ := setup(t,
		step("", call("write_file", map[string]any{"path": "new.txt", "content": "one\n"})),
		finish("first"))
	a.Run(context.Background(), s, "goal")
	r, err := s.PlanRewind(context.Background(), 0, false, true)
	if err != nil {
		t.Fatal(err)
	}
	fin := restore(t, a, s, r)
	if len(s.Messages) != 0 || !strings.Contains(fin.Note, "still as the later turns left them: new.txt") {
		t.Fatalf("messages %d, note %q", len(s.Messages), fin.Note)
	}
}

func sameMessage(a, b model.Message) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// Past the cap, the oldest checkpoints are dropped with a notice; the last
// reply can still be undone, and the dropped one no longer.
func TestCheckpointCapDropsTheOldest(t *testing.T) {
	dir, a, s, _ := setup(t,
		step("", call("write_file", map[string]any{"path": "one.txt", "content": strings.Repeat("1", 4096)})),
		step("", call("write_file", map[string]any{"path": "two.txt", "content": strings.Repeat("2", 4096)})),
		finish("done"))
	var notices []string
	a.Sink = func(e runtime.Event) {
		if n, ok := e.(runtime.Notice); ok {
			notices = append(notices, n.Text)
		}
	}
	s.Checkpoints.MaxBytes = 1
	a.Run(context.Background(), s, "write two files")
	if len(notices) == 0 || !strings.Contains(notices[0], "the oldest 1 were dropped") {
		t.Fatalf("notices %q", notices)
	}
	if s.Changes[0].Live || s.Changes[0].Before != "" || !s.Changes[1].Live {
		t.Fatalf("changes %+v", s.Changes)
	}
	r, err := s.PlanUndo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	restore(t, a, s, r)
	if _, err := os.Stat(filepath.Join(dir, "two.txt")); !os.IsNotExist(err) {
		t.Fatalf("two.txt: %v", err)
	}
	if _, err := s.PlanUndo(context.Background()); !errors.Is(err, runtime.ErrNothingToRestore) {
		t.Fatalf("undoing the dropped checkpoint: %v", err)
	}
}

// A checkpoint that cannot be taken (here, a workspace past the bound of
// one snapshot) is said, the calls run all the same, and there is nothing
// to undo.
func TestCallsRunWhenNoCheckpointCanBeTaken(t *testing.T) {
	dir, a, s, _ := setup(t, step("", call("run_shell", map[string]any{"command": "echo more >> a.txt"})), finish("done"))
	small, err := checkpoint.Open(checkpoint.Options{Dir: t.TempDir(), Workspace: dir, MaxSnapshotBytes: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	s.Checkpoints.Store = small
	var notices []string
	a.Sink = func(e runtime.Event) {
		if n, ok := e.(runtime.Notice); ok {
			notices = append(notices, n.Text)
		}
	}
	if out := a.Run(context.Background(), s, "go"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("%+v", out)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "no checkpoint could be taken before turn 1's changes") ||
		!strings.Contains(notices[0], "/undo cannot take them back") {
		t.Fatalf("notices %q", notices)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha\nbeta\nmore\n" {
		t.Fatalf("the shell call did not run: %q", b)
	}
	if _, err := s.PlanUndo(context.Background()); !errors.Is(err, runtime.ErrNothingToRestore) {
		t.Fatalf("undo: %v", err)
	}
}

// A restore read back from a journal that says it kept a negative number
// of points rewinds the conversation and leaves the points alone, as it
// leaves everything alone for a number past the end, instead of
// panicking: the journal's loader refuses such a line, and the session
// does not rely on it.
func TestReplayedRestoreKeepingNegativePoints(t *testing.T) {
	s := runtime.NewSession("s")
	s.AppendInput("go", "")
	s.AppendReply(1, model.Message{Role: model.RoleAssistant, Text: "Hello."})
	s.ReplayCheckpoint(runtime.RestoreStarted{Seq: 1, Kind: "rewind", Messages: 1, Points: -1, Turn: 1})
	s.ReplayCheckpoint(runtime.RestoreFinished{Seq: 1, Kind: "rewind", Messages: 1, Points: -1})
	if len(s.Messages) != 1 || len(s.Points) != 2 {
		t.Errorf("%d messages and %d points, want the goal alone and both points", len(s.Messages), len(s.Points))
	}
}
