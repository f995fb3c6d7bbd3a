package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressBuffer is how many messages wait for the sender before new ones
// are dropped: the runtime must never wait for a slow client.
const progressBuffer = 256

// shortArgsRunes bounds the short form of a call's arguments in a message.
const shortArgsRunes = 60

// progress turns the events of the runs of one tool call into progress
// notifications for the client that made it: one message per model turn
// and per step of each call. hear makes the messages on the runtime's
// goroutines, without blocking; a goroutine of its own sends them, so that
// a slow client never holds a run back.
type progress struct {
	// mu guards names and closed: hear runs on the runtime's goroutines
	// (and the MCP servers' notices on theirs) while stop closes msgs.
	mu sync.Mutex
	// names holds each call's name and short arguments, as its reply
	// gave them, by callKey.
	names  map[string]string
	closed bool

	msgs chan string
	done chan struct{}
}

// startProgress starts sending the messages of a call's runs to the client
// of ss as progress notifications for token. ctx is the call's: the
// notifications belong to its request.
func startProgress(ctx context.Context, ss *mcp.ServerSession, token any) *progress {
	p := newProgress()
	go p.send(func(n int, msg string) {
		// A client that has gone or cancelled misses the message; the
		// run goes on.
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg})
	})
	return p
}

func newProgress() *progress {
	return &progress{names: map[string]string{}, msgs: make(chan string, progressBuffer), done: make(chan struct{})}
}

// send calls notify with each message and its number, from 1 up, until
// stop closes msgs.
func (p *progress) send(notify func(n int, msg string)) {
	defer close(p.done)
	n := 0
	for msg := range p.msgs {
		n++
		notify(n, msg)
	}
}

// stop ends the messages and waits until every one made so far is sent.
func (p *progress) stop() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.msgs)
	}
	p.mu.Unlock()
	<-p.done
}

// hear makes the message an event calls for, if any, and queues it; a
// message the queue has no room for is dropped.
func (p *progress) hear(ev runtime.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	msg := p.message(ev)
	if msg == "" {
		return
	}
	select {
	case p.msgs <- sanitize.Line(msg):
	default:
	}
}

// message returns what the client is told of ev, or "" for nothing. Events
// of a task's agent say the task first.
func (p *progress) message(ev runtime.Event) string {
	ev, task := runtime.Untag(ev)
	prefix := ""
	if len(task) > 0 {
		prefix = "task " + strings.Join(task, "/") + ": "
	}
	path := strings.Join(task, "/")
	switch e := ev.(type) {
	case runtime.TurnStarted:
		return fmt.Sprintf("%sturn %d: asking the model", prefix, e.Turn)
	case runtime.ReplyReceived:
		for _, c := range e.Calls {
			p.names[callKey(path, e.Turn, c.Index)] = callName(c.Name, c.Args)
		}
	case runtime.CallDecision:
		if e.Decision == runtime.DecisionAsk {
			return fmt.Sprintf("%sturn %d: %s needs approval", prefix, e.Turn, p.name(path, e.Turn, e.Index, ""))
		}
	case runtime.CallStarted:
		msg := fmt.Sprintf("%sturn %d: %s running", prefix, e.Turn, p.name(path, e.Turn, e.Index, e.Name))
		if e.Attempt > 1 {
			msg += fmt.Sprintf(" (attempt %d)", e.Attempt)
		}
		return msg
	case runtime.CallFinished:
		return fmt.Sprintf("%sturn %d: %s %s", prefix, e.Turn, p.name(path, e.Turn, e.Index, e.Name), finishedWord(e))
	}
	return ""
}

// finishedWord says how a call ended, in a word or few.
func finishedWord(e runtime.CallFinished) string {
	switch {
	case e.NotFinished:
		return "not finished"
	case e.Outcome == "success":
		return "succeeded"
	case e.Outcome == "skipped":
		return "skipped"
	case e.Outcome == "denied":
		return "denied"
	case e.Kind != nil:
		if words, ok := tool.ProcessEnd(e.Code); ok {
			return "failed (" + words + ")"
		}
		return "failed (" + *e.Kind + ")"
	}
	return "failed"
}

// name returns how a call is named in messages: its tool and short
// arguments, as its reply gave them; else its tool, or its number.
func (p *progress) name(path string, turn, index int, tool string) string {
	if n, ok := p.names[callKey(path, turn, index)]; ok {
		return n
	}
	if tool != "" {
		return tool
	}
	return fmt.Sprintf("call %d", index+1)
}

// callKey identifies a call among the events of a tool call's runs.
func callKey(path string, turn, index int) string {
	return fmt.Sprintf("%s|%d.%d", path, turn, index)
}

// callName names a call by its tool and a short form of its arguments: its
// path, else its command, else its first string argument, cut to
// shortArgsRunes.
func callName(tool string, args json.RawMessage) string {
	if short := shortArgs(args); short != "" {
		return tool + " " + short
	}
	return tool
}

// shortArgs returns the argument that says most about a call, in the order
// path, command, then the first string argument in the order the model
// wrote them; "" when there is none.
func shortArgs(args json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(args))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	var first, path, command string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := t.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			continue
		}
		switch {
		case key == "path" && path == "":
			path = s
		case key == "command" && command == "":
			command = s
		case first == "":
			first = s
		}
	}
	for _, s := range []string{path, command, first} {
		if s != "" {
			return cut(strings.Join(strings.Fields(s), " "), shortArgsRunes)
		}
	}
	return ""
}
