package wiretest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wire"
)

// Clock is a fake clock for the idle watchdog: its timers fire when Advance
// moves it past their deadline, on the goroutine that calls Advance, so a
// stall takes no real time.
type Clock struct {
	mu     sync.Mutex // guards everything below
	now    time.Duration
	timers []*fakeTimer
	fired  int
}

// fakeTimer is a timer of a Clock.
type fakeTimer struct {
	c      *Clock
	at     time.Duration
	f      func()
	active bool
}

// AfterFunc starts a timer that calls f once the clock has moved d past
// now; it is what a model's idle watchdog is given.
func (c *Clock) AfterFunc(d time.Duration, f func()) wire.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now + d, f: f, active: true}
	c.timers = append(c.timers, t)
	return t
}

// Reset moves the timer's deadline to d from now.
func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.at, t.active = t.c.now+d, true
	return was
}

// Stop stops the timer.
func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

// Advance moves the clock by d and fires the timers that are due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due []func()
	for _, t := range c.timers {
		if t.active && t.at <= c.now {
			t.active = false
			c.fired++
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// Fired returns how many timers have fired.
func (c *Clock) Fired() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fired
}

// Fault is an attempt at a model request that fails, as a test of retries
// describes it.
type Fault struct {
	// Step answers the attempt.
	Step Step
	// Fragment is text, or part of a call's arguments, that the attempt
	// streams before it fails, if any. No request after the attempt, and
	// nothing in the session, may hold it.
	Fragment string
	// Stalls says the server goes quiet once the attempt has streamed
	// Fragment as reply text; the harness then moves the fake clock past
	// the idle timeout.
	Stalls bool
	// Why is what the retry event must say about the failure.
	Why string
	// Wait is the wait the server asked for; zero means the policy's
	// backoff.
	Wait time.Duration
}

// Idle is the idle timeout the retry tests give their models.
const Idle = 90 * time.Second

// NewModel makes the model a retry test runs: at the base URL, with its idle
// watchdog on clock and the idle timeout Idle.
type NewModel func(t *testing.T, base string, clock *Clock) model.Model

// Retried is a run over a model with retries, as RunRetrying saw it.
type Retried struct {
	Outcome runtime.GoalOutcome
	Session *runtime.Session
	// Retries are the model_retry events.
	Retries []runtime.ModelRetry
	// Waits are the waits the retry policy asked for, which took no time.
	Waits []time.Duration
	// Stalls is how many times the idle watchdog fired.
	Stalls int
}

// RunRetrying runs the agent over m with model.DefaultRetries retries whose
// waits take no time. Whenever a text delta holds one of stallOn, clock is
// moved past the idle timeout, as if the server had gone quiet after it.
func RunRetrying(t *testing.T, m model.Model, clock *Clock, stallOn []string, goal string) Retried {
	t.Helper()
	var mu sync.Mutex // guards res and waits, which the run's goroutines fill
	var res Retried
	var waits []time.Duration
	policy := model.RetryPolicy{
		Retries: model.DefaultRetries,
		After: func(d time.Duration) <-chan time.Time {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			ch := make(chan time.Time, 1)
			ch <- time.Time{}
			return ch
		},
	}
	cat, err := runtime.NewCatalog(Lookup{})
	if err != nil {
		t.Fatal(err)
	}
	a := &runtime.Agent{Model: model.WithRetries(m, policy), Catalog: cat, Sink: func(e runtime.Event) {
		switch ev := e.(type) {
		case runtime.TextDelta:
			for _, s := range stallOn {
				if s != "" && strings.Contains(ev.Text, s) {
					clock.Advance(Idle)
				}
			}
		case runtime.ModelRetry:
			mu.Lock()
			res.Retries = append(res.Retries, ev)
			mu.Unlock()
		}
	}}
	s := runtime.NewSession("test")
	out := a.Run(Context(t), s, goal)
	mu.Lock()
	defer mu.Unlock()
	res.Outcome, res.Session, res.Waits, res.Stalls = out, s, waits, clock.Fired()
	return res
}

// stallTexts returns the fragments of the faults that stall.
func stallTexts(faults []Fault) []string {
	var out []string
	for _, f := range faults {
		if f.Stalls {
			out = append(out, f.Fragment)
		}
	}
	return out
}

// CheckRecovers runs a session whose first model request fails with the
// faults, one attempt each, and is then answered by then (the rest of the
// session: a reply with a lookup call and the reply that finishes). It
// checks that the run succeeds after one attempt per fault and one more;
// that each retry says why and waits what it should; that the request is
// made again exactly as it was first made; and that no fragment of a failed
// attempt reaches the session or any later request.
func (a API) CheckRecovers(t *testing.T, newModel NewModel, faults []Fault, then ...Step) {
	t.Helper()
	var steps []Step
	for _, f := range faults {
		steps = append(steps, f.Step)
	}
	srv := a.Start(t, append(steps, then...)...)
	clock := &Clock{}
	res := RunRetrying(t, newModel(t, srv.BaseURL(), clock), clock, stallTexts(faults), "look up alpha")
	if res.Outcome.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", res.Outcome)
	}
	reqs := srv.Requests()
	if len(reqs) != len(faults)+len(then) {
		t.Fatalf("%d requests, want %d: one for each failed attempt, then %d", len(reqs), len(faults)+len(then), len(then))
	}
	checkRetries(t, res, faults, len(stallTexts(faults)))
	first, _ := json.Marshal(reqs[0])
	for i := 1; i <= len(faults); i++ {
		again, _ := json.Marshal(reqs[i])
		if string(again) != string(first) {
			t.Errorf("attempt %d sent another request than the first:\n%s\nwant\n%s", i+1, again, first)
		}
	}
	history, _ := json.Marshal(res.Session.Messages)
	for _, f := range faults {
		if f.Fragment == "" {
			continue
		}
		for i, req := range reqs[len(faults):] {
			body, _ := json.Marshal(req)
			if strings.Contains(string(body), f.Fragment) {
				t.Errorf("request %d holds %q, which a failed attempt streamed:\n%s", len(faults)+i+1, f.Fragment, body)
			}
		}
		if strings.Contains(string(history), f.Fragment) {
			t.Errorf("the session holds %q, which a failed attempt streamed:\n%s", f.Fragment, history)
		}
	}
}

