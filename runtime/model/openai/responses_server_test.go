package openai_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// responsesAPI is the Responses API as the fake server speaks it.
var responsesAPI = wiretest.API{
	Base:      "/v1",
	Path:      "/v1/responses",
	KeyHeader: "Authorization",
	Key:       testKey,
	NotFound: func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "404 page not found", http.StatusNotFound)
	},
}

// newResponsesModel returns a model at base that speaks the Responses API,
// which a base URL alone would not choose.
func newResponsesModel(t *testing.T, base string, opts ...openai.Option) *openai.Model {
	t.Helper()
	all := append([]openai.Option{openai.WithBaseURL(base), openai.WithAPIKey(testKey), openai.WithAPI(openai.APIResponses)}, opts...)
	m, err := openai.New("test-model", all...)
	if err != nil {
		t.Fatal(err)
	}
	if m.API() != openai.APIResponses {
		t.Fatalf("the model speaks %q", m.API())
	}
	return m
}

// event frames one Responses API event: its type and its other fields,
// given as the inside of a JSON object.
func event(typ, fields string) string {
	if fields != "" {
		fields = "," + fields
	}
	return fmt.Sprintf("event: %s\ndata: {\"type\":%q%s}\n\n", typ, typ, fields)
}

// q quotes s as a JSON string.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// out is one output item of a scripted response.
type out struct {
	// kind is "reasoning", "message" or "call".
	kind string
	// id is the item's id; text the reasoning's summary or the message's
	// text; callID, name and args the call's.
	id, text, callID, name, args string
	// parts splits a reasoning summary into parts.
	parts []string
	// encrypted is the reasoning's encrypted content; it is only sent when
	// the request asked for it.
	encrypted string
}

func reasoning(id, summary string) out {
	return out{kind: "reasoning", id: id, text: summary, encrypted: "gAAAAB" + id + "+/enc=="}
}
func message(id, text string) out { return out{kind: "message", id: id, text: text} }
func fcall(id, callID, name, args string) out {
	return out{kind: "call", id: id, callID: callID, name: name, args: args}
}

// itemJSON is the item as output_item.done carries it; withEnc says the
// request asked for encrypted reasoning.
func (o out) itemJSON(withEnc bool) string {
	switch o.kind {
	case "reasoning":
		parts := o.parts
		if parts == nil && o.text != "" {
			parts = []string{o.text}
		}
		var sum []string
		for _, p := range parts {
			sum = append(sum, `{"type":"summary_text","text":`+q(p)+`}`)
		}
		enc := ""
		if withEnc {
			enc = `,"encrypted_content":` + q(o.encrypted)
		}
		return `{"id":"` + o.id + `","type":"reasoning","summary":[` + strings.Join(sum, ",") + `]` + enc + `}`
	case "message":
		return `{"id":"` + o.id + `","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":` +
			q(o.text) + `}],"role":"assistant"}`
	}
	return `{"id":"` + o.id + `","type":"function_call","status":"completed","arguments":` + q(o.args) +
		`,"call_id":"` + o.callID + `","name":"` + o.name + `"}`
}

