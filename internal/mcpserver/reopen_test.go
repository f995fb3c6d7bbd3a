package mcpserver

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime"
)

// reopeningLauncher is a test launcher that can also reopen "old" sessions
// (played by the "ask" scenario under the id asked for), refuses "broken"
// with an error, and knows no other.
type reopeningLauncher struct {
	*testLauncher
	// mu guards reopened, which counts Reopen's calls per id.
	mu       sync.Mutex
	reopened map[string]int
}

func (l *reopeningLauncher) Reopen(ctx context.Context, id string, show runtime.Sink) (Session, error) {
	l.mu.Lock()
	l.reopened[id]++
	l.mu.Unlock()
	switch id {
	case "old":
		s, err := l.Open(ctx, OpenRequest{Goal: "ask", Show: show})
		if err != nil {
			return nil, err
		}
		return renamed{s, id}, nil
	case "broken":
		return nil, errors.New("session broken belongs to the workspace /gone, which does not exist")
	}
	return nil, ErrUnknownSession
}

// renamed is a session under another id, as a journaled one reopened is.
type renamed struct {
	Session
	id string
}

func (r renamed) ID() string { return r.id }

// TestContinueReopensAJournaledSession checks that continue_session carries
// on a session the server does not hold when its launcher can reopen it,
// lists it from then on, and reopens it only once; that a session no
// journal holds is unknown; and that a reopening that fails is one line
// and leaves nothing behind.
func TestContinueReopensAJournaledSession(t *testing.T) {
	srv, base := newServer(t)
	l := &reopeningLauncher{testLauncher: base, reopened: map[string]int{}}
	srv.launcher = l
	cs := connect(t, srv, nil, nil)

	res := call(t, cs, "continue_session", map[string]any{"session": "nope", "input": "x"})
	if txt := texts(t, res); !res.IsError || len(txt) != 1 || !strings.Contains(txt[0], `unknown session "nope"`) {
		t.Errorf("an unknown session gave %q", txt)
	}
	res = call(t, cs, "continue_session", map[string]any{"session": "broken", "input": "x"})
	if txt := texts(t, res); !res.IsError || len(txt) != 1 || !strings.Contains(txt[0], "/gone") {
		t.Errorf("a failed reopening gave %q", txt)
	}
	if n := len(listSessions(t, cs).Sessions); n != 0 {
		t.Errorf("sessions that could not be reopened are listed: %d", n)
	}

	res = call(t, cs, "continue_session", map[string]any{"session": "old", "input": "hello again"})
	if res.IsError || sessionOf(t, res) != "old" || outcomeOf(t, res).Status != runtime.StatusRefused {
		t.Fatalf("the reopened session gave %q", texts(t, res))
	}
	res = call(t, cs, "continue_session", map[string]any{"session": "old", "input": "b.txt, please"})
	if o := outcomeOf(t, res); res.IsError || o.Status != runtime.StatusSucceeded {
		t.Fatalf("continuing it again gave %q", texts(t, res))
	}
	list := listSessions(t, cs).Sessions
	if len(list) != 1 || list[0].Session != "old" || list[0].State != "idle" {
		t.Errorf("list_sessions = %+v", list)
	}
	call(t, cs, "continue_session", map[string]any{"session": "broken", "input": "x"})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reopened["old"] != 1 || l.reopened["broken"] != 2 {
		t.Errorf("reopened %v: a held session is reopened again, or a failed one is remembered", l.reopened)
	}
}
