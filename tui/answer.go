package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
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
	m.personChange()
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

// offerGrants opens the grant chooser for c, a call waiting for approval,
// unless no grant could release it.
func (m *Model) offerGrants(c *callview.Call) {
	req := c.Req.Req
	if asker := req.Asker(); asker.Who == approval.WhoRule {
		// The policy checks ask rules before grants, so a grant would
		// change nothing; the screen says so instead of offering one.
		m.note = fmt.Sprintf("a grant cannot override an ask rule: rule %s asks before this call every time; "+
			"approve it with y or skip it with n", text.CleanLine(asker.Label))
		return
	}
	if asker := req.Asker(); asker.Who == approval.WhoHook {
		// The person's own hook asks about every such call, as an ask
		// rule does: no grant answers for it.
		m.note = fmt.Sprintf("a grant cannot override your hook: %s asks before this call every time; "+
			"approve it with y or skip it with n", text.CleanLine(asker.Label))
		return
	}
	if req.Asker().Who == approval.WhoProvenance {
		// No grant covers a call whose acting arguments came from an
		// untrusted result: each one is the person's to decide.
		m.note = "a grant cannot release this call: its arguments came from an untrusted result (see ⚠ in its details), " +
			"so each such call is yours to decide; approve it with y or skip it with n"
		return
	}
	p := m.opts.Policy
	if p == nil {
		m.note = "grants are not available in this console"
		return
	}
	grants := p.GrantOptions(req)
	if len(grants) == 0 {
		m.note = "no grant covers a call that asks to run outside its sandbox: each one is yours to decide; " +
			"approve it with y or skip it with n"
		return
	}
	labels := make([]string, len(grants))
	for i, g := range grants {
		labels[i] = p.GrantLabel(g)
	}
	m.grant.Show(c, grants, labels)
}

// grantKey routes a key to the open grant chooser and gives the grant it
// picks, which releases at once every waiting call the grant covers.
func (m *Model) grantKey(msg tea.KeyMsg) {
	act := m.grant.Update(msg, m.activeBoard().Armed())
	m.note = act.Note
	if act.Grant == nil {
		return
	}
	n := m.respond(answer{kind: answerGrant, grant: *act.Grant})
	m.note = fmt.Sprintf("granted %s for the rest of the session: it released %d waiting call(s)", act.Label, n)
}
