package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConsoleTypingNeverApproves is the person who sends a goal and keeps
// typing at an ordinary pace, 300 ms a key, from before a write comes to
// ask until after it: every key is text in the input, none answers the
// call, and the status bar says a call waits. Tab then takes them to the
// board, and y approves the write once they have stopped typing.
func TestConsoleTypingNeverApproves(t *testing.T) {
	ws := t.TempDir()
	// The model takes a moment, so the request comes while they type.
	sc := writeScenario(t, `{"name": "typing", "steps": [
	  {"delay_ms": 1200, "text": "Writing the note.", "calls": [{"name": "write_file", "args": {"path": "note.txt", "content": "hello\n"}}]},
	  {"expect": ["note.txt"], "text": "The note is written."}]}`)
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--scenario", sc)
	term.WaitFor("Goal ›", e2eStep)
	command(t, term, "write the note")
	term.WaitFor("a run is going", e2eStep)

	const typed = "yes please, and all of it"
	// A person's pace, not a synchronisation: each key goes 300 ms after
	// the one before, whatever the screen shows.
	pace := time.NewTicker(300 * time.Millisecond)
	defer pace.Stop()
	askedBefore, askedAt := false, -1
	for i, r := range typed {
		<-pace.C
		if strings.Contains(term.Screen(), "1 call to approve") {
			if askedAt < 0 {
				askedAt = i
			}
		} else if askedAt >= 0 {
			t.Fatalf("the request left the status bar while the person typed, at key %d", i)
		} else {
			askedBefore = true
		}
		term.Send(string(r))
	}
	if !askedBefore || askedAt < 0 || askedAt == len(typed)-1 {
		t.Fatalf("the request did not arrive while the person typed (first seen before key %d)", askedAt)
	}
	s := term.WaitFor(typed, e2eStep)
	for _, want := range []string{"focus input", "? 1 call to approve", "tab approve on the board", "? needs approval"} {
		if !strings.Contains(s, want) {
			t.Fatalf("after the typing, the screen lacks %q:\n%s", want, s)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "note.txt")); err == nil {
		t.Fatalf("typed text approved the write:\n%s", s)
	}

	// Tab reaches the call; y works once the pause after typing is over.
	toBoard(t, term)
	approveWhenReady(t, term, "#1 write_file")
	s = term.WaitFor("The note is written.", e2eStep)
	if got, err := os.ReadFile(filepath.Join(ws, "note.txt")); err != nil || string(got) != "hello\n" {
		t.Fatalf("the approved write did not happen: %q, %v\n%s", got, err, s)
	}
	if !strings.Contains(s, typed) {
		t.Fatalf("the typed text left the input:\n%s", s)
	}
}