// events streams the item at output index i: added, its deltas, done.
func (o out) events(i int, withEnc bool) []string {
	var evs []string
	switch o.kind {
	case "reasoning":
		evs = append(evs, event("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":"%s","type":"reasoning","summary":[]}`, i, o.id)))
		parts := o.parts
		if parts == nil && o.text != "" {
			parts = []string{o.text}
		}
		for si, p := range parts {
			evs = append(evs, event("response.reasoning_summary_part.added", fmt.Sprintf(`"item_id":"%s","output_index":%d,"summary_index":%d,"part":{"type":"summary_text","text":""}`, o.id, i, si)))
			for _, piece := range thirds(p) {
				evs = append(evs, event("response.reasoning_summary_text.delta", fmt.Sprintf(`"item_id":"%s","output_index":%d,"summary_index":%d,"delta":%s`, o.id, i, si, q(piece))))
			}
			evs = append(evs, event("response.reasoning_summary_text.done", fmt.Sprintf(`"item_id":"%s","output_index":%d,"summary_index":%d,"text":%s`, o.id, i, si, q(p))))
		}
	case "message":
		evs = append(evs, event("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":"%s","type":"message","status":"in_progress","content":[],"role":"assistant"}`, i, o.id)),
			event("response.content_part.added", fmt.Sprintf(`"item_id":"%s","output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`, o.id, i)))
		for _, piece := range thirds(o.text) {
			evs = append(evs, event("response.output_text.delta", fmt.Sprintf(`"item_id":"%s","output_index":%d,"content_index":0,"delta":%s`, o.id, i, q(piece))))
		}
		evs = append(evs, event("response.output_text.done", fmt.Sprintf(`"item_id":"%s","output_index":%d,"content_index":0,"text":%s`, o.id, i, q(o.text))))
	case "call":
		evs = append(evs, event("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":"%s","type":"function_call","status":"in_progress","arguments":"","call_id":"%s","name":"%s"}`, i, o.id, o.callID, o.name)))
		for _, piece := range thirds(o.args) {
			evs = append(evs, event("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":"%s","output_index":%d,"delta":%s`, o.id, i, q(piece))))
		}
		evs = append(evs, event("response.function_call_arguments.done", fmt.Sprintf(`"item_id":"%s","output_index":%d,"arguments":%s`, o.id, i, q(o.args))))
	}
	return append(evs, event("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, i, o.itemJSON(withEnc))))
}

// thirds splits s into about three pieces, as a stream would.
func thirds(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	n := max(len(s)/3, 1)
	for i := 0; i < len(s); i += n {
		out = append(out, s[i:min(i+n, len(s))])
	}
	return out
}

// respUsage is a usage object of the Responses API.
func respUsage(in, cached, out, reasoning int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":%d},"total_tokens":%d}`,
		in, cached, out, reasoning, in+out)
}

// responseEvents streams a whole response of the items, ended by status
// ("completed", or "incomplete" with reason).
func responseEvents(withEnc bool, status, reason, usageJSON string, items ...out) []string {
	evs := []string{event("response.created", `"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}`),
		event("response.in_progress", `"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}`)}
	var done []string
	for i, it := range items {
		evs = append(evs, it.events(i, withEnc)...)
		done = append(done, it.itemJSON(withEnc))
	}
	details := "null"
	if reason != "" {
		details = `{"reason":"` + reason + `"}`
	}
	return append(evs, event("response."+status, fmt.Sprintf(`"response":{"id":"resp_1","object":"response","status":"%s","incomplete_details":%s,"error":null,"output":[%s],"usage":%s}`,
		status, details, strings.Join(done, ","), usageJSON)))
}

// respond answers with a completed response of the items.
func respond(usageJSON string, items ...out) wiretest.Step {
	return wiretest.SSE(responseEvents(true, "completed", "", usageJSON, items...)...)
}

// apiError answers with the error body OpenAI sends, with the param named
// (or null).
func apiError(status int, msg, param, code string) wiretest.Step {
	p, c := "null", "null"
	if param != "" {
		p = q(param)
	}
	if code != "" {
		c = q(code)
	}
	return wiretest.Fail(status, fmt.Sprintf(`{"error":{"message":%s,"type":"invalid_request_error","param":%s,"code":%s}}`, q(msg), p, c))
}

// rulesServer is a Responses API server that enforces the rules of a
// stateless tool loop as OpenAI does, answering a request that breaks one
// with the status and error body OpenAI sends, and otherwise with the next
// scripted response.
type rulesServer struct {
	// URL is the server's URL, without the base path.
	URL string
	t   *testing.T
	mu  sync.Mutex
	// bodies are the request bodies received, and keys their
	// Authorization headers.
	bodies [][]byte
	keys   []string
	// turns are the scripted responses, with their usage.
	turns []rulesTurn
	n     int
	// issued are the reasoning items sent so far, by id: the item exactly
	// as sent, and the item that followed it.
	issued map[string]issuedItem
	order  []string
	// cacheKey is the prompt_cache_key every request must carry.
	cacheKey string
	// refusals are the error messages sent, in order.
	refusals []string
	// blockAt, when set, is the request that is not answered until the
	// client gives up, as if the process had been killed while it waited;
	// arrived is closed when it comes.
	blockAt int
	arrived chan struct{}
}

