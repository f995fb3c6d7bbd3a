package main

import (
	"bufio"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP trace receiver: it decodes each export with the
// official protobuf types and keeps the spans.
type collector struct {
	srv *httptest.Server

	mu       sync.Mutex // guards the fields below, which the server's handlers fill
	spans    []*tracepb.Span
	services []string
	auth     []string
	requests int
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(c.export))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) export(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(data, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.requests++
	c.auth = append(c.auth, r.Header.Get("Authorization"))
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				c.services = append(c.services, kv.Value.GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// collected returns what arrived; the binary has exited, so nothing more
// will.
func (c *collector) collected() (spans []*tracepb.Span, services, auth []string, requests int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spans, c.services, c.auth, c.requests
}

// otelEnv returns this process's environment without any OTEL_ variable,
// plus extra, so the tests do not depend on the machine's settings.
func otelEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "NO_COLOR=1"), extra...)
}

// tracedRun runs "agenttui run --json" in dir with env and returns its
// result and session id.
func tracedRun(t *testing.T, dir string, env []string, args ...string) (result, string) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"run", "--json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	res := execute(t, cmd)
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	return res, events(t, res.stdout)[0]["session"].(string)
}

// journalHeader reads the header line of session id's journal.
func journalHeader(t *testing.T, id string) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(os.Getenv("XDG_STATE_HOME"), "agenttui", "sessions", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var h map[string]any
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &h) != nil {
		t.Fatal("no journal header")
	}
	return h
}

