package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// anthropicEvent is one server-sent event of the Messages API.
func anthropicEvent(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

// anthropicReply is a streamed Messages reply: a thinking block whose text
// comes in the pieces, each piece after the one before has been let through
// (a nil channel lets it through at once), then the text and the tool call;
// usage is the message_start usage object.
type anthropicReply struct {
	usage    string
	thinking []string
	gates    []<-chan struct{}
	text     string
	call     string // the tool's name; its input is input
	input    string
	out      int
}

func (a anthropicReply) handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		send := func(typ, data string) {
			io.WriteString(w, anthropicEvent(typ, data))
			fl.Flush()
		}
		send("message_start", `{"type":"message_start","message":{"id":"msg","type":"message","role":"assistant","content":[],`+
			`"model":"claude-opus-4-7","stop_reason":null,"stop_sequence":null,"usage":`+a.usage+`}}`)
		send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
		for i, piece := range a.thinking {
			if i < len(a.gates) && a.gates[i] != nil {
				select {
				case <-a.gates[i]:
				case <-r.Context().Done():
					return
				}
			}
			b, _ := json.Marshal(piece)
			send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":`+string(b)+`}}`)
		}
		send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBsig"}}`)
		send("content_block_stop", `{"type":"content_block_stop","index":0}`)
		b, _ := json.Marshal(a.text)
		send("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
		send("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":`+string(b)+`}}`)
		send("content_block_stop", `{"type":"content_block_stop","index":1}`)
		stop := "end_turn"
		if a.call != "" {
			stop = "tool_use"
			in, _ := json.Marshal(a.input)
			send("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_%s","name":%q,"input":{}}}`, a.call, a.call))
			send("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":`+string(in)+`}}`)
			send("content_block_stop", `{"type":"content_block_stop","index":2}`)
		}
		send("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, a.out))
		send("message_stop", `{"type":"message_stop"}`)
	}
}

// TestConsoleThinkingReasoningAndCost runs the console against a local
// Anthropic server whose model thinks, reads the prompt cache and is
// priced: the thinking streams as it comes, folds when the reply arrives and
// unfolds with t; /reasoning low changes the next request's effort; the
// status bar and the outcome printed at exit show the session's tokens,
// what came from the cache, and the cost at Claude Opus 4.7's price.
func TestConsoleThinkingReasoningAndCost(t *testing.T) {
	ws := workspaceWithNotes(t)
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	// At $5 fresh input, $6.25 cache writes, $0.50 cache reads and $25
	// output a million tokens: turn 1 costs $0.0725, turn 2 $0.015375 and
	// turn 3 $0.00825.
	srv := newWireServer(t,
		anthropicReply{
			usage:    `{"input_tokens":2000,"cache_creation_input_tokens":8000,"cache_read_input_tokens":0,"output_tokens":1}`,
			thinking: []string{"The notes file holds the answer.", " Read notes.txt before saying anything."},
			gates:    []<-chan struct{}{nil, gate},
			text:     "Reading the notes.", call: "read_file", input: `{"path":"notes.txt"}`, out: 500,
		}.handler(),
		anthropicReply{
			usage:    `{"input_tokens":200,"cache_creation_input_tokens":300,"cache_read_input_tokens":10000,"output_tokens":1}`,
			thinking: []string{"It says to remember the milk; finish with that."},
			text:     "The note is read.", call: "finish", input: `{"summary":"The note says to remember the milk."}`, out: 300,
		}.handler(),
		anthropicReply{
			usage:    `{"input_tokens":100,"cache_creation_input_tokens":200,"cache_read_input_tokens":10500,"output_tokens":1}`,
			thinking: []string{"Nothing more to do."},
			text:     "Still milk.", out: 50,
		}.handler(),
	)
	env := providerEnv(t.TempDir(), "ANTHROPIC_BASE_URL="+srv.srv.URL, "ANTHROPIC_API_KEY="+e2eKey, "NO_COLOR=")
	term := startConsole(t, 160, e2eRows, env, "--model", "anthropic:claude-opus-4-7", "--workspace", ws, "read the notes")

	s := term.WaitFor("The notes file holds the answer.", e2eStep)
	if !strings.Contains(s, "thinking…") || strings.Contains(s, "Reading the notes.") {
		t.Fatalf("the thinking does not stream ahead of the reply:\n%s", s)
	}
	if !strings.Contains(screenRows(s)[0], "reasoning default (high)") {
		t.Errorf("the header does not show the reasoning level:\n%s", screenRows(s)[0])
	}
	release()

	const twoTurns = "tokens 20k in (10k cached) · 800 out · $0.09"
	s = term.WaitForFunc("the run's outcome and usage", func(s string) bool {
		return strings.Contains(s, twoTurns) && strings.Contains(s, "✓ Succeeded")
	}, e2eStep)
	if strings.Contains(s, "The notes file holds the answer.") || strings.Contains(s, "finish with that") {
		t.Fatalf("the thinking did not fold when its reply arrived:\n%s", s)
	}
	if !strings.Contains(s, "✻ thinking ·") {
		t.Fatalf("no folded thinking line:\n%s", s)
	}
	if last := screenRows(s)[e2eRows-1]; !strings.Contains(last, twoTurns) {
		t.Errorf("the status bar does not show the usage and cost:\n%s", last)
	}

	// t unfolds the thinking nearest the bottom, in the transcript.
	term.Key("tab")
	term.Key("tab")
	term.WaitForFunc("the transcript focused", func(s string) bool { return strings.Contains(screenRows(s)[0], "focus transcript") }, e2eStep)
	term.Key("t")
	term.WaitFor("It says to remember the milk; finish with that.", e2eStep)
	term.Key("t")
	term.WaitForFunc("the thinking folded again", func(s string) bool { return !strings.Contains(s, "finish with that.") }, e2eStep)

	term.Key("tab")
	term.WaitForFunc("the input focused", func(s string) bool { return strings.Contains(screenRows(s)[0], "focus input") }, e2eStep)
	command(t, term, "/reasoning low")
	s = term.WaitFor("reasoning set to low", e2eStep)
	if !strings.Contains(screenRows(s)[0], "reasoning low") {
		t.Errorf("the header does not show the new level:\n%s", screenRows(s)[0])
	}
	command(t, term, "and again?")
	const threeTurns = "tokens 31k in (20k cached) · 850 out · $0.10"
	term.WaitForFunc("the follow-up's outcome and usage", func(s string) bool {
		return strings.Contains(s, threeTurns) && strings.Contains(s, "Still milk.")
	}, e2eStep)

	reqs := srv.received()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"", "", "low"} {
		thinking, _ := json.Marshal(reqs[i]["thinking"])
		if string(thinking) != `{"display":"summarized","type":"adaptive"}` {
			t.Errorf("request %d thinking %s", i+1, thinking)
		}
		effort := ""
		if oc, ok := reqs[i]["output_config"].(map[string]any); ok {
			effort, _ = oc["effort"].(string)
		}
		if effort != want {
			t.Errorf("request %d effort %q, want %q", i+1, effort, want)
		}
	}

	term.Key("ctrl+c")
	term.WaitFor("press Ctrl+C again to quit", e2eStep)
	term.Key("ctrl+c")
	if code, err := term.Wait(e2eStep); err != nil || code != 0 {
		t.Fatalf("exit code %d, %v", code, err)
	}
	s = term.Screen()
	for _, want := range []string{"✓ Succeeded", "Still milk.", threeTurns} {
		if !strings.Contains(s, want) {
			t.Errorf("the normal screen after exit lacks %q:\n%s", want, s)
		}
	}
}

// TestHeadlessReasoningPricesAndSessions runs agenttui run with --reasoning
// and a configuration that prices the model itself: the request asks for the
// effort, the usage events and the run's end say the cost at the
// configured price, and agenttui sessions lists the session's tokens and
// cost. An effort the model refuses stops the run before anything starts.
func TestHeadlessReasoningPricesAndSessions(t *testing.T) {
	ws := workspaceWithNotes(t)
	state := t.TempDir()
	srv := newWireServer(t, anthropicReply{
		usage:    `{"input_tokens":2000,"cache_creation_input_tokens":8000,"cache_read_input_tokens":0,"output_tokens":1}`,
		thinking: []string{"Nothing to read: answer at once."},
		text:     "Nothing to do.", out: 530,
	}.handler())
	writeFile(t, filepath.Join(ws, "agenttui.json"), `{"prices": {"anthropic:claude-opus-4-7": {"input": 10, "output": 50}}}`)
	env := providerEnv(state, "ANTHROPIC_BASE_URL="+srv.srv.URL, "ANTHROPIC_API_KEY="+e2eKey)
	r := runWithEnv(t, ws, env, "run", "--model", "anthropic:claude-opus-4-7", "--reasoning", "max", "--json", "--workspace", ws, "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if oc, _ := srv.received()[0]["output_config"].(map[string]any); oc["effort"] != "max" {
		t.Errorf("the request's output_config %v, want effort max", srv.received()[0]["output_config"])
	}
	evs := events(t, r.stdout)
	// Cache writes cost as fresh input when the configuration gives no
	// price for them: 10,000 input tokens at $10 and 530 out at $50.
	const cost = (10_000*10 + 530*50) / 1e6
	u := ofType(evs, "usage")
	if len(u) != 1 || u[0]["usage"].(map[string]any)["cost_usd"] != cost || u[0]["usage"].(map[string]any)["cache_write_tokens"] != 8000.0 {
		t.Errorf("usage %v, want cost_usd %v", u, cost)
	}
	if th := ofType(evs, "thinking_delta"); len(th) != 1 || th[0]["text"] != "Nothing to read: answer at once." {
		t.Errorf("thinking_delta events %v", th)
	}
	if fin := ofType(evs, "run_finished"); len(fin) != 1 || fin[0]["usage"].(map[string]any)["cost_usd"] != cost {
		t.Errorf("run_finished %v", fin)
	}

	list := runWithEnv(t, ws, env, "sessions", "--workspace", ws)
	if list.code != 0 || !strings.Contains(list.stdout, "TOKENS IN/OUT") || !strings.Contains(list.stdout, "10k/530") ||
		!strings.Contains(list.stdout, "$0.13") {
		t.Errorf("agenttui sessions:\n%s%s", list.stdout, list.stderr)
	}

	refused := runWithEnv(t, ws, env, "run", "--model", "anthropic:claude-fable-5-2", "--reasoning", "off", "--workspace", ws, "say hello")
	want := "agenttui: anthropic:claude-fable-5-2 always reasons and refuses to have it turned off"
	if refused.code != 2 || !strings.HasPrefix(refused.stderr, want) || len(srv.received()) != 1 {
		t.Errorf("off for a model that always reasons: exit %d, stderr %q, %d requests", refused.code, refused.stderr, len(srv.received()))
	}
}
