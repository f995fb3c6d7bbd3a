// Package openai is a model.Model over the OpenAI Chat Completions API, and
// over the servers that speak it: Ollama, vLLM, LM Studio, OpenRouter and
// others reached through a base URL.
//
// Replies are streamed. Text goes to the caller as it arrives; tool calls are
// assembled from their pieces per call index, and their arguments are
// returned exactly as the model sent them, so that the runtime can tell the
// model precisely what was wrong with them. A reply stopped by the output
// limit in the middle of a call's arguments returns that call as
// model.Reply.Cut.
//
// How the conversation is sent:
//   - The system prompt is a system message; user messages are user
//     messages.
//   - An assistant reply is one assistant message with its text and a
//     tool_calls entry for every call, the cut call last. A call's arguments
//     are sent as the model wrote them when they are a JSON object, and as
//     {} otherwise (invalid or cut arguments): compatible servers such as
//     Ollama parse the arguments of earlier calls and reject the whole
//     request when they cannot, and the result of such a call already quotes
//     what the model sent.
//   - Each result is its own tool message, in call order. The API has no
//     error flag, so the content of an error result (a failure, a skip, a
//     denial, feedback on an invalid call) is prefixed with "Error: " unless
//     it already begins with the word "error". A call left without a result
//     gets one saying no result was recorded, because the API rejects a
//     conversation in which a tool call is unanswered.
//   - Request.MaxOutputTokens is sent as max_completion_tokens to OpenAI
//     itself, and as max_tokens to any other base URL, which is the field
//     compatible servers implement; zero sends neither.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wire"
	"github.com/agenttui/agenttui/runtime/tool"
)

// The environment variables New reads.
const (
	// EnvAPIKey holds the API key.
	EnvAPIKey = "OPENAI_API_KEY"
	// EnvBaseURL holds the base URL of a compatible server, such as
	// http://localhost:11434/v1 for Ollama.
	EnvBaseURL = "OPENAI_BASE_URL"
)

// DefaultBaseURL is where the OpenAI API itself is.
const DefaultBaseURL = "https://api.openai.com/v1/"

// DefaultStallTimeout is how long a request may go without receiving
// anything from the server before it is abandoned (the idle watchdog). It is
// generous because a local server may be loading the model, and a reasoning
// model may think for a while before its first token.
const DefaultStallTimeout = 90 * time.Second

// ErrMissingAPIKey is returned by New when no API key is given and no base
// URL of a compatible server is set either.
var ErrMissingAPIKey = errors.New(EnvAPIKey + " is not set")

// Option configures a Model.
type Option func(*settings)

type settings struct {
	wire.Settings
	requestOptions        []option.RequestOption
	maxCompletionTokensOK *bool
}

// WithAPIKey sets the API key instead of OPENAI_API_KEY.
func WithAPIKey(key string) Option { return func(s *settings) { s.APIKey = &key } }

// WithBaseURL sets the base URL of the server instead of OPENAI_BASE_URL,
// such as http://localhost:11434/v1 for Ollama. An empty url means OpenAI.
func WithBaseURL(url string) Option { return func(s *settings) { s.BaseURL = &url } }

// WithStallTimeout sets how long a request may go without receiving anything
// before it is abandoned; see DefaultStallTimeout.
func WithStallTimeout(d time.Duration) Option { return func(s *settings) { s.Stall = d } }

// WithHTTPClient sets the HTTP client requests are made with.
func WithHTTPClient(c *http.Client) Option { return func(s *settings) { s.HTTPClient = c } }

// WithMaxTokensField chooses how Request.MaxOutputTokens is sent: true for
// max_completion_tokens, false for the older max_tokens. By default OpenAI
// gets max_completion_tokens and any other base URL max_tokens.
func WithMaxTokensField(maxCompletionTokens bool) Option {
	return func(s *settings) { s.maxCompletionTokensOK = &maxCompletionTokens }
}

// WithRequestOptions adds options of the openai-go SDK, applied after all
// others, such as option.WithHeader.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(s *settings) { s.requestOptions = append(s.requestOptions, opts...) }
}

// Model is a model served over the Chat Completions API. It is safe for
// concurrent use.
type Model struct {
	// srv is the server, which error messages name as "OpenAI" or by the
	// base URL of a compatible server.
	srv                 *wire.Server
	client              sdk.Client
	maxCompletionTokens bool
}

// api is the Chat Completions API as wire needs to know it.
var api = &wire.API{
	Name:           "OpenAI",
	KeyEnv:         EnvAPIKey,
	BaseURLEnv:     EnvBaseURL,
	DefaultBaseURL: DefaultBaseURL,
	Path:           "/chat/completions",
	ErrMissingKey:  ErrMissingAPIKey,
	DefaultStall:   DefaultStallTimeout,
	ExplainStatus:  explainStatus,
	MidReply:       midReply,
}

