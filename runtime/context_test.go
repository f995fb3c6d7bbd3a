package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// conversation builds a conversation of n turns after the goal: each turn a
// reply with one call and its result of resultBytes.
func conversation(n, resultBytes int) []model.Message {
	msgs := []model.Message{{Role: model.RoleUser, Text: "goal"}}
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			model.Message{Role: model.RoleAssistant, Text: "reading", Calls: []tool.Call{{ID: id, Name: "read_file", Arguments: `{"path":"a.txt"}`}}},
			model.Message{Role: model.RoleTool, Results: []tool.Result{{CallID: id, Name: "read_file", Content: strings.Repeat("x", resultBytes)}}})
	}
	return msgs
}

func TestEstimate(t *testing.T) {
	var m meter
	req := model.Request{System: strings.Repeat("s", 400), Messages: conversation(2, 4000)}
	// Nothing reported: the whole request at four bytes a token.
	got := m.estimate(req)
	want := 100 + m.sum
	if got != want || m.sum < 2000 || m.sum > 2100 {
		t.Fatalf("estimate %d (messages %d), want %d", got, m.sum, want)
	}
	// A reply reported 5,000 tokens for the first four messages: the
	// estimate is that, plus what came after.
	m.report(model.Usage{InputTokens: 4500, OutputTokens: 500}, 4)
	if got := m.estimate(req); got != 5000+messageTokens(req.Messages[4]) {
		t.Fatalf("estimate after a report %d", got)
	}
	req.Messages = append(req.Messages, model.Message{Role: model.RoleUser, Text: strings.Repeat("u", 400)})
	if got := m.estimate(req); got != 5000+messageTokens(req.Messages[4])+messageTokens(req.Messages[5]) {
		t.Fatalf("estimate after a new message %d", got)
	}
	// The threshold: 85 % of a window.
	p := ContextPolicy{Window: 10_000, AutoCompact: DefaultAutoCompact}
	if u := p.use(8_600); u.Percent != 86 || u.Window != 10_000 {
		t.Errorf("use %+v", u)
	}
	if int(p.AutoCompact*float64(p.Window)) != 8_500 {
		t.Error("threshold arithmetic")
	}
}

func TestCutPoint(t *testing.T) {
	msgs := conversation(10, 4000) // each turn about 1,020 tokens
	var m meter
	m.catchUp(msgs)
	cut := cutPoint(msgs, m.sizes, 3000)
	if cut != len(msgs)-4 {
		t.Fatalf("cut %d of %d, want the last two turns kept", cut, len(msgs))
	}
	if msgs[cut].Role != model.RoleAssistant {
		t.Fatal("the kept part does not start with a reply")
	}
	// A budget that would split a reply from its results moves the cut to
	// the reply.
	if c := cutPoint(msgs, m.sizes, 1100); msgs[c].Role == model.RoleTool || c != len(msgs)-2 {
		t.Fatalf("cut %d splits a call from its result", c)
	}
	// A last result larger than the budget: everything but the goal is
	// summarised.
	if c := cutPoint(msgs, m.sizes, 10); c != len(msgs) {
		t.Fatalf("cut %d, want %d", c, len(msgs))
	}
	// The person's latest words are always kept.
	withInput := append(msgs, model.Message{Role: model.RoleUser, Text: strings.Repeat("q", 40000)})
	m.catchUp(withInput)
	if c := cutPoint(withInput, m.sizes, 10); c != len(withInput)-1 {
		t.Fatalf("cut %d drops the person's latest message", c)
	}
	// Nothing older than the goal: nothing to summarise.
	if c := cutPoint(msgs[:1], m.sizes, 10); c != 0 {
		t.Fatalf("cut %d of a lone goal", c)
	}
}

// compactingModel answers summary requests with a fixed summary, records
// every request, and plays the scripted model otherwise.
type compactingModel struct {
	inner    model.Model
	mu       sync.Mutex // guards requests and overflow
	requests []model.Request
	// overflow makes the next n non-summary requests fail as too long.
	overflow int
}

func (m *compactingModel) Name() string { return "test:compacting" }

func (m *compactingModel) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	m.mu.Lock()
	m.requests = append(m.requests, req)
	over := !req.Compact && m.overflow > 0
	if over {
		m.overflow--
	}
	m.mu.Unlock()
	if over {
		return model.Reply{}, fmt.Errorf("test provider: prompt is too long: %w", model.ErrContextOverflow)
	}
	if req.Compact {
		if len(req.Tools) != 0 || len(req.Messages) != 1 || !strings.Contains(req.Messages[0].Text, "PERSON: read the files") {
			return model.Reply{}, errors.New("the summary request does not hold the history as text without tools")
		}
		return model.Reply{Text: "Read a.txt many times; nothing changed.", Usage: model.Usage{InputTokens: 900, OutputTokens: 20}}, nil
	}
	return m.inner.Reply(ctx, req, onDelta)
}

