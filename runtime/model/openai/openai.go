// Package openai is a model.Model over OpenAI's two wires: the Responses
// API, which agenttui speaks to OpenAI itself, and the Chat Completions API,
// which it speaks to the servers reached through a base URL (Ollama, vLLM, LM
// Studio, OpenRouter, DeepSeek and others). WithAPI, the configuration's
// "openai_api", chooses either wire for either server.
//
// On both wires replies are streamed. Text and readable reasoning go to the
// caller as they arrive; tool calls are assembled from their pieces, and
// their arguments are returned exactly as the model sent them, so that the
// runtime can tell the model precisely what was wrong with them. A reply
// stopped by the output limit in the middle of a call's arguments returns
// that call as model.Reply.Cut. Each Reply makes one attempt, with the SDK's
// own retries off; errors that may pass are marked model.Transient, so that
// model.WithRetries is the one retry policy. The idle watchdog abandons a
// reply when nothing arrives for the stall timeout.
//
// # The Responses API
//
// Requests are stateless: store is false, so OpenAI keeps nothing, and
// include asks for reasoning.encrypted_content, so that each reasoning item
// comes back encrypted and can be sent again. How the conversation is sent:
//   - The system prompt is the instructions, and the tools are function
//     tools with strict off (a tool's schema need not meet strict mode's
//     rules); both are the same bytes on every request of a session, and
//     prompt_cache_key is the session's id, so that each request finds the
//     previous one's prefix in OpenAI's prompt cache.
//   - A user message is a message item.
//   - A reply is its items in the order they came: each reasoning item
//     exactly as it was received (the output_item.done item, id, summary and
//     encrypted content included), the text as an assistant message, and
//     each call as a function_call item, the cut call last. Reasoning goes
//     back only to the model that made it (model.ReasoningFor), and never as
//     the last item of a reply, which the API refuses ("was provided without
//     its required following item"). Items are sent without their ids but
//     for reasoning, whose id the API requires.
//   - Each result is a function_call_output item, in call order, prefixed
//     "Error: " when it is an error as on Chat Completions. A call left
//     without a result gets one saying no result was recorded, because the
//     API refuses a function_call without its function_call_output.
//   - The reasoning effort is reasoning.effort, mapped per model (see
//     reasoningFor), with a summary ("auto") that streams as the reply's
//     readable thinking. A model that does not reason gets no reasoning
//     settings; a model the tables do not know gets them only when the
//     person set an effort.
//   - Request.MaxOutputTokens is max_output_tokens.
//
// # Chat Completions
//
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
//   - A compatible server's reasoning, streamed as reasoning_content
//     (DeepSeek, LM Studio) or reasoning (OpenRouter, vLLM, Ollama), is shown
//     as thinking and kept as model.ReasoningText, and not sent back: the
//     older DeepSeek reasoner refuses a request that carries it. DeepSeek's
//     current thinking mode refuses the opposite, a request whose tool-calling
//     turns lack it; a server that refuses a request for that reason gets it
//     back as reasoning_content from then on, and the request is made again
//     at once.
//   - reasoning_effort is sent to OpenAI's own reasoning models, mapped as
//     on the Responses API, and to any other server only when the person set
//     an effort.
//   - Request.MaxOutputTokens is sent as max_completion_tokens to OpenAI
//     itself, and as max_tokens to any other base URL, which is the field
//     compatible servers implement; zero sends neither.
package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wire"
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

// DefaultStallTimeout is how long a request may go without receiving anything
// from the server before it is abandoned (the idle watchdog). It is generous
// because a local server may be loading the model, and a reasoning model may
// think for a while before its first token.
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
	api                   API
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

// WithMaxTokensField chooses how Chat Completions sends
// Request.MaxOutputTokens: true for max_completion_tokens, false for the
// older max_tokens. By default OpenAI gets max_completion_tokens and any
// other base URL max_tokens. The Responses API has only max_output_tokens.
func WithMaxTokensField(maxCompletionTokens bool) Option {
	return func(s *settings) { s.maxCompletionTokensOK = &maxCompletionTokens }
}

// WithRequestOptions adds options of the openai-go SDK, applied after all
// others, such as option.WithHeader.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(s *settings) { s.requestOptions = append(s.requestOptions, opts...) }
}

// Model is a model served over the Responses API or the Chat Completions
// API. It is safe for concurrent use.
type Model struct {
	// srv is the server, which error messages name as "OpenAI" or by the
	// base URL of a compatible server.
	srv    *wire.Server
	client sdk.Client
	// api is the wire: APIResponses or APIChat.
	api                 API
	maxCompletionTokens bool
	// echo says the server refused a Chat Completions request because a
	// tool-calling turn lacked its reasoning_content, as DeepSeek's thinking
	// mode does, so that every later request carries it.
	echo atomic.Bool
}

// New returns the model called name (such as "gpt-6.2-sol", or "llama3.2"
// on Ollama). The API key and base URL come from the options, else from
// OPENAI_API_KEY and OPENAI_BASE_URL. A key is required for OpenAI itself; a
// compatible server reached through a base URL may not need one (a local
// Ollama, vLLM or LM Studio), so its key may be left unset. The wire is the
// Responses API for OpenAI itself and Chat Completions for a base URL,
// unless WithAPI says otherwise. New makes no request.
//
// Each Reply makes one attempt: the SDK's own retries are off, and errors
// that may pass are marked model.Transient, so that model.WithRetries is the
// one retry policy.
func New(name string, opts ...Option) (*Model, error) {
	s := settings{}
	for _, o := range opts {
		o(&s)
	}
	switch s.api {
	case APIDefault, APIResponses, APIChat:
	default:
		return nil, errors.New(`unknown OpenAI API "` + string(s.api) + `": use "responses" or "chat"`)
	}
	srv, err := chatWire.Resolve(name, s.Settings)
	if err != nil {
		return nil, err
	}
	m := &Model{srv: srv, api: APIChat, maxCompletionTokens: !srv.Custom}
	if s.api == APIResponses || (s.api == APIDefault && !srv.Custom) {
		// The server is the same; only the endpoint its messages name
		// differs.
		if srv, err = responsesWire.Resolve(name, s.Settings); err != nil {
			return nil, err
		}
		m.srv, m.api = srv, APIResponses
	}
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

// API returns the wire the model speaks: APIResponses or APIChat.
func (m *Model) API() API { return m.api }

// Reply streams the model's answer to req in one attempt. Text and readable
// reasoning are passed to onDelta as they arrive. Errors are one line each
// and say what to do about them; none holds the API key. A request the
// model cannot take as asked (an effort of off on a model that always
// reasons) is refused before anything is sent.
func (m *Model) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	if m.api == APIResponses {
		return m.replyResponses(ctx, req, onDelta)
	}
	return m.replyChat(ctx, req, onDelta)
}

// middleware passes the attempt through w.
func middleware(w *wire.Watch) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return w.Exchange(req, next)
	}
}

// mend makes s valid UTF-8. The journal and the next request carry text as
// JSON, which has no room for bytes that are not UTF-8; mending them as the
// reply arrives keeps what the model reads now and after a resume the same.
func mend(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
