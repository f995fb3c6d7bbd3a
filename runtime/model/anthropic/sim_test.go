package anthropic_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sim is a fake Messages API that keeps the rules thinking and prompt
// caching bring, as Anthropic documents them, and answers a request that
// breaks one with the 400 and the error text the real API sends:
//
//   - Every thinking block it sends carries a signature that only it can
//     make; a thinking block sent back must carry one it made ("Invalid
//     `signature` in `thinking` block"), with the text it was made with
//     ("`thinking` or `redacted_thinking` blocks in the latest assistant
//     message cannot be modified"), and a redacted_thinking block the data
//     it was sent with.
//   - The latest assistant message of a tool-use loop must hold every
//     thinking and redacted_thinking block the reply had, in order; one that
//     starts without them, while the request thinks, is refused with
//     "Expected `thinking` or `redacted_thinking`, but found …". With the
//     budget form (thinking.type "enabled") the final assistant turn must
//     start with a thinking block whoever wrote it.
//   - With preserved set (Claude Fable 5.1 and later), a thinking block
//     sent back must have the same prefix (system, tools and everything
//     before it) as when it was made, else "The block is bound to a
//     different conversation", unless the request sets
//     thinking.block_binding.prefix_mismatch_behavior to "drop_block" with
//     the thinking-binding-controls-2026-08-01 beta, when the block is
//     dropped.
//   - budget_tokens is at least 1,024 and below max_tokens; a thinking type
//     in rejects is refused with the text of the thinking-troubleshooting
//     page.
//   - The prompt cache: at most four cache_control breakpoints ("A maximum
//     of 4 blocks with cache_control may be provided. Found 5."); an entry
//     is the exact prefix up to a breakpoint in the order tools, system,
//     messages (cache_control itself not part of it; the thinking setting
//     and effort part of the messages' prefix), found at the breakpoint or
//     at the 20 block boundaries before it, written only when the prefix
//     is at least minCache tokens, and living five minutes. The usage of
//     the stream reports input_tokens, cache_read_input_tokens and
//     cache_creation_input_tokens as the API does.
//
// Each request is answered by the next scripted turn; the blocks of a turn
// become the stream, thinking blocks included only when the request thinks
// and their text only when it asks for the summarized display.
type sim struct {
	t *testing.T
	// preserved turns on the prefix check of thinking blocks.
	preserved bool
	// onByDefault says the model thinks when the request has no thinking
	// parameter.
	onByDefault bool
	// rejects are the thinking types the model refuses.
	rejects map[string]bool
	// minCache is the least prefix, in tokens, that is cached.
	minCache int
	// now tells the time for the cache's lifetime.
	now func() time.Time

	mu      sync.Mutex
	turns   []simTurn
	n       int
	secret  []byte
	issued  map[string]issuedBlock // by signature, or data of a redacted block
	replies map[string][]simBlock  // the blocks of each reply, by its first tool_use id
	cache   map[[32]byte]time.Time // prefix hash → expiry
	reqs    []map[string]any       // every request body
	raws    [][]byte               // every request body as sent
	headers []http.Header          // every request's headers
	usages  []map[string]int       // the usage each answer reported
	errs    []string               // the error texts of the 400s answered
	dropped int                    // thinking blocks dropped by drop_block
	url     string
}

// simTurn is one scripted reply: its blocks, and the stop reason.
type simTurn struct {
	blocks []simBlock
	stop   string
}

// simBlock is a block of a reply: kind is "thinking", "redacted", "text" or
// "tool_use".
type simBlock struct {
	kind, text, id, name, input string
	// sig is the signature or data the block was sent with.
	sig string
}

// issuedBlock is a thinking or redacted block as the sim made it.
type issuedBlock struct {
	text   string
	prefix [32]byte
}

const (
	// simTTL is the lifetime of a cache entry: five minutes from its last
	// use.
	simTTL = 5 * time.Minute
	// lookback is how many block boundaries before a breakpoint the cache
	// is looked up at.
	lookback = 20
)

