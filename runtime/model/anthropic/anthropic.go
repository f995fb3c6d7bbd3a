// Package anthropic is a model.Model over the Anthropic Messages API, and
// over gateways and proxies that speak it, reached through a base URL.
//
// Replies are streamed. Text goes to the caller as it arrives, and so does
// the readable text of the model's thinking (model.Delta.Thinking); each
// tool_use block is assembled from its input_json_delta pieces, and its
// input is returned exactly as the model sent it, so that the runtime can
// tell the model precisely what was wrong with it. A reply stopped by
// max_tokens in the middle of a tool_use block returns that call as
// model.Reply.Cut. The usage counts all input, the part read from the
// prompt cache and the part written to it, and the output with the part
// spent thinking.
//
// How the conversation is sent:
//   - The system prompt is the system parameter. User messages are user
//     messages; consecutive user content (the results of a reply and the
//     person's answer to a clarification after them) is merged into one
//     user message, results first, as the API requires.
//   - An assistant reply is one assistant message with a text block and a
//     tool_use block for every call, the cut call last, and its thinking
//     and redacted_thinking blocks, byte for byte as they came and each in
//     its place (before the text, after it, or after the call it followed),
//     since the API refuses a tool loop whose latest reply lost or changed
//     one. They are sent only to the model that made them (a
//     model.Reasoning's Source is the model's Name): after /model another
//     model gets the replies without them. A thinking block the output
//     limit cut before its signature arrived is not sent back.
//   - A tool_use input must be an object: a call whose arguments are not a
//     JSON object (invalid or cut arguments) is sent with the input {}, and
//     the result of such a call already quotes what the model sent.
//   - The results of a reply are tool_result blocks in one user message, in
//     call order, with is_error set on error results (a failure, a skip, a
//     denial, feedback on an invalid call). A call left without a result
//     gets one saying no result was recorded, because the API rejects a
//     conversation in which a tool_use is unanswered.
//   - Call ids are sent with any character the API does not accept in an id
//     replaced by "_", the same way in the call and its result.
//   - max_tokens is required by the API: Request.MaxOutputTokens, or
//     DefaultMaxTokens when it is zero, or ThinkingMaxTokens (within the
//     model's own limit) when the request thinks, since thinking counts
//     toward it.
//
// Thinking follows Request.Effort and the model's row in the tables of
// runtime/model. A model with adaptive thinking (Claude Opus 4.6 and later,
// Sonnet 4.6 and later, Haiku 5.5, Fable, Mythos) is asked for thinking
// {type: "adaptive", display: "summarized"}, with output_config.effort when
// an effort is chosen (max is the model's top level); a model with only the
// budget form (Claude 4.5 and earlier) is asked for nothing by default and
// for {type: "enabled", budget_tokens, display: "summarized"} at an effort,
// max_tokens above the budget. Off is {type: "disabled"} on the models that
// think by default, {type: "between_tools"} on Claude Sonnet 5.5, nothing on
// the others, and an error, with nothing sent, on the models that always
// think. The summary request of a compaction thinks as little as the model
// allows. A tool loop begun without thinking is finished without it on the
// budget form, which requires the loop's last reply to start with thinking.
// The models that check the prefix of their thinking blocks (Claude Fable
// 5.1 and later, Opus, Sonnet and Haiku 5.5) refuse a block when anything
// before it changed since it was made, as a compaction or a tool list that
// changed does: their adaptive requests ask the API to drop such blocks
// (thinking.block_binding.prefix_mismatch_behavior "drop_block", with its
// beta header), and where that cannot be asked the reasoning of the turns
// a compaction kept is left out.
//
// Prompt caching: a request has cache_control breakpoints on the last tool,
// on the system prompt, and on the last block of each of the last two user
// messages: the latest, so that the next request reads this one from the
// cache, and the one before it, where the previous request ended, so that
// it is read even when a reply and its results add more blocks than the API
// looks back over. That is the four a request may have. The system prompt
// and the tool list are sent the same bytes in every request, in the
// runtime's order; the summary request of a compaction has no breakpoints.
// Request.CacheKey is not sent: the Messages API finds a cache entry by its
// prefix and takes no key.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wire"
	"github.com/agenttui/agenttui/runtime/tool"
)

// The environment variables New reads.
const (
	// EnvAPIKey holds the API key.
	EnvAPIKey = "ANTHROPIC_API_KEY"
	// EnvBaseURL holds the base URL of a gateway or proxy, without /v1.
	EnvBaseURL = "ANTHROPIC_BASE_URL"
)

