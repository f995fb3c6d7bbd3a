package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// unusualArgs are read_file arguments as a model may write them: odd
// spacing, keys in an order of their own, and an escape JSON re-encoding
// would change.
const unusualArgs = "{ \"limit\" :40,\n  \"path\":  \"big.txt\", \"offset\": 1 }"

// anthropicPositionServer speaks the Anthropic Messages API for a model that
// reads big.txt with unusualArgs turn after turn, then finishes, finding
// its place from the request alone; it records each request's messages.
type anthropicPositionServer struct {
	srv   *httptest.Server
	turns int

	mu       sync.Mutex // guards requests
	requests []windowRequest
}

func newAnthropicPositionServer(t *testing.T, turns int) *anthropicPositionServer {
	s := &anthropicPositionServer{turns: turns}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *anthropicPositionServer) serve(rw http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Messages json.RawMessage `json:"messages"`
	}
	json.Unmarshal(raw, &req)
	var msgs []struct {
		Role string `json:"role"`
	}
	json.Unmarshal(req.Messages, &msgs)
	position := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			position++
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, windowRequest{prefix: strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0],
		body: raw, position: position, messages: req.Messages})
	s.mu.Unlock()
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	name, input := "read_file", unusualArgs
	if position >= s.turns {
		name, input = "finish", `{"summary": "read it all"}`
	}
	b, _ := json.Marshal(input)
	streamEvents(
		ev("message_start", `{"type":"message_start","message":{"id":"msg","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":1}}}`),
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_%d","name":%q,"input":{}}}`, position, name)),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(b)+`}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":10}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	)(rw, r)
}

func (s *anthropicPositionServer) of(prefix string) []windowRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []windowRequest
	for _, r := range s.requests {
		if r.prefix == prefix {
			out = append(out, r)
		}
	}
	return out
}

// TestResumeSendsTheSameBytes kills sessions whose model writes its
// arguments with odd spacing and key order, resumes them, and checks that
// the resumed session's first request carries, byte for byte, the messages
// the uninterrupted session sent at the same point: through the OpenAI and
// the Anthropic wire formats, on local servers that record the bodies.
func TestResumeSendsTheSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and resumes the binary 24 times")
	}
	const turns = 5
	type provider struct {
		name    string
		model   string
		env     func(prefix string) []string
		records func(prefix string) []windowRequest
	}
	oa := newWindowServer(t, 1_000_000, turns)
	oa.args = unusualArgs
	an := newAnthropicPositionServer(t, turns)
	providers := []provider{
		{"openai", "openai:test-model", func(p string) []string { return []string{"OPENAI_BASE_URL=" + oa.url(p), "OPENAI_API_KEY=" + e2eKey} }, oa.of},
		{"anthropic", "anthropic:test-model", func(p string) []string {
			return []string{"ANTHROPIC_BASE_URL=" + an.srv.URL + "/" + p, "ANTHROPIC_API_KEY=" + e2eKey}
		}, an.of},
	}
	for _, pv := range providers {
		t.Run(pv.name, func(t *testing.T) {
			run := func(ws, state, prefix string, args ...string) *exec.Cmd {
				cmd := exec.Command(binary, append([]string{"run", "--model", pv.model, "--json", "--mode", "auto", "--workspace", ws}, args...)...)
				cmd.Dir = ws
				cmd.Env = providerEnv(state, pv.env(prefix)...)
				return cmd
			}
			ws, state := bigWorkspace(t, 1_000_000), t.TempDir()
			full := execute(t, run(ws, state, "full", "read big.txt"))
			if full.code != 0 {
				t.Fatalf("uninterrupted run: exit %d\n%s", full.code, full.stderr)
			}
			reference := pv.records("full")
			if len(reference) != turns+1 {
				t.Fatalf("%d requests in the uninterrupted run", len(reference))
			}
			var points []int
			for i, line := range strings.Split(strings.TrimSpace(full.stdout), "\n") {
				if strings.Contains(line, `"type":"turn_ended"`) || strings.Contains(line, `"type":"call_finished"`) {
					points = append(points, i+1)
				}
			}
			rng := rand.New(rand.NewPCG(7, uint64(len(pv.name))))
			compared := 0
			for i := range 12 {
				prefix := fmt.Sprintf("k%d", i)
				tr := resumeTrial{t: t, ws: bigWorkspace(t, 1_000_000), state: t.TempDir()}
				killAfterEvents(t, run(tr.ws, tr.state, prefix, "read big.txt"), points[rng.IntN(len(points))])
				r, ok := tr.resumeWith(run(tr.ws, tr.state, prefix+"r", "--continue"))
				if !ok || r.code != 0 || strings.Contains(r.stdout, `"not_finished":true`) {
					continue
				}
				after := pv.records(prefix + "r")
				if len(after) == 0 {
					continue
				}
				first := after[0]
				ref := reference[min(first.position, len(reference)-1)]
				if ref.position != first.position || !sameMessages(ref.messages, first.messages) {
					t.Errorf("trial %d: the resumed request at reply %d differs from the uninterrupted one:%s", i, first.position,
						messagesDiff(first.messages, []string{string(ref.messages)}))
				}
				if !strings.Contains(string(first.body), jsonString(unusualArgs)) && pv.name == "openai" && first.position > 0 {
					t.Errorf("trial %d: the resumed request does not carry the model's own argument text:\n%.600s", i, first.body)
				}
				compared++
			}
			t.Logf("%s: %d resumed requests compared", pv.name, compared)
			if compared < 6 {
				t.Errorf("only %d of 12 kills left a session to compare", compared)
			}
		})
	}
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
