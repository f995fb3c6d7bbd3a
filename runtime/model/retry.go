package model

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// The defaults of a RetryPolicy.
const (
	// DefaultRetries is how many more attempts a model request gets after
	// one that failed in a way that may pass.
	DefaultRetries = 4
	// DefaultInitialBackoff is the wait before the second attempt when the
	// server asked for none.
	DefaultInitialBackoff = time.Second
	// DefaultMaxBackoff bounds the doubling wait between attempts.
	DefaultMaxBackoff = 30 * time.Second
	// MaxRetryWait bounds a wait the server asks for. A server that asks
	// for longer is not retried at all but reported, so that a run never
	// sits silently for minutes; providers mark such an error as one that
	// cannot pass.
	MaxRetryWait = time.Minute
)

// Retry says an attempt at a model request failed in a way that may pass:
// whatever the attempt streamed is void, and the request is made again after
// Wait.
type Retry struct {
	// Attempt is the attempt about to be made: 2 after the first failed.
	Attempt int
	// Max is how many attempts the request may get in all.
	Max int
	// Why says in a few words what went wrong, such as "the connection
	// dropped", for a line a person reads at a glance.
	Why string
	// Err is the failed attempt's error, whose message says it whole.
	Err error
	// Wait is how long until the next attempt.
	Wait time.Duration
}

// TransientError marks the error of a model request that may pass when the
// request is made again: a stalled or dropped stream, a rate limit, an
// overloaded server, a network error. A model request has no effect outside,
// so making it again is always safe. Errors not marked so are final.
type TransientError struct {
	// Err is the error, worded for a person.
	Err error
	// Why says in a few words what went wrong; see Retry.Why.
	Why string
	// Wait is how long the server asked to wait before trying again, zero
	// when it did not say.
	Wait time.Duration
}

// Transient marks err as an error that may pass; see TransientError.
func Transient(err error, why string, wait time.Duration) error {
	return &TransientError{Err: err, Why: why, Wait: wait}
}

func (e *TransientError) Error() string { return e.Err.Error() }

// Unwrap returns the error marked transient.
func (e *TransientError) Unwrap() error { return e.Err }

// AttemptsError is the error of a model request that was made more than once
// and failed every time; Err is the last attempt's error.
type AttemptsError struct {
	// Attempts is how many attempts were made.
	Attempts int
	// Err is the error of the last one.
	Err error
}

func (e *AttemptsError) Error() string {
	return fmt.Sprintf("after %d attempts: %v", e.Attempts, e.Err)
}

// Unwrap returns the last attempt's error.
func (e *AttemptsError) Unwrap() error { return e.Err }

// RetryPolicy says how a model request whose attempt failed in a way that may
// pass is made again. Its zero value makes no retries.
type RetryPolicy struct {
	// Retries is how many more attempts a request gets after the first;
	// zero or less makes none.
	Retries int
	// Initial is the wait before the second attempt when the server asked
	// for none; each later wait doubles it, up to MaxBackoff, and every
	// wait is jittered by up to a fifth either way so that clients that
	// failed together do not come back together. Zero means
	// DefaultInitialBackoff.
	Initial time.Duration
	// MaxBackoff bounds the doubling; zero means DefaultMaxBackoff.
	MaxBackoff time.Duration
	// After waits for a duration, as time.After does, which is what nil
	// means. Tests pass a fake so that retries take no real time.
	After func(time.Duration) <-chan time.Time
	// Jitter returns a number in [0, 1); nil means a random one.
	Jitter func() float64
}

// Backoff returns the wait before attempt n (from 2) when the server asked
// for none.
func (p RetryPolicy) Backoff(n int) time.Duration {
	initial, most := p.Initial, p.MaxBackoff
	if initial <= 0 {
		initial = DefaultInitialBackoff
	}
	if most <= 0 {
		most = DefaultMaxBackoff
	}
	d := initial
	for i := 2; i < n && d < most; i++ {
		d *= 2
	}
	d = min(d, most)
	j := rand.Float64()
	if p.Jitter != nil {
		j = p.Jitter()
	}
	return time.Duration(float64(d) * (0.8 + 0.4*j))
}

// wait returns how long to wait before attempt n after a failure that asked
// for asked: the server's wait when it gave one, else the backoff.
func (p RetryPolicy) wait(n int, asked time.Duration) time.Duration {
	if asked > 0 {
		return min(asked, MaxRetryWait)
	}
	return p.Backoff(n)
}

func (p RetryPolicy) after(d time.Duration) <-chan time.Time {
	if p.After != nil {
		return p.After(d)
	}
	return time.After(d)
}

// Retrying is a Model that makes a request again when an attempt fails in a
// way that may pass (a TransientError), as its policy allows. It is the one
// place where model requests are retried: providers make one attempt each
// and mark their errors. Before each new attempt it reports a Delta with a
// Retry, which voids the text the failed attempt streamed, so the Reply it
// returns holds only the attempt that succeeded.
type Retrying struct {
	// Model makes each attempt.
	Model Model
	// Policy says how often and after how long.
	Policy RetryPolicy
}

// WithRetries returns m making failed requests again as p allows.
func WithRetries(m Model, p RetryPolicy) *Retrying { return &Retrying{Model: m, Policy: p} }

// Name returns the wrapped model's name.
func (r *Retrying) Name() string { return r.Model.Name() }

// Reply asks the wrapped model until an attempt succeeds, an attempt fails in
// a way that cannot pass, the attempts run out or ctx ends. A request that
// failed after more than one attempt returns an AttemptsError; one that ends
// with ctx returns ctx's error, also while it waits between attempts.
func (r *Retrying) Reply(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	most := max(r.Policy.Retries, 0) + 1
	for attempt := 1; ; attempt++ {
		reply, err := r.Model.Reply(ctx, req, onDelta)
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return Reply{}, err
		}
		var te *TransientError
		if !errors.As(err, &te) || attempt >= most {
			if attempt > 1 {
				err = &AttemptsError{Attempts: attempt, Err: err}
			}
			return Reply{}, err
		}
		wait := r.Policy.wait(attempt+1, te.Wait)
		if onDelta != nil {
			onDelta(Delta{Retry: &Retry{Attempt: attempt + 1, Max: most, Why: te.Why, Err: err, Wait: wait}})
		}
		select {
		case <-r.Policy.after(wait):
		case <-ctx.Done():
			return Reply{}, ctx.Err()
		}
	}
}
