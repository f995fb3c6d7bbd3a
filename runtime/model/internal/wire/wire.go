// Package wire holds what the model providers share about talking to a
// model's HTTP API: where the server is and how messages name it, following
// the exchange of one attempt at a streamed reply (the idle watchdog, the
// error response), explaining a failure in one line a person can act on, and
// marking the failures that may pass (model.Transient) for model.Retrying,
// which is the one retry policy: the SDKs' own retries are off.
//
// What sets a provider apart stays with the provider: its SDK and options,
// how an error event in the middle of a reply reaches it, the statuses and
// codes only its API sends, and the wording of the problems only it has. A
// provider describes itself with an API and explains its error responses
// with the wording here where the problem is the same for every API.
package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
)

// MaxRetryWait bounds how long a retry may be waited for; a server that
// asks for a longer wait gets its error reported instead, so that a run
// does not sit silently for minutes.
const MaxRetryWait = model.MaxRetryWait

// API describes a provider's API: where it is, and what is particular
// to its errors.
type API struct {
	// Name is how messages name the provider's own server, such as
	// "OpenAI".
	Name string
	// KeyEnv and BaseURLEnv are the environment variables that hold the
	// API key and the base URL.
	KeyEnv, BaseURLEnv string
	// DefaultBaseURL is where the provider's own server is.
	DefaultBaseURL string
	// Path follows the base URL in the URL requests go to, such as
	// "/chat/completions".
	Path string
	// ErrMissingKey is what Resolve returns when there is neither an API
	// key nor a base URL.
	ErrMissingKey error
	// DefaultStall is the stall timeout of Settings that set none.
	DefaultStall time.Duration
	// StatusText words an HTTP status, given the code of the error body;
	// nil means http.StatusText, else "Overloaded" for 529, else the code.
	StatusText func(status int, code string) string
	// ExplainStatus explains an HTTP error response a request ended with.
	ExplainStatus func(s *Server, err error, r Response) error
	// MidReply recognises an error the server sent in the middle of a
	// reply and returns its code and message.
	MidReply func(err error) (code, msg string, ok bool)
}

// Settings are what every provider's options set. A nil APIKey or BaseURL
// was not given, and is read from the environment instead.
type Settings struct {
	APIKey, BaseURL *string
	// Stall is how long a request may go without receiving anything
	// before it is abandoned; zero or less means API.DefaultStall.
	Stall time.Duration
	// AfterFunc starts the idle watchdog's timer; nil means
	// time.AfterFunc. Tests pass a fake clock's, so that a stall needs no
	// real waiting.
	AfterFunc func(d time.Duration, f func()) Timer
	// HTTPClient is what requests are made with; nil means a client that
	// gives up on a connection after 10 seconds.
	HTTPClient *http.Client
}

// Server is a server a model is served by, as its requests and its
// messages need it.
type Server struct {
	// Model is the model name the server knows.
	Model string
	// Key is the API key, empty when there is none. It is scrubbed from
	// every message.
	Key string
	// BaseURL is the base URL to give the SDK.
	BaseURL string
	// Custom says BaseURL was set rather than the provider's own.
	Custom bool
	// Who names the server in messages: the provider, or "the server at"
	// and the base URL.
	Who string
	// Endpoint is the URL requests go to, for messages about a wrong base
	// URL.
	Endpoint string
	// Stall and HTTPClient are those of the Settings, with the defaults
	// filled in.
	Stall      time.Duration
	HTTPClient *http.Client
	api        *API
	// afterFunc is the Settings' AfterFunc.
	afterFunc func(time.Duration, func()) Timer
}

// Resolve returns the server that serves model, configured by s and, where
// s leaves the key or the base URL unset, by the environment. A key is
// required for the provider's own server; a server reached through a base
// URL may need none, so its key may be left unset. Resolve makes no
// request.
func (a *API) Resolve(model string, s Settings) (*Server, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, errors.New("the model name is empty")
	}
	key := lookup(s.APIKey, a.KeyEnv)
	base := strings.TrimSpace(lookup(s.BaseURL, a.BaseURLEnv))
	custom := base != ""
	if !custom {
		base = a.DefaultBaseURL
		if key == "" {
			return nil, a.ErrMissingKey
		}
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s %q is not an http or https URL", a.BaseURLEnv, redactURL(base))
	}
	srv := &Server{
		Model: model, Key: key, BaseURL: base, Custom: custom, Who: a.Name,
		Endpoint: strings.TrimSuffix(u.Redacted(), "/") + a.Path,
		Stall:    s.Stall, HTTPClient: s.HTTPClient, api: a, afterFunc: s.AfterFunc,
	}
	if custom {
		srv.Who = "the server at " + u.Redacted()
	}
	if srv.Stall <= 0 {
		srv.Stall = a.DefaultStall
	}
	if srv.HTTPClient == nil {
		srv.HTTPClient = defaultHTTPClient()
	}
	return srv, nil
}

// defaultHTTPClient gives up on a connection after 10 seconds rather than
// Go's default 30, so that an unreachable server is reported within a
// couple of minutes even after the retries. How long the reply itself may take is
// bounded by the stall timeout instead.
func defaultHTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{}
	}
	t = t.Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: t}
}

// lookup returns the option's value when it was given, else the variable's.
func lookup(given *string, env string) string {
	if given != nil {
		return *given
	}
	return os.Getenv(env)
}

// redactURL hides any user and password in a URL that is about to be shown.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// Stream is a reply as an SDK decodes it from server-sent events; the
// ssestream.Stream of each SDK is one.
type Stream[T any] interface {
	Next() bool
	Current() T
	Err() error
	Close() error
}

// Receive streams one attempt at a reply from s. open starts the request
// through w, whose Exchange the SDK must call, with its own retries off;
// each event is passed to add as it arrives. Receive returns ctx.Err() when ctx ended, so that
// a cancelled reply says so rather than how it broke off, and otherwise
// the stream's error explained.
func Receive[T any](ctx context.Context, s *Server, open func(w *Watch) Stream[T], add func(T)) error {
	w := newWatch(ctx, s.Stall, s.afterFunc)
	defer w.stop()
	stream := open(w)
	defer stream.Close()
	for stream.Next() {
		w.alive()
		add(stream.Current())
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.explain(err, w)
	}
	return ctx.Err()
}