func (m *compactingModel) last() model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[len(m.requests)-1]
}

// readSteps is a scenario that reads a large file for n turns, remembers a
// value, and finishes.
func readSteps(n int) []model.Step {
	var steps []model.Step
	steps = append(steps, model.Step{Calls: []model.ScriptedCall{call("remember", `{"key":"owner","value":"ada"}`)}})
	for range n {
		steps = append(steps, model.Step{Calls: []model.ScriptedCall{call("read_big", `{"path":"a.txt"}`)}})
	}
	return append(steps, model.Step{Expect: []string{"the big file"}, Calls: []model.ScriptedCall{call("finish", `{"summary":"done"}`)}})
}

func bigReader() tool.Tool {
	return pathTool("read_big", false, func(context.Context, map[string]any) tool.Return {
		return tool.Ok("the big file: " + strings.Repeat("line of text\n", 400))
	})
}

// TestAutoCompaction runs a session whose reads outgrow a small window:
// the conversation is compacted before the request that would cross the
// threshold, the run goes on to succeed, the turn numbers keep counting,
// and what was remembered is still there.
func TestAutoCompaction(t *testing.T) {
	rec := newRecorder()
	m := &compactingModel{inner: script(t, readSteps(12)...)}
	a := newAgent(t, m, rec, bigReader())
	a.Context = ContextPolicy{Window: 8000, AutoCompact: DefaultAutoCompact}
	s := NewSession("s")
	out := a.Run(context.Background(), s, "read the files")
	if out.Status != StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	var compactions []Compacted
	for _, e := range rec.snapshot() {
		switch ev := e.(type) {
		case Compacted:
			compactions = append(compactions, ev)
		case UsageReported:
			if ev.Context == nil || ev.Context.Window != 8000 {
				t.Fatalf("usage without the context share: %+v", ev)
			}
		}
	}
	if len(compactions) < 2 {
		t.Fatalf("%d compactions, want at least two", len(compactions))
	}
	for _, c := range compactions {
		if c.TokensBefore < 6800 || c.TokensAfter >= c.TokensBefore || c.Reason != "auto" || c.Replies < 1 {
			t.Errorf("compaction %+v", c)
		}
	}
	// Every request stayed within the window, by the runtime's estimate.
	for _, r := range m.requests {
		var fresh meter
		if n := fresh.estimate(r); n > 8000 {
			t.Errorf("a request of about %d tokens was sent", n)
		}
	}
	if s.Turns() != 14 {
		t.Errorf("the session counts %d turns, want 14", s.Turns())
	}
	last := m.last()
	if last.Messages[0].Text != "read the files" || !strings.Contains(last.Messages[1].Text, "Read a.txt many times") ||
		!strings.Contains(last.Messages[1].Text, `owner = "ada"`) {
		t.Errorf("the compacted conversation: %q / %q", last.Messages[0].Text, last.Messages[1].Text)
	}
	if out.ExtractedData == nil || !strings.Contains(string(out.ExtractedData), "ada") {
		t.Errorf("the remembered value is lost: %s", out.ExtractedData)
	}
}

// TestOverflowIsRecoveredOnce answers a provider's overflow by compacting
// and asking again; a second overflow of the same turn fails the run, with
// a message that names the window and the request's size.
func TestOverflowIsRecoveredOnce(t *testing.T) {
	// A session three turns in; the provider refuses the next request once.
	rec := newRecorder()
	m := &compactingModel{inner: script(t, readSteps(3)...), overflow: 1}
	a := newAgent(t, m, rec, bigReader())
	a.Context = ContextPolicy{Window: 100_000, AutoCompact: DefaultAutoCompact}
	s := NewSession("s")
	s.Messages = conversation(3, 4000)
	s.Messages[0].Text = "read the files"
	if o := a.Run(context.Background(), s, "go on"); o.Status != StatusSucceeded {
		t.Fatalf("the overflow was not recovered: %+v", o)
	}
	var reasons []string
	for _, e := range rec.snapshot() {
		if c, ok := e.(Compacted); ok {
			reasons = append(reasons, c.Reason)
		}
	}
	if strings.Join(reasons, ",") != "overflow" {
		t.Fatalf("compactions %v, want one for the overflow", reasons)
	}

	// Refused twice: the run fails, naming the window and the size.
	m2 := &compactingModel{inner: script(t, readSteps(3)...), overflow: 2}
	a2 := newAgent(t, m2, nil, bigReader())
	a2.Context = ContextPolicy{Window: 100_000, AutoCompact: DefaultAutoCompact}
	s2 := NewSession("s2")
	s2.Messages = conversation(3, 4000)
	s2.Messages[0].Text = "read the files"
	o := a2.Run(context.Background(), s2, "go on")
	msg := strings.Join(o.Attempts, " ")
	if o.Status != StatusFailed || !strings.Contains(msg, "is longer than the context window of test:compacting (100000 tokens) even after the conversation was compacted") ||
		!strings.Contains(msg, "the request, about ") {
		t.Fatalf("second overflow: %+v", o)
	}
}

