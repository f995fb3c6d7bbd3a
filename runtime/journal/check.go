package journal

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// DamageError is the error Load returns for a journal damaged before its
// last line: a line that is not an event, or an event whose numbers do not
// fit what the journal recorded before it (a call index outside its reply,
// a second result for one call, a change that was never recorded). Every
// index, turn and count of a journal is checked before the session is
// rebuilt from it, since anyone who can write the file can write any
// number, and the whole journal is refused: a session rebuilt around a
// damaged line could tell the model something false about a call.
type DamageError struct {
	// Path is the journal.
	Path string
	// Line is the damaged line, counted from 1 as editors count them.
	Line int
	// Problem says what is wrong with the line, such as "call index -1".
	Problem string
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("the journal %s is damaged (%s): it cannot be resumed, rewound or exported safely", e.Path, e.Where())
}

// Where says the damaged line and what is wrong with it, such as "line 34:
// call index -1".
func (e *DamageError) Where() string { return fmt.Sprintf("line %d: %s", e.Line, e.Problem) }

// isSessionID reports whether id can name a session: letters, digits,
// '-', '_' and '.', not first, as the ids agenttui gives sessions are
// (20261202-080249-c5d22d4a). A session's id names its journal and its
// checkpoint folder beside it, so a journal that names another kind of id
// could send a listing, a rewind or a removal outside the sessions folder.
func isSessionID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' {
		return false
	}
	for _, r := range id {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.", r)) {
			return false
		}
	}
	return true
}