// The error texts the sim answers with, as the API words them.
const (
	errTooManyBreakpoints = "A maximum of 4 blocks with cache_control may be provided. Found %d."
	errBadSignature       = "messages.%d.content.%d: Invalid `signature` in `thinking` block"
	errModified           = "messages.%d.content.%d: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."
	errExpectedThinking   = "messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
	errBound              = "messages.%d.content.%d: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\"."
	errBoundNoBeta        = " That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header."
	errBudgetMin          = "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
	errBudgetMax          = "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
	errTypeRejected       = "\"thinking.type.%s\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior."
)

// newSim starts a sim that answers with turns.
func newSim(t *testing.T, turns ...simTurn) *sim {
	s := &sim{t: t, turns: turns, minCache: 512, now: time.Now, secret: []byte("sim-secret"),
		issued: map[string]issuedBlock{}, replies: map[string][]simBlock{}, cache: map[[32]byte]time.Time{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// add appends turns to the script.
func (s *sim) add(turns ...simTurn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Requests returns the request bodies received so far.
func (s *sim) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.reqs...)
}

// Errors returns the texts of the 400s answered so far.
func (s *sim) Errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

func (s *sim) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		s.t.Errorf("request body is not JSON: %v", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	s.raws = append(s.raws, raw)
	s.headers = append(s.headers, r.Header.Clone())
	if msg := s.check(req, r.Header); msg != "" {
		s.errs = append(s.errs, msg)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": msg}})
		w.Write(b)
		return
	}
	if s.n >= len(s.turns) {
		s.t.Errorf("request %d has no scripted turn", len(s.reqs))
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	turn := s.turns[s.n]
	s.n++
	s.answer(w, req, turn)
}

// thinkingType returns the request's thinking.type, or "" when it has none.
func thinkingType(req map[string]any) string {
	th, _ := req["thinking"].(map[string]any)
	t, _ := th["type"].(string)
	return t
}

// thinks reports whether the model thinks for req.
func (s *sim) thinks(req map[string]any) bool {
	switch thinkingType(req) {
	case "adaptive", "enabled":
		return true
	case "":
		return s.onByDefault
	}
	return false
}

// check returns the error text of the first rule req breaks, or "".
func (s *sim) check(req map[string]any, h http.Header) string {
	if n := countBreakpoints(req); n > 4 {
		return fmt.Sprintf(errTooManyBreakpoints, n)
	}
	th, _ := req["thinking"].(map[string]any)
	typ := thinkingType(req)
	if s.rejects[typ] {
		return fmt.Sprintf(errTypeRejected, typ)
	}
	if typ == "enabled" {
		budget := num(th["budget_tokens"])
		if budget < 1024 {
			return errBudgetMin
		}
		if num(req["max_tokens"]) <= budget {
			return errBudgetMax
		}
	}
	msgs := messagesOf(req)
	dropping := false
	if bb, ok := th["block_binding"].(map[string]any); ok && bb["prefix_mismatch_behavior"] == "drop_block" {
		if !strings.Contains(h.Get("Anthropic-Beta"), "thinking-binding-controls-2026-08-01") {
			return "thinking.block_binding: " + strings.TrimSpace(errBoundNoBeta)
		}
		dropping = true
	}
	// A block whose prefix changed is invalid; those made later, with the
	// change in their prefix, stay valid. droppedFrom is the last message
	// a block was dropped from.
	droppedFrom := -1
	for i, m := range msgs {
		content, _ := m["content"].([]any)
		for j, c := range content {
			b, _ := c.(map[string]any)
			switch b["type"] {
			case "thinking":
				sig, _ := b["signature"].(string)
				is, ok := s.issued[sig]
				if !ok {
					return fmt.Sprintf(errBadSignature, i, j)
				}
				if text, _ := b["thinking"].(string); text != is.text {
					return fmt.Sprintf(errModified, i, j)
				}
				if !s.preserved {
					continue
				}
				if prefixHash(req, i, j) != is.prefix {
					if !dropping {
						msg := fmt.Sprintf(errBound, i, j)
						if !strings.Contains(h.Get("Anthropic-Beta"), "thinking-binding-controls") {
							msg += errBoundNoBeta
						}
						return msg
					}
					droppedFrom = i
					s.dropped++
				}
			case "redacted_thinking":
				data, _ := b["data"].(string)
				if _, ok := s.issued[data]; !ok {
					return fmt.Sprintf(errModified, i, j)
				}
			}
		}
	}
	return s.checkLatest(req, msgs, droppedFrom)
}

// checkLatest checks the latest assistant message of an open tool-use loop
// against the reply it echoes.
func (s *sim) checkLatest(req map[string]any, msgs []map[string]any, droppedFrom int) string {
	if len(msgs) < 2 || msgs[len(msgs)-1]["role"] != "user" || !hasType(msgs[len(msgs)-1], "tool_result") {
		return ""
	}
	i := len(msgs) - 2
	if msgs[i]["role"] != "assistant" {
		return ""
	}
	content, _ := msgs[i]["content"].([]any)
	first := ""
	if len(content) > 0 {
		first, _ = content[0].(map[string]any)["type"].(string)
	}
	starts := first == "thinking" || first == "redacted_thinking"
	if thinkingType(req) == "enabled" && !starts {
		return fmt.Sprintf(errExpectedThinking, i, first)
	}
	var reply []simBlock
	for _, c := range content {
		if b, _ := c.(map[string]any); b["type"] == "tool_use" {
			reply = s.replies[b["id"].(string)]
			break
		}
	}
	if reply == nil || !s.thinks(req) || droppedFrom == i {
		// A reply the sim did not make, a request that does not think
		// (the API strips the blocks), or blocks the API dropped.
		return ""
	}
	var made []string
	for _, b := range reply {
		if b.kind == "thinking" || b.kind == "redacted" {
			made = append(made, b.sig)
		}
	}
	if len(made) == 0 {
		return ""
	}
	if !hasType(msgs[i], "thinking") && !hasType(msgs[i], "redacted_thinking") {
		return fmt.Sprintf(errExpectedThinking, i, first)
	}
	k := 0
	for j, c := range content {
		b, _ := c.(map[string]any)
		var sig string
		switch b["type"] {
		case "thinking":
			sig, _ = b["signature"].(string)
		case "redacted_thinking":
			sig, _ = b["data"].(string)
		default:
			continue
		}
		if k >= len(made) || made[k] != sig {
			return fmt.Sprintf(errModified, i, j)
		}
		k++
	}
	if k != len(made) {
		return fmt.Sprintf(errModified, i, len(content)-1)
	}
	return ""
}

// answer streams turn as the reply to req, with the usage the cache makes.
func (s *sim) answer(w http.ResponseWriter, req map[string]any, turn simTurn) {
	usage := s.cacheUsage(req)
	thinks := s.thinks(req)
	th, _ := req["thinking"].(map[string]any)
	summarized := th["display"] == "summarized"
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	send := func(typ string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		fl.Flush()
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", s.n), "type": "message", "role": "assistant", "content": []any{},
		"model": req["model"], "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": usage["input"], "cache_read_input_tokens": usage["read"],
			"cache_creation_input_tokens": usage["write"], "output_tokens": 1}}})
	var made []simBlock // the reply's blocks, as they are echoed
	out, thought := 0, 0
	index := 0
	for _, b := range turn.blocks {
		switch b.kind {
		case "thinking":
			if !thinks {
				continue
			}
			text := b.text
			if !summarized {
				text = "" // the default display of the newest models
			}
			prefix := replyPrefix(req, made)
			b.sig = s.sign(text, prefix, len(s.issued))
			s.issued[b.sig] = issuedBlock{text: text, prefix: prefix}
			send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
				"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, piece := range pieces(text) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
					"delta": map[string]any{"type": "thinking_delta", "thinking": piece}})
			}
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "signature_delta", "signature": b.sig}})
			b.text = text
			thought += tokens(b.text) + 20
		case "redacted":
			if !thinks {
				continue
			}
			b.sig = s.sign("redacted", replyPrefix(req, made), len(s.issued))
			s.issued[b.sig] = issuedBlock{}
			send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
				"content_block": map[string]any{"type": "redacted_thinking", "data": b.sig}})
			thought += 50
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range pieces(b.text) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
					"delta": map[string]any{"type": "text_delta", "text": piece}})
			}
			out += tokens(b.text)
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
				"content_block": map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": b.input}})
			out += tokens(b.input) + 10
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		made = append(made, b)
		index++
	}
	for _, b := range made {
		if b.kind == "tool_use" {
			s.replies[b.id] = made
			break
		}
	}
	stop := turn.stop
	if stop == "" {
		stop = "end_turn"
		for _, b := range made {
			if b.kind == "tool_use" {
				stop = "tool_use"
			}
		}
	}
	s.usages = append(s.usages, usage)
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": usage["input"], "cache_read_input_tokens": usage["read"],
			"cache_creation_input_tokens": usage["write"], "output_tokens": out + thought,
			"output_tokens_details": map[string]any{"thinking_tokens": thought}}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// sign makes the signature of a block: only the sim can make one, and two