// TestManualCompaction compacts on the person's word, with a focus the
// summary request carries.
func TestManualCompaction(t *testing.T) {
	rec := newRecorder()
	m := &compactingModel{inner: script(t)}
	a := newAgent(t, m, rec)
	a.Context = ContextPolicy{Window: 200_000}
	s := NewSession("s")
	s.Messages = conversation(6, 400)
	s.Messages[0].Text = "read the files"
	if err := a.Compact(context.Background(), s, "keep the API design"); err != nil {
		t.Fatal(err)
	}
	req := m.last()
	if !req.Compact || !strings.Contains(req.Messages[0].Text, "The person asks the summary to keep in particular: keep the API design") {
		t.Fatalf("summary request %+v", req)
	}
	if len(s.Messages) != 2 || s.Messages[1].Summarizes != 6 || s.Turns() != 6 {
		t.Fatalf("after a manual compaction: %d messages, summarizes %d, turns %d", len(s.Messages), s.Messages[1].Summarizes, s.Turns())
	}
	c := rec.await(t, "the compaction", func(e Event) bool { _, ok := e.(Compacted); return ok }).(Compacted)
	if c.Reason != "manual" || c.From != 1 || c.To != 13 || c.Replies != 6 {
		t.Errorf("compacted %+v", c)
	}
	// Twice in a row: the only older part now is the summary itself.
	if err := a.Compact(context.Background(), s, ""); err != nil {
		t.Fatalf("second manual compaction: %v", err)
	}
	if err := a.Compact(context.Background(), &Session{Messages: conversation(0, 0)}, ""); !errors.Is(err, errNothingToCompact) {
		t.Fatalf("a lone goal compacted: %v", err)
	}
}

// TestCompactedEventRoundTrip checks the compaction events' JSON form.
func TestCompactedEventRoundTrip(t *testing.T) {
	ev := Compacted{Turn: 3, Reason: "auto", From: 1, To: 9, Text: "summary", Summarizes: 4, Replies: 4, TokensBefore: 900, TokensAfter: 200, Window: 1000}
	line, err := EncodeEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeEvent(line)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(back); !strings.Contains(string(b), `"to":9`) || back.(Compacted).Text != "summary" {
		t.Errorf("round trip %s", b)
	}
}

// BenchmarkEstimateAndDecide measures what the loop does before each
// request of a long session: estimating its size and deciding whether to
// compact, with one new turn since the last request.
func BenchmarkEstimateAndDecide(b *testing.B) {
	msgs := conversation(1000, 2000) // 2,001 messages
	var m meter
	p := ContextPolicy{Window: 2_000_000, AutoCompact: DefaultAutoCompact}
	m.estimate(model.Request{Messages: msgs})
	m.report(model.Usage{InputTokens: 500_000, OutputTokens: 100}, len(msgs)-1)
	extra := conversation(1, 2000)[1:]
	req := model.Request{Messages: append(msgs[:len(msgs):len(msgs)], extra...)}
	b.ReportAllocs()
	for b.Loop() {
		n := m.estimate(req)
		if n >= int(p.AutoCompact*float64(p.Window)) {
			b.Fatal("compaction decided")
		}
		m.sizes = m.sizes[:len(msgs)]
		m.sum -= messageTokens(extra[0]) + messageTokens(extra[1])
	}
}

// BenchmarkEstimateCold estimates a 2,001-message conversation with nothing
// known of it, as the first turn after a resume does.
func BenchmarkEstimateCold(b *testing.B) {
	req := model.Request{Messages: conversation(1000, 2000)}
	b.ReportAllocs()
	for b.Loop() {
		var m meter
		if m.estimate(req) < 1000*500 {
			b.Fatal("too small")
		}
	}
}
