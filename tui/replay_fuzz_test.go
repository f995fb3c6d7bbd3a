package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/journal"
)

// FuzzReplayJournal shows what a journal holds as the console shows a
// resumed session's history: any journal that loads must replay, draw, and
// take the keys that move about the board and the transcript, without a
// panic. The loader checks the numbers of the session's own events; those
// of a task's run, which the console shows in the task's view, reach the
// console as they are. Besides the bytes, the fuzzer chooses a number of
// the journal to set to value (number counts the journal's integers from
// 1; 0 changes none).
func FuzzReplayJournal(f *testing.F) {
	files, _ := filepath.Glob("../runtime/journal/testdata/seeds/*.jsonl")
	if len(files) == 0 {
		f.Fatal("no seed journals")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint16(0), int32(0))
	}
	path := filepath.Join(f.TempDir(), "s.jsonl")
	f.Fuzz(func(t *testing.T, data []byte, number uint16, value int32) {
		if err := os.WriteFile(path, setJournalNumber(data, int(number), value), 0o600); err != nil {
			t.Fatal(err)
		}
		rp, err := journal.Load(path)
		if err != nil {
			return
		}
		h := newHarness(t, Options{Open: func() {}})
		h.feed(Opened{ID: rp.Header.Session, Model: "scenario:fuzz", History: rp.Events})
		if len(rp.Events) > 0 && !strings.Contains(h.view(), "as its journal recorded it") {
			t.Fatalf("the history was not replayed:\n%s", h.view())
		}
		for _, k := range []string{"tab", "down", "enter", "up", "t", "esc", "tab", "pgup"} {
			h.key(k)
			_ = h.view()
		}
	})
}

// journalInteger is an integer value in a journal line.
var journalInteger = regexp.MustCompile(`:-?[0-9]+`)

// setJournalNumber sets the n-th integer value of data (from 1, counted
// round) to v; with n 0 it returns data as it is.
func setJournalNumber(data []byte, n int, v int32) []byte {
	at := journalInteger.FindAllIndex(data, -1)
	if n == 0 || len(at) == 0 {
		return data
	}
	loc := at[(n-1)%len(at)]
	out := append([]byte{}, data[:loc[0]+1]...)
	out = strconv.AppendInt(out, int64(v), 10)
	return append(out, data[loc[1]:]...)
}
