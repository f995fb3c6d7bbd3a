package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/model"
)

// DefaultAutoCompact is the share of the context window at which the
// conversation is compacted before the next request.
const DefaultAutoCompact = 0.85

// keepShare is the share of the window the most recent turns may take after
// a compaction; the rest of the conversation is summarised.
const keepShare = 0.25

// summaryOutputTokens bounds the summary a compaction asks for.
const summaryOutputTokens = 4096

// ContextPolicy says how the runtime keeps a session within the model's
// context window.
type ContextPolicy struct {
	// Window is the model's context window in tokens; zero turns the
	// accounting and automatic compaction off.
	Window int
	// Guessed says the window is a guess: the model is not one the
	// built-in table knows.
	Guessed bool
	// AutoCompact is the share of the window at which the conversation is
	// compacted before the request that would cross it; zero turns
	// automatic compaction off. A provider's overflow error is recovered
	// by compacting whatever this says, once a turn.
	AutoCompact float64
}

// ContextUse is how much of the context window a session's conversation
// takes.
type ContextUse struct {
	// Tokens is the estimate of the next request's size.
	Tokens int `json:"tokens"`
	// Window is the model's context window.
	Window int `json:"window"`
	// Percent is Tokens as a share of Window.
	Percent int `json:"percent"`
	// Guessed says the window is a guess.
	Guessed bool `json:"guessed,omitempty"`
}

// use returns the share of the window tokens take.
func (p ContextPolicy) use(tokens int) *ContextUse {
	if p.Window <= 0 {
		return nil
	}
	return &ContextUse{Tokens: tokens, Window: p.Window, Percent: tokens * 100 / p.Window, Guessed: p.Guessed}
}

// meter estimates the size of a session's next request. It keeps the
// estimate of each message it has seen, so a turn costs the messages added
// since the last one, not the whole conversation.
type meter struct {
	// sizes are the estimates of the first len(sizes) messages; sum is
	// their total.
	sizes []int
	sum   int
	// reported is the input and output tokens the provider reported for
	// the last reply, which covered the first reportedAt messages.
	reported, reportedAt int
}

// reset forgets everything, as after a compaction replaced messages.
func (m *meter) reset() { *m = meter{} }

// catchUp estimates the messages it has not seen.
func (m *meter) catchUp(msgs []model.Message) {
	if len(m.sizes) > len(msgs) {
		m.reset()
	}
	for _, msg := range msgs[len(m.sizes):] {
		n := messageTokens(msg)
		m.sizes = append(m.sizes, n)
		m.sum += n
	}
}

// report records the tokens a reply used: its request's input and its own
// output, which together are the conversation up to the first n messages.
func (m *meter) report(u model.Usage, n int) {
	if u.InputTokens <= 0 {
		return
	}
	m.reported, m.reportedAt = u.InputTokens+u.OutputTokens, n
}

// estimate returns the size of the next request: the last reported size
// and an estimate of what was added since, or, with nothing reported, an
// estimate of the whole request.
func (m *meter) estimate(req model.Request) int {
	m.catchUp(req.Messages)
	if m.reported > 0 && m.reportedAt <= len(m.sizes) {
		added := 0
		for _, n := range m.sizes[m.reportedAt:] {
			added += n
		}
		return m.reported + added
	}
	n := m.sum + textTokens(len(req.System))
	for _, d := range req.Tools {
		n += textTokens(len(d.Name) + len(d.Description) + len(d.Parameters))
	}
	return n
}

// textTokens estimates the tokens of n bytes of text: about four bytes a
// token for English and code.
func textTokens(n int) int { return (n + 3) / 4 }

// messageTokens estimates the tokens a message takes in a request, with a
// few for the framing each message and call carries.
func messageTokens(m model.Message) int {
	n := 4 + textTokens(len(m.Text))
	for _, c := range m.Calls {
		n += 8 + textTokens(len(c.Name)+len(c.Arguments))
	}
	if m.Cut != nil {
		n += 8 + textTokens(len(m.Cut.Name)+len(m.Cut.Arguments))
	}
	for _, r := range m.Results {
		n += 8 + textTokens(len(r.Content))
	}
	for _, r := range m.Reasoning {
		n += 8 + textTokens(len(r.Text))
	}
	return n
}

