package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The lines of a session stopped in the middle of a reply of two calls,
// the first of which finished: a journal that loads.
var interruptedLines = []string{
	`{"type":"header","version":1,"session":"s1","goal":"g","model":"m","mode":"auto","workspace":"/ws","catalog_digest":"","started":"2026-11-30T19:03:25Z"}`,
	`{"type":"run_started","session":"s1","goal":"g","input":"g","model":"m","mode":"auto","at":"2026-11-30T19:03:25Z"}`,
	`{"type":"turn_started","turn":1,"at":"2026-11-30T19:03:25Z"}`,
	`{"type":"reply","turn":1,"text":"","calls":[{"index":0,"id":"c0","name":"read_file","args":{"path":"a"},"waits_for":[],"batch":1},{"index":1,"id":"c1","name":"read_file","args":{"path":"b"},"waits_for":[0],"batch":2}],"stop":"tool_calls"}`,
	`{"type":"call_started","turn":1,"index":0,"name":"read_file","attempt":1,"key":"k0","at":"2026-11-30T19:03:26Z"}`,
	`{"type":"call_finished","turn":1,"index":0,"name":"read_file","key":"k0","outcome":"success","kind":null,"result":"a","started":true,"attempts":1,"duration_ms":1,"at":"2026-11-30T19:03:26Z"}`,
}

// The lines of a session at rest after one reply of text, whose
// conversation was rewound to before it: a journal that loads.
var rewoundLines = []string{
	interruptedLines[0], interruptedLines[1], interruptedLines[2],
	`{"type":"reply","turn":1,"text":"Hello.","calls":[],"stop":"end"}`,
	`{"type":"turn_ended","turn":1}`,
	`{"type":"run_finished","outcome":{"status":"succeeded","summary":"Hello."}}`,
	`{"type":"restore_started","seq":1,"kind":"rewind","messages":1,"points":1,"turn":1,"at":"2026-11-30T19:03:27Z"}`,
	`{"type":"restore_finished","seq":1,"kind":"rewind","messages":1,"points":1,"at":"2026-11-30T19:03:27Z"}`,
}

// journalOf writes lines as a journal and returns its path.
func journalOf(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// replace returns lines with line n (from 1) replaced by line, or line
// added when n is one past the end.
func replace(lines []string, n int, line string) []string {
	out := append([]string{}, lines...)
	if n == len(out)+1 {
		return append(out, line)
	}
	out[n-1] = line
	return out
}

// A journal whose numbers do not fit what it recorded before them is
// refused whole, in words that name the line and the number, whether the
// damage is in its middle or on its last line (a whole line is never torn
// by a crash, so it is not forgiven as the last line's tearing is).
func TestJournalNumbersAreChecked(t *testing.T) {
	good := [][]string{interruptedLines, rewoundLines}
	for _, lines := range good {
		if _, err := Load(journalOf(t, lines...)); err != nil {
			t.Fatalf("a sound journal is refused: %v", err)
		}
	}
	finished := func(turn, index string) string {
		return `{"type":"call_finished","turn":` + turn + `,"index":` + index + `,"name":"read_file","key":"k","outcome":"success","kind":null,` +
			`"result":"b","started":true,"attempts":1,"duration_ms":1,"at":"2026-11-30T19:03:27Z"}`
	}
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"a negative call index", replace(interruptedLines, 5, `{"type":"call_started","turn":1,"index":-1,"name":"read_file","attempt":1,"key":"k","at":"2026-11-30T19:03:26Z"}`),
			"line 5: call index -1"},
		{"a negative index finishing", replace(interruptedLines, 7, finished("1", "-1")), "line 7: call index -1"},
		{"an index past the reply", replace(interruptedLines, 7, finished("1", "2")), "line 7: call index 2, but the reply of turn 1 has 2 calls"},
		{"a duplicated call_finished", replace(interruptedLines, 7, finished("1", "0")), "line 7: a second call_finished for call 0 of turn 1"},
		{"another turn's call", replace(interruptedLines, 7, finished("2", "1")), "line 7: call_finished for turn 2 while the reply of turn 1 is open"},
		{"a decision with no reply open", replace(rewoundLines, 6, `{"type":"call_decision","turn":1,"index":0,"decision":"run","by":"user","reason":"r","at":"2026-11-30T19:03:26Z"}`),
			"line 6: call_decision for call 0 of turn 1, when no reply is open"},
		{"a call given another index", replace(interruptedLines, 4, strings.Replace(interruptedLines[3], `"index":1`, `"index":7`, 1)),
			"line 4: call 1 of the reply of turn 1 has the index 7"},
		{"waiting for a call the reply has not", replace(interruptedLines, 4, strings.Replace(interruptedLines[3], `"waits_for":[0]`, `"waits_for":[5]`, 1)),
			"line 4: call 1 of the reply of turn 1 waits for call 5"},
		{"a reply of turn 0", replace(interruptedLines, 4, strings.Replace(interruptedLines[3], `"turn":1`, `"turn":0`, 1)), "line 4: reply of turn 0"},
		{"negative tokens", replace(interruptedLines, 7, `{"type":"usage","turn":1,"usage":{"input_tokens":-5,"output_tokens":1},"total":{"input_tokens":1,"output_tokens":1}}`),
			"line 7: usage of -5 tokens"},
		{"a rewind keeping points it has not", replace(rewoundLines, 8, strings.Replace(rewoundLines[7], `"points":1`, `"points":-1`, 1)),
			"line 8: restore_finished keeps -1 points of a session of 2"},
		{"a rewind keeping messages it has not", replace(rewoundLines, 7, strings.Replace(rewoundLines[6], `"messages":1`, `"messages":9`, 1)),
			"line 7: restore_started keeps 9 messages of a conversation of 2"},
		{"a restore out of turn", replace(rewoundLines, 7, strings.Replace(rewoundLines[6], `"seq":1`, `"seq":4`, 1)),
			"line 7: restore_started numbered change 4, where the next change is 1"},
		{"a restore finishing what never started", replace(rewoundLines, 7, rewoundLines[7]),
			"line 7: restore_finished for change 1, which is not a restore the journal recorded"},
		{"a header naming a path", replace(interruptedLines, 1, strings.Replace(interruptedLines[0], `"session":"s1"`, `"session":"../../x"`, 1)),
			`line 1: the header names the session "../../x", which is not a session id`},
		{"a run naming a path", replace(interruptedLines, 2, strings.Replace(interruptedLines[1], `"session":"s1"`, `"session":"../x"`, 1)),
			`line 2: run_started names the session "../x", which is not a session id`},
	}
	for _, c := range cases {
		_, err := Load(journalOf(t, c.lines...))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line saying %q", c.name, err, c.want)
		}
	}
	// The words of a refusal reach the terminal: what the line holds is
	// quoted, never written as it is.
	_, err := Load(journalOf(t, replace(interruptedLines, 5, `{"type":"\u001b[2J","task":[]}`)...))
	if err == nil || strings.ContainsRune(err.Error(), '\x1b') || !strings.Contains(err.Error(), `line 5: "\x1b[2J" event`) {
		t.Errorf("a line with an escape sequence: %q", err)
	}
	_, err = Load(journalOf(t, replace(interruptedLines, 7, finished("1", "0"))...))
	var damage *DamageError
	if !errors.As(err, &damage) || damage.Where() != "line 7: a second call_finished for call 0 of turn 1" {
		t.Errorf("the damage is not a *DamageError saying where: %#v", err)
	}
}
