package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// errStalled is the cause a request is cancelled with when the server went
// quiet for too long.
var errStalled = errors.New("the server went quiet")

// Watch follows one attempt's HTTP exchange: it abandons the request when
// nothing arrives for the stall timeout (the idle watchdog), and keeps the
// error response so that it can be explained whatever shape its body has.
// The SDKs make one attempt (their own retries are off: model.Retrying is the
// one retry policy) and call their middleware on the goroutine that made the
// request, so only the timer runs elsewhere.
type Watch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  Timer
	stall  time.Duration
	// status and body are those of the attempt when it failed with an HTTP
	// error status; status is zero otherwise.
	status int
	body   []byte
	// wait is the wait the error response asked for before a retry.
	wait time.Duration
	// streaming says the attempt was answered with a success and the reply
	// is being read.
	streaming bool
}

// Timer is the idle watchdog's timer, as time.AfterFunc makes it.
type Timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// systemAfterFunc starts a real timer.
func systemAfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// newWatch returns a Watch whose Context is cancelled when ctx is, or when
// nothing arrives for stall; after starts its timer (nil means
// time.AfterFunc), and stop releases it.
func newWatch(ctx context.Context, stall time.Duration, after func(time.Duration, func()) Timer) *Watch {
	if after == nil {
		after = systemAfterFunc
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &Watch{ctx: ctx, cancel: cancel, stall: stall}
	w.timer = after(stall, func() { cancel(errStalled) })
	return w
}

// Context is the context to make the request with.
func (w *Watch) Context() context.Context { return w.ctx }

// alive restarts the stall timer: something arrived.
func (w *Watch) alive() { w.timer.Reset(w.stall) }

// stop stops the stall timer and cancels the Context.
func (w *Watch) stop() {
	w.timer.Stop()
	w.cancel(nil)
}

// stalled reports whether the request was abandoned because the server
// went quiet.
func (w *Watch) stalled() bool { return errors.Is(context.Cause(w.ctx), errStalled) }

// Exchange makes the attempt of the request with next, and is what an SDK's
// middleware calls. It takes next as a plain func because the SDKs'
// middleware types differ only in name; each provider wraps Exchange in its
// own.
func (w *Watch) Exchange(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	w.status, w.body, w.wait, w.streaming = 0, nil, 0, false
	w.alive()
	res, err := next(req)
	w.alive()
	if err != nil || res == nil {
		return res, err
	}
	if res.StatusCode >= 400 {
		// The body is kept to be explained and put back for the SDK, which
		// reads it to build its own error.
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
	w *Watch
}

func (b *aliveBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.alive()
	}
	return n, err
}

// retryAfter reads the wait a server asks for before a retry: the
// retry-after-ms header, else retry-after in seconds or as a date.
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
