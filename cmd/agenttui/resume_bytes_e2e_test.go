package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// unusualArgs are read_file arguments as a model may write them: odd
// spacing, keys in an order of their own, and an escape JSON re-encoding
// would change.
const unusualArgs = "{ \"limit\" :40,\n  \"path\":  \"big.txt\", \"offset\": 1 }"

// anthropicPositionServer speaks the Anthropic Messages API for a model that
// thinks, then reads big.txt with unusualArgs turn after turn, then
// finishes, finding its place from the request alone; it records each
// request's messages. Each reply starts with a thinking block whose text and
// signature depend on its position, and every other reply adds a redacted
// block; like the API, the server refuses a request whose earlier replies
// do not send those blocks back unchanged and in place, and counts the
// refusals.
type anthropicPositionServer struct {
	srv   *httptest.Server
	turns int

	mu       sync.Mutex // guards requests and refusals
	requests []windowRequest
	refusals []string
}

func newAnthropicPositionServer(t *testing.T, turns int) *anthropicPositionServer {
	s := &anthropicPositionServer{turns: turns}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// thought, signature and redacted are the reasoning of reply position k.
func thought(k int) string {
	return fmt.Sprintf("Reply %d: read big.txt again \u2028<&> \"quoted\".", k)
}
func signature(k int) string {
	return fmt.Sprintf("EqQBCkYIBxgCKkB%03dsk-ant-looks-like-a-key-0123456789/+==", k)
}
func redacted(k int) string { return fmt.Sprintf("EmwKAhgBEgy%03dghp_abcdefghijklmnopqrstuvwxyz", k) }

// checkThinking returns the API's error for the first earlier reply whose
// reasoning did not come back as it was sent, or "".
func checkThinking(msgs []json.RawMessage) string {
	k := 0
	for i, raw := range msgs {
		var m struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		}
		json.Unmarshal(raw, &m)
		if m.Role != "assistant" {
			continue
		}
		want := []map[string]string{{"type": "thinking", "thinking": thought(k), "signature": signature(k)}}
		if k%2 == 1 {
			want = append(want, map[string]string{"type": "redacted_thinking", "data": redacted(k)})
		}
		for j, w := range want {
			var got map[string]any
			if j < len(m.Content) {
				json.Unmarshal(m.Content[j], &got)
			}
			if got["type"] != w["type"] {
				return fmt.Sprintf("messages.%d.content.%d.type: Expected `thinking` or `redacted_thinking`, but found `%v`. "+
					"When `thinking` is enabled, a final `assistant` message must start with a thinking block", i, j, got["type"])
			}
			for key, v := range w {
				if got[key] != v {
					return fmt.Sprintf("messages.%d.content.%d: `thinking` or `redacted_thinking` blocks in the latest assistant message "+
						"cannot be modified. These blocks must remain as they were in the original response.", i, j)
				}
			}
		}
		k++
	}
	return ""
}

func (s *anthropicPositionServer) serve(rw http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Messages json.RawMessage `json:"messages"`
	}
	json.Unmarshal(raw, &req)
	var msgs []json.RawMessage
	json.Unmarshal(req.Messages, &msgs)
	position := 0
	for _, m := range msgs {
		if strings.Contains(string(m), `"role":"assistant"`) {
			position++
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, windowRequest{prefix: strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0],
		body: raw, position: position, messages: req.Messages})
	refused := checkThinking(msgs)
	if refused != "" {
		s.refusals = append(s.refusals, refused)
	}
	s.mu.Unlock()
	if refused != "" {
		b, _ := json.Marshal(refused)
		failWith(400, `{"type":"error","error":{"type":"invalid_request_error","message":`+string(b)+`}}`)(rw, r)
		return
	}
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	name, input := "read_file", unusualArgs
	if position >= s.turns {
		name, input = "finish", `{"summary": "read it all"}`
	}
	b, _ := json.Marshal(input)
	th, _ := json.Marshal(thought(position))
	events := []string{
		ev("message_start", `{"type":"message_start","message":{"id":"msg","type":"message","role":"assistant","content":[],"model":"claude-opus-4-7","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":`+string(th)+`}}`),
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":%q}}`, signature(position))),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
	}
	index := 1
	if position%2 == 1 {
		events = append(events,
			ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":%q}}`, redacted(position))),
			ev("content_block_stop", `{"type":"content_block_stop","index":1}`))
		index = 2
	}
	events = append(events,
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%d","name":%q,"input":{}}}`, index, position, name)),
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, b)),
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index)),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":10}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	)
	streamEvents(events...)(rw, r)
}

