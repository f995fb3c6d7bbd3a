package journal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// echoTool returns its "text" argument; it reads nothing.
type echoTool struct{}

func (echoTool) Declaration() tool.Declaration {
	return tool.Declaration{Name: "echo", Annotations: tool.Annotations{ReadOnly: true}, Parameters: json.RawMessage(
		`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)}
}

func (echoTool) Call(_ context.Context, args json.RawMessage) tool.Return {
	var a struct{ Text string }
	_ = json.Unmarshal(args, &a)
	return tool.Ok(a.Text)
}

func call(name, args string) model.ScriptedCall {
	return model.ScriptedCall{Name: name, Args: json.RawMessage(args)}
}

func scenario() *model.Scenario {
	raw := `[1]`
	return &model.Scenario{Name: "j", Steps: []model.Step{
		{Text: "echoing", Calls: []model.ScriptedCall{call("echo", `{"text":"one"}`), call("echo", `{"text":"two"}`)}},
		{Calls: []model.ScriptedCall{{Name: "echo", RawArgs: &raw}}},
		{Calls: []model.ScriptedCall{call("echo", `{"text":"x"}`)}, Cut: &model.ScriptedCall{Name: "echo", RawArgs: ptr(`{"text":"lo`)}},
		{Calls: []model.ScriptedCall{call("remember", `{"key":"k","value":[1,2]}`), call("ask_user", `{"question":"Which?"}`)}},
		{Expect: []string{"this one"}, Calls: []model.ScriptedCall{call("finish", `{"summary":"done","data":{"x":1}}`)}},
	}}
}

func ptr(s string) *string { return &s }

func newAgent(t *testing.T, sink runtime.Sink) *runtime.Agent {
	t.Helper()
	cat, err := runtime.NewCatalog(echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	return &runtime.Agent{Model: model.NewScripted("j", scenario()), Catalog: cat, Sink: sink}
}

func header(id string) Header {
	return Header{Session: id, Goal: "echo things", Model: "j", Mode: "auto", Workspace: "/ws", Started: time.Now()}
}

func TestJournalRebuildsTheConversation(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, header("s1"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, w.Event)
	s := runtime.NewSession("s1")
	if out := a.Run(context.Background(), s, "echo things"); out.Status != runtime.StatusRefused {
		t.Fatalf("first run: %+v", out)
	}
	if out := a.Run(context.Background(), s, "this one"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("second run: %+v", out)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rp := loadRebuilt(t, dir, s)
	if got := rp.Session.Memory.Snapshot(); string(got["k"]) != "[1,2]" {
		t.Errorf("memory not rebuilt: %v", got)
	}
	if !rp.AtRest || rp.LastOutcome == nil || rp.LastOutcome.Status != runtime.StatusSucceeded || rp.Interrupted != nil {
		t.Errorf("state: at rest %v, outcome %+v, interrupted %+v", rp.AtRest, rp.LastOutcome, rp.Interrupted)
	}
	if rp.Session.Usage != s.Usage || rp.Session.Goal != "echo things" || len(rp.Warnings) != 0 {
		t.Errorf("usage %v vs %v, goal %q, warnings %v", rp.Session.Usage, s.Usage, rp.Session.Goal, rp.Warnings)
	}
	if w.Syncs() < 10 {
		t.Errorf("only %d syncs: intents and results must each be synced", w.Syncs())
	}
}

// loadRebuilt loads the journal of session s from dir and fails the test
// unless it rebuilds the conversation s holds.
func loadRebuilt(t *testing.T, dir string, s *runtime.Session) *Replay {
	t.Helper()
	rp, err := Load(Path(dir, s.ID))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rp.Session.Messages, s.Messages) {
		a, _ := json.MarshalIndent(rp.Session.Messages, "", " ")
		b, _ := json.MarshalIndent(s.Messages, "", " ")
		t.Fatalf("rebuilt conversation differs:\n%s\nwant\n%s", a, b)
	}
	return rp
}

// writeJournal records a finished session and returns its file.
func writeJournal(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	w, err := Create(dir, header("s2"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, w.Event)
	a.Run(context.Background(), runtime.NewSession("s2"), "echo things")
	w.Close()
	return Path(dir, "s2")
}

func TestTornLastLineIsToleratedAndReported(t *testing.T) {
	path := writeJournal(t)
	data, _ := os.ReadFile(path)
	torn := data[:len(data)-20] // cut inside the last line
	os.WriteFile(path, torn, 0o600)
	rp, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rp.Warnings) != 1 || !strings.Contains(rp.Warnings[0], "was cut off when the session stopped while writing it; it was ignored") {
		t.Errorf("warnings %v", rp.Warnings)
	}
	if rp.AtRest {
		t.Error("the run_finished line was torn, so the session is not at rest")
	}
	// Reopening cuts the torn tail so new lines follow whole ones.
	w, err := Reopen(rp, redact.New())
	if err != nil {
		t.Fatal(err)
	}
	w.Event(runtime.TurnEnded{Turn: 99})
	w.Close()
	again, err := Load(path)
	if err != nil || len(again.Warnings) != 0 {
		t.Errorf("after reopening: %v, warnings %v", err, again.Warnings)
	}
}

func TestDamagedJournals(t *testing.T) {
	good, _ := os.ReadFile(writeJournal(t))
	lines := strings.SplitAfter(string(good), "\n")
	cases := []struct {
		name, content, want string
	}{
		{"empty", "", "is empty: the session stopped before it began"},
		{"truncated inside the header", lines[0][:30], "is truncated: its header line is incomplete"},
		{"damaged in the middle", lines[0] + lines[1] + "{not json\n" + strings.Join(lines[2:], ""), "is damaged (line 3: "},
		{"other version", strings.Replace(lines[0], `"version":1`, `"version":7`, 1) + lines[1], "written in journal format version 7, and this agenttui reads version 1"},
		{"not a journal", "hello\n", "not an agenttui journal header"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "x.jsonl")
		os.WriteFile(path, []byte(c.content), 0o600)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// A damaged last line (whole, but not an event) is tolerated.
	path := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(path, []byte(lines[0]+lines[1]+"{\"type\":\"bogus\"}\n"), 0o600)
	rp, err := Load(path)
	if err != nil || len(rp.Warnings) != 1 || !strings.Contains(rp.Warnings[0], "is damaged") {
		t.Errorf("damaged last line: %v %v", err, rp)
	}
}

func TestSecretsNeverReachTheJournal(t *testing.T) {
	const key = "sk-live-test-0123456789abcdefXYZ"
	t.Setenv("OPENAI_API_KEY", "plain-configured-secret")
	dir := t.TempDir()
	w, err := Create(dir, header("s3"), redact.FromEnv())
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := runtime.NewCatalog(echoTool{})
	m := model.NewScripted("j", &model.Scenario{Steps: []model.Step{
		{Calls: []model.ScriptedCall{call("echo", `{"text":"the key is `+key+` and plain-configured-secret"}`)}},
		{Text: "done"},
	}})
	a := &runtime.Agent{Model: m, Catalog: cat, Sink: w.Event}
	a.Run(context.Background(), runtime.NewSession("s3"), "leak "+key)
	w.Close()
	data, _ := os.ReadFile(Path(dir, "s3"))
	if strings.Contains(string(data), key) || strings.Contains(string(data), "plain-configured-secret") {
		t.Fatalf("a secret reached the journal:\n%s", data)
	}
	if !strings.Contains(string(data), redact.Marker) {
		t.Error("nothing was redacted")
	}
}

func TestFindAndList(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"20261130-1-aaaa", "20261130-2-bbbb"} {
		h := header(id)
		w, _ := Create(dir, h, nil)
		w.Close()
	}
	other := header("20261130-3-cccc")
	other.Workspace = "/elsewhere"
	w, _ := Create(dir, other, nil)
	w.Close()
	if p, err := Find(dir, "20261130-2"); err != nil || !strings.HasSuffix(p, "20261130-2-bbbb.jsonl") {
		t.Errorf("prefix: %v %v", p, err)
	}
	if _, err := Find(dir, "20261130"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if _, err := Find(dir, "nope"); err == nil {
		t.Error("a missing session was found")
	}
	// Damaged journals of /ws are listed apart, those of other workspaces
	// not at all.
	for id, ws := range map[string]string{"20261130-4-dddd": "/ws", "20261130-5-eeee": "/elsewhere"} {
		lines := replace(interruptedLines, 5, `{"type":"call_started","turn":1,"index":-1,"name":"read_file","attempt":1,"key":"k","at":"2026-11-30T19:03:26Z"}`)
		lines[0] = strings.Replace(lines[0], `"workspace":"/ws"`, `"workspace":"`+ws+`"`, 1)
		os.WriteFile(Path(dir, id), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	}
	all, damaged, notes := List(dir, "/ws")
	if len(all) != 2 || len(notes) != 0 {
		t.Errorf("listed %d sessions of /ws, with notes %q", len(all), notes)
	}
	if len(damaged) != 1 || damaged[0].ID != "20261130-4-dddd" || damaged[0].Damage.Where() != "line 5: call index -1" {
		t.Errorf("damaged %+v", damaged)
	}
}