// blocks never share one.
func (s *sim) sign(text string, prefix [32]byte, n int) string {
	mac := hmac.New(sha256.New, s.secret)
	fmt.Fprintf(mac, "%d\x00%x\x00%s", n, prefix, text)
	return "Eq" + hex.EncodeToString(mac.Sum(nil))
}

// pieces cuts s into a few pieces, as a stream sends them.
func pieces(s string) []string {
	if s == "" {
		return []string{""}
	}
	third := max(len(s)/3, 1)
	var out []string
	for i := 0; i < len(s); i += third {
		out = append(out, s[i:min(i+third, len(s))])
	}
	return out
}

// tokens counts text as the sim's tokenizer does: four bytes a token.
func tokens(s string) int { return (len(s) + 3) / 4 }

// num reads a JSON number.
func num(v any) int {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	case float64:
		return int(n)
	}
	return 0
}

// messagesOf returns the messages of a request body.
func messagesOf(req map[string]any) []map[string]any {
	raw, _ := req["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i], _ = m.(map[string]any)
	}
	return out
}

// hasType reports whether a message holds a block of type typ.
func hasType(m map[string]any, typ string) bool {
	content, _ := m["content"].([]any)
	for _, c := range content {
		if b, _ := c.(map[string]any); b["type"] == typ {
			return true
		}
	}
	return false
}