// quoted returns s quoted for a message, cut short: it is the journal's
// text, which may be long or hold anything.
func quoted(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// printable returns s with its control characters written as escapes, as
// %q writes them. A decoder's error may hold what the line holds (the time
// package quotes a value but leaves DEL in it), and a refusal's words
// reach the terminal.
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// check returns what is wrong with e's numbers given what the journal
// recorded before it, or nil. Events of a task's own run are checked
// where they are used (runtime.TaskLog), since the session is never
// rebuilt from them.
func (b *builder) check(e runtime.Event) error {
	s := b.session
	switch ev := e.(type) {
	case runtime.RunStarted:
		if ev.Session != "" && !isSessionID(ev.Session) {
			return fmt.Errorf("run_started names the session %s, which is not a session id", quoted(ev.Session))
		}
	case runtime.TurnStarted:
		return checkTurn("turn_started", ev.Turn)
	case runtime.ReplyReceived:
		if err := checkTurn("reply", ev.Turn); err != nil {
			return err
		}
		for i, c := range ev.Calls {
			if c.Index != i {
				return fmt.Errorf("call %d of the reply of turn %d has the index %d", i, ev.Turn, c.Index)
			}
			for _, d := range c.WaitsFor {
				if d < 0 || d >= len(ev.Calls) || d == i {
					return fmt.Errorf("call %d of the reply of turn %d waits for call %d, which is not another call of the reply", i, ev.Turn, d)
				}
			}
		}
	case runtime.InvalidReply:
		if b.pending != nil && ev.Turn != b.pendingTurn {
			return fmt.Errorf("invalid_reply of turn %d while the reply of turn %d is open", ev.Turn, b.pendingTurn)
		}
	case runtime.CallDecision:
		return b.checkCall("call_decision", ev.Turn, ev.Index)
	case runtime.CallPreviewed:
		return b.checkCall("call_preview", ev.Turn, ev.Index)
	case runtime.PreviewStale:
		return b.checkCall("preview_stale", ev.Turn, ev.Index)
	case runtime.CallStarted:
		return b.checkCall("call_started", ev.Turn, ev.Index)
	case runtime.CallRetried:
		return b.checkCall("call_retried", ev.Turn, ev.Index)
	case runtime.CallFinished:
		if err := b.checkCall("call_finished", ev.Turn, ev.Index); err != nil {
			return err
		}
		// The runtime settles a call once: a recorded result is read back,
		// never published again, by a resumed run.
		if b.calls[ev.Index].Finished != nil {
			return fmt.Errorf("a second call_finished for call %d of turn %d", ev.Index, ev.Turn)
		}
	case runtime.UsageReported:
		return errors.Join(checkUsage("usage", ev.Usage), checkUsage("usage total", ev.Total))
	case runtime.Compacted:
		if ev.Summarizes < 0 {
			return fmt.Errorf("a compaction that summarises %d replies", ev.Summarizes)
		}
		return checkUsage("compaction usage", ev.Usage)
	case runtime.CheckpointTaken:
		if err := checkTurn("checkpoint", ev.Turn); err != nil {
			return err
		}
		return checkSeq("checkpoint", ev.Seq, len(s.Changes))
	case runtime.CheckpointChanges:
		if ev.Seq < 1 || ev.Seq > len(s.Changes) || s.Changes[ev.Seq-1].Kind != "reply" {
			return fmt.Errorf("checkpoint_changes for change %d, which is not a checkpoint the journal recorded", ev.Seq)
		}
	case runtime.RestoreStarted:
		if err := checkSeq("restore_started", ev.Seq, len(s.Changes)); err != nil {
			return err
		}
		for _, seq := range ev.Reverts {
			if seq < 1 || seq >= ev.Seq {
				return fmt.Errorf("restore_started takes back change %d, which the journal did not record before it", seq)
			}
		}
		return b.checkKept("restore_started", ev.Messages, ev.Points)
	case runtime.RestoreFinished:
		if ev.Seq < 1 || ev.Seq > len(s.Changes) || s.Changes[ev.Seq-1].Kind == "reply" {
			return fmt.Errorf("restore_finished for change %d, which is not a restore the journal recorded", ev.Seq)
		}
		return b.checkKept("restore_finished", ev.Messages, ev.Points)
	}
	return nil
}

// checkTurn checks the turn an event names; turns count from 1.
func checkTurn(what string, turn int) error {
	if turn < 1 {
		return fmt.Errorf("%s of turn %d", what, turn)
	}
	return nil
}

// checkCall checks that an event about call index of turn names a call of
// the reply the journal has open: the runtime publishes nothing about a
// call once its turn ended.
func (b *builder) checkCall(what string, turn, index int) error {
	switch {
	case index < 0:
		return fmt.Errorf("call index %d", index)
	case b.pending == nil:
		return fmt.Errorf("%s for call %d of turn %d, when no reply is open", what, index, turn)
	case turn != b.pendingTurn:
		return fmt.Errorf("%s for turn %d while the reply of turn %d is open", what, turn, b.pendingTurn)
	case index >= len(b.calls):
		return fmt.Errorf("call index %d, but the reply of turn %d has %d calls", index, turn, len(b.calls))
	}
	return nil
}

// checkUsage checks that the token counts and the cost of u are not
// negative.
func checkUsage(what string, u model.Usage) error {
	for _, n := range []int{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens} {
		if n < 0 {
			return fmt.Errorf("%s of %d tokens", what, n)
		}
	}
	if u.CostUSD != nil && *u.CostUSD < 0 {
		return fmt.Errorf("%s costing %v dollars", what, *u.CostUSD)
	}
	return nil
}

// checkSeq checks that a change is numbered next after the n the journal
// recorded: the runtime numbers them in order, from 1.
func checkSeq(what string, seq, n int) error {
	if seq != n+1 {
		return fmt.Errorf("%s numbered change %d, where the next change is %d", what, seq, n+1)
	}
	return nil
}

// checkKept checks what a rewind of the conversation keeps: messages is
// -1 when it leaves the conversation alone, and neither it nor points may
// be more than the session has.
func (b *builder) checkKept(what string, messages, points int) error {
	s := b.session
	if messages < -1 || messages > len(s.Messages) {
		return fmt.Errorf("%s keeps %d messages of a conversation of %d", what, messages, len(s.Messages))
	}
	if points < 0 || points > len(s.Points) {
		return fmt.Errorf("%s keeps %d points of a session of %d", what, points, len(s.Points))
	}
	return nil
}
