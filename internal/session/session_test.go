package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// The scenarios the tests play: one that reads a file and finishes, and one
// that asks a question, so that its session ends at rest.
const (
	reads = `{"name": "reads", "steps": [
		{"calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
		{"expect": ["remember the milk"], "calls": [{"name": "finish", "args": {"summary": "done"}}]}]}`
	asks = `{"name": "asks", "steps": [
		{"calls": [{"name": "ask_user", "args": {"question": "Which one?"}}]},
		{"expect": ["the first"], "text": "Thanks."}]}`
)

// scripted returns a scripted model playing the scenario text.
func scripted(t *testing.T, text string) model.Model {
	t.Helper()
	sc, err := model.ParseScenario([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return model.NewScripted("scenario:"+sc.Name, sc)
}

// recorder is a Show that keeps every event; the runtime and MCP servers
// may call it from their goroutines.
type recorder struct {
	mu     sync.Mutex // guards events
	events []runtime.Event
	// check, when set, is called with each event as it arrives.
	check func(runtime.Event)
}

func (r *recorder) show(e runtime.Event) {
	if r.check != nil {
		r.check(e)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) notices() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if n, ok := e.(runtime.Notice); ok {
			out = append(out, n.Text)
		}
	}
	return out
}

// newWorkspace returns a fresh workspace holding notes.txt, with the session
// journals kept in a fresh state folder.
func newWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// started returns a host over ws playing m, started and attached, whose
// events rec hears.
func started(t *testing.T, ws string, m model.Model, rec *recorder) *Host {
	t.Helper()
	h, err := New(Options{Workspace: ws, Model: m, Policy: approval.NewPolicy(approval.ModeAuto, nil), MaxParallel: 4, Show: rec.show})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err, _ := h.Close(); err != nil {
			t.Errorf("closing the journal: %v", err)
		}
	})
	if err := h.Start(nil); err != nil {
		t.Fatal(err)
	}
	h.Attach()
	return h
}