// ReplaceOlder replaces messages from up to to (not included) with msg, as
// a compaction does; the journal calls it to rebuild a compacted session.
// It reports false, changing nothing, when the range does not fit the
// conversation.
func (s *Session) ReplaceOlder(from, to int, msg model.Message) bool {
	if from < 1 || from > to || to > len(s.Messages) {
		return false
	}
	next := make([]model.Message, 0, len(s.Messages)-(to-from)+1)
	next = append(next, s.Messages[:from]...)
	next = append(next, msg)
	next = append(next, s.Messages[to:]...)
	s.Messages = next
	s.foldPoints(from, to)
	s.meter.reset()
	return true
}

// ReplayUsage records the tokens the reply about to be added used, as the
// journal rebuilds a session, so that a resumed session estimates its next
// request, and decides whether to compact, exactly as it would have without
// the interruption.
func (s *Session) ReplayUsage(u model.Usage) { s.meter.report(u, len(s.Messages)+1) }

// cutPoint returns where the kept part of msgs begins when the conversation
// is compacted: the oldest message such that what follows fits in keep
// tokens, that starts a turn (a call is never separated from its result),
// and that leaves something to summarise. The first message, the goal, is
// always kept. It returns 0 when nothing can be summarised.
func cutPoint(msgs []model.Message, sizes []int, keep int) int {
	cut := len(msgs)
	if len(msgs) > 0 && msgs[len(msgs)-1].Role == model.RoleUser && msgs[len(msgs)-1].Summarizes == 0 {
		// The person's latest words are what the next reply answers.
		cut = len(msgs) - 1
	}
	size := 0
	for i := len(msgs) - 1; i >= 2; i-- {
		size += sizes[i]
		if size > keep {
			break
		}
		if msgs[i].Role != model.RoleTool {
			cut = i
		}
	}
	if cut <= 1 || len(msgs) < 2 {
		return 0
	}
	return cut
}

// errNothingToCompact says the conversation has no older part to
// summarise.
var errNothingToCompact = errors.New("the conversation has nothing older to summarise")

// CompactReason says what asked for a compaction.
type CompactReason string

// The reasons for a compaction.
const (
	// CompactAuto: the next request would cross the threshold.
	CompactAuto CompactReason = "auto"
	// CompactOverflow: the provider refused a request as too long.
	CompactOverflow CompactReason = "overflow"
	// CompactManual: the person asked for it (/compact).
	CompactManual CompactReason = "manual"
)

// Compact summarises the session's older conversation now, as the person's
// /compact asks; focus, when set, says what the summary should keep in
// particular. It must not be called while a run of the session is going.
func (a *Agent) Compact(ctx context.Context, s *Session, focus string) error {
	r := &run{agent: a, session: s, budgets: a.budgets(), started: a.clock().Now(), cat: a.catalog()}
	return r.compact(ctx, s.Turns()+1, CompactManual, focus)
}

// compactIfNeeded compacts the conversation before turn's request when the
// request would cross the threshold. A compaction that fails is reported
// and the request is sent as it is: it may still fit.
func (r *run) compactIfNeeded(ctx context.Context, turn int) {
	p := r.agent.ContextPolicy()
	if p.Window <= 0 || p.AutoCompact <= 0 {
		return
	}
	if r.session.meter.estimate(r.request()) < int(p.AutoCompact*float64(p.Window)) {
		return
	}
	if err := r.compact(ctx, turn, CompactAuto, ""); err != nil && !errors.Is(err, errNothingToCompact) && ctx.Err() == nil {
		r.agent.emit(Notice{Level: "warning", Text: "the conversation could not be compacted (" + err.Error() +
			"); the next request is sent as it is"})
	}
}

