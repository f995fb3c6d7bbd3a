package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// windowServer speaks the OpenAI wire format for a model with a small
// context window: it refuses, as OpenAI does, a request over the window (it
// counts four bytes of request body a token), answers a request that offers
// no tools with a summary, and otherwise plays a session that reads a large
// file turn after turn, then finishes. It finds its place in the session
// from the request alone (the replies in it, and the turns each summary
// says it stands for), so a process killed and resumed against the same
// server carries on where it was.
type windowServer struct {
	srv    *httptest.Server
	window int
	turns  int
	// args are the arguments of each read_file call, as the model sends
	// them; {"path":"big.txt"} when empty.
	args string

	mu       sync.Mutex // guards requests
	requests []windowRequest
}

// windowRequest is one request the server received.
type windowRequest struct {
	// prefix is the path before /v1, which tells the processes of a test
	// apart.
	prefix   string
	body     []byte
	tokens   int
	summary  bool
	rejected bool
	// position is how many replies the session had before it.
	position int
	messages json.RawMessage
}

// turnsMarker is how a summary says how many replies it stands for.
var turnsMarker = regexp.MustCompile(`\[turns: (\d+)\]`)

func newWindowServer(t *testing.T, window, turns int) *windowServer {
	w := &windowServer{window: window, turns: turns}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.srv.Close)
	return w
}

// url returns the base URL a process of the test should use.
func (w *windowServer) url(prefix string) string { return w.srv.URL + "/" + prefix + "/v1" }

