package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// providerError is an error a person can act on: Error is one line that
// says what happened and what to do, and never holds the API key.
type providerError struct {
	msg   string
	cause error
}

func (e *providerError) Error() string { return e.msg }
func (e *providerError) Unwrap() error { return e.cause }

// fail returns a providerError worded by format, scrubbed of the API key and
// kept to one line.
func (m *Model) fail(cause error, format string, args ...any) error {
	return &providerError{msg: oneLine(scrub(fmt.Sprintf(format, args...), m.secret), 0), cause: cause}
}

// scrub removes the secret from s, in case a server or a library echoes it.
func scrub(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// oneLine folds s onto one line and, when limit is positive, cuts it to
// limit characters.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if limit > 0 && utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit]) + "…"
	}
	return s
}

// errStalled is the cause a request is cancelled with when the server went
// quiet for too long.
var errStalled = errors.New("the server went quiet")

// watch follows one Reply's HTTP exchanges: it abandons the request when
// nothing arrives for the stall timeout, counts the attempts the SDK makes,
// and keeps the last error response so that it can be explained whatever
// shape its body has. The SDK calls the middleware on the goroutine that
// called Reply, so only the timer runs elsewhere.
type watch struct {
	ctx      context.Context
	cancel   context.CancelCauseFunc
	timer    *time.Timer
	stall    time.Duration
	attempts int
	// status and body are those of the last attempt when it failed with an
	// HTTP error status; status is zero otherwise.
	status int
	body   []byte
	// wait is the wait the last error response asked for before a retry.
	wait time.Duration
	// streaming says the last attempt was answered with a success and the
	// reply is being read.
	streaming bool
}

func newWatch(parent context.Context, stall time.Duration) *watch {
	ctx, cancel := context.WithCancelCause(parent)
	w := &watch{ctx: ctx, cancel: cancel, stall: stall}
	w.timer = time.AfterFunc(stall, func() { cancel(errStalled) })
	return w
}

// alive restarts the stall timer: something arrived.
func (w *watch) alive() { w.timer.Reset(w.stall) }

func (w *watch) stop() {
	w.timer.Stop()
	w.cancel(nil)
}

func (w *watch) stalled() bool { return errors.Is(context.Cause(w.ctx), errStalled) }

func (w *watch) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	w.attempts++
	w.status, w.body, w.wait, w.streaming = 0, nil, 0, false
	w.alive()
	res, err := next(req)
	w.alive()
	if err != nil || res == nil {
		return res, err
	}
	if res.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		_ = res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		w.status, w.body = res.StatusCode, body
		w.wait, _ = retryAfter(res.Header)
		return res, nil
	}
	w.streaming = true
	res.Body = &aliveBody{ReadCloser: res.Body, w: w}
	return res, nil
}

// aliveBody restarts the stall timer whenever part of the reply arrives.
type aliveBody struct {
	io.ReadCloser
	w *watch
}

func (b *aliveBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.alive()
	}
	return n, err
}

// tries words how many attempts were made, when there was more than one.
func (w *watch) tries() string {
	if w.attempts <= 1 {
		return ""
	}
	return fmt.Sprintf(" (tried %d times)", w.attempts)
}

// explain turns an error of the SDK or the connection into a message a
// person can act on.
func (m *Model) explain(err error, w *watch) error {
	if w.stalled() {
		return m.fail(err, "%s sent nothing for %s, so the reply was abandoned; try again", m.who, m.stall)
	}
	if w.status != 0 {
		return m.explainStatus(err, w)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		_, msg := errorBody(se.Event.Data)
		if isContextOverflow("", msg) {
			return m.overflow(err, msg)
		}
		return m.fail(err, "%s reported an error in the middle of the reply: %s", m.who, oneLine(msg, 300))
	}
	if w.streaming {
		return m.fail(err, "the connection to %s dropped in the middle of the reply (%s); try again", m.who, cause(err))
	}
	hint := "is it running, and is " + EnvBaseURL + " right?"
	if m.who == "OpenAI" {
		hint = "check the network connection"
	}
	return m.fail(err, "cannot reach %s: %s%s; %s", m.who, cause(err), w.tries(), hint)
}