// unit is one block of a prompt in the order the cache reads it, with
// whether it is a breakpoint.
type unit struct {
	key        string // the block as JSON without cache_control
	breakpoint bool
	msg        int // the message it belongs to; -1 for tools and system
}

// units returns the blocks of a request's prompt: the tools, the system
// blocks, then each message's blocks.
func units(req map[string]any) []unit {
	var out []unit
	add := func(v any, msg int, prefix string) {
		b, _ := v.(map[string]any)
		_, bp := b["cache_control"]
		clean := map[string]any{}
		for k, x := range b {
			if k != "cache_control" {
				clean[k] = x
			}
		}
		key, _ := json.Marshal(clean)
		out = append(out, unit{key: prefix + string(key), breakpoint: bp, msg: msg})
	}
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		add(t, -1, "tool:")
	}
	system, _ := req["system"].([]any)
	for _, b := range system {
		add(b, -1, "system:")
	}
	for i, m := range messagesOf(req) {
		content, _ := m["content"].([]any)
		for _, c := range content {
			add(c, i, fmt.Sprintf("%d:%s:", i, m["role"]))
		}
	}
	return out
}

// config is the part of a request that is part of the messages' cached
// prefix beside the messages: the thinking setting and the effort.
func config(req map[string]any) string {
	b, _ := json.Marshal([]any{req["thinking"], req["output_config"]})
	return string(b)
}

// hashes returns the hash of the prompt's prefix up to and including each
// unit.
func hashes(req map[string]any, us []unit) [][32]byte {
	out := make([][32]byte, len(us))
	var h [32]byte
	configured := false
	for i, u := range us {
		if u.msg >= 0 && !configured {
			h = sha256.Sum256(append(h[:], config(req)...))
			configured = true
		}
		h = sha256.Sum256(append(h[:], u.key...))
		out[i] = h
	}
	return out
}

