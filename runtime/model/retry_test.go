package model

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// flaky is a model whose attempts end with errs in turn, each after
// streaming "attempt N"; an attempt past the end of errs succeeds.
type flaky struct {
	errs  []error
	calls int
}

func (f *flaky) Name() string { return "flaky" }

func (f *flaky) Reply(_ context.Context, _ Request, onDelta func(Delta)) (Reply, error) {
	f.calls++
	text := fmt.Sprintf("attempt %d", f.calls)
	if onDelta != nil {
		onDelta(Delta{Text: text})
	}
	if f.calls <= len(f.errs) {
		return Reply{}, f.errs[f.calls-1]
	}
	return Reply{Text: text, Stop: StopEnd}, nil
}

// instant is a retry policy whose waits take no time and are kept.
func instant(retries int, waits *[]time.Duration) RetryPolicy {
	return RetryPolicy{Retries: retries, Jitter: func() float64 { return 0.5 }, After: func(d time.Duration) <-chan time.Time {
		*waits = append(*waits, d)
		ch := make(chan time.Time, 1)
		ch <- time.Time{}
		return ch
	}}
}

func TestRetryingReportsEachRetryAndReturnsTheAttemptThatSucceeded(t *testing.T) {
	dropped := errors.New("the connection to X dropped")
	m := &flaky{errs: []error{Transient(dropped, "the connection dropped", 0), Transient(errors.New("429"), "rate limited", 3*time.Second)}}
	var waits []time.Duration
	var seen []string
	r, err := WithRetries(m, instant(4, &waits)).Reply(context.Background(), Request{}, func(d Delta) {
		if d.Retry != nil {
			seen = append(seen, fmt.Sprintf("retry %d of %d: %s in %s (%v)", d.Retry.Attempt, d.Retry.Max, d.Retry.Why, d.Retry.Wait, d.Retry.Err))
			return
		}
		seen = append(seen, d.Text)
	})
	if err != nil || r.Text != "attempt 3" {
		t.Fatalf("reply %+v, %v", r, err)
	}
	want := []string{
		"attempt 1", "retry 2 of 5: the connection dropped in 1s (the connection to X dropped)",
		"attempt 2", "retry 3 of 5: rate limited in 3s (429)",
		"attempt 3",
	}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("deltas\n%q\nwant\n%q", seen, want)
	}
	if !reflect.DeepEqual(waits, []time.Duration{time.Second, 3 * time.Second}) {
		t.Errorf("waits %v: the backoff, then the server's wait", waits)
	}
}

func TestRetryingGivesUpAfterTheLastAttempt(t *testing.T) {
	last := errors.New("the server failed with 500")
	m := &flaky{errs: []error{Transient(errors.New("first"), "500", 0), Transient(errors.New("second"), "500", 0), Transient(last, "500", 0)}}
	var waits []time.Duration
	_, err := WithRetries(m, instant(2, &waits)).Reply(context.Background(), Request{}, nil)
	var ae *AttemptsError
	if !errors.As(err, &ae) || ae.Attempts != 3 || !errors.Is(err, last) || m.calls != 3 {
		t.Fatalf("error %v after %d calls, want the last one's after 3 attempts", err, m.calls)
	}
	if err.Error() != "after 3 attempts: the server failed with 500" {
		t.Errorf("message %q", err)
	}
	if len(waits) != 2 {
		t.Errorf("%d waits, want 2", len(waits))
	}
}

func TestRetryingReturnsAFinalErrorAtOnce(t *testing.T) {
	final := errors.New("the key was rejected")
	m := &flaky{errs: []error{final}}
	var waits []time.Duration
	_, err := WithRetries(m, instant(4, &waits)).Reply(context.Background(), Request{}, nil)
	if err != final || m.calls != 1 || len(waits) != 0 {
		t.Errorf("error %v after %d calls and %d waits, want the error itself after one", err, m.calls, len(waits))
	}
	// A final error after a retry says how many attempts there were.
	m = &flaky{errs: []error{Transient(errors.New("500"), "500", 0), final}}
	_, err = WithRetries(m, instant(4, &waits)).Reply(context.Background(), Request{}, nil)
	var ae *AttemptsError
	if !errors.As(err, &ae) || ae.Attempts != 2 || !errors.Is(err, final) {
		t.Errorf("error %v, want the final one after 2 attempts", err)
	}
}

func TestRetryingWithNoRetriesMakesOneAttempt(t *testing.T) {
	m := &flaky{errs: []error{Transient(errors.New("dropped"), "dropped", 0)}}
	_, err := WithRetries(m, RetryPolicy{}).Reply(context.Background(), Request{}, nil)
	if err == nil || m.calls != 1 {
		t.Errorf("error %v after %d calls", err, m.calls)
	}
}

func TestRetryingStopsWhileItWaits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := &flaky{errs: []error{Transient(errors.New("dropped"), "dropped", 0)}}
	p := RetryPolicy{Retries: 4, After: func(time.Duration) <-chan time.Time {
		cancel() // the person pressed Esc during the wait
		return nil
	}}
	_, err := WithRetries(m, p).Reply(ctx, Request{}, nil)
	if !errors.Is(err, context.Canceled) || m.calls != 1 {
		t.Errorf("error %v after %d calls, want context.Canceled after one", err, m.calls)
	}
}

func TestBackoffDoublesUpToItsBoundWithJitter(t *testing.T) {
	mid := RetryPolicy{Jitter: func() float64 { return 0.5 }}
	var got []time.Duration
	for n := 2; n <= 8; n++ {
		got = append(got, mid.Backoff(n))
	}
	want := []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("backoffs %v, want %v", got, want)
	}
	low := RetryPolicy{Jitter: func() float64 { return 0 }}.Backoff(3)
	high := RetryPolicy{Jitter: func() float64 { return 0.999999 }}.Backoff(3)
	if low != 1600*time.Millisecond || high < 2399*time.Millisecond || high > 2400*time.Millisecond {
		t.Errorf("jitter spans %s to %s, want a fifth either side of 2s", low, high)
	}
	if d := (RetryPolicy{Initial: time.Millisecond, MaxBackoff: 3 * time.Millisecond, Jitter: mid.Jitter}).Backoff(5); d != 3*time.Millisecond {
		t.Errorf("a scaled policy's bound: %s", d)
	}
}

func TestServerWaitIsHonouredUpToTheBound(t *testing.T) {
	p := RetryPolicy{Jitter: func() float64 { return 0.5 }}
	if d := p.wait(2, 1500*time.Millisecond); d != 1500*time.Millisecond {
		t.Errorf("a wait of 1.5s became %s", d)
	}
	if d := p.wait(2, 10*time.Minute); d != MaxRetryWait {
		t.Errorf("a wait of 10m became %s, want the bound %s", d, MaxRetryWait)
	}
	if d := p.wait(3, 0); d != 2*time.Second {
		t.Errorf("no wait asked became %s, want the backoff", d)
	}
}
