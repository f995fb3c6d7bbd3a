package tui

import (
	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/tui/callview"
)

// answerKind is what an answer to the runtime does.
type answerKind int

const (
	// answerApprove approves calls, each bound to the preview the board
	// shows for it.
	answerApprove answerKind = iota
	// answerSkip skips a call, with the person's reason.
	answerSkip
	// answerEdit approves a call with the person's own version of the
	// content it proposed.
	answerEdit
	// answerGrant gives a session grant, which releases every waiting
	// call it covers.
	answerGrant
	// answerUnshowable skips a request the board could not show, since
	// nobody could answer it.
	answerUnshowable
)

// answer is one answer the console gives the runtime about calls waiting
// for the person.
type answer struct {
	kind answerKind
	// calls are the calls approved (answerApprove), or the one call
	// skipped or edited.
	calls []*callview.Call
	// reason is the person's reason for a skip, which the model reads.
	reason string
	// digest is the preview the person edited, and content their version
	// of it (answerEdit).
	digest, content string
	// grant is the grant given (answerGrant).
	grant approval.Grant
	// request is the request nobody could be shown (answerUnshowable).
	request approvalRequest
}

// respond sends a to the runtime and returns how many calls it answered
// directly (for a grant, how many waiting calls the grant released). It is
// the only place in the console that answers an approval request or gives
// a grant: the keys, the skip reason, the editor, the grant chooser and the
// autopilot all come here, so that an answer is always bound to the preview
// the person saw, is sent once, and leaves the board the same way.
//
// Sending never blocks: each request's channel has room for one answer,
// and the request is forgotten once it is answered.
func (m *Model) respond(a answer) int {
	n := 0
	switch a.kind {
	case answerUnshowable:
		a.request.answer <- approval.SkipWith("the console could not show this call to the person")
		return 0
	case answerGrant:
		n = m.opts.Policy.AddGrant(a.grant)
	default:
		for _, c := range a.calls {
			var ans approval.Answer
			switch a.kind {
			case answerApprove:
				ans = approval.Answer{Approve: true, Digest: c.Digest()}
			case answerSkip:
				ans = approval.SkipWith(a.reason)
			case answerEdit:
				content := a.content
				ans = approval.Answer{Approve: true, Digest: a.digest, Content: &content}
			}
			if m.send(c, ans) {
				n++
			}
		}
	}
	// The person's own answer never arms the grace period.
	m.board.PersonChange()
	return n
}

// send hands ans to the request c waits on, if it still waits, and marks the
// call answered.
func (m *Model) send(c *callview.Call, ans approval.Answer) bool {
	if c == nil || c.Req == nil {
		return false
	}
	ch, ok := m.answers[c.Req.ID]
	if !ok {
		return false
	}
	delete(m.answers, c.Req.ID)
	ch <- ans
	c.MarkAnswered(ans.Approve)
	return true
}
