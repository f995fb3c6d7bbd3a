package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/tool"
)

// page is a read-only tool whose result is a page of text, so that a
// session grows as a real one does.
type page struct{}

func (page) Declaration() tool.Declaration {
	return tool.Declaration{
		Name:        "read_page",
		Description: "Reads a page of the manual.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Annotations: tool.Annotations{ReadOnly: true},
	}
}

func (page) Call(_ context.Context, raw json.RawMessage) tool.Return {
	var args struct{ N int }
	_ = json.Unmarshal(raw, &args)
	return tool.Ok(strings.Repeat(fmt.Sprintf("Page %d says the same thing again. ", args.N), 20))
}

// longSystem is a system prompt of some 4,000 tokens, as agenttui's is of
// the same order.
var longSystem = strings.Repeat("Work carefully and say what you are doing in a sentence or two. ", 250)

// TestCachingOverTwentyTurns runs a 20-turn session against the sim, which
// computes the prompt cache as Anthropic documents it, and checks that
// after the second turn at least 90 % of the input tokens are read from the
// cache, as the usage events report them. One turn makes twelve calls at
// once, so that its request adds more than the 20 blocks the API looks back
// from a breakpoint: the breakpoint on the previous request's last block
// keeps that turn a cache hit.
func TestCachingOverTwentyTurns(t *testing.T) {
	var turns []simTurn
	call := 0
	for i := 1; i < 20; i++ {
		n := 2
		if i == 10 {
			n = 12
		}
		blocks := []simBlock{th(fmt.Sprintf("Turn %d: the next pages.", i))}
		for k := 0; k < n; k++ {
			call++
			blocks = append(blocks, tu(fmt.Sprintf("toolu_%d", call), "read_page", fmt.Sprintf(`{"n":%d}`, call)))
		}
		turns = append(turns, reply(blocks...))
	}
	turns = append(turns, reply(th("Enough."), tu("toolu_end", "finish", `{"summary":"read"}`)))
	s := newSim(t, turns...)
	s.preserved, s.onByDefault = true, true
	clock := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	r := runAgent(t, simModel(t, s, "claude-opus-5-5"), "read the manual", longSystem, model.EffortDefault, page{})
	if errs := s.Errors(); len(errs) > 0 || r.out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v, sim errors %q", r.out, errs)
	}
	if len(r.usage) != 20 {
		t.Fatalf("%d usage events, want 20", len(r.usage))
	}
	for i, req := range s.Requests() {
		if n := countBreakpoints(req); n != anthropic.MaxBreakpoints && i > 0 || n > anthropic.MaxBreakpoints {
			t.Errorf("request %d has %d breakpoints", i+1, n)
		}
	}
	first := r.usage[0].Usage
	if first.CacheReadTokens != 0 || first.CacheWriteTokens == 0 || first.InputTokens != first.CacheWriteTokens+first.FreshInputTokens() {
		t.Errorf("turn 1 usage %+v: want the prompt written to the cache", first)
	}
	var in, read int
	for i, u := range r.usage {
		if i >= 2 {
			in += u.Usage.InputTokens
			read += u.Usage.CacheReadTokens
		}
		if i > 0 && u.Usage.CacheReadTokens < r.usage[i-1].Usage.InputTokens {
			t.Errorf("turn %d read %d tokens from the cache; the previous request had %d", u.Turn, u.Usage.CacheReadTokens, r.usage[i-1].Usage.InputTokens)
		}
	}
	share := float64(read) / float64(in)
	t.Logf("turns 3-20: %d of %d input tokens read from the cache (%.1f %%); session %s", read, in, 100*share, r.usage[19].Total)
	if share < 0.90 {
		t.Errorf("only %.1f %% of the input after the second turn was read from the cache", 100*share)
	}
	total := r.usage[19].Total
	if total.CacheReadTokens == 0 || total.CostUSD == nil {
		t.Errorf("session total %+v: no cache reads or no cost", total)
	}
}

// TestCacheExpires checks the sim's cache lifetime, the five minutes
// Anthropic documents: a request made six minutes after the last writes the
// prompt again.
func TestCacheExpires(t *testing.T) {
	s := newSim(t, reply(tx("one")), reply(tx("two")))
	clock := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	m := simModel(t, s, "claude-opus-5-5")
	req := model.Request{System: longSystem, Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}
	ctx := wiretest.Context(t)
	if _, err := m.Reply(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(6 * time.Minute)
	r, err := m.Reply(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage.CacheReadTokens != 0 || r.Usage.CacheWriteTokens == 0 {
		t.Errorf("usage %+v: an expired entry was read", r.Usage)
	}
}

// TestShortPromptIsNotCached checks the minimum cacheable length: a prompt
// shorter than the model's minimum is sent with its breakpoints, and
// neither read nor written.
func TestShortPromptIsNotCached(t *testing.T) {
	s := newSim(t, reply(tx("one")))
	r, err := simModel(t, s, "claude-opus-5-5").Reply(wiretest.Context(t),
		model.Request{System: "Be brief.", Messages: []model.Message{{Role: model.RoleUser, Text: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage.CacheReadTokens != 0 || r.Usage.CacheWriteTokens != 0 || r.Usage.InputTokens == 0 {
		t.Errorf("usage %+v", r.Usage)
	}
	if n := countBreakpoints(s.Requests()[0]); n != 2 {
		t.Errorf("%d breakpoints, want the system prompt's and the message's", n)
	}
}

// TestFiveBreakpointsAreRefused shows the sim's limit can fail: a request
// with five breakpoints is refused with the API's words.
func TestFiveBreakpointsAreRefused(t *testing.T) {
	s := newSim(t)
	cc := map[string]string{"type": "ephemeral"}
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s, "cache_control": cc} }
	body, _ := json.Marshal(map[string]any{"model": "claude-opus-5-5", "max_tokens": 100, "stream": true,
		"system":   []any{text("a"), text("b")},
		"messages": []any{map[string]any{"role": "user", "content": []any{text("c"), text("d"), text("e")}}}})
	resp, err := http.Post(s.url+"/v1/messages", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if errs := s.Errors(); resp.StatusCode != 400 || len(errs) != 1 || errs[0] != "A maximum of 4 blocks with cache_control may be provided. Found 5." {
		t.Errorf("status %d, errors %q", resp.StatusCode, errs)
	}
}

// TestCacheBreakpoints pins where the breakpoints go: the last tool, the
// system prompt, the last block of the last user message and of the user
// message before it; none in the compaction request, whose summary is never
// asked for again.
func TestCacheBreakpoints(t *testing.T) {
	msgs := []model.Message{
		{Role: model.RoleUser, Text: "goal"},
		{Role: model.RoleAssistant, Calls: []tool.Call{{ID: "c1", Name: "lookup", Arguments: `{"key":"a"}`}}},
		{Role: model.RoleTool, Results: []tool.Result{{CallID: "c1", Name: "lookup", Content: "1"}}},
	}
	req := model.Request{System: "sys", Messages: msgs, Tools: []tool.Declaration{{Name: "bare"}, wiretest.Lookup{}.Declaration()}}
	body := sent(t, req)
	var marked []string
	for _, u := range units(body) {
		if u.breakpoint {
			marked = append(marked, u.key[:strings.Index(u.key, "{")])
		}
	}
	if got := strings.Join(marked, " "); got != "tool: system: 0:user: 2:user:" {
		t.Errorf("breakpoints on %q", got)
	}
	req.Compact = true
	if n := countBreakpoints(sent(t, req)); n != 0 {
		t.Errorf("the compaction request has %d breakpoints", n)
	}
}
