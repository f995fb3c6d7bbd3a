package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// dropsOnce is a model whose first attempt streams a fragment and drops;
// every later one replies "Done.".
type dropsOnce struct{ calls int }

func (d *dropsOnce) Name() string { return "drops-once" }

func (d *dropsOnce) Reply(_ context.Context, _ model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	d.calls++
	if d.calls == 1 {
		onDelta(model.Delta{Text: "FRAGMENT of a reply"})
		return model.Reply{}, model.Transient(errors.New("the connection to X dropped in the middle of the reply"), "the connection dropped", 0)
	}
	onDelta(model.Delta{Text: "Done."})
	return model.Reply{Text: "Done.", Stop: model.StopEnd}, nil
}

// A failed attempt is journaled, synced before the wait, and ignored by a
// resume: a session that stopped while it waited carries on with the model
// request, and its history holds nothing of the failed attempt.
func TestModelRetryIsJournaledAndResumeIgnoresIt(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, header("r1"), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	policy := model.RetryPolicy{Retries: 4, After: func(time.Duration) <-chan time.Time {
		// The process dies here, during the wait: what is on disk now is
		// what a resume finds.
		data, err := os.ReadFile(Path(dir, "r1"))
		if err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(cut, data, 0o600); err != nil {
			t.Error(err)
		}
		ch := make(chan time.Time, 1)
		ch <- time.Time{}
		return ch
	}}
	a := newAgent(t, w.Event)
	a.Model = model.WithRetries(&dropsOnce{}, policy)
	s := runtime.NewSession("r1")
	if out := a.Run(context.Background(), s, "echo things"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(Path(dir, "r1"))
	if n := strings.Count(string(whole), `"type":"model_retry"`); n != 1 ||
		!strings.Contains(string(whole), `"error":"the connection to X dropped in the middle of the reply"`) {
		t.Errorf("the journal holds %d model_retry lines:\n%s", n, whole)
	}
	if strings.Contains(string(whole), "FRAGMENT") {
		t.Errorf("the journal holds the failed attempt's text:\n%s", whole)
	}
	rp, err := Load(Path(dir, "r1"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rp.Session.Messages, s.Messages) || !rp.AtRest {
		t.Errorf("rebuilt %+v (at rest %v), want %+v", rp.Session.Messages, rp.AtRest, s.Messages)
	}

	// The session as it was when the process died during the wait.
	rp, err = Load(cut)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := rp.Events[len(rp.Events)-1].(runtime.ModelRetry)
	if last.Attempt != 2 || last.Why != "the connection dropped" {
		t.Fatalf("the journal cut during the wait ends with %#v", rp.Events[len(rp.Events)-1])
	}
	if rp.AtRest || rp.Interrupted != nil || len(rp.Warnings) != 0 || len(rp.Session.Messages) != 1 {
		t.Fatalf("at rest %v, interrupted %+v, warnings %v, messages %+v", rp.AtRest, rp.Interrupted, rp.Warnings, rp.Session.Messages)
	}
	b := newAgent(t, nil)
	b.Model = model.NewScripted("j", &model.Scenario{Steps: []model.Step{{Text: "Done after the restart."}}}).WithoutDelays()
	out := b.Resume(context.Background(), rp.Session, rp.Interrupted)
	if out.Status != runtime.StatusSucceeded || out.Summary != "Done after the restart." {
		t.Fatalf("resumed outcome %+v", out)
	}
	if m := rp.Session.Messages; len(m) != 2 || m[1].Role != model.RoleAssistant || m[1].Text != "Done after the restart." {
		t.Errorf("resumed history %+v", m)
	}
}