// explainStatus explains an HTTP error response.
func (m *Model) explainStatus(err error, w *watch) error {
	code, msg := errorBody(w.body)
	// The detail is set inside brackets or before a semicolon, where its
	// own final period would read as a stray.
	detail := strings.TrimRight(oneLine(msg, 300), ".")
	status := fmt.Sprintf("%d %s", w.status, http.StatusText(w.status))
	switch {
	case w.status == http.StatusUnauthorized:
		// The server's message is left out: OpenAI's quotes part of the key.
		return m.fail(err, "%s rejected the API key (%s): check %s", m.who, status, EnvAPIKey)
	case code == "model_not_found" || (w.status == http.StatusNotFound && strings.Contains(strings.ToLower(msg), "model")):
		return m.fail(err, "%s does not know the model %q (%s: %s): check the name after openai:", m.who, m.name, status, detail)
	case w.status == http.StatusNotFound:
		return m.fail(err, "%s has no chat completions endpoint at %s (%s): check %s, which usually ends in /v1",
			m.who, m.endpoint, status, EnvBaseURL)
	case isContextOverflow(code, msg):
		return m.overflow(err, msg)
	case w.status == http.StatusForbidden:
		return m.fail(err, "%s refused the request (%s: %s): check that the API key may use the model %q", m.who, status, detail, m.name)
	case code == "insufficient_quota":
		return m.fail(err, "%s says the account has no quota left (%s: %s): check its plan and billing", m.who, status, detail)
	case w.status == http.StatusTooManyRequests && w.wait > maxRetryWait:
		return m.fail(err, "%s is limiting the rate of requests (%s: %s) and asks to wait %s; try again then",
			m.who, status, detail, w.wait.Round(time.Second))
	case w.status == http.StatusTooManyRequests:
		return m.fail(err, "%s is limiting the rate of requests (%s: %s) and still was%s; wait a little and try again",
			m.who, status, detail, w.tries())
	case w.status >= 500:
		return m.fail(err, "%s failed with %s%s: %s; try again later", m.who, status, w.tries(), detail)
	default:
		return m.fail(err, "%s rejected the request (%s: %s)", m.who, status, detail)
	}
}

func (m *Model) overflow(err error, msg string) error {
	return m.fail(err, "the conversation no longer fits the context window of %s (%s): start a new session, or use a model with a larger context",
		m.name, oneLine(msg, 300))
}

// retryAfter reads the wait a server asks for before a retry.
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if v := h.Get("retry-after"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			return time.Duration(s * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return time.Until(t), true
		}
	}
	return 0, false
}

// isContextOverflow recognises the ways servers say the prompt is too long.
func isContextOverflow(code, msg string) bool {
	if code == "context_length_exceeded" || code == "string_above_max_length" {
		return true
	}
	msg = strings.ToLower(msg)
	for _, s := range []string{"context length", "context_length", "context window", "prompt is too long", "too many tokens", "maximum context"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// errorBody finds the code and the message in an error body: OpenAI's
// {"error":{"message","code","type"}}, and the shapes compatible servers
// use ({"error":"…"}, {"message":"…"}, {"detail":"…"}), else the text.
func errorBody(body []byte) (code, msg string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", strings.TrimSpace(string(body))
	}
	var inner struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	var s string
	switch {
	case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
		code = fmt.Sprint(inner.Code)
		if inner.Code == nil {
			code = inner.Type
		}
		return code, inner.Message
	case json.Unmarshal(v.Error, &s) == nil && s != "":
		return "", s
	case v.Message != "":
		return "", v.Message
	case v.Detail != nil:
		return "", fmt.Sprint(v.Detail)
	}
	return "", strings.TrimSpace(string(body))
}

// cause words a connection error by its root: "connection refused" rather
// than the whole chain with the request URL.
func cause(err error) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "unexpected end of the stream"
	case errors.As(err, &dns):
		return "no such host " + dns.Name
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