// DefaultBaseURL is where the Anthropic API itself is.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the output limit of a request that sets none; the API
// requires one.
const DefaultMaxTokens = 8192

// DefaultStallTimeout is how long a request may go without receiving
// anything from the server before it is abandoned (the idle watchdog). The
// API sends pings while a reply is slow, so only a dead connection stays
// quiet this long.
const DefaultStallTimeout = 90 * time.Second

// ErrMissingAPIKey is returned by New when no API key is given and no base
// URL of a gateway is set either.
var ErrMissingAPIKey = errors.New(EnvAPIKey + " is not set")

// Option configures a Model.
type Option func(*settings)

type settings struct {
	wire.Settings
	maxTokens      int
	requestOptions []option.RequestOption
}

// WithAPIKey sets the API key instead of ANTHROPIC_API_KEY.
func WithAPIKey(key string) Option { return func(s *settings) { s.APIKey = &key } }

// WithBaseURL sets the base URL instead of ANTHROPIC_BASE_URL. An empty url
// means Anthropic.
func WithBaseURL(url string) Option { return func(s *settings) { s.BaseURL = &url } }

// WithDefaultMaxTokens sets the output limit of requests that set none; see
// DefaultMaxTokens.
func WithDefaultMaxTokens(n int) Option { return func(s *settings) { s.maxTokens = n } }

// WithStallTimeout sets how long a request may go without receiving anything
// before it is abandoned; see DefaultStallTimeout.
func WithStallTimeout(d time.Duration) Option { return func(s *settings) { s.Stall = d } }

// WithHTTPClient sets the HTTP client requests are made with.
func WithHTTPClient(c *http.Client) Option { return func(s *settings) { s.HTTPClient = c } }

// WithRequestOptions adds options of the anthropic-sdk-go SDK, applied after
// all others, such as option.WithHeader.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(s *settings) { s.requestOptions = append(s.requestOptions, opts...) }
}

// Model is a model served over the Messages API. It is safe for concurrent
// use.
type Model struct {
	// srv is the server, which error messages name as "Anthropic" or by the
	// base URL of a gateway.
	srv       *wire.Server
	client    sdk.Client
	maxTokens int
}

// api is the Messages API as wire needs to know it.
var api = &wire.API{
	Name:           "Anthropic",
	KeyEnv:         EnvAPIKey,
	BaseURLEnv:     EnvBaseURL,
	DefaultBaseURL: DefaultBaseURL,
	Path:           "/v1/messages",
	ErrMissingKey:  ErrMissingAPIKey,
	DefaultStall:   DefaultStallTimeout,
	StatusText:     statusText,
	ExplainStatus:  explainStatus,
	MidReply:       midReply,
}

// New returns the model called name (such as "claude-sonnet-4-5"). The API
// key and base URL come from the options, else from ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL. A key is required for Anthropic itself; a gateway
// reached through a base URL may authenticate otherwise, so its key may be
// left unset. No other credential source (profiles, federation) is read.
// New makes no request.
//
// Each Reply makes one attempt: the SDK's own retries are off, and errors
// that may pass are marked model.Transient, so that model.WithRetries is the
// one retry policy.
func New(name string, opts ...Option) (*Model, error) {
	s := settings{maxTokens: DefaultMaxTokens}
	for _, o := range opts {
		o(&s)
	}
	srv, err := api.Resolve(name, s.Settings)
	if err != nil {
		return nil, err
	}
	if s.maxTokens <= 0 {
		s.maxTokens = DefaultMaxTokens
	}
	m := &Model{srv: srv, maxTokens: s.maxTokens}
	// The SDK's own search for credentials (environment, profiles, files)
	// is turned off: the key comes from one documented place only.
	ro := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(srv.BaseURL),
		option.WithMaxRetries(0),
	}
	if srv.Key != "" {
		ro = append(ro, option.WithAPIKey(srv.Key))
	}
	ro = append(ro, option.WithHTTPClient(srv.HTTPClient))
	ro = append(ro, s.requestOptions...)
	m.client = sdk.NewClient(ro...)
	return m, nil
}

// Name returns "anthropic:" and the model name.
func (m *Model) Name() string { return "anthropic:" + m.srv.Model }