func (w *windowServer) serve(rw http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Messages json.RawMessage `json:"messages"`
		Tools    []any           `json:"tools"`
	}
	json.Unmarshal(raw, &req)
	var msgs []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	json.Unmarshal(req.Messages, &msgs)
	position := 0
	history := ""
	for _, m := range msgs {
		text := fmt.Sprint(m.Content)
		if m.Role == "assistant" {
			position++
		}
		if m.Role == "user" {
			history += text
			for _, mk := range turnsMarker.FindAllStringSubmatch(text, -1) {
				n, _ := strconv.Atoi(mk[1])
				position += n
			}
		}
	}
	got := windowRequest{prefix: strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0], body: raw, tokens: len(raw) / 4,
		summary: len(req.Tools) == 0, position: position, messages: req.Messages}
	if got.tokens > w.window {
		got.rejected = true
		w.record(got)
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(rw, `{"error":{"message":"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, w.window, got.tokens)
		return
	}
	w.record(got)
	usage := openAIUsage(got.tokens, 30)
	if got.summary {
		// The history holds one AGENT line per reply, besides the turns
		// the summaries in it stand for.
		turns := strings.Count(history, "\nAGENT: ") + strings.Count(history, "PERSON: AGENT: ")
		if strings.HasPrefix(history, "AGENT: ") {
			turns++
		}
		for _, mk := range turnsMarker.FindAllStringSubmatch(history, -1) {
			n, _ := strconv.Atoi(mk[1])
			turns += n
		}
		text := fmt.Sprintf("The agent read big.txt again and again; it holds only filler lines. [turns: %d]", turns)
		b, _ := json.Marshal(text)
		openAIStream(openAIChunk(`{"role":"assistant","content":""}`, ""), openAIChunk(`{"content":`+string(b)+`}`, ""),
			openAIChunk(`{}`, "stop"), usage)(rw, r)
		return
	}
	if position >= w.turns {
		openAIStream(append(openAICall(0, "call_finish", "finish", `{"summary":"read it all"}`), openAIChunk(`{}`, "tool_calls"), usage)...)(rw, r)
		return
	}
	args := w.args
	if args == "" {
		args = `{"path":"big.txt"}`
	}
	openAIStream(append(openAICall(0, fmt.Sprintf("call_%d", position), "read_file", args),
		openAIChunk(`{}`, "tool_calls"), usage)...)(rw, r)
}

func (w *windowServer) record(r windowRequest) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests = append(w.requests, r)
}

// of returns the requests a process with prefix sent.
func (w *windowServer) of(prefix string) []windowRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []windowRequest
	for _, r := range w.requests {
		if r.prefix == prefix {
			out = append(out, r)
		}
	}
	return out
}

// bigWorkspace returns a workspace with a large file to read, and a
// configuration that gives the model the window.
func bigWorkspace(t *testing.T, window int) string {
	t.Helper()
	ws := t.TempDir()
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, "filler line %03d of the big file, which says nothing of use to anyone at all\n", i)
	}
	writeFile(t, filepath.Join(ws, "big.txt"), b.String())
	writeFile(t, filepath.Join(ws, "agenttui.json"), fmt.Sprintf(`{"context_window": %d}`, window))
	return ws
}

// TestContextWindowIsRespected runs a 30-turn session that reads a large
// file each turn against a model with a 6,000-token window: the session
// compacts as it goes and succeeds, and the server refuses no request, but
// for at most one overflow that was recovered.
func TestContextWindowIsRespected(t *testing.T) {
	srv := newWindowServer(t, 6000, 30)
	ws := bigWorkspace(t, 6000)
	env := providerEnv(t.TempDir(), "OPENAI_BASE_URL="+srv.url("run"), "OPENAI_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "openai:test-model", "--json", "--mode", "auto", "--workspace", ws, "read big.txt 30 times")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nlast: %s", r.code, r.stderr, lastLines(r.stdout, 3))
	}
	evs := events(t, r.stdout)
	compactions := ofType(evs, "compacted")
	if len(compactions) < 2 {
		t.Fatalf("%d compactions, want at least two", len(compactions))
	}
	var rejected, summaries int
	for _, req := range srv.of("run") {
		if req.rejected {
			rejected++
		}
		if req.summary {
			summaries++
			if strings.Contains(string(req.body), `"tool_calls"`) || strings.Contains(string(req.body), `"role":"tool"`) {
				t.Errorf("a summary request holds tool blocks: %.300s", req.body)
			}
		}
	}
	overflows := 0
	for _, c := range compactions {
		if c["reason"] == "overflow" {
			overflows++
		}
	}
	if rejected > 1 || rejected != overflows {
		t.Errorf("%d requests refused, %d overflow compactions; want at most one, recovered", rejected, overflows)
	}
	if summaries != len(compactions) {
		t.Errorf("%d summary requests, %d compactions", summaries, len(compactions))
	}
	for _, u := range ofType(evs, "usage") {
		ctx, _ := u["context"].(map[string]any)
		if ctx == nil || ctx["window"] != float64(6000) {
			t.Fatalf("usage without the window's share: %v", u)
		}
	}
}

// TestContextOverflowAnthropic recovers from Anthropic's "prompt is too
// long": the runtime compacts, in a request without tool blocks, and sends
// the turn again.
func TestContextOverflowAnthropic(t *testing.T) {
	ws := bigWorkspace(t, 200_000)
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	start := ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":900,"output_tokens":1}}}`)
	stop := func(reason string) []string {
		return []string{ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+reason+`","stop_sequence":null},"usage":{"output_tokens":12}}`),
			ev("message_stop", `{"type":"message_stop"}`)}
	}
	toolUse := func(id, name, input string) http.HandlerFunc {
		b, _ := json.Marshal(input)
		return streamEvents(append([]string{start,
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{}}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(b)+`}}`),
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)}, stop("tool_use")...)...)
	}
	text := func(s string) http.HandlerFunc {
		b, _ := json.Marshal(s)
		return streamEvents(append([]string{start,
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(b)+`}}`),
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)}, stop("end_turn")...)...)
	}
	tooLong := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`)
	}
	srv := newWireServer(t,
		toolUse("toolu_1", "read_file", `{"path":"big.txt"}`),
		toolUse("toolu_2", "read_file", `{"path":"big.txt"}`),
		tooLong,
		text("The agent read big.txt twice."),
		toolUse("toolu_3", "finish", `{"summary":"done after compacting"}`),
	)
	env := providerEnv(t.TempDir(), "ANTHROPIC_BASE_URL="+srv.srv.URL, "ANTHROPIC_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "anthropic:test-model", "--json", "--mode", "auto", "--workspace", ws, "read big.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nlast: %s", r.code, r.stderr, lastLines(r.stdout, 3))
	}
	evs := events(t, r.stdout)
	if c := ofType(evs, "compacted"); len(c) != 1 || c[0]["reason"] != "overflow" || c[0]["replies"] != float64(2) {
		t.Fatalf("compactions %v", c)
	}
	bodies := srv.received()
	if len(bodies) != 5 {
		t.Fatalf("%d requests, want 5", len(bodies))
	}
	summary := bodies[3]
	raw, _ := json.Marshal(summary)
	if summary["tools"] != nil || strings.Contains(string(raw), "tool_use") || strings.Contains(string(raw), "tool_result") ||
		!strings.Contains(string(raw), "RESULT OF read_file") {
		t.Errorf("the summary request: %.400s", raw)
	}
	retried, _ := json.Marshal(bodies[4]["messages"])
	if !strings.Contains(string(retried), "The agent read big.txt twice.") {
		t.Errorf("the turn sent again does not carry the summary: %.400s", retried)
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestCompactionCrashAndResume kills a session that compacts as it goes at
// random points, resumes it, and checks that the first request the resumed
// process sends equals, message for message, one the uninterrupted session
// sent at the same point: a resume sees the conversation from before a
// compaction or from after it, never from half-way, and estimates the
// request as the uninterrupted session did.
func TestCompactionCrashAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test runs the binary 40 times")
	}
	const window, turns = 6000, 14
	srv := newWindowServer(t, window, turns)
	full := newResumeTrial(t, srv, window, "full")
	r := full.run("read big.txt many times")
	if r.code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", r.code, r.stderr)
	}
	// The kill points are the events around compactions: a compaction
	// starting (its summary being written), done, and a turn ending (the
	// decision to compact comes next). The process goes on for a moment
	// after the event before the kill lands, so the points spread around
	// them.
	var points []int
	for i, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		for _, typ := range []string{"compaction_started", "compacted", "turn_ended"} {
			if strings.Contains(line, `"type":"`+typ+`"`) {
				points = append(points, i+1)
			}
		}
	}
	reference := srv.of("full")
	summaries := 0
	for _, r := range reference {
		if r.summary {
			summaries++
		}
	}
	if summaries < 2 {
		t.Fatalf("the uninterrupted session compacted %d times; the test needs several", summaries)
	}

	rng := rand.New(rand.NewPCG(2026, 12))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	var mu sync.Mutex // guards compared
	compared := 0
	for i := range 20 {
		at := points[rng.IntN(len(points))]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			tr := newResumeTrial(t, srv, window, fmt.Sprintf("t%d", i))
			tr.killAfter("read big.txt many times", at)
			resumed, ok := tr.resume()
			if !ok {
				return // killed before the session began
			}
			if resumed.code != 0 {
				t.Errorf("trial %d (kill after event %d): the resumed run: exit %d\n%s\n%s", i, at, resumed.code, resumed.stderr, lastLines(resumed.stdout, 2))
				return
			}
			after := srv.of(tr.prefix + "r")
			if len(after) == 0 {
				return // killed after the session had ended
			}
			if strings.Contains(resumed.stdout, `"not_finished":true`) {
				// The kill caught a call before it started: the resumed
				// session tells the model so, as it must, so its
				// conversation differs from the uninterrupted one by
				// design.
				return
			}
			first := after[0]
			for _, ref := range reference {
				if ref.position == first.position && ref.summary == first.summary && sameMessages(ref.messages, first.messages) {
					mu.Lock()
					compared++
					mu.Unlock()
					return
				}
			}
			var same []string
			for _, ref := range reference {
				if ref.position == first.position && ref.summary == first.summary {
					same = append(same, string(ref.messages))
				}
			}
			t.Errorf("trial %d (kill after event %d): the resumed session's first request (at reply %d, summary %v) is not one the "+
				"uninterrupted session sent: %s", i, at, first.position, first.summary, messagesDiff(first.messages, same))
		}()
	}
	wg.Wait()
	t.Logf("%d compactions in the uninterrupted session; %d resumed requests matched", summaries, compared)
	if compared < 10 {
		t.Errorf("only %d of 20 kills left a session to compare mid-way; the test is not exercising resume", compared)
	}
}

// sameMessages compares two requests' messages byte for byte, but for the
// system message, which names each trial's own workspace.
func sameMessages(a, b json.RawMessage) bool {
	var x, y []json.RawMessage
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil || len(x) == 0 || len(x) != len(y) {
		return false
	}
	for i := range x {
		if i == 0 && strings.Contains(string(x[0]), `"role":"system"`) {
			continue
		}
		if string(x[i]) != string(y[i]) {
			return false
		}
	}
	return true
}

// messagesDiff says where got first differs from each of the requests in
// want.
func messagesDiff(got json.RawMessage, want []string) string {
	var g []json.RawMessage
	json.Unmarshal(got, &g)
	var b strings.Builder
	for _, w := range want {
		var x []json.RawMessage
		json.Unmarshal([]byte(w), &x)
		fmt.Fprintf(&b, "\n  against one of %d messages (got %d):", len(x), len(g))
		for i := 1; i < min(len(x), len(g)); i++ {
			if string(x[i]) != string(g[i]) {
				fmt.Fprintf(&b, " message %d differs:\n    got  %.400s\n    want %.400s", i, g[i], x[i])
				break
			}
		}
	}
	return b.String()
}

// resumeTrial is one process of the crash test and its resume, with their
// own workspace and state folder.
type resumeTrial struct {
	t         *testing.T
	srv       *windowServer
	ws, state string
	prefix    string
}

func newResumeTrial(t *testing.T, srv *windowServer, window int, prefix string) resumeTrial {
	return resumeTrial{t: t, srv: srv, ws: bigWorkspace(t, window), state: t.TempDir(), prefix: prefix}
}

func (r resumeTrial) command(prefix string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, append([]string{"run", "--model", "openai:test-model", "--json", "--mode", "auto", "--workspace", r.ws}, args...)...)
	cmd.Dir = r.ws
	cmd.Env = providerEnv(r.state, "OPENAI_BASE_URL="+r.srv.url(prefix), "OPENAI_API_KEY="+e2eKey)
	return cmd
}

func (r resumeTrial) run(goal string) result { return execute(r.t, r.command(r.prefix, goal)) }

// killAfter kills the process with SIGKILL once it has written n events.
func (r resumeTrial) killAfter(goal string, n int) {
	killAfterEvents(r.t, r.command(r.prefix, goal), n)
}

// killAfterEvents starts cmd and kills it with SIGKILL once it has written
// n lines of events.
func killAfterEvents(t *testing.T, cmd *exec.Cmd, n int) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for seen := 0; seen < n && sc.Scan(); seen++ {
	}
	_ = cmd.Process.Kill()
	io.Copy(io.Discard, out)
	_ = cmd.Wait()
}

// resume carries on the trial's session; it reports false, running
// nothing, when the kill came before the session's journal was written.
func (r resumeTrial) resume() (result, bool) {
	return r.resumeWith(r.command(r.prefix+"r", "--continue"))
}

// resumeWith runs cmd, which carries on the trial's session, unless the
// kill came before the session's journal was written.
func (r resumeTrial) resumeWith(cmd *exec.Cmd) (result, bool) {
	entries, _ := os.ReadDir(filepath.Join(r.state, "agenttui", "sessions"))
	if len(entries) == 0 {
		return result{}, false
	}
	return execute(r.t, cmd), true
}

// TestConsoleCompactCommand runs a short session in the console against a
// model with a large window, so that nothing compacts by itself, then
// types /compact with a focus: the model is asked for a summary that keeps
// the focus, the screen says the conversation was compacted, and the next
// goal's request carries the summary instead of the old tool calls.
func TestConsoleCompactCommand(t *testing.T) {
	srv := newWindowServer(t, 100000, 3)
	ws := bigWorkspace(t, 100000)
	env := []string{"OPENAI_BASE_URL=" + srv.url("console"), "OPENAI_API_KEY=" + e2eKey}
	term := startConsole(t, e2eCols, e2eRows, env, "--model", "openai:test-model", "--mode", "auto", "--workspace", ws)
	term.WaitFor("Goal ›", e2eStep)
	command(t, term, "read big.txt 3 times")
	term.WaitFor("✓ Succeeded", e2eStep)
	if n := len(srv.of("console")); n != 4 {
		t.Fatalf("%d requests before /compact, want 4", n)
	}
	command(t, term, "/compact keep the file name")
	term.WaitFor("compacted the conversation", e2eStep)
	reqs := srv.of("console")
	last := reqs[len(reqs)-1]
	if !last.summary || !strings.Contains(string(last.body), "keep in particular: keep the file name") {
		t.Fatalf("/compact did not ask for a summary keeping the focus: %.400s", last.body)
	}

	command(t, term, "and once more")
	term.WaitForFunc("a second success", func(s string) bool { return strings.Count(s, "✓ Succeeded") >= 2 }, e2eStep)
	reqs = srv.of("console")
	next := reqs[len(reqs)-1]
	if next.summary || !strings.Contains(string(next.messages), "[turns: 4]") || strings.Contains(string(next.messages), "call_0") {
		t.Fatalf("the goal after /compact did not send the summary in place of the old calls: %.600s", next.messages)
	}
}
