package runtime

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
)

// stumbling is a model whose first fails attempts stream a fragment and
// then fail in a way that may pass; the next one replies with text.
type stumbling struct {
	fails int

	mu    sync.Mutex // guards calls
	calls int
}

func (s *stumbling) Name() string { return "stumbling" }

func (s *stumbling) Reply(_ context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.mu.Unlock()
	if n <= s.fails {
		onDelta(model.Delta{Text: "half a repl"})
		return model.Reply{}, model.Transient(errors.New("the connection to the server dropped in the middle of the reply"), "the connection dropped", 0)
	}
	onDelta(model.Delta{Text: "The whole reply."})
	return model.Reply{Text: "The whole reply.", Stop: model.StopEnd, Usage: model.Usage{InputTokens: 10, OutputTokens: 4}}, nil
}

// noWait is a retry policy whose waits take no time.
func noWait(retries int) model.RetryPolicy {
	return model.RetryPolicy{Retries: retries, Jitter: func() float64 { return 0.5 }, After: func(time.Duration) <-chan time.Time {
		ch := make(chan time.Time, 1)
		ch <- time.Time{}
		return ch
	}}
}

func TestModelRetryVoidsTheFailedAttempt(t *testing.T) {
	rec := newRecorder()
	a := newAgent(t, model.WithRetries(&stumbling{fails: 1}, noWait(4)), rec)
	a.Clock = newFixedClock()
	s := NewSession("s")
	out := a.Run(context.Background(), s, "go")
	if out.Status != StatusSucceeded || out.Summary != "The whole reply." {
		t.Fatalf("outcome %+v", out)
	}
	var seen []string
	for _, e := range rec.snapshot() {
		switch ev := e.(type) {
		case TextDelta:
			seen = append(seen, "text: "+ev.Text)
		case ModelRetry:
			b, _ := EncodeEvent(ev)
			seen = append(seen, string(b))
		case ReplyReceived:
			seen = append(seen, "reply: "+ev.Text)
		}
	}
	want := []string{
		"text: half a repl",
		`{"type":"model_retry","turn":1,"attempt":2,"max":5,"why":"the connection dropped",` +
			`"error":"the connection to the server dropped in the middle of the reply","wait_ms":1000,"at":"2026-11-30T12:00:00Z"}`,
		"text: The whole reply.",
		"reply: The whole reply.",
	}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("events\n%q\nwant\n%q", seen, want)
	}
	if len(s.Messages) != 2 || s.Messages[1].Text != "The whole reply." {
		t.Errorf("the history holds %+v, want the goal and the whole reply", s.Messages)
	}
	if s.Usage != (model.Usage{InputTokens: 10, OutputTokens: 4}) || s.Turns() != 1 {
		t.Errorf("usage %+v over %d turns: a retry is not a turn", s.Usage, s.Turns())
	}
}

func TestModelRetryEventRoundTrips(t *testing.T) {
	line := `{"type":"model_retry","turn":3,"attempt":2,"max":5,"why":"rate limited (429 Too Many Requests)",` +
		`"error":"OpenAI is limiting the rate of requests (429 Too Many Requests: slow down); wait a little and try again","wait_ms":1000,"at":"2026-11-30T12:00:00.5Z"}`
	e, err := DecodeEvent([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := e.(ModelRetry); !ok || r.Attempt != 2 || r.Max != 5 || r.WaitMS != 1000 {
		t.Fatalf("decoded %#v", e)
	}
	again, err := EncodeEvent(e)
	if err != nil || string(again) != line {
		t.Errorf("round trip changed the event:\n got %s\nwant %s", again, line)
	}
}

func TestModelThatNeverRecoversFailsSayingHowOften(t *testing.T) {
	rec := newRecorder()
	a := newAgent(t, model.WithRetries(&stumbling{fails: 100}, noWait(4)), rec)
	out := a.Run(context.Background(), NewSession("s"), "go")
	want := "the model failed after 5 attempts: the connection to the server dropped in the middle of the reply"
	if out.Status != StatusFailed || out.FailingStep != "turn 1: model reply" || len(out.Attempts) == 0 || out.Attempts[len(out.Attempts)-1] != want {
		t.Fatalf("outcome %+v\nwant the last attempt %q", out, want)
	}
	retries := 0
	for _, e := range rec.snapshot() {
		if _, ok := e.(ModelRetry); ok {
			retries++
		}
	}
	if retries != 4 {
		t.Errorf("%d model_retry events, want 4", retries)
	}
}

func TestStopDuringTheRetryWaitEndsTheRun(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	waiting := make(chan struct{})
	policy := model.RetryPolicy{Retries: 4, After: func(time.Duration) <-chan time.Time {
		close(waiting)
		return nil // a wait that would never end
	}}
	a := newAgent(t, model.WithRetries(&stumbling{fails: 1}, policy), nil)
	ch := runAsync(ctx, a, NewSession("s"), "go")
	<-waiting
	cancel(Stop("the person stopped the turn"))
	out := awaitOutcome(t, ch)
	if out.Status != StatusFailed || len(out.Attempts) == 0 || !strings.Contains(out.Attempts[len(out.Attempts)-1], "stopped: the person stopped the turn") {
		t.Errorf("outcome %+v", out)
	}
}