// Reply streams the model's answer to req in one attempt. Text and the
// readable text of the model's thinking are passed to onDelta as they
// arrive. Errors are one line each and say what to do about them; none
// holds the API key.
func (m *Model) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	body, opts, err := m.body(req)
	if err != nil {
		return model.Reply{}, err
	}
	// The SDK copies the body as it sets "stream" in it, and the exchange
	// is over when Receive returns, so the buffer can be used again.
	defer releaseBody(body)
	// The body is written by body; the parameters handed to the SDK are
	// only the ones it reads itself.
	params := sdk.MessageNewParams{Model: sdk.Model(m.srv.Model)}
	var acc accumulator
	err = wire.Receive(ctx, m.srv, func(w *wire.Watch) wire.Stream[sdk.MessageStreamEventUnion] {
		return m.client.Messages.NewStreaming(w.Context(), params,
			append(opts, option.WithRequestBody("application/json", body), option.WithMiddleware(middleware(w)))...)
	}, func(ev sdk.MessageStreamEventUnion) { acc.add(ev, onDelta) })
	if err != nil {
		return model.Reply{}, err
	}
	return acc.reply(m)
}

// middleware passes the attempt through w.
func middleware(w *wire.Watch) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return w.Exchange(req, next)
	}
}

// accumulator assembles a streamed reply.
type accumulator struct {
	text   strings.Builder
	blocks map[int64]*block
	calls  []*block // tool_use blocks in the order they started
	// thoughts are the thinking and redacted_thinking blocks in the order
	// they started.
	thoughts []*block
	sawText  bool // a text block has started
	stop     string
	usage    model.Usage
}

// block is a content block whose content is still arriving: a tool_use
// block's input, or a thinking block's text and signature.
type block struct {
	kind     string // "tool_use", "thinking" or "redacted_thinking"
	id, name string
	input    strings.Builder // a tool_use's input, a thinking block's text
	data     strings.Builder // a thinking block's signature, a redacted block's data
	// calls and afterText are where a reasoning block was: how many
	// tool_use blocks and whether a text block started before it.
	calls     int
	afterText bool
	done      bool // its content_block_stop arrived
}

func (a *accumulator) add(ev sdk.MessageStreamEventUnion, onDelta func(model.Delta)) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		// Input read from or written to the cache is input too; counting it
		// keeps the totals honest and the parts of it are kept apart.
		a.usage.InputTokens = int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
		a.usage.CacheReadTokens = int(u.CacheReadInputTokens)
		a.usage.CacheWriteTokens = int(u.CacheCreationInputTokens)
		a.usage.OutputTokens = int(u.OutputTokens)
	case "content_block_start":
		cb := ev.ContentBlock
		switch cb.Type {
		case "tool_use":
			b := &block{kind: cb.Type, id: cb.ID, name: cb.Name}
			a.open(ev.Index, b)
			a.calls = append(a.calls, b)
		case "thinking", "redacted_thinking":
			b := &block{kind: cb.Type, calls: len(a.calls), afterText: a.sawText}
			b.input.WriteString(cb.Thinking)
			b.data.WriteString(cb.Signature)
			b.data.WriteString(cb.Data)
			a.open(ev.Index, b)
			a.thoughts = append(a.thoughts, b)
			a.addThinking(cb.Thinking, onDelta)
		case "text":
			a.sawText = true
			a.addText(cb.Text, onDelta)
		}
	case "content_block_delta":
		b := a.blocks[ev.Index]
		switch ev.Delta.Type {
		case "text_delta":
			a.addText(ev.Delta.Text, onDelta)
		case "input_json_delta":
			if b != nil && b.kind == "tool_use" {
				b.input.WriteString(ev.Delta.PartialJSON)
			}
		case "thinking_delta":
			if b != nil && b.kind == "thinking" {
				b.input.WriteString(ev.Delta.Thinking)
				a.addThinking(ev.Delta.Thinking, onDelta)
			}
		case "signature_delta":
			if b != nil && b.kind == "thinking" {
				b.data.WriteString(ev.Delta.Signature)
			}
		}
	case "content_block_stop":
		if b := a.blocks[ev.Index]; b != nil {
			b.done = true
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = string(ev.Delta.StopReason)
		}
		// The counts of message_delta are cumulative, and each is there
		// only when the server sends it.
		u := ev.Usage
		if u.OutputTokens > 0 {
			a.usage.OutputTokens = int(u.OutputTokens)
		}
		if u.OutputTokensDetails.ThinkingTokens > 0 {
			a.usage.ReasoningTokens = int(u.OutputTokensDetails.ThinkingTokens)
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			a.usage.CacheReadTokens = int(u.CacheReadInputTokens)
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			a.usage.CacheWriteTokens = int(u.CacheCreationInputTokens)
		}
		if u.JSON.InputTokens.Valid() {
			a.usage.InputTokens = int(u.InputTokens) + a.usage.CacheReadTokens + a.usage.CacheWriteTokens
		}
	}
}