// parallelWorkspace returns a workspace with a.txt holding secret and b.txt,
// and a scenario whose reply reads both side by side, then writes a.txt
// (which waits for the read of a.txt), then finishes; a follow-up is
// answered with text.
func parallelWorkspace(t *testing.T, secret string) (dir, scenarioFile string) {
	dir = t.TempDir()
	for name, text := range map[string]string{"a.txt": "token " + secret + "\n", "b.txt": "bee\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc := `{"name":"traced","steps":[
	  {"text":"Reading both.","calls":[
	    {"name":"read_file","args":{"path":"a.txt"}},
	    {"name":"read_file","args":{"path":"b.txt"}},
	    {"name":"write_file","args":{"path":"a.txt","content":"new a\n"}}]},
	  {"calls":[{"name":"finish","args":{"summary":"done"}}]},
	  {"text":"Nothing more to do."}]}`
	scenarioFile = filepath.Join(t.TempDir(), "traced.json")
	if err := os.WriteFile(scenarioFile, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, scenarioFile
}

func spanAttr(sp *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range sp.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func TestTracesExportToAnOTLPReceiver(t *testing.T) {
	const token = "tok-0123456789abcdef"
	col := newCollector(t)
	dir, sc := parallelWorkspace(t, token)
	env := otelEnv(
		"OTEL_EXPORTER_OTLP_ENDPOINT="+col.srv.URL,
		"OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20"+token,
		"OTEL_SERVICE_NAME=agenttui-e2e",
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true",
	)
	res, session := tracedRun(t, dir, env, "--mode", "auto", "--scenario", sc, "read a and b, then write a")
	spans, services, auth, _ := col.collected()

	if len(spans) == 0 {
		t.Fatalf("no spans arrived; stderr: %s", res.stderr)
	}
	for _, s := range services {
		if s != "agenttui-e2e" {
			t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", s)
		}
	}
	for _, a := range auth {
		if a != "Bearer "+token {
			t.Errorf("the exporter sent Authorization %q, not the configured header", a)
		}
	}
	byName := map[string][]*tracepb.Span{}
	for _, sp := range spans {
		byName[sp.Name] = append(byName[sp.Name], sp)
	}
	if len(byName["invoke_agent agenttui"]) != 1 || len(byName["chat traced"]) != 2 ||
		len(byName["execute_tool read_file"]) != 2 || len(byName["execute_tool write_file"]) != 1 ||
		len(byName["execute_tool finish"]) != 1 {
		names := make([]string, len(spans))
		for i, sp := range spans {
			names[i] = sp.Name
		}
		t.Fatalf("spans %v", names)
	}

	// One trace, the session's: its id is in the journal and in the list
	// of sessions.
	root := byName["invoke_agent agenttui"][0]
	trace := hex.EncodeToString(root.TraceId)
	for _, sp := range spans {
		if hex.EncodeToString(sp.TraceId) != trace {
			t.Errorf("%s is in another trace", sp.Name)
		}
		if sp.Name != "invoke_agent agenttui" && string(sp.ParentSpanId) != string(root.SpanId) {
			t.Errorf("%s is not a child of the run's span", sp.Name)
		}
	}
	if h := journalHeader(t, session); h["trace_id"] != trace {
		t.Errorf("journal header trace_id %v, want %s", h["trace_id"], trace)
	}
	list := runBinary(t, dir, "", "sessions")
	if !strings.Contains(list.stdout, "TRACE") || !strings.Contains(list.stdout, trace) {
		t.Errorf("agenttui sessions does not show the trace:\n%s", list.stdout)
	}

	// The reads ran side by side, so their spans overlap; the write waited
	// for the read of a.txt, so its span begins after that one ends.
	reads := byName["execute_tool read_file"]
	if !(reads[0].StartTimeUnixNano < reads[1].EndTimeUnixNano && reads[1].StartTimeUnixNano < reads[0].EndTimeUnixNano) {
		t.Errorf("the reads ran side by side but their spans do not overlap: %d–%d and %d–%d",
			reads[0].StartTimeUnixNano, reads[0].EndTimeUnixNano, reads[1].StartTimeUnixNano, reads[1].EndTimeUnixNano)
	}
	var readA *tracepb.Span
	for _, r := range reads {
		if spanAttr(r, "agenttui.call.index").GetIntValue() == 0 {
			readA = r
		}
	}
	write := byName["execute_tool write_file"][0]
	if readA == nil || write.StartTimeUnixNano < readA.EndTimeUnixNano {
		t.Errorf("the write began before the read it waited for ended")
	}
	if got := spanAttr(write, "agenttui.call.footprint.kind").GetStringValue(); got != "writes" {
		t.Errorf("write footprint kind %q", got)
	}
	if len(write.Links) != 1 || string(write.Links[0].SpanId) != string(readA.SpanId) {
		t.Errorf("the write should link to the read it waited for")
	}

	// Content was asked for, and arrives redacted: the file held the
	// exporter's token, which is a secret.
	result := spanAttr(readA, "gen_ai.tool.call.result").GetStringValue()
	if !strings.Contains(result, "token [redacted]") {
		t.Errorf("tool result %q", result)
	}
	for _, sp := range spans {
		raw, _ := proto.Marshal(sp)
		if strings.Contains(string(raw), token) {
			t.Errorf("%s holds the exporter's token", sp.Name)
		}
	}

	// A follow-up in another process adds a run to the same trace, and
	// the progress on stderr names it.
	cmd := exec.Command(binary, "run", "--resume", session, "--mode", "auto", "--scenario", sc, "anything else?")
	cmd.Dir, cmd.Env = dir, env
	again := execute(t, cmd)
	if again.code != 0 || !strings.Contains(again.stderr, "agenttui: trace "+trace) {
		t.Fatalf("follow-up: exit %d, stderr:\n%s", again.code, again.stderr)
	}
	spans, _, _, _ = col.collected()
	runs := 0
	for _, sp := range spans {
		if sp.Name == "invoke_agent agenttui" {
			runs++
			if hex.EncodeToString(sp.TraceId) != trace {
				t.Errorf("the follow-up's run is in another trace")
			}
		}
	}
	if runs != 2 {
		t.Errorf("want 2 runs in the trace, got %d", runs)
	}
}

func TestTracesAreOffUnlessConfigured(t *testing.T) {
	col := newCollector(t)
	for name, env := range map[string][]string{
		"nothing set":       otelEnv("OTEL_SERVICE_NAME=x"),
		"OTEL_SDK_DISABLED": otelEnv("OTEL_EXPORTER_OTLP_ENDPOINT="+col.srv.URL, "OTEL_SDK_DISABLED=true"),
		"exporter none":     otelEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="+col.srv.URL+"/v1/traces", "OTEL_TRACES_EXPORTER=none"),
	} {
		t.Run(name, func(t *testing.T) {
			dir, sc := parallelWorkspace(t, "x")
			res, session := tracedRun(t, dir, env, "--mode", "auto", "--scenario", sc, "go")
			if _, ok := journalHeader(t, session)["trace_id"]; ok {
				t.Errorf("an untraced session's journal names a trace")
			}
			if strings.Contains(res.stderr, "trace") {
				t.Errorf("stderr mentions traces: %s", res.stderr)
			}
			if list := runBinary(t, dir, "", "sessions"); strings.Contains(list.stdout, "TRACE") {
				t.Errorf("agenttui sessions shows a trace column with no traced session:\n%s", list.stdout)
			}
		})
	}
	if _, _, _, n := col.collected(); n != 0 {
		t.Errorf("%d exports arrived with traces off", n)
	}
}

func TestTraceSettingsThatCannotWork(t *testing.T) {
	for _, tc := range []struct{ env, says string }{
		{"OTEL_TRACES_EXPORTER=zipkin", "OTEL_TRACES_EXPORTER=zipkin"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
	} {
		cmd := exec.Command(binary, "run", "--scenario", scenario(t, "succeeds.json"), "go")
		cmd.Dir = t.TempDir()
		cmd.Env = otelEnv("OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9", tc.env)
		res := execute(t, cmd)
		lines := strings.Split(strings.TrimSpace(res.stderr), "\n")
		if res.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.says) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line naming it", tc.env, res.code, res.stderr)
		}
	}
}

// TestConsoleTracesAnApproval runs a session in the console whose write
// waits for the person's approval; after the console closes, its spans have
// been flushed to the collector, the approval among them.
func TestConsoleTracesAnApproval(t *testing.T) {
	col := newCollector(t)
	sc := writeScenario(t, `{"name": "approve", "steps": [
	  {"calls": [{"name": "write_file", "args": {"path": "notes.txt", "content": "hello\n"}}]},
	  {"calls": [{"name": "finish", "args": {"summary": "Wrote the notes."}}]}]}`)
	term := startConsole(t, e2eCols, e2eRows, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.srv.URL},
		"--scenario", sc, "write the notes")
	toBoard(t, term)
	approveWhenReady(t, term, "#1 write_file")
	term.WaitFor("✓ Succeeded", e2eStep)
	term.Key("ctrl+c")
	term.WaitFor("press Ctrl+C again to quit", e2eStep)
	term.Key("ctrl+c")
	if code, err := term.Wait(e2eStep); err != nil || code != 0 {
		t.Fatalf("exit code %d, %v", code, err)
	}

	spans, _, _, _ := col.collected()
	var root, write, approval *tracepb.Span
	for _, sp := range spans {
		switch sp.Name {
		case "invoke_agent agenttui":
			root = sp
		case "execute_tool write_file":
			write = sp
		case "await_approval":
			approval = sp
		}
	}
	if root == nil || write == nil || approval == nil {
		t.Fatalf("want the run, the write and its approval among %d spans", len(spans))
	}
	if string(approval.ParentSpanId) != string(write.SpanId) {
		t.Errorf("the approval is not a child of its call")
	}
	if got := spanAttr(approval, "agenttui.approval.by").GetStringValue(); got != "user" {
		t.Errorf("approved by %q", got)
	}
	if got := spanAttr(approval, "agenttui.approval.asked_by").GetStringValue(); got != "mode:reads" {
		t.Errorf("asked by %q", got)
	}
	session := spanAttr(root, "gen_ai.conversation.id").GetStringValue()
	if h := journalHeader(t, session); h["trace_id"] != hex.EncodeToString(root.TraceId) {
		t.Errorf("journal header trace_id %v, want the trace's %x", h["trace_id"], root.TraceId)
	}
}