type rulesTurn struct {
	usage string
	items []out
}

type issuedItem struct {
	raw       string
	followers out
	hasNext   bool
}

func newRulesServer(t *testing.T, cacheKey string, turns ...rulesTurn) *rulesServer {
	rs := &rulesServer{t: t, turns: turns, issued: map[string]issuedItem{}, cacheKey: cacheKey}
	srv := httptest.NewServer(http.HandlerFunc(rs.serve))
	t.Cleanup(srv.Close)
	rs.URL = srv.URL
	return rs
}

// BaseURL is the base URL to give a model.
func (rs *rulesServer) BaseURL() string { return rs.URL + "/v1" }

// Requests returns the bodies received so far.
func (rs *rulesServer) Requests() []map[string]any {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []map[string]any
	for _, b := range rs.bodies {
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		out = append(out, m)
	}
	return out
}

// Bodies returns the request bodies received so far, as they were sent.
func (rs *rulesServer) Bodies() [][]byte {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([][]byte(nil), rs.bodies...)
}

// refuse answers with an error and keeps its message.
func (rs *rulesServer) refuse(w http.ResponseWriter, r *http.Request, status int, msg, param, code string) {
	rs.refusals = append(rs.refusals, msg)
	apiError(status, msg, param, code)(w, r)
}

// serve checks the request against the rules and answers the next turn.
func (rs *rulesServer) serve(w http.ResponseWriter, r *http.Request) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	rs.bodies = append(rs.bodies, body)
	rs.keys = append(rs.keys, r.Header.Get("Authorization"))
	if rs.blockAt > 0 && len(rs.bodies) == rs.blockAt {
		rs.mu.Unlock()
		close(rs.arrived)
		<-r.Context().Done()
		rs.mu.Lock()
		return
	}
	if r.URL.Path != responsesAPI.Path {
		responsesAPI.NotFound(w, r)
		return
	}
	var req struct {
		Store          *bool             `json:"store"`
		Include        []string          `json:"include"`
		PromptCacheKey string            `json:"prompt_cache_key"`
		Stream         bool              `json:"stream"`
		Input          []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		rs.refuse(w, r, 400, "We could not parse the JSON body of your request.", "", "")
		return
	}
	if req.Store == nil || *req.Store {
		// OpenAI would store the response; this server stands for an
		// organization with zero data retention, which must not.
		rs.refuse(w, r, 400, "Store must be set to false: this organization has zero data retention.", "store", "")
		return
	}
	withEnc := slices.Contains(req.Include, "reasoning.encrypted_content")
	if req.PromptCacheKey != rs.cacheKey || !req.Stream {
		rs.refuse(w, r, 400, fmt.Sprintf("expected prompt_cache_key %q and stream true, got %q and %v", rs.cacheKey, req.PromptCacheKey, req.Stream), "", "")
		return
	}
	type item struct {
		Type             string  `json:"type"`
		ID               string  `json:"id"`
		Role             string  `json:"role"`
		CallID           string  `json:"call_id"`
		Name             string  `json:"name"`
		Arguments        string  `json:"arguments"`
		EncryptedContent *string `json:"encrypted_content"`
	}
	items := make([]item, len(req.Input))
	for i, raw := range req.Input {
		_ = json.Unmarshal(raw, &items[i])
	}
	seen := map[string]bool{}
	for i, it := range items {
		switch it.Type {
		case "reasoning":
			is, ok := rs.issued[it.ID]
			if it.EncryptedContent == nil {
				rs.refuse(w, r, 404, fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", it.ID), "input", "")
				return
			}
			if !ok || string(req.Input[i]) != is.raw {
				rs.refuse(w, r, 400, fmt.Sprintf("The encrypted content for item %s could not be verified. Reason: Encrypted content could not be decrypted or parsed.", it.ID), "", "invalid_encrypted_content")
				return
			}
			next := item{}
			if i+1 < len(items) {
				next = items[i+1]
			}
			f := is.followers
			follows := is.hasNext && ((f.kind == "call" && next.Type == "function_call" && next.CallID == f.callID) ||
				(f.kind == "message" && (next.Type == "message" || next.Type == "") && next.Role == "assistant"))
			if !follows {
				rs.refuse(w, r, 400, fmt.Sprintf("Item '%s' of type 'reasoning' was provided without its required following item.", it.ID), "input", "")
				return
			}
			seen[it.ID] = true
		case "function_call":
			answered := false
			for _, later := range items[i+1:] {
				if later.Type == "function_call_output" && later.CallID == it.CallID {
					answered = true
				}
			}
			if !answered {
				rs.refuse(w, r, 400, fmt.Sprintf("No tool output found for function call %s.", it.CallID), "input", "")
				return
			}
		case "function_call_output":
			called := false
			for _, earlier := range items[:i] {
				if earlier.Type == "function_call" && earlier.CallID == it.CallID {
					called = true
				}
			}
			if !called {
				rs.refuse(w, r, 400, fmt.Sprintf("No tool call found for function call output with call_id %s.", it.CallID), "input", "")
				return
			}
		}
	}
	for _, id := range rs.order {
		if !seen[id] {
			// OpenAI takes a conversation without its reasoning, and the
			// model then reasons again from nothing; agenttui promises
			// not to drop it, which this server checks.
			rs.refuse(w, r, 400, fmt.Sprintf("the reasoning item %s of an earlier turn is missing from the input", id), "input", "")
			return
		}
	}
	if rs.n >= len(rs.turns) {
		rs.refuse(w, r, 500, "no more turns", "", "")
		return
	}
	turn := rs.turns[rs.n]
	rs.n++
	for i, o := range turn.items {
		if o.kind != "reasoning" {
			continue
		}
		is := issuedItem{raw: o.itemJSON(withEnc)}
		if i+1 < len(turn.items) {
			is.followers, is.hasNext = turn.items[i+1], true
		}
		rs.issued[o.id] = is
		rs.order = append(rs.order, o.id)
	}
	wiretest.SSE(responseEvents(withEnc, "completed", "", turn.usage, turn.items...)...)(w, r)
}