// open records b as the block at index.
func (a *accumulator) open(index int64, b *block) {
	if a.blocks == nil {
		a.blocks = map[int64]*block{}
	}
	a.blocks[index] = b
}

func (a *accumulator) addText(s string, onDelta func(model.Delta)) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	if onDelta != nil {
		onDelta(model.Delta{Text: s})
	}
}

func (a *accumulator) addThinking(s string, onDelta func(model.Delta)) {
	if s != "" && onDelta != nil {
		onDelta(model.Delta{Thinking: s})
	}
}

// reply returns the assembled reply, or an error for a stream that ended
// without saying why or was refused.
func (a *accumulator) reply(m *Model) (model.Reply, error) {
	// The journal and the next request carry text as JSON, which has no
	// room for bytes that are not UTF-8; mending them here keeps what the
	// model reads now and after a resume the same.
	r := model.Reply{Text: strings.ToValidUTF8(a.text.String(), "\uFFFD"), Usage: a.usage}
	for i, b := range a.calls {
		args := strings.ToValidUTF8(b.input.String(), "\uFFFD")
		if args == "" && b.done {
			// A tool_use without input deltas has the input {}.
			args = "{}"
		}
		if b.name == "" {
			// A call must name its tool for the runtime to check it, and
			// for the console and the next request to say what it was.
			return model.Reply{}, m.srv.Malformed("a tool_use block with no name")
		}
		id := b.id
		if id == "" {
			// The next request must answer the tool_use by its id; a
			// server that sends none gets one made up.
			id = fmt.Sprintf("toolu_%d_%d", time.Now().UnixNano(), i)
		}
		r.Calls = append(r.Calls, tool.Call{ID: id, Name: b.name, Arguments: args})
	}
	r.Reasoning = a.reasoning(m.Name())
	switch a.stop {
	case "":
		return model.Reply{}, m.srv.Truncated("no stop reason")
	case "refusal":
		return model.Reply{}, m.srv.Fail(nil, "%s stopped the reply (stop reason refusal): the model declined to go on", m.srv.Who)
	case "max_tokens", "model_context_window_exceeded":
		r.Stop = model.StopOutputLimit
		// Only the block being written when the limit struck can be cut: it
		// is the last one, and either never stopped or its input is not
		// whole JSON.
		if n := len(r.Calls); n > 0 {
			last := a.calls[n-1]
			if !last.done || !json.Valid([]byte(r.Calls[n-1].Arguments)) {
				cut := r.Calls[n-1]
				r.Cut = &cut
				r.Calls = r.Calls[:n-1]
			}
		}
	default:
		r.Stop = model.StopEnd
		if len(r.Calls) > 0 {
			r.Stop = model.StopToolCalls
		}
	}
	if len(r.Calls) == 0 {
		r.Calls = nil
	}
	return r, nil
}

// reasoning returns the reply's thinking and redacted_thinking blocks as
// reasoning parts of source, in the order they came, each with where it
// was. A thinking block the stream did not finish has no signature and
// cannot be sent back; it is kept for its text, which the person may read.
func (a *accumulator) reasoning(source string) []model.Reasoning {
	var out []model.Reasoning
	for _, b := range a.thoughts {
		p := model.Reasoning{Source: source, Kind: model.ReasoningThinking,
			Text: strings.ToValidUTF8(b.input.String(), "\uFFFD"), Data: strings.ToValidUTF8(b.data.String(), "\uFFFD"),
			Calls: b.calls, AfterText: b.afterText}
		if b.kind == "redacted_thinking" {
			p.Kind, p.Text = model.ReasoningRedacted, ""
		}
		if !b.done && p.Kind == model.ReasoningThinking {
			p.Data = ""
		}
		if p.Text == "" && p.Data == "" {
			continue
		}
		out = append(out, p)
	}
	// The API counts the reply's thinking as a whole; a reply with one part
	// gives that part the count.
	if len(out) == 1 {
		out[0].Tokens = a.usage.ReasoningTokens
	}
	return out
}