// compact replaces the older part of the conversation with a summary the
// model writes. The compaction is an effect like a model request: its intent
// is recorded first and its result after, and the session is changed only
// once the result is, so a session resumed after a crash holds either the
// whole old conversation or the compacted one.
func (r *run) compact(ctx context.Context, turn int, reason CompactReason, focus string) error {
	a, s := r.agent, r.session
	window := a.ContextPolicy().Window
	if window <= 0 {
		window = model.GuessedWindow
	}
	before := s.meter.estimate(r.request())
	keep := keepShare * float64(window)
	if reason != CompactAuto {
		// The provider counted far more than the estimate did, so no
		// estimate of what to keep can be trusted; or the person asked for
		// the session so far to be summarised. Either way the summary
		// takes all but the goal and the person's latest words.
		keep = 0
	}
	cut := cutPoint(s.Messages, s.meter.sizes, int(keep))
	if cut == 0 {
		return errNothingToCompact
	}
	if err := a.durable(); err != nil {
		return errors.New(unrecorded(err))
	}
	a.emit(CompactionStarted{Turn: turn, Reason: string(reason), Tokens: before, Window: window, Messages: cut - 1, At: Time{a.clock().Now()}})
	if err := a.durable(); err != nil {
		// The intent may not be on disk, so the request is not sent.
		return errors.New(unrecorded(err))
	}
	old := s.Messages[:cut]
	budget := window - summaryOutputTokens - textTokens(len(feedback.CompactionSystem)+len(feedback.CompactionInstructions(focus))) - 512
	history := feedback.History(old, max(budget, 1024)*4)
	req := model.Request{
		System:          feedback.CompactionSystem,
		Messages:        []model.Message{{Role: model.RoleUser, Text: history + "\n\n" + feedback.CompactionInstructions(focus)}},
		MaxOutputTokens: summaryOutputTokens,
		Compact:         true,
	}
	reply, err := a.Model.Reply(ctx, req, nil)
	if err == nil && strings.TrimSpace(reply.Text) == "" {
		err = errors.New("the model's summary was empty")
	}
	if err != nil {
		a.emit(CompactionFailed{Turn: turn, Reason: string(reason), Error: err.Error(), At: Time{a.clock().Now()}})
		return err
	}
	reply = a.priced(reply)
	s.Usage = s.Usage.Add(reply.Usage)
	replies := 0
	for _, m := range old {
		replies += m.Summarizes
		if m.Role == model.RoleAssistant {
			replies++
		}
	}
	summary := strings.TrimSpace(reply.Text)
	msg := model.Message{Role: model.RoleUser, Text: feedback.CompactedHistory(summary, s.Memory.Snapshot()), Summarizes: replies}
	s.ReplaceOlder(1, cut, msg)
	after := s.meter.estimate(r.request())
	a.emit(Compacted{
		Turn: turn, Reason: string(reason), From: 1, To: cut, Text: msg.Text, Summarizes: replies, Summary: summary,
		Replies: replies, TokensBefore: before, TokensAfter: after, Window: window, Usage: reply.Usage,
		Context: a.ContextPolicy().use(after), At: Time{a.clock().Now()},
	})
	return nil
}

// overflowed words the failure of a turn the provider refused as too long:
// after compacting the conversation once (compacted), or because it had
// nothing older to compact (cause says why not).
func (r *run) overflowed(err error, compacted bool, cause error) string {
	p := r.agent.ContextPolicy()
	window := "its size is not known"
	switch {
	case p.Window > 0 && p.Guessed:
		window = fmt.Sprintf("guessed at %d tokens: set context_window in the configuration if it is larger", p.Window)
	case p.Window > 0:
		window = fmt.Sprintf("%d tokens", p.Window)
	}
	msg := fmt.Sprintf("the model failed: %v; the request, about %d tokens, is longer than the context window of %s (%s)",
		err, r.session.meter.estimate(r.request()), r.agent.Model.Name(), window)
	if compacted {
		return msg + " even after the conversation was compacted"
	}
	return msg + ", and the conversation could not be compacted: " + cause.Error()
}
