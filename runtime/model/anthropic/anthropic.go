// Package anthropic is a model.Model over the Anthropic Messages API, and
// over gateways and proxies that speak it, reached through a base URL.
//
// Replies are streamed. Text goes to the caller as it arrives; each tool_use
// block is assembled from its input_json_delta pieces, and its input is
// returned exactly as the model sent it, so that the runtime can tell the
// model precisely what was wrong with it. A reply stopped by max_tokens in
// the middle of a tool_use block returns that call as model.Reply.Cut.
//
// How the conversation is sent:
//   - The system prompt is the system parameter. User messages are user
//     messages; consecutive user content (the results of a reply and the
//     person's answer to a clarification after them) is merged into one
//     user message, results first, as the API requires.
//   - An assistant reply is one assistant message with a text block and a
//     tool_use block for every call, the cut call last. A tool_use input
//     must be an object: a call whose arguments are not a JSON object
//     (invalid or cut arguments) is sent with the input {}, and the result
//     of such a call already quotes what the model sent.
//   - The results of a reply are tool_result blocks in one user message, in
//     call order, with is_error set on error results (a failure, a skip, a
//     denial, feedback on an invalid call). A call left without a result
//     gets one saying no result was recorded, because the API rejects a
//     conversation in which a tool_use is unanswered.
//   - Call ids are sent with any character the API does not accept in an id
//     replaced by "_", the same way in the call and its result.
//   - max_tokens is required by the API: Request.MaxOutputTokens, or
//     DefaultMaxTokens when it is zero.
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

// Reply streams the model's answer to req in one attempt. Text is passed to
// onDelta as it arrives. Errors are one line each and say what to do about
// them; none holds the API key.
func (m *Model) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	params := m.params(req)
	var acc accumulator
	err := wire.Receive(ctx, m.srv, func(w *wire.Watch) wire.Stream[sdk.MessageStreamEventUnion] {
		return m.client.Messages.NewStreaming(w.Context(), params, option.WithMiddleware(middleware(w)))
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
	stop   string
	usage  model.Usage
}

// block is a tool_use block whose input is still arriving.
type block struct {
	id, name string
	input    strings.Builder
	done     bool // its content_block_stop arrived
}

func (a *accumulator) add(ev sdk.MessageStreamEventUnion, onDelta func(model.Delta)) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		// Cached input is input too; counting it keeps the totals honest
		// when prompt caching is on.
		a.usage.InputTokens = int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
		a.usage.OutputTokens = int(u.OutputTokens)
	case "content_block_start":
		cb := ev.ContentBlock
		switch cb.Type {
		case "tool_use":
			b := &block{id: cb.ID, name: cb.Name}
			if a.blocks == nil {
				a.blocks = map[int64]*block{}
			}
			a.blocks[ev.Index] = b
			a.calls = append(a.calls, b)
		case "text":
			a.addText(cb.Text, onDelta)
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			a.addText(ev.Delta.Text, onDelta)
		case "input_json_delta":
			if b := a.blocks[ev.Index]; b != nil {
				b.input.WriteString(ev.Delta.PartialJSON)
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
		// The counts of message_delta are cumulative.
		if ev.Usage.OutputTokens > 0 {
			a.usage.OutputTokens = int(ev.Usage.OutputTokens)
		}
		if in := ev.Usage.InputTokens + ev.Usage.CacheCreationInputTokens + ev.Usage.CacheReadInputTokens; in > 0 {
			a.usage.InputTokens = int(in)
		}
	}
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
