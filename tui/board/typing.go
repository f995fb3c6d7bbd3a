package board

import "time"

// TypingPause is how long the approval keys stay ignored after the person
// last typed text, wherever focus was: someone who keeps typing a sentence
// that begins with y, n or a must not answer a call that appeared under
// their fingers.
const TypingPause = 1500 * time.Millisecond

// Typing records when the person last typed text anywhere in the console.
// A console makes one and shares it with each of its boards (the session's
// and every task's), since text typed in the input holds back the approval
// keys of whichever board is on screen. Only the console's update loop uses
// it, so it needs no lock.
type Typing struct {
	last time.Time
}

// Typed records that the person typed text at.
func (t *Typing) Typed(at time.Time) {
	if at.After(t.last) {
		t.last = at
	}
}

// Until returns when the pause after the last typed text ends; the zero
// time when nothing was typed.
func (t *Typing) Until() time.Time {
	if t == nil || t.last.IsZero() {
		return time.Time{}
	}
	return t.last.Add(TypingPause)
}

// SetTyping shares the console's record of typing with the board: while the
// person is typing, its approval keys are ignored.
func (b *Model) SetTyping(t *Typing) { b.typing = t }

// typingNow reports whether the person typed text within TypingPause.
func (b *Model) typingNow() bool { return b.now().Before(b.typing.Until()) }
