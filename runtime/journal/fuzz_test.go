package journal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/session/export"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// fuzzID is the session id the fuzz target files each input under.
const fuzzID = "20261130-190325-161550b3"

// FuzzReplay feeds the journal loader any bytes: it must refuse them with a
// one-line error, or recover a session (a damaged last line cut off and
// reported), never panic. A session it recovers then goes where agenttui
// takes a replay: the listing, the export, every rewind point planned and a
// rewind of the conversation made, and a resume (or the first run of a
// session that stopped before one). None may panic, and a journal agenttui
// appended to must load again. The listing of a journal that does not load
// for damage still lists it, marked damaged.
//
// Besides the bytes, the fuzzer chooses a number of the journal to set to
// value (number counts the journal's integers from 1; 0 changes none) and a
// line to repeat (dup counts from 1; 0 repeats none), so that it reaches
// the indexes, turns and counts a journal holds, and duplicated events,
// sooner than by changing bytes alone. Every event is synced as it is
// journaled: on a disk, TMPDIR=/dev/shm makes it several times faster.
func FuzzReplay(f *testing.F) {
	files, _ := filepath.Glob("testdata/seeds/*.jsonl")
	if len(files) == 0 {
		f.Fatal("no seed journals")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint16(0), int32(0), uint16(0))
		// A torn copy of each, as a crash while writing leaves it.
		f.Add(data[:len(data)*2/3], uint16(0), int32(0), uint16(0))
	}
	state := f.TempDir()
	f.Setenv("XDG_STATE_HOME", state)
	dir, err := journal.Dir()
	if err != nil {
		f.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		f.Fatal(err)
	}
	path := journal.Path(dir, fuzzID)
	f.Fuzz(func(t *testing.T, data []byte, number uint16, value int32, dup uint16) {
		data = repeatLine(setNumber(data, int(number), value), int(dup))
		rp, err := journal.Parse("fuzz.jsonl", data)
		if err != nil {
			if rp != nil {
				t.Fatal("a replay with an error")
			}
			// The error reaches the terminal: one line, and nothing of the
			// journal's that could move the cursor or recolour it.
			if strings.ContainsFunc(err.Error(), unicode.IsControl) {
				t.Fatalf("the error is not one line of text: %q", err)
			}
		}
		if werr := os.WriteFile(path, data, 0o600); werr != nil {
			t.Fatal(werr)
		}
		fuzzListing(t, data, err)
		if err != nil {
			return
		}
		_ = rp.Describe()
		for _, w := range rp.Warnings {
			if strings.ContainsFunc(w, unicode.IsControl) {
				t.Fatalf("a warning is not one line of text: %q", w)
			}
		}
		for _, m := range rp.Session.Messages {
			if m.Role == "" {
				t.Fatal("a rebuilt message without a role")
			}
		}
		if rp.Interrupted != nil {
			last := rp.Session.Messages[len(rp.Session.Messages)-1]
			if len(rp.Interrupted.Calls) != len(last.Calls) {
				t.Fatalf("an interrupted reply of %d calls with %d recorded", len(last.Calls), len(rp.Interrupted.Calls))
			}
		}
		fuzzExport(rp)
		fuzzRewind(t, rp, path)
		fuzzResume(t, path)
	})
}

// jsonInteger is an integer value in a journal line.
var jsonInteger = regexp.MustCompile(`:-?[0-9]+`)

// setNumber sets the n-th integer value of data (from 1, counted round) to
// v; with n 0 it returns data as it is.
func setNumber(data []byte, n int, v int32) []byte {
	if n == 0 {
		return data
	}
	at := jsonInteger.FindAllIndex(data, -1)
	if len(at) == 0 {
		return data
	}
	loc := at[(n-1)%len(at)]
	out := append([]byte{}, data[:loc[0]+1]...)
	out = strconv.AppendInt(out, int64(v), 10)
	return append(out, data[loc[1]:]...)
}