// Refusals returns the error messages the server sent.
func (rs *rulesServer) Refusals() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.refusals...)
}

// recorded is what the agent reported while a run went on.
type recorded struct {
	mu       sync.Mutex
	thinking map[int][]string
	text     map[int][]string
	usage    []runtime.UsageReported
}

// runAgent runs the agent over m and wiretest.Lookup with a session called
// id, keeping the thinking, text and usage events.
func runAgent(t *testing.T, m model.Model, id, goal string) (runtime.GoalOutcome, *runtime.Session, *recorded) {
	t.Helper()
	cat, err := runtime.NewCatalog(wiretest.Lookup{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorded{thinking: map[int][]string{}, text: map[int][]string{}}
	a := &runtime.Agent{Model: m, Catalog: cat, Sink: func(e runtime.Event) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		switch ev := e.(type) {
		case runtime.ThinkingDelta:
			rec.thinking[ev.Turn] = append(rec.thinking[ev.Turn], ev.Text)
		case runtime.TextDelta:
			rec.text[ev.Turn] = append(rec.text[ev.Turn], ev.Text)
		case runtime.UsageReported:
			rec.usage = append(rec.usage, ev)
		}
	}}
	s := runtime.NewSession(id)
	out := a.Run(wiretest.Context(t), s, goal)
	return out, s, rec
}

// inputOf returns the input items of a request body.
func inputOf(req map[string]any) []map[string]any {
	raw, _ := req["input"].([]any)
	out := make([]map[string]any, len(raw))
	for i, it := range raw {
		out[i], _ = it.(map[string]any)
	}
	return out
}

// describe says an input item in a word or two: its type and id, call id
// or role.
func describe(it map[string]any) string {
	switch it["type"] {
	case "reasoning":
		return "reasoning " + fmt.Sprint(it["id"])
	case "function_call":
		return "call " + fmt.Sprint(it["call_id"])
	case "function_call_output":
		return "output " + fmt.Sprint(it["call_id"])
	}
	return fmt.Sprint(it["role"])
}