// checkRetries checks one retry event per fault, in order, and that the
// idle watchdog fired stalls times.
func checkRetries(t *testing.T, res Retried, faults []Fault, stalls int) {
	t.Helper()
	if len(res.Retries) != len(faults) || len(res.Waits) != len(faults) {
		t.Fatalf("%d retries and %d waits, want %d: %+v", len(res.Retries), len(res.Waits), len(faults), res.Retries)
	}
	for i, f := range faults {
		r := res.Retries[i]
		if r.Turn != 1 || r.Attempt != i+2 || r.Max != model.DefaultRetries+1 || !strings.Contains(r.Why, f.Why) {
			t.Errorf("retry %d: %+v, want attempt %d of %d because %q", i+1, r, i+2, model.DefaultRetries+1, f.Why)
		}
		if r.Error == "" || strings.Contains(r.Error, "\n") {
			t.Errorf("retry %d: the error %q is not one line", i+1, r.Error)
		}
		want := f.Wait
		if want == 0 {
			want = model.RetryPolicy{Jitter: func() float64 { return 0.5 }}.Backoff(i + 2)
			if lo, hi := want*8/10, want*12/10; res.Waits[i] < lo || res.Waits[i] > hi {
				t.Errorf("retry %d waited %s, want the backoff %s give or take a fifth", i+1, res.Waits[i], want)
			}
		} else if res.Waits[i] != want {
			t.Errorf("retry %d waited %s, want the %s the server asked for", i+1, res.Waits[i], want)
		}
		if r.WaitMS != res.Waits[i].Milliseconds() {
			t.Errorf("retry %d says wait_ms %d, but %s was waited", i+1, r.WaitMS, res.Waits[i])
		}
	}
	if res.Stalls != stalls {
		t.Errorf("the idle watchdog fired %d times, want %d", res.Stalls, stalls)
	}
}

// CheckGivesUp runs a session whose model request fails with the faults,
// one per attempt, every attempt it gets. It checks that the run fails after
// the last attempt, saying how many were made and, with want, why.
func (a API) CheckGivesUp(t *testing.T, newModel NewModel, faults []Fault, want string) {
	t.Helper()
	var steps []Step
	for _, f := range faults {
		steps = append(steps, f.Step)
	}
	srv := a.Start(t, steps...)
	clock := &Clock{}
	res := RunRetrying(t, newModel(t, srv.BaseURL(), clock), clock, stallTexts(faults), "look up alpha")
	Failed(t, res.Outcome, want, a.Key)
	msg := res.Outcome.Attempts[len(res.Outcome.Attempts)-1]
	if prefix := "the model failed after 5 attempts: "; !strings.HasPrefix(msg, prefix) {
		t.Errorf("the last attempt %q does not begin %q", msg, prefix)
	}
	if n := len(srv.Requests()); n != model.DefaultRetries+1 {
		t.Errorf("%d requests, want %d", n, model.DefaultRetries+1)
	}
	checkRetries(t, res, faults[:len(faults)-1], len(stallTexts(faults)))
}