// New returns the model called name (such as "gpt-4o", or "llama3.2" on
// Ollama). The API key and base URL come from the options, else from
// OPENAI_API_KEY and OPENAI_BASE_URL. A key is required for OpenAI itself; a
// compatible server reached through a base URL may not need one (a local
// Ollama, vLLM or LM Studio), so its key may be left unset. New makes no
// request.
//
// Each Reply makes one attempt: the SDK's own retries are off, and errors
// that may pass are marked model.Transient, so that model.WithRetries is the
// one retry policy.
func New(name string, opts ...Option) (*Model, error) {
	s := settings{}
	for _, o := range opts {
		o(&s)
	}
	srv, err := api.Resolve(name, s.Settings)
	if err != nil {
		return nil, err
	}
	m := &Model{srv: srv, maxCompletionTokens: !srv.Custom}
	if s.maxCompletionTokensOK != nil {
		m.maxCompletionTokens = *s.maxCompletionTokensOK
	}
	ro := []option.RequestOption{
		option.WithBaseURL(srv.BaseURL),
		option.WithMaxRetries(0),
	}
	// The key is always set explicitly, even when empty, so that a key in
	// the environment never reaches a server the caller did not mean it for.
	ro = append(ro, option.WithAPIKey(srv.Key))
	ro = append(ro, option.WithHTTPClient(srv.HTTPClient))
	ro = append(ro, s.requestOptions...)
	m.client = sdk.NewClient(ro...)
	return m, nil
}

// Name returns "openai:" and the model name.
func (m *Model) Name() string { return "openai:" + m.srv.Model }

// Reply streams the model's answer to req in one attempt. Text is passed to
// onDelta as it arrives. Errors are one line each and say what to do about
// them; none holds the API key.
func (m *Model) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	params := m.params(req)
	var acc accumulator
	err := wire.Receive(ctx, m.srv, func(w *wire.Watch) wire.Stream[sdk.ChatCompletionChunk] {
		return m.client.Chat.Completions.NewStreaming(w.Context(), params, option.WithMiddleware(middleware(w)))
	}, func(chunk sdk.ChatCompletionChunk) { acc.add(chunk, onDelta) })
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
	calls  []*partialCall
	byIdx  map[int64]*partialCall
	finish string
	usage  model.Usage
}

// partialCall is a call whose pieces are still arriving.
type partialCall struct {
	id, name string
	args     strings.Builder
}

func (a *accumulator) add(chunk sdk.ChatCompletionChunk, onDelta func(model.Delta)) {
	if chunk.JSON.Usage.Valid() {
		a.usage = model.Usage{InputTokens: int(chunk.Usage.PromptTokens), OutputTokens: int(chunk.Usage.CompletionTokens)}
	}
	for _, choice := range chunk.Choices {
		// Only one choice is asked for; a server that sends more gets the
		// first one heard.
		if choice.Index != 0 {
			continue
		}
		for _, piece := range []string{choice.Delta.Content, choice.Delta.Refusal} {
			if piece == "" {
				continue
			}
			a.text.WriteString(piece)
			if onDelta != nil {
				onDelta(model.Delta{Text: piece})
			}
		}
		for _, tc := range choice.Delta.ToolCalls {
			a.addCall(tc)
		}
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
		}
	}
}

// addCall adds a piece of a call. The id and name come in the first piece of
// each index and the arguments in pieces after it. Some compatible servers
// send every call whole under the same index; a new id at a known index is
// taken as a new call so that such calls are not run together.
func (a *accumulator) addCall(tc sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	if a.byIdx == nil {
		a.byIdx = map[int64]*partialCall{}
	}
	c, ok := a.byIdx[tc.Index]
	if !ok || (tc.ID != "" && c.id != "" && tc.ID != c.id) {
		c = &partialCall{}
		a.byIdx[tc.Index] = c
		a.calls = append(a.calls, c)
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(tc.Function.Arguments)
}

// reply returns the assembled reply, or an error for a stream that ended
// without saying why.
func (a *accumulator) reply(m *Model) (model.Reply, error) {
	// The journal and the next request carry text as JSON, which has no
	// room for bytes that are not UTF-8; mending them here keeps what the
	// model reads now and after a resume the same.
	r := model.Reply{Text: strings.ToValidUTF8(a.text.String(), "\uFFFD"), Usage: a.usage}
	for i, c := range a.calls {
		id := c.id
		if id == "" {
			// The runtime and the next request need an id to match the
			// result to the call; a server that sends none gets one made up.
			id = fmt.Sprintf("call_%d_%d", time.Now().UnixNano(), i)
		}
		if c.name == "" {
			// A call must name its tool for the runtime to check it, and
			// for the console and the next request to say what it was.
			return model.Reply{}, m.srv.Malformed("a tool call with no name")
		}
		r.Calls = append(r.Calls, tool.Call{ID: id, Name: c.name, Arguments: strings.ToValidUTF8(c.args.String(), "\uFFFD")})
	}
	switch a.finish {
	case "":
		return model.Reply{}, m.srv.Truncated("no finish reason")
	case "content_filter":
		return model.Reply{}, m.srv.Fail(nil, "%s stopped the reply with its content filter", m.srv.Who)
	case "length":
		r.Stop = model.StopOutputLimit
		// Only the call being written when the limit struck can be cut: it
		// is the last one, and its arguments are not yet whole JSON.
		if n := len(r.Calls); n > 0 && !json.Valid([]byte(r.Calls[n-1].Arguments)) {
			cut := r.Calls[n-1]
			r.Cut = &cut
			r.Calls = r.Calls[:n-1]
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
