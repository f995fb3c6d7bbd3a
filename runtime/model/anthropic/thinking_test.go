package anthropic_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/tool"
)

// The blocks of a scripted reply.
func th(text string) simBlock { return simBlock{kind: "thinking", text: text} }
func red() simBlock           { return simBlock{kind: "redacted"} }
func tx(text string) simBlock { return simBlock{kind: "text", text: text} }
func tu(id, name, input string) simBlock {
	return simBlock{kind: "tool_use", id: id, name: name, input: input}
}
func reply(blocks ...simBlock) simTurn { return simTurn{blocks: blocks} }

// simModel returns the model called name served by s.
func simModel(t *testing.T, s *sim, name string, opts ...anthropic.Option) *anthropic.Model {
	t.Helper()
	m, err := anthropic.New(name, append([]anthropic.Option{anthropic.WithBaseURL(s.url), anthropic.WithAPIKey(testKey)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// run is what a whole run of the agent over a model showed.
type run struct {
	out      runtime.GoalOutcome
	session  *runtime.Session
	thinking map[int]string // the thinking streamed, by turn
	usage    []runtime.UsageReported
}

// runAgent drives a whole run with the agent over m, the tools and the
// system prompt (the default when empty), at effort.
func runAgent(t *testing.T, m model.Model, goal, system string, effort model.Effort, tools ...tool.Tool) run {
	t.Helper()
	if len(tools) == 0 {
		tools = []tool.Tool{wiretest.Lookup{}}
	}
	cat, err := runtime.NewCatalog(tools...)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	r := run{thinking: map[int]string{}}
	a := &runtime.Agent{Model: m, Catalog: cat, System: system, Reasoning: effort, Sink: func(e runtime.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e := e.(type) {
		case runtime.ThinkingDelta:
			r.thinking[e.Turn] += e.Text
		case runtime.UsageReported:
			r.usage = append(r.usage, e)
		}
	}}
	r.session = runtime.NewSession("test")
	r.out = a.Run(wiretest.Context(t), r.session, goal)
	return r
}

// TestAdaptiveThinkingToolLoop runs a six-turn tool loop with parallel
// calls on Claude Opus 5.5 (adaptive thinking, always on, preserved
// thinking with its prefix check) against the sim, which refuses any
// request whose latest assistant message lacks a thinking or redacted block
// of its reply, changed a byte of one, or whose thinking blocks' prefixes
// changed. The replies put thinking before the text, between the text and
// the calls, between two calls and after the last call.
func TestAdaptiveThinkingToolLoop(t *testing.T) {
	s := newSim(t,
		reply(th("Alpha and beta are independent, so both lookups go in one reply."), tx("Looking up both keys."),
			tu("toolu_a1", "lookup", `{"key":"alpha"}`), tu("toolu_a2", "lookup", `{"key":"beta"}`)),
		reply(red(), th("Both found. Three more at once; one may be missing."),
			tu("toolu_b1", "lookup", `{"key":"gamma"}`), tu("toolu_b2", "lookup", `{"key":"delta"}`), tu("toolu_b3", "lookup", `{"key":"missing"}`)),
		reply(th("missing has no entry; epsilon instead."), tu("toolu_c1", "lookup", `{"key":"epsilon"}`),
			th("And zeta beside it."), tu("toolu_c2", "lookup", `{"key":"zeta"}`)),
		reply(tx("One more key."), th("Eta is the last one."), tu("toolu_d1", "lookup", `{"key":"eta"}`)),
		reply(th("Theta to be sure."), tu("toolu_e1", "lookup", `{"key":"theta"}`), red()),
		reply(th("All found."), tu("toolu_f1", "finish", `{"summary":"eight keys looked up","data":{"found":7}}`)),
	)
	s.preserved, s.onByDefault = true, true
	s.rejects = map[string]bool{"enabled": true, "disabled": true}
	m := simModel(t, s, "claude-opus-5-5")
	r := runAgent(t, m, "look up the keys", "", model.EffortDefault)

	if errs := s.Errors(); len(errs) > 0 {
		t.Fatalf("the sim refused requests: %q", errs)
	}
	if r.out.Status != runtime.StatusSucceeded || r.out.Summary != "eight keys looked up" {
		t.Fatalf("outcome %+v", r.out)
	}
	reqs := s.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	// Every request thinks adaptively at the model's own effort, with the
	// summary shown, and asks for blocks whose prefix changed to be
	// dropped; none was: the conversation was sent back as it was made.
	for i, req := range reqs {
		want := `{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"display":"summarized","type":"adaptive"}`
		if got, _ := json.Marshal(req["thinking"]); string(got) != want || req["output_config"] != nil {
			t.Errorf("request %d thinking %s, output_config %v\nwant %s", i+1, got, req["output_config"], want)
		}
	}
	if s.dropped != 0 {
		t.Errorf("%d thinking blocks were dropped: their prefix changed", s.dropped)
	}
	for i, raw := range s.raws {
		if n := strings.Count(string(raw), `"stream":`); n != 1 || !json.Valid(raw) {
			t.Errorf("request %d: %d stream fields in %d bytes", i+1, n, len(raw))
		}
		if beta := s.headers[i].Get("Anthropic-Beta"); beta != anthropic.BindingBeta {
			t.Errorf("request %d anthropic-beta %q", i+1, beta)
		}
	}
	// The second request sends the first reply back block by block.
	asst, _ := json.Marshal(messagesOf(reqs[1])[1]["content"])
	sig := func(text string) string {
		for k, v := range s.issued {
			if v.text == text {
				return k
			}
		}
		return "?"
	}
	want := fmt.Sprintf(`[{"signature":%q,"thinking":"Alpha and beta are independent, so both lookups go in one reply.","type":"thinking"},`+
		`{"text":"Looking up both keys.","type":"text"},`+
		`{"id":"toolu_a1","input":{"key":"alpha"},"name":"lookup","type":"tool_use"},`+
		`{"id":"toolu_a2","input":{"key":"beta"},"name":"lookup","type":"tool_use"}]`, sig("Alpha and beta are independent, so both lookups go in one reply."))
	if string(asst) != want {
		t.Errorf("the first reply sent back\n%s\nwant\n%s", asst, want)
	}
	// The person read the thinking as it streamed.
	for turn, text := range map[int]string{1: "Alpha and beta are independent, so both lookups go in one reply.",
		3: "missing has no entry; epsilon instead.And zeta beside it.", 6: "All found."} {
		if r.thinking[turn] != text {
			t.Errorf("turn %d streamed thinking %q, want %q", turn, r.thinking[turn], text)
		}
	}
	// The replies keep their reasoning, made by this model, where it was.
	var kinds []string
	for _, msg := range r.session.Messages {
		for _, p := range msg.Reasoning {
			if p.Source != "anthropic:claude-opus-5-5" {
				t.Errorf("reasoning of %q", p.Source)
			}
			kinds = append(kinds, fmt.Sprintf("%s@%d/%v", p.Kind, p.Calls, p.AfterText))
		}
	}
	wantKinds := []string{"thinking@0/false", "redacted_thinking@0/false", "thinking@0/false", "thinking@0/false", "thinking@1/false",
		"thinking@0/true", "thinking@0/false", "redacted_thinking@1/false", "thinking@0/false"}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("reasoning parts %q\nwant %q", kinds, wantKinds)
	}
	for _, u := range r.usage {
		if u.Usage.ReasoningTokens == 0 || u.Usage.OutputTokens < u.Usage.ReasoningTokens {
			t.Errorf("turn %d usage %+v: no reasoning tokens", u.Turn, u.Usage)
		}
	}
}

// TestResumedConversationSendsTheSameBytes checks that a conversation
// written to a journal as JSON and read back is sent byte for byte as the
// live one.
func TestResumedConversationSendsTheSameBytes(t *testing.T) {
	s := newSim(t,
		reply(red(), th("Two at once."), tx("Both."), tu("toolu_1", "lookup", `{"key":"a"}`), tu("toolu_2", "lookup", `{"key":"b"}`)),
		reply(th("Done \u00e9\u4e2d."), tu("toolu_3", "finish", `{"summary":"ok"}`)),
	)
	s.preserved, s.onByDefault = true, true
	m := simModel(t, s, "claude-fable-5-2")
	r := runAgent(t, m, "go", "", model.EffortHigh)
	if r.out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v; sim errors %q", r.out, s.Errors())
	}
	journal, err := json.Marshal(r.session.Messages)
	if err != nil {
		t.Fatal(err)
	}
	var resumed []model.Message
	if err := json.Unmarshal(journal, &resumed); err != nil {
		t.Fatal(err)
	}
	req := model.Request{System: "sys", Messages: r.session.Messages, Effort: model.EffortHigh}
	live, err := m.RequestBody(req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = resumed
	again, _ := m.RequestBody(req)
	if string(live) != string(again) {
		t.Errorf("the resumed conversation is sent otherwise:\n%s\n%s", live, again)
	}
	if !strings.Contains(string(live), `"effort":"high"`) {
		t.Errorf("effort high not sent: %s", live)
	}
}

// TestThinkingSentBackIsChecked shows that the sim's rules can fail: a
// second request whose tool loop lost or changed a block of the first
// reply is refused with the API's words, and reaches the person as one
// line.
func TestThinkingSentBackIsChecked(t *testing.T) {
	first := reply(red(), th("Plan the lookup."), tu("toolu_x", "lookup", `{"key":"alpha"}`))
	cases := []struct {
		name   string
		mutate func([]model.Reasoning) []model.Reasoning
		want   string // in the sim's error; empty when accepted
	}{
		{"intact", func(p []model.Reasoning) []model.Reasoning { return p }, ""},
		{"no reasoning", func([]model.Reasoning) []model.Reasoning { return nil },
			"messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`."},
		{"another model's", func(p []model.Reasoning) []model.Reasoning {
			for i := range p {
				p[i].Source = "anthropic:claude-sonnet-5-5"
			}
			return p
		}, "Expected `thinking` or `redacted_thinking`, but found `tool_use`"},
		{"a byte of thinking changed", func(p []model.Reasoning) []model.Reasoning {
			p[1].Text = strings.Replace(p[1].Text, "Plan", "plan", 1)
			return p
		}, "messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified."},
		{"signature changed", func(p []model.Reasoning) []model.Reasoning {
			p[1].Data += "A"
			return p
		}, "messages.1.content.1: Invalid `signature` in `thinking` block"},
		{"redacted block dropped", func(p []model.Reasoning) []model.Reasoning { return p[1:] },
			"messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified."},
		{"blocks swapped", func(p []model.Reasoning) []model.Reasoning { return []model.Reasoning{p[1], p[0]} },
			"messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t, first, reply(tx("Done.")))
			s.onByDefault = true
			m := simModel(t, s, "claude-opus-5")
			ctx := wiretest.Context(t)
			goal := model.Message{Role: model.RoleUser, Text: "look up alpha"}
			r1, err := m.Reply(ctx, model.Request{Messages: []model.Message{goal}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(r1.Reasoning) != 2 || r1.Reasoning[0].Kind != model.ReasoningRedacted || r1.Reasoning[1].Text != "Plan the lookup." {
				t.Fatalf("reasoning %+v", r1.Reasoning)
			}
			asst := model.Message{Role: model.RoleAssistant, Calls: r1.Calls, Reasoning: c.mutate(append([]model.Reasoning(nil), r1.Reasoning...))}
			results := model.Message{Role: model.RoleTool, Results: []tool.Result{{CallID: "toolu_x", Name: "lookup", Content: "value of alpha"}}}
			_, err = m.Reply(ctx, model.Request{Messages: []model.Message{goal, asst, results}}, nil)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			errs := s.Errors()
			if len(errs) != 1 || !strings.Contains(errs[0], c.want) {
				t.Fatalf("sim errors %q, want %q", errs, c.want)
			}
			if err == nil || !strings.Contains(err.Error(), "rejected the request (400 Bad Request:") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v", err)
			}
		})
	}
}

// TestBudgetThinkingToolLoop runs a tool loop on Claude Sonnet 4.5, which
// takes only the budget form, at effort high.
func TestBudgetThinkingToolLoop(t *testing.T) {
	s := newSim(t,
		reply(th("Two lookups."), tu("toolu_1", "lookup", `{"key":"a"}`), tu("toolu_2", "lookup", `{"key":"b"}`)),
		reply(th("Now finish."), tu("toolu_3", "finish", `{"summary":"done"}`)),
	)
	s.rejects = map[string]bool{"adaptive": true}
	r := runAgent(t, simModel(t, s, "claude-sonnet-4-5-20250929"), "go", "", model.EffortHigh)
	if r.out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v; sim errors %q", r.out, s.Errors())
	}
	for i, req := range s.Requests() {
		got, _ := json.Marshal(req["thinking"])
		if string(got) != `{"budget_tokens":16384,"display":"summarized","type":"enabled"}` || num(req["max_tokens"]) != 16384+anthropic.DefaultMaxTokens {
			t.Errorf("request %d thinking %s max_tokens %v", i+1, got, req["max_tokens"])
		}
	}
	if r.thinking[1] != "Two lookups." {
		t.Errorf("thinking streamed %q", r.thinking[1])
	}
}

// TestThinkingTurnedOnInAnOpenToolLoop checks the rule of the budget form:
// a tool-use loop is one assistant turn in one thinking mode, and with
// thinking enabled its final assistant message starts with a thinking
// block. A loop begun without thinking (at effort off, by another model)
// is finished without it; the sim shows that sending thinking would be
// refused.
func TestThinkingTurnedOnInAnOpenToolLoop(t *testing.T) {
	s := newSim(t, reply(tu("toolu_1", "lookup", `{"key":"a"}`)), reply(tx("a is 1.")), reply(th("New turn."), tx("ok")))
	s.rejects = map[string]bool{"adaptive": true}
	m := simModel(t, s, "claude-sonnet-4-5")
	ctx := wiretest.Context(t)
	goal := model.Message{Role: model.RoleUser, Text: "look up a"}
	r1, err := m.Reply(ctx, model.Request{Messages: []model.Message{goal}, Effort: model.EffortOff}, nil)
	if err != nil {
		t.Fatal(err)
	}
	loop := []model.Message{goal, {Role: model.RoleAssistant, Calls: r1.Calls},
		{Role: model.RoleTool, Results: []tool.Result{{CallID: r1.Calls[0].ID, Name: "lookup", Content: "1"}}}}
	r2, err := m.Reply(ctx, model.Request{Messages: loop, Effort: model.EffortHigh}, nil)
	if err != nil {
		t.Fatalf("the loop was not finished: %v", err)
	}
	if req := s.Requests()[1]; req["thinking"] != nil {
		t.Errorf("thinking %v sent in a loop begun without it", req["thinking"])
	}
	// The next turn is a new assistant turn, which thinks again.
	next := append(loop, model.Message{Role: model.RoleAssistant, Text: r2.Text}, model.Message{Role: model.RoleUser, Text: "thanks"})
	if _, err := m.Reply(ctx, model.Request{Messages: next, Effort: model.EffortHigh}, nil); err != nil {
		t.Fatal(err)
	}
	if req := s.Requests()[2]; thinkingType(req) != "enabled" {
		t.Errorf("the new turn does not think: %v", req["thinking"])
	}
	// What the rule saves: the same loop sent with thinking enabled.
	body, _ := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 20000, "stream": true,
		"thinking": map[string]any{"type": "enabled", "budget_tokens": 4096}, "messages": s.Requests()[1]["messages"]})
	resp, err := http.Post(s.url+"/v1/messages", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if errs := s.Errors(); resp.StatusCode != 400 || len(errs) != 1 || !strings.Contains(errs[0], "Expected `thinking` or `redacted_thinking`, but found `tool_use`") {
		t.Errorf("status %d, errors %q", resp.StatusCode, errs)
	}
}

// TestCompactionKeepsThinkingValid checks preserved thinking across a
// compaction: the summary changes what came before the thinking of the
// turns it kept, so on Claude Opus 5.5 the request asks the API to drop
// those blocks ("drop_block", with its beta header) and keeps the blocks
// made after the compaction; on Claude Sonnet 5.5 with thinking off
// ("between_tools", which takes no block_binding) the kept turns' reasoning
// is left out. Without either the sim refuses the request as the API does.
func TestCompactionKeepsThinkingValid(t *testing.T) {
	goal := model.Message{Role: model.RoleUser, Text: "look up a, b and c"}
	results := func(r model.Reply) model.Message {
		return model.Message{Role: model.RoleTool, Results: []tool.Result{{CallID: r.Calls[0].ID, Name: "lookup", Content: "value"}}}
	}
	// conversation makes two turns and returns the second, which a
	// compaction keeps.
	conversation := func(t *testing.T, m *anthropic.Model) (kept []model.Message) {
		effort := model.EffortDefault
		ctx := wiretest.Context(t)
		r1, err := m.Reply(ctx, model.Request{Messages: []model.Message{goal}, Effort: effort}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a1 := model.Message{Role: model.RoleAssistant, Calls: r1.Calls, Reasoning: r1.Reasoning}
		r2, err := m.Reply(ctx, model.Request{Messages: []model.Message{goal, a1, results(r1)}, Effort: effort}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a2 := model.Message{Role: model.RoleAssistant, Calls: r2.Calls, Reasoning: r2.Reasoning}
		return []model.Message{a2, results(r2)}
	}
	turns := []simTurn{
		reply(th("First a."), tu("toolu_1", "lookup", `{"key":"a"}`)),
		reply(th("Then b."), tu("toolu_2", "lookup", `{"key":"b"}`)),
		reply(th("Then c."), tu("toolu_3", "lookup", `{"key":"c"}`)),
		reply(th("All three."), tx("Done.")),
	}

	t.Run("adaptive drops the kept blocks", func(t *testing.T) {
		s := newSim(t, turns...)
		s.preserved, s.onByDefault = true, true
		m := simModel(t, s, "claude-opus-5-5")
		ctx := wiretest.Context(t)
		kept := conversation(t, m)
		summary := model.Message{Role: model.RoleUser, Text: "Summary: a was looked up.", Summarizes: 1}
		compacted := append([]model.Message{goal, summary}, kept...)
		r3, err := m.Reply(ctx, model.Request{Messages: compacted}, nil)
		if err != nil {
			t.Fatalf("refused after the compaction: %v", err)
		}
		req := s.Requests()[2]
		thinking, _ := req["thinking"].(map[string]any)
		if bb, _ := thinking["block_binding"].(map[string]any); bb["prefix_mismatch_behavior"] != "drop_block" {
			t.Errorf("thinking %v: no drop_block", thinking)
		}
		if beta := s.headers[2].Get("Anthropic-Beta"); beta != anthropic.BindingBeta {
			t.Errorf("anthropic-beta %q", beta)
		}
		if s.dropped != 1 {
			t.Errorf("%d blocks dropped, want the kept turn's one", s.dropped)
		}
		// The turn made after the compaction keeps its thinking, which stays
		// valid: its prefix has the summary in it.
		a3 := model.Message{Role: model.RoleAssistant, Calls: r3.Calls, Reasoning: r3.Reasoning}
		s.dropped = 0
		if _, err := m.Reply(ctx, model.Request{Messages: append(compacted, a3, results(r3))}, nil); err != nil {
			t.Fatalf("refused the turn after: %v", err)
		}
		if s.dropped != 1 {
			t.Errorf("%d blocks dropped, want only the kept turn's", s.dropped)
		}
		// The same request without drop_block is refused, as the API
		// refuses it.
		var body map[string]any
		json.Unmarshal(s.raws[2], &body)
		delete(body["thinking"].(map[string]any), "block_binding")
		raw, _ := json.Marshal(body)
		resp, err := http.Post(s.url+"/v1/messages", "application/json", strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		errs := s.Errors()
		if resp.StatusCode != 400 || len(errs) != 1 || !strings.Contains(errs[0], "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.") ||
			!strings.Contains(errs[0], "thinking-binding-controls-2026-08-01") {
			t.Errorf("status %d, sim errors %q", resp.StatusCode, errs)
		}
	})

	t.Run("a tool list that changed", func(t *testing.T) {
		s := newSim(t, turns...)
		s.preserved, s.onByDefault = true, true
		m := simModel(t, s, "claude-opus-5-5")
		kept := conversation(t, m)
		// An MCP server connected: the next request has one tool more.
		req := model.Request{Messages: append([]model.Message{goal}, kept...),
			Tools: []tool.Declaration{wiretest.Lookup{}.Declaration()}}
		if _, err := m.Reply(wiretest.Context(t), req, nil); err != nil {
			t.Fatalf("refused after the tools changed: %v", err)
		}
		if s.dropped == 0 {
			t.Error("no block was dropped, though its prefix changed")
		}
	})

	t.Run("between_tools leaves the kept reasoning out", func(t *testing.T) {
		s := newSim(t, turns...)
		s.preserved, s.onByDefault = true, true
		s.rejects = map[string]bool{"enabled": true, "disabled": true}
		m := simModel(t, s, "claude-sonnet-5-5")
		kept := conversation(t, m)
		summary := model.Message{Role: model.RoleUser, Text: "Summary.", Summarizes: 1}
		compacted := append([]model.Message{goal, summary}, kept...)
		if _, err := m.Reply(wiretest.Context(t), model.Request{Messages: compacted, Effort: model.EffortOff}, nil); err != nil {
			t.Fatalf("refused after the compaction: %v", err)
		}
		req := s.Requests()[2]
		if got, _ := json.Marshal(req["thinking"]); string(got) != `{"type":"between_tools"}` {
			t.Errorf("thinking %s", got)
		}
		// The goal and the summary are one user message; the kept turn
		// is the next.
		if kept := messagesOf(req)[1]; kept["role"] != "assistant" || hasType(kept, "thinking") {
			t.Errorf("the kept turn's thinking was sent: %v", kept)
		}
	})
}

// TestThinkingDeltasAndUsage checks one reply's stream: the thinking
// streams as it comes, the signature and a redacted block are kept
// exactly, and the usage counts cache and reasoning tokens.
func TestThinkingDeltasAndUsage(t *testing.T) {
	steps := join(event("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"claude-opus-5","usage":{"input_tokens":10,"cache_read_input_tokens":900,"cache_creation_input_tokens":90,"output_tokens":1}}}`),
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"First, "}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"the plan.\n"}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAh+/="}}`),
		blockStop(0),
		event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB=="}}`),
		blockStop(1),
		text(2, "Hello."),
		event("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"signature_delta","signature":"EqHidden"}}`),
		blockStop(3),
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":10,"cache_read_input_tokens":900,"cache_creation_input_tokens":90,"output_tokens":120,"output_tokens_details":{"thinking_tokens":80}}}`),
		event("message_stop", `{"type":"message_stop"}`))
	srv := newServer(t, wiretest.SSE(steps...))
	m, err := anthropic.New("claude-opus-5", anthropic.WithBaseURL(srv.BaseURL()), anthropic.WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	var deltas []model.Delta
	r, err := m.Reply(wiretest.Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, func(d model.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	wantDeltas := []model.Delta{{Thinking: "First, "}, {Thinking: "the plan.\n"}, {Text: "Hello."}}
	if !reflect.DeepEqual(deltas, wantDeltas) {
		t.Errorf("deltas %+v", deltas)
	}
	src := "anthropic:claude-opus-5"
	want := []model.Reasoning{
		{Source: src, Kind: model.ReasoningThinking, Text: "First, the plan.\n", Data: "EqQBCgIYAh+/="},
		{Source: src, Kind: model.ReasoningRedacted, Data: "EmwKAhgB=="},
		{Source: src, Kind: model.ReasoningThinking, Data: "EqHidden", AfterText: true},
	}
	if !reflect.DeepEqual(r.Reasoning, want) {
		t.Errorf("reasoning %+v\nwant %+v", r.Reasoning, want)
	}
	if !r.Reasoning[2].Hidden() {
		t.Error("a block with only a signature is not hidden")
	}
	if wantU := (model.Usage{InputTokens: 1000, CacheReadTokens: 900, CacheWriteTokens: 90, OutputTokens: 120, ReasoningTokens: 80}); r.Usage != wantU {
		t.Errorf("usage %+v, want %+v", r.Usage, wantU)
	}
}

// TestCutThinkingIsNotSentBack checks a reply cut by the output limit in
// the middle of its thinking: the text is kept for the person, and the
// block, which has no signature, is not sent back.
func TestCutThinkingIsNotSentBack(t *testing.T) {
	steps := join(start(10),
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Long thou"}}`),
		end("max_tokens", 8192))
	srv := newServer(t, wiretest.SSE(steps...), wiretest.SSE(join(start(1), text(0, "ok"), end("end_turn", 1))...))
	m, err := anthropic.New("claude-opus-5", anthropic.WithBaseURL(srv.BaseURL()), anthropic.WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	ctx := wiretest.Context(t)
	goal := model.Message{Role: model.RoleUser, Text: "hi"}
	r, err := m.Reply(ctx, model.Request{Messages: []model.Message{goal}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != model.StopOutputLimit || len(r.Reasoning) != 1 || r.Reasoning[0].Text != "Long thou" || r.Reasoning[0].Data != "" {
		t.Fatalf("reply %+v", r)
	}
	msgs := []model.Message{goal, {Role: model.RoleAssistant, Text: r.Text, Reasoning: r.Reasoning}, {Role: model.RoleUser, Text: "go on"}}
	if _, err := m.Reply(ctx, model.Request{Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	if body, _ := json.Marshal(srv.Requests()[1]["messages"]); strings.Contains(string(body), "Long thou") {
		t.Errorf("the unsigned block was sent back: %s", body)
	}
}
