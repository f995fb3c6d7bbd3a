package tui

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/callview"
)

// Bridge carries what the runtime does into the console: the run's events,
// approval requests, and the end of each run. It is the runtime's Sink and
// the policy's Approver.
//
// The runtime must never wait for the screen, so the Bridge keeps an
// unbounded queue: Sink and Approve only append to it under a mutex. The
// console takes everything queued at once and applies it as one message, in
// order, so a burst of events (text deltas, a reply's calls finishing
// together) costs one redraw, and events are never reordered with the
// approval requests that follow them.
type Bridge struct {
	now func() time.Time

	mu     sync.Mutex // guards queue and closed
	queue  []any
	closed bool
	wake   chan struct{} // has a token when queue may be non-empty
	done   chan struct{} // closed by Close

	nextID atomic.Uint64
}

// NewBridge returns an empty Bridge. now tells the time for the "waiting
// since" of approval requests; nil means time.Now.
func NewBridge(now func() time.Time) *Bridge {
	if now == nil {
		now = time.Now
	}
	return &Bridge{now: now, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// eventsMsg is everything the Bridge queued since the console last looked,
// in the order it happened.
type eventsMsg []any

// approvalRequest is a call waiting for the person, and where to send the
// answer. The board shows the Request; only Model.respond sends on answer.
type approvalRequest struct {
	callview.Request
	// answer has room for one answer, so answering never blocks the
	// console even when the runtime has stopped waiting.
	answer chan approval.Answer
}

// approvalGone says the runtime stopped waiting for a request (the turn was
// stopped), so it must leave the board.
type approvalGone struct{ id uint64 }

// runDone says a run's goroutine returned with its outcome. It is queued
// after every event of the run.
type runDone struct {
	run     *activeRun
	outcome runtime.GoalOutcome
}

func (b *Bridge) push(item any) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, item)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Sink receives one runtime event; use the method value b.Sink as the
// agent's runtime.Sink. It never blocks on the screen.
func (b *Bridge) Sink(e runtime.Event) { b.push(e) }

// Approve implements approval.Approver: it shows the request on the call
// board and blocks until the person answers or ctx ends. Many requests may
// wait at once, each in its own goroutine.
func (b *Bridge) Approve(ctx context.Context, req approval.Request) approval.Answer {
	r := approvalRequest{Request: callview.Request{ID: b.nextID.Add(1), Req: req, Since: b.now()}, answer: make(chan approval.Answer, 1)}
	b.push(r)
	select {
	case a := <-r.answer:
		return a
	case <-ctx.Done():
		b.push(approvalGone{id: r.ID})
		return approval.Answer{}
	case <-b.done:
		// The console is gone: nobody can approve, so the call is skipped.
		return approval.SkipWith("the console was closed")
	}
}

// Open hands the console the session it shows, once Options.Open has made
// it ready. It is queued like an event, so the session's history is shown
// before anything that happens after it.
func (b *Bridge) Open(o Opened) { b.push(o) }

// Servers reports the state of every MCP server; the console shows the
// latest report in its header. Call it whenever a server's state or tools
// change; it never blocks.
func (b *Bridge) Servers(s []Server) { b.push(serversMsg(slices.Clone(s))) }

// Waiting says the run waits for something before its first turn, such as
// "MCP servers to start"; empty says it no longer does. The console shows
// it where it would say the model is replying.
func (b *Bridge) Waiting(what string) { b.push(waitingMsg(what)) }

// AskTrust asks the trust question again while the session runs, as when
// a workspace's hook is found changed since the person trusted it: the
// screen shows r in place of any question it shows, and the answer calls
// r.Answer and opens nothing. It never blocks.
func (b *Bridge) AskTrust(r *TrustRequest) { b.push(r) }

// serversMsg is the latest report of the MCP servers.
type serversMsg []Server

// waitingMsg is what the run waits for before its first turn.
type waitingMsg string

// Close stops the Bridge: later events are dropped, waiting approvals are
// skipped, and the console stops listening.
func (b *Bridge) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
}

// wait returns a command that delivers the next batch of queued items. The
// console issues one at a time, so batches arrive in order; while nothing
// happens it is blocked in a channel receive and costs nothing.
func (b *Bridge) wait() tea.Cmd {
	return func() tea.Msg {
		for {
			select {
			case <-b.wake:
			case <-b.done:
				return nil
			}
			b.mu.Lock()
			items := b.queue
			b.queue = nil
			b.mu.Unlock()
			if len(items) > 0 {
				return eventsMsg(items)
			}
		}
	}
}