// CheckFinal runs a session whose model request fails with step, an error
// that cannot pass. It checks that the run fails after that one attempt,
// saying want.
func (a API) CheckFinal(t *testing.T, newModel NewModel, step Step, want string) {
	t.Helper()
	srv := a.Start(t, step)
	clock := &Clock{}
	res := RunRetrying(t, newModel(t, srv.BaseURL(), clock), clock, nil, "look up alpha")
	Failed(t, res.Outcome, want, a.Key)
	msg := res.Outcome.Attempts[len(res.Outcome.Attempts)-1]
	if prefix := "the model failed: "; !strings.HasPrefix(msg, prefix) {
		t.Errorf("the last attempt %q does not begin %q", msg, prefix)
	}
	if n := len(srv.Requests()); n != 1 || len(res.Retries) != 0 {
		t.Errorf("%d requests and %d retries, want one request and no retry", n, len(res.Retries))
	}
}

// StallBetween sends the events of first, waits for release, sends the
// events of second, and then nothing more until the client gives up.
func StallBetween(first []string, release <-chan struct{}, second []string) Step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for _, e := range first {
			io.WriteString(w, e)
		}
		fl.Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		for _, e := range second {
			io.WriteString(w, e)
		}
		fl.Flush()
		<-r.Context().Done()
	}
}

// CheckIdleTimeout checks m's idle watchdog on clock, whose timeout is idle.
// m's server streams the text first, waits for release, streams the text
// second and then stalls (see StallBetween). The clock moves most of idle
// while the server waits, and most of idle again after second arrived: the
// attempt goes on, because something arrived in between. Moving the clock
// to idle after second ends the attempt with an error that says want and
// may pass.
func CheckIdleTimeout(t *testing.T, m model.Model, clock *Clock, idle time.Duration, release chan<- struct{}, first, second, want string) {
	t.Helper()
	texts := make(chan string, 16)
	done := make(chan error, 1)
	go func() {
		_, err := m.Reply(Context(t), model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}, func(d model.Delta) {
			texts <- d.Text
		})
		done <- err
	}()
	await := func(text string) {
		t.Helper()
		for {
			select {
			case got := <-texts:
				if strings.Contains(got, text) {
					return
				}
			case err := <-done:
				t.Fatalf("the reply ended before it streamed %q: %v", text, err)
			case <-Context(t).Done():
				t.Fatalf("the reply never streamed %q", text)
			}
		}
	}
	going := func(when string) {
		t.Helper()
		if clock.Fired() != 0 {
			t.Fatalf("the watchdog fired %s", when)
		}
		select {
		case err := <-done:
			t.Fatalf("the attempt ended %s: %v", when, err)
		default:
		}
	}
	most := idle - time.Millisecond
	await(first)
	clock.Advance(most)
	going("before its idle timeout")
	close(release)
	await(second)
	clock.Advance(most)
	going("although text arrived within its idle timeout")
	clock.Advance(time.Millisecond)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one saying %q", err, want)
		}
		if _, ok := Transient(err); !ok {
			t.Errorf("a stall may pass, but %v is not marked so", err)
		}
	case <-Context(t).Done():
		t.Fatal("the attempt went on after its idle timeout")
	}
}

// StopDuringWait asks m, whose server fails the first attempt in a way that
// may pass, through a retry policy whose wait never ends, and stops the
// request while it waits. It returns the error the request ended with.
func StopDuringWait(t *testing.T, m model.Model) error {
	t.Helper()
	ctx, cancel := context.WithCancel(Context(t))
	defer cancel()
	waiting := make(chan struct{})
	policy := model.RetryPolicy{Retries: 3, After: func(time.Duration) <-chan time.Time {
		close(waiting)
		return nil // a wait that never ends
	}}
	done := make(chan error, 1)
	retried := 0
	go func() {
		_, err := model.WithRetries(m, policy).Reply(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}},
			func(d model.Delta) {
				if d.Retry != nil {
					retried++
				}
			})
		done <- err
	}()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("the request ended without waiting for a retry: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if retried != 1 {
			t.Errorf("%d retries reported, want 1", retried)
		}
		return err
	case <-Context(t).Done():
		t.Fatal("the wait went on after the request was stopped")
		return nil
	}
}