// repeatLine writes the n-th line of data (from 1, counted round) twice;
// with n 0 it returns data as it is.
func repeatLine(data []byte, n int) []byte {
	if n == 0 {
		return data
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	i := (n - 1) % len(lines)
	out := append([]byte{}, bytes.Join(lines[:i+1], nil)...)
	return append(append(out, lines[i]...), bytes.Join(lines[i+1:], nil)...)
}

// fuzzListing lists the workspace the journal's header names, as agenttui
// sessions does: a damaged journal is listed as damaged.
func fuzzListing(t *testing.T, data []byte, loadErr error) {
	var h journal.Header
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if json.Unmarshal(first, &h) != nil || h.Type != "header" {
		h = journal.Header{Workspace: "/nowhere"}
	}
	var out bytes.Buffer
	if err := session.PrintList(&out, h.Workspace); err != nil {
		t.Fatal(err)
	}
	var damage *journal.DamageError
	if errors.As(loadErr, &damage) && h.Type == "header" && !strings.Contains(out.String(), fuzzID+"  ") {
		t.Fatalf("the listing does not show the damaged journal (%v):\n%s", loadErr, out.String())
	}
	if errors.As(loadErr, &damage) && h.Type == "header" && !strings.Contains(out.String(), "damaged: line ") {
		t.Fatalf("the listing does not mark the damaged journal (%v):\n%s", loadErr, out.String())
	}
}

// fuzzExport makes the session a scenario, as agenttui sessions export does.
func fuzzExport(rp *journal.Replay) {
	ex := export.FromJournal(rp)
	_ = ex.Report("fuzz.json")
	_ = ex.PlayFlags()
	if data, err := ex.Scenario.Encode(); err == nil && len(ex.Scenario.Steps) > 0 {
		_, _ = model.ParseScenario(data)
	}
}

// fuzzRewind plans going back to each of the session's points, as /rewind
// and agenttui sessions rewind do, and rewinds its conversation to one,
// which the journal records.
func fuzzRewind(t *testing.T, rp *journal.Replay, path string) {
	ctx := context.Background()
	s := rp.Session
	_ = s.RewindPoints()
	_ = s.UnfinishedRestore()
	_, _ = s.PlanUndo(ctx)
	_, _ = s.PlanRedo(ctx)
	for i := range s.Points {
		_, _ = s.PlanRewind(ctx, i, true, false)
		_, _ = s.PlanRewind(ctx, i, false, true)
	}
	ws := rp.Header.Workspace
	if _, err := session.Rewind(ctx, session.RewindOptions{Workspace: ws, ID: fuzzID}); err != nil {
		return
	}
	if rp.Interrupted != nil || len(s.Points) == 0 || len(s.Changes) > 0 {
		// A rewind of a session with changes opens its checkpoints in the
		// workspace its header names, which is not the fuzzer's to touch.
		return
	}
	for _, to := range []string{"1", strconv.Itoa(len(s.Points)), "goal", "turn:1"} {
		_, _ = session.Rewind(ctx, session.RewindOptions{Workspace: ws, ID: fuzzID, To: to, Conversation: true})
		if _, err := journal.Load(path); err != nil {
			t.Fatalf("the journal does not load after a rewind to %s: %v", to, err)
		}
	}
}

// fuzzResume carries the session on, as Host.Adopt does, with a model that
// fails at once and no tools but agenttui's own, journaling what it does;
// the journal must load again after.
func fuzzResume(t *testing.T, path string) {
	rp, err := journal.Load(path)
	if err != nil {
		t.Fatalf("a journal that loaded, written and rewound, does not load: %v", err)
	}
	jw, err := journal.Reopen(rp, redact.New())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := runtime.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	a := &runtime.Agent{Model: silentModel{}, Catalog: cat, Sink: jw.Event, Durable: jw.Err}
	ctx := context.Background()
	s := rp.Session
	a.SettleCheckpoints(ctx, s)
	switch {
	case len(s.Messages) == 0:
		a.Run(ctx, s, rp.Header.Goal)
	case !rp.AtRest:
		a.Resume(ctx, s, rp.Interrupted)
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := journal.Load(path); err != nil {
		t.Fatalf("the journal does not load after a resume: %v", err)
	}
}

// silentModel fails every request, so that a resumed run ends at its next
// turn.
type silentModel struct{}

func (silentModel) Name() string { return "fuzz" }

func (silentModel) Reply(context.Context, model.Request, func(model.Delta)) (model.Reply, error) {
	return model.Reply{}, io.ErrUnexpectedEOF
}