// countBreakpoints counts the blocks of req with cache_control.
func countBreakpoints(req map[string]any) int {
	n := 0
	for _, u := range units(req) {
		if u.breakpoint {
			n++
		}
	}
	return n
}

// cacheUsage looks req up in the cache and writes what it adds, and
// returns the input tokens it read ("read"), wrote ("write") and neither
// ("input").
func (s *sim) cacheUsage(req map[string]any) map[string]int {
	us := units(req)
	hs := hashes(req, us)
	now := s.now()
	cum := make([]int, len(us))
	total := 0
	for i, u := range us {
		total += tokens(u.key)
		cum[i] = total
	}
	live := func(i int) bool {
		exp, ok := s.cache[hs[i]]
		return ok && now.Before(exp)
	}
	read := -1
	for i, u := range us {
		if !u.breakpoint {
			continue
		}
		for k := i; k >= 0 && k >= i-lookback; k-- {
			if live(k) {
				read = max(read, k)
				break
			}
		}
	}
	written := read
	for i, u := range us {
		if u.breakpoint && i > read && cum[i] >= s.minCache {
			s.cache[hs[i]] = now.Add(simTTL)
			written = i
		}
	}
	if read >= 0 {
		s.cache[hs[read]] = now.Add(simTTL)
	}
	usage := map[string]int{"read": 0, "write": 0}
	if read >= 0 {
		usage["read"] = cum[read]
	}
	if written > read {
		usage["write"] = cum[written] - usage["read"]
	}
	usage["input"] = total - usage["read"] - usage["write"]
	return usage
}

// prefixHash returns the hash of what comes before block j of message i:
// system, tools, the messages before it and the blocks before it in its
// message, without cache_control.
func prefixHash(req map[string]any, i, j int) [32]byte {
	var b strings.Builder
	for _, u := range units(req) {
		if u.msg >= 0 {
			break
		}
		b.WriteString(u.key)
	}
	for mi, m := range messagesOf(req) {
		if mi > i {
			break
		}
		content, _ := m["content"].([]any)
		for bj, c := range content {
			if mi == i && bj >= j {
				break
			}
			b.WriteString(blockKey(mi, m["role"], c))
		}
	}
	return sha256.Sum256([]byte(b.String()))
}

// replyPrefix returns the prefix of the next block of a reply to req whose
// blocks so far are made: the request, then the reply's blocks as they are
// echoed.
func replyPrefix(req map[string]any, made []simBlock) [32]byte {
	var b strings.Builder
	for _, u := range units(req) {
		if u.msg >= 0 {
			break
		}
		b.WriteString(u.key)
	}
	msgs := messagesOf(req)
	for mi, m := range msgs {
		content, _ := m["content"].([]any)
		for _, c := range content {
			b.WriteString(blockKey(mi, m["role"], c))
		}
	}
	for _, blk := range made {
		var v map[string]any
		switch blk.kind {
		case "thinking":
			v = map[string]any{"type": "thinking", "thinking": blk.text, "signature": blk.sig}
		case "redacted":
			v = map[string]any{"type": "redacted_thinking", "data": blk.sig}
		case "text":
			v = map[string]any{"type": "text", "text": blk.text}
		case "tool_use":
			var input any
			d := json.NewDecoder(strings.NewReader(blk.input))
			d.UseNumber()
			d.Decode(&input)
			v = map[string]any{"type": "tool_use", "id": blk.id, "name": blk.name, "input": input}
		}
		b.WriteString(blockKey(len(msgs), "assistant", v))
	}
	return sha256.Sum256([]byte(b.String()))
}

// blockKey is a block of message i as the prefix check compares it.
func blockKey(i int, role, block any) string {
	b, _ := block.(map[string]any)
	clean := map[string]any{}
	for k, x := range b {
		if k != "cache_control" {
			clean[k] = x
		}
	}
	key, _ := json.Marshal(clean)
	return fmt.Sprintf("%d:%s:%s", i, role, key)
}