// refused returns the requests the server refused, with the reason.
func (s *anthropicPositionServer) refused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refusals...)
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
// the Anthropic wire formats, on local servers that record the bodies. On
// the Anthropic wire every reply also thinks, with signatures and redacted
// blocks shaped like secrets, and the server refuses any request that lost
// or changed a block.
func TestResumeSendsTheSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and resumes the binary 24 times")
	}
	const turns = 5
	sandboxed := sandbox.Detect().ABI >= 1
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
		{"anthropic", "anthropic:claude-opus-4-7", func(p string) []string {
			return []string{"ANTHROPIC_BASE_URL=" + an.srv.URL + "/" + p, "ANTHROPIC_API_KEY=" + e2eKey}
		}, an.of},
	}
	for _, pv := range providers {
		t.Run(pv.name, func(t *testing.T) {
			// With the sandbox on, run_shell's description says what it
			// may change, which once named the process's own folder.
			flags := []string{"run", "--model", pv.model, "--json", "--mode", "auto"}
			if sandboxed {
				flags = append(flags, "--sandbox", "workspace-write")
			}
			run := func(ws, state, prefix string, args ...string) *exec.Cmd {
				cmd := exec.Command(binary, append(append(slices.Clone(flags), "--workspace", ws), args...)...)
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
				// Beyond the conversation, the request is the killed
				// process's own, byte for byte: the tools' declarations,
				// the system prompt, the settings.
				if before := pv.records(prefix); len(before) > 0 {
					if diff := outsideMessagesDiff(before[0].body, first.body); diff != "" {
						t.Errorf("trial %d: the resumed request's %s", i, diff)
					}
					if sandboxed && !strings.Contains(string(first.body), "Commands run in a sandbox") {
						t.Errorf("trial %d: run_shell was declared without its sandbox:\n%.600s", i, first.body)
					}
				}
				compared++
			}
			t.Logf("%s: %d resumed requests compared", pv.name, compared)
			if pv.name == "anthropic" {
				// Every request carried the thinking of every earlier reply
				// as it came, signatures included, in the session and after
				// every resume.
				if refused := an.refused(); len(refused) > 0 {
					t.Errorf("%d requests were refused for their thinking, the first: %s", len(refused), refused[0])
				}
			}
			if compared < 6 {
				t.Errorf("only %d of 12 kills left a session to compare", compared)
			}
		})
	}
}

// outsideMessagesDiff says which part of two request bodies differs outside
// the conversation (the tools, the system prompt, the settings; on the
// OpenAI wire the system prompt is the first message), with the first
// bytes where they part, or "" when none does.
func outsideMessagesDiff(a, b []byte) string {
	parts := func(body []byte) map[string]string {
		var fields map[string]json.RawMessage
		json.Unmarshal(body, &fields)
		out := map[string]string{}
		for k, v := range fields {
			if k != "messages" {
				out[k] = string(v)
			}
		}
		var msgs []json.RawMessage
		if json.Unmarshal(fields["messages"], &msgs) == nil && len(msgs) > 0 && strings.Contains(string(msgs[0]), `"role":"system"`) {
			out["system message"] = string(msgs[0])
		}
		return out
	}
	x, y := parts(a), parts(b)
	keys := slices.Sorted(maps.Keys(x))
	for k := range y {
		if _, ok := x[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if x[k] == y[k] {
			continue
		}
		at := 0
		for at < min(len(x[k]), len(y[k])) && x[k][at] == y[k][at] {
			at++
		}
		from := max(0, at-80)
		return fmt.Sprintf("%q differs from the killed process's at byte %d:\n  now    …%.200s\n  before …%.200s", k, at, y[k][from:], x[k][from:])
	}
	return ""
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