// TestTheJournalHearsFirst checks the order of the fan-out: when the screen
// hears of a call starting, its intent is already on disk.
func TestTheJournalHearsFirst(t *testing.T) {
	ws := newWorkspace(t)
	rec := &recorder{}
	h := started(t, ws, scripted(t, reads), rec)
	var onDisk []bool
	rec.check = func(e runtime.Event) {
		if _, ok := e.(runtime.CallStarted); !ok {
			return
		}
		dir, _ := journal.Dir()
		data, err := os.ReadFile(journal.Path(dir, h.Session().ID))
		onDisk = append(onDisk, err == nil && strings.Contains(string(data), `"type":"call_started"`))
	}
	if out := h.Run(context.Background(), "read the notes"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if len(onDisk) == 0 {
		t.Fatal("no call started")
	}
	for i, ok := range onDisk {
		if !ok {
			t.Errorf("call %d: the screen heard of it before the journal had it", i)
		}
	}
}

// TestAdoptDecidesHowASessionGoesOn plays a session that ends at rest with
// a question, and one whose journal is torn in the middle of a run: the
// first waits for input and says whether its tools changed at its next
// run; the second is carried on at once, after saying what the load
// tolerated.
func TestAdoptDecidesHowASessionGoesOn(t *testing.T) {
	ws := newWorkspace(t)
	first := started(t, ws, scripted(t, asks), &recorder{})
	if out := first.Run(context.Background(), "ask me"); out.Status != runtime.StatusRefused {
		t.Fatalf("outcome %+v", out)
	}
	id := first.Session().ID
	if err, _ := first.Close(); err != nil {
		t.Fatal(err)
	}

	rp, err := Load(ws, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	again, err := New(Options{Workspace: ws, Policy: approval.NewPolicy(approval.ModeAuto, nil), Show: rec.show,
		Wrap: func(t tool.Tool) tool.Tool { return renamed{t} }})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	carry, err := again.Adopt(rp, scripted(t, asks))
	if err != nil {
		t.Fatal(err)
	}
	if carry.Run != nil || len(carry.Notices) != 0 || again.Session().ID != id {
		t.Fatalf("at rest: run %v, notices %v, session %s", carry.Run != nil, carry.Notices, again.Session().ID)
	}
	if err := again.Start(rp); err != nil {
		t.Fatal(err)
	}
	again.Attach()
	again.Run(context.Background(), "the first")
	if n := rec.notices(); len(n) != 1 || !strings.HasPrefix(n[0], "the tools changed since this session was recorded") {
		t.Errorf("the next run's notices: %q", n)
	}

	// A journal torn while its run was going is carried on at once.
	path := rp.Path
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	torn := strings.Join(lines[:len(lines)-2], "") + lines[len(lines)-2][:5]
	if err := os.WriteFile(path, []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	rp, err = Load(ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if rp.AtRest {
		t.Fatal("the torn journal is at rest")
	}
	rec = &recorder{}
	third := started(t, ws, nil, rec)
	carry, err = third.Adopt(rp, scripted(t, `{"steps": [{"text": "Carried on."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if carry.Run == nil || len(carry.Notices) != 0 {
		t.Fatalf("interrupted: run %v, notices %v", carry.Run != nil, carry.Notices)
	}
	carry.Run(context.Background())
	if n := rec.notices(); len(n) == 0 || !strings.HasPrefix(n[0], "journal: the last line of the journal") {
		t.Errorf("the resumed run does not say what the load tolerated first: %q", n)
	}
}

// renamed is a workspace tool under another name, so that the catalogue
// differs from the one a session was recorded with.
type renamed struct{ tool.Tool }

func (r renamed) Declaration() tool.Declaration {
	d := r.Tool.Declaration()
	d.Name = "renamed_" + d.Name
	return d
}

func (r renamed) Unwrap() tool.Tool { return r.Tool }

// TestClearStartsAFreshSession checks /clear: the journal of the old session
// is closed, and the new one has its own id, its own journal at its first
// run, and no grants.
func TestClearStartsAFreshSession(t *testing.T) {
	ws := newWorkspace(t)
	rec := &recorder{}
	h := started(t, ws, scripted(t, reads), rec)
	h.Run(context.Background(), "read the notes")
	old := h.Session().ID
	if err := h.Clear(); err != nil {
		t.Fatal(err)
	}
	if h.Session().ID == old || len(h.Session().Messages) != 0 {
		t.Fatalf("the session after Clear: %s, %d messages", h.Session().ID, len(h.Session().Messages))
	}
	if err := h.Compact(context.Background(), ""); err == nil {
		t.Error("a fresh session was compacted")
	}
	dir, _ := journal.Dir()
	if _, err := os.Stat(journal.Path(dir, h.Session().ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the fresh session has a journal before its first run: %v", err)
	}
}

// TestUnjournaledSessionsLeaveNoJournal checks that a session in a
// temporary workspace is not journaled, and says nothing about it.
func TestUnjournaledSessionsLeaveNoJournal(t *testing.T) {
	ws := newWorkspace(t)
	rec := &recorder{}
	h, err := New(Options{Workspace: ws, Model: scripted(t, reads), Policy: approval.NewPolicy(approval.ModeAuto, nil),
		Show: rec.show, Unjournaled: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Start(nil); err != nil {
		t.Fatal(err)
	}
	h.Attach()
	h.Run(context.Background(), "read the notes")
	dir, _ := journal.Dir()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || h.JournalErr() != nil || len(rec.notices()) != 0 {
		t.Errorf("journals %v, error %v, notices %q", entries, h.JournalErr(), rec.notices())
	}
}

// TestSetupErrorsAreTyped checks that what the person can mend comes back
// as an *Error, which the command turns into exit 2.
func TestSetupErrorsAreTyped(t *testing.T) {
	ws := newWorkspace(t)
	var se *Error
	if _, err := New(Options{Workspace: filepath.Join(ws, "notes.txt"), Policy: approval.NewPolicy(approval.ModeAuto, nil)}); !errors.As(err, &se) ||
		!strings.HasPrefix(err.Error(), "--workspace "+filepath.Join(ws, "notes.txt")+": ") {
		t.Errorf("a file as the workspace: %v", err)
	}
	if _, err := Load(ws, "no-such-session"); !errors.As(err, &se) || !strings.Contains(err.Error(), "no such session no-such-session") {
		t.Errorf("an unknown session: %v", err)
	}
	h, err := New(Options{Workspace: ws, Policy: approval.NewPolicy(approval.ModeAuto, nil), MCPConfig: filepath.Join(ws, "missing.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Start(nil); !errors.As(err, &se) || !strings.Contains(err.Error(), "the MCP configuration file does not exist") {
		t.Errorf("a missing MCP configuration: %v", err)
	}
}

// TestEveryToolSchemaCompiles checks what the session's lazy catalogue
// relies on: the schema of every tool a session offers (the workspace
// tools, the task tool and the runtime's control tools) compiles, so that
// compiling them on first use instead of before the first frame can never
// refuse a call.
func TestEveryToolSchemaCompiles(t *testing.T) {
	h, err := New(Options{Workspace: newWorkspace(t), Model: scripted(t, reads), Policy: approval.NewPolicy(approval.ModeAuto, nil)})
	if err != nil {
		t.Fatal(err)
	}
	cat, left := runtime.BuildCatalog(h.tools...)
	if len(left) > 0 {
		t.Fatalf("tools whose schemas do not compile: %v", left)
	}
	if got, want := len(cat.Names()), len(h.agent.CurrentCatalog().Names()); got != want || want < 10 {
		t.Fatalf("compiled %d tools, the session offers %d", got, want)
	}
}

// TestResumedPromptKeepsItsDay checks that a session resumed on another day
// is given the system prompt it began with, the day included, so that its
// requests carry the same bytes as before and the prompt cache serves them.
func TestResumedPromptKeepsItsDay(t *testing.T) {
	ws := newWorkspace(t)
	first := started(t, ws, scripted(t, asks), &recorder{})
	first.Run(context.Background(), "ask me")
	id, before := first.Session().ID, first.Prompt().Text
	if err, _ := first.Close(); err != nil {
		t.Fatal(err)
	}
	rp, err := Load(ws, id)
	if err != nil {
		t.Fatal(err)
	}
	// The session began long ago.
	began := time.Date(2020, 1, 2, 10, 0, 0, 0, time.UTC)
	rp.Header.Started = began
	again, err := New(Options{Workspace: ws, Policy: approval.NewPolicy(approval.ModeAuto, nil), Show: (&recorder{}).show})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := again.Adopt(rp, scripted(t, asks)); err != nil {
		t.Fatal(err)
	}
	want := instructionsOn(before, began)
	if got := again.agent.System; got != want || got != again.Prompt().Text {
		t.Errorf("the resumed session's prompt:\n%s\nwant:\n%s", got, want)
	}
}

// instructionsOn is prompt with the day its session began changed to day.
func instructionsOn(prompt string, day time.Time) string {
	const line = "- Date the session began: "
	i := strings.Index(prompt, line) + len(line)
	return prompt[:i] + day.Format("2006-01-02") + prompt[i+len("2006-01-02"):]
}
