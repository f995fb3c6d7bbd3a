package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// dropAfterEvents sends the server-sent events and then closes the
// connection without ending the response, the way a proxy or a crashed
// server drops a stream.
func dropAfterEvents(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
		}
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		conn.Close()
	}
}

// failWith answers with an HTTP error, a JSON body and the header given as
// pairs of name and value.
func failWith(status int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// sseData frames Chat Completions chunks as server-sent events.
func sseData(chunks ...string) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = "data: " + c + "\n\n"
	}
	return out
}

// sessionJournal returns the text of the one session journal under the
// state folder state.
func sessionJournal(t *testing.T, state string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(state, "agenttui", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d session journals under %s, want 1", len(files), state)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestProviderRetriesHeadless runs a session whose first model request
// drops in the middle of a call's arguments and is then rate limited: the
// run succeeds at the third attempt, the event stream and the journal
// record both failures, and no request after them holds a fragment of the
// dropped reply.
func TestProviderRetriesHeadless(t *testing.T) {
	ws := workspaceWithNotes(t)
	rate := `{"error":{"message":"Rate limit reached.","type":"requests","code":"rate_limit_exceeded"}}`
	srv := newWireServer(t,
		dropAfterEvents(sseData(openAIChunk(`{"role":"assistant","content":""}`, ""), openAIChunk(`{"content":"FRAGMENT-TEXT "}`, ""),
			openAIChunk(`{"tool_calls":[{"index":0,"id":"call_lost","type":"function","function":{"name":"read_file","arguments":""}}]}`, ""),
			openAIChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"FRAGMENT-ARG"}}]}`, ""))...),
		failWith(429, rate, "retry-after-ms", "1"),
		openAIStream(append(append([]string{openAIChunk(`{"content":"Reading the notes."}`, "")},
			openAICall(0, "call_read", "read_file", `{"path":"notes.txt"}`)...), openAIChunk(`{}`, "tool_calls"))...),
		openAIStream(append(openAICall(0, "call_finish", "finish", `{"summary":"The note says milk."}`), openAIChunk(`{}`, "tool_calls"))...),
	)
	state := t.TempDir()
	env := providerEnv(state, "OPENAI_BASE_URL="+srv.srv.URL+"/v1", "OPENAI_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "openai:test-model", "--json", "--mode", "auto", "--workspace", ws, "read the notes")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	if out := lastOutcome(t, evs); out["status"] != "succeeded" || out["summary"] != "The note says milk." {
		t.Fatalf("outcome %v", out)
	}
	retries := ofType(evs, "model_retry")
	if len(retries) != 2 {
		t.Fatalf("model_retry events %v, want 2", retries)
	}
	first, second := retries[0], retries[1]
	if first["turn"] != 1.0 || first["attempt"] != 2.0 || first["max"] != 5.0 || first["why"] != "the connection dropped" ||
		first["wait_ms"].(float64) < 800 || first["wait_ms"].(float64) > 1200 ||
		!strings.Contains(first["error"].(string), "dropped in the middle of the reply (unexpected end of the stream)") {
		t.Errorf("the first retry %v", first)
	}
	if second["attempt"] != 3.0 || second["why"] != "rate limited (429 Too Many Requests)" || second["wait_ms"] != 1.0 {
		t.Errorf("the second retry %v", second)
	}
	// The stream carries the dropped attempt's text, then the retry that
	// voids it; the reply holds only the attempt that succeeded.
	var order []string
	for _, e := range evs {
		switch e["type"] {
		case "text_delta":
			order = append(order, "text: "+e["text"].(string))
		case "model_retry", "reply":
			order = append(order, e["type"].(string))
		}
	}
	if want := "text: FRAGMENT-TEXT |model_retry|model_retry|text: Reading the notes.|reply"; strings.Join(order[:5], "|") != want {
		t.Errorf("event order %q, want it to begin %q", order, want)
	}
	if reply := ofType(evs, "reply")[0]; reply["text"] != "Reading the notes." || len(reply["calls"].([]any)) != 1 {
		t.Errorf("the reply %v", reply)
	}

	bodies := srv.received()
	if len(bodies) != 4 {
		t.Fatalf("%d requests, want 4", len(bodies))
	}
	for i := 1; i < 3; i++ {
		a, _ := json.Marshal(bodies[0])
		b, _ := json.Marshal(bodies[i])
		if string(a) != string(b) {
			t.Errorf("attempt %d sent another request than the first:\n%s\nwant\n%s", i+1, b, a)
		}
	}
	last, _ := json.Marshal(bodies[3])
	if strings.Contains(string(last), "FRAGMENT") {
		t.Errorf("the next turn's request holds a fragment of the dropped attempt:\n%s", last)
	}
	journal := sessionJournal(t, state)
	if n := strings.Count(journal, `"type":"model_retry"`); n != 2 || strings.Contains(journal, "FRAGMENT") {
		t.Errorf("the journal holds %d model_retry lines (want 2) and no fragment:\n%s", n, journal)
	}
}

// TestProviderStallEndsTheAttemptOnTime sets stream_idle_timeout to 1 s
// and stalls the first reply after its first chunk: the attempt is
// abandoned 1 to 3 seconds after the chunk, on the real clock, and the run
// succeeds at the second attempt.
func TestProviderStallEndsTheAttemptOnTime(t *testing.T) {
	ws := workspaceWithNotes(t)
	if err := os.WriteFile(filepath.Join(ws, "agenttui.json"), []byte(`{"stream_idle_timeout": "1s"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	start := ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":1}}}`)
	text := func(s string) []string {
		return []string{
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+s+`"}}`),
		}
	}
	var mu sync.Mutex // guards sent
	var sent time.Time
	srv := newWireServer(t,
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			// The time is taken before the chunk goes out, so the client
			// cannot have heard it earlier.
			mu.Lock()
			sent = time.Now()
			mu.Unlock()
			for _, e := range append([]string{start}, text("STALLED")...) {
				io.WriteString(w, e)
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
		streamEvents(append(append([]string{start}, text("Nothing to do.")...),
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}`),
			ev("message_stop", `{"type":"message_stop"}`))...),
	)
	env := providerEnv(t.TempDir(), "ANTHROPIC_BASE_URL="+srv.srv.URL, "ANTHROPIC_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "anthropic:test-model", "--json", "--workspace", ws, "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	if out := lastOutcome(t, evs); out["status"] != "succeeded" || out["summary"] != "Nothing to do." {
		t.Fatalf("outcome %v", out)
	}
	retries := ofType(evs, "model_retry")
	if len(retries) != 1 || retries[0]["why"] != "nothing arrived for 1s" {
		t.Fatalf("model_retry events %v", retries)
	}
	at, err := time.Parse(time.RFC3339Nano, retries[0]["at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	took := at.Sub(sent)
	mu.Unlock()
	t.Logf("the attempt was abandoned %s after the server went quiet", took)
	if took < time.Second || took > 3*time.Second {
		t.Errorf("the attempt was abandoned %s after the server went quiet, want 1 to 3 s", took)
	}
	if n := len(srv.received()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestProviderRetriesFromConfigThenFail sets model_retries to 1 against a
// server that always fails: the run fails after 2 attempts, saying so, and
// the progress on stderr has a line for the retry.
func TestProviderRetriesFromConfigThenFail(t *testing.T) {
	ws := workspaceWithNotes(t)
	if err := os.WriteFile(filepath.Join(ws, "agenttui.json"), []byte(`{"model_retries": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := `{"error":{"message":"The server had an error.","type":"server_error"}}`
	srv := newWireServer(t, failWith(500, boom, "retry-after-ms", "1"), failWith(500, boom, "retry-after-ms", "1"))
	env := providerEnv(t.TempDir(), "OPENAI_BASE_URL="+srv.srv.URL+"/v1", "OPENAI_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "openai:test-model", "--workspace", ws, "read the notes")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if want := "turn 1 · retrying: the server failed (500 Internal Server Error) (attempt 2 of 2, in 0.0 s)\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks the progress line %q:\n%s", want, r.stderr)
	}
	want := fmt.Sprintf("  - the model failed after 2 attempts: the server at %s/v1 failed with 500 Internal Server Error: The server had an error; try again later\n", srv.srv.URL)
	if !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}
	if n := len(srv.received()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestConsoleShowsAModelRetry runs the console against a server whose
// first reply drops after some text and whose second is rate limited: the
// dropped text stays on screen struck through, with the retry lines under
// it, the status bar counts down to the next attempt, and the run then
// succeeds with the reply that came whole.
func TestConsoleShowsAModelRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("the console waits out two retries on the real clock")
	}
	ws := workspaceWithNotes(t)
	release := make(chan struct{})
	srv := newWireServer(t,
		dropAfterEvents(sseData(openAIChunk(`{"role":"assistant","content":""}`, ""), openAIChunk(`{"content":"Let me look at the no"}`, ""))...),
		failWith(429, `{"error":{"message":"Rate limit reached.","type":"requests"}}`, "retry-after", "3"),
		func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			openAIStream(openAIChunk(`{"content":"All done with the notes."}`, ""), openAIChunk(`{}`, "stop"))(w, r)
		},
	)
	term := startConsole(t, e2eCols, e2eRows, []string{"OPENAI_BASE_URL=" + srv.srv.URL + "/v1", "OPENAI_API_KEY=" + e2eKey},
		"--model", "openai:test-model", "--workspace", ws, "read the notes")
	s := term.WaitForFunc("the second retry counting down", func(s string) bool {
		return strings.Contains(s, "↻ retrying: rate limited (429 Too Many Requests) (attempt 3 of 5, in 3.0 s)") &&
			strings.Contains(screenRows(s)[e2eRows-1], "↻ retrying in ")
	}, e2eStep)
	for _, want := range []string{
		"✗ Let me look at the no",
		"↻ retrying: the connection dropped (attempt 2 of 5, in ",
		") · the text above was discarded",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, s)
		}
	}
	// The discarded text is struck through.
	struck := false
	for row, l := range screenRows(s) {
		if col := strings.Index(l, "Let me look"); col >= 0 {
			c := term.CellAt(row, len([]rune(l[:col])))
			if c.Content != "L" || !c.Strikethrough {
				t.Errorf("the discarded text is not struck through: %+v", c)
			}
			struck = true
			break
		}
	}
	if !struck {
		t.Errorf("the discarded text is not on the screen:\n%s", s)
	}
	term.WaitForFunc("the third attempt replying", func(s string) bool {
		return strings.Contains(screenRows(s)[e2eRows-1], "model replying (attempt 3 of 5)")
	}, e2eStep)
	close(release)
	s = term.WaitFor("✓ Succeeded", e2eStep)
	if !strings.Contains(s, "All done with the notes.") || !strings.Contains(s, "✗ Let me look at the no") {
		t.Fatalf("the outcome screen:\n%s", s)
	}
	if n := len(srv.received()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}
