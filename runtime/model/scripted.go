package model

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agenttui/agenttui/runtime/tool"
)

// Scripted is a Model that plays a Scenario. It takes its position from the
// conversation it is given, counting the replies already in it, so a resumed
// or continued conversation carries on from the right step. It holds no
// mutable state and is safe for concurrent use.
type Scripted struct {
	name     string
	scenario *Scenario
	// sleep waits for d or until ctx is done; tests replace it so that no
	// test waits on the wall clock.
	sleep func(ctx context.Context, d time.Duration) error
}

// NewScripted returns a model that plays sc under the given name, such as
// "demo" or "scenario:refactor".
func NewScripted(name string, sc *Scenario) *Scripted {
	return &Scripted{name: name, scenario: sc, sleep: sleepCtx}
}

// WithoutDelays returns a copy of m that ignores the steps' delays.
func (m *Scripted) WithoutDelays() *Scripted {
	c := *m
	c.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return &c
}

// WithSpeed returns a copy of m whose delays are divided by speed: 2 plays
// the scenario twice as fast. A speed that is not positive changes nothing.
func (m *Scripted) WithSpeed(speed float64) *Scripted {
	if speed <= 0 || speed == 1 {
		return m
	}
	c := *m
	sleep := m.sleep
	c.sleep = func(ctx context.Context, d time.Duration) error {
		return sleep(ctx, time.Duration(float64(d)/speed))
	}
	return &c
}

// ForTask returns the model that plays the task described description: the
// script the scenario gives that task, with m's name and pace. It fails when
// the scenario scripts no such task.
func (m *Scripted) ForTask(description string) (*Scripted, error) {
	ts, ok := m.scenario.Tasks[description]
	if !ok {
		return nil, fmt.Errorf("the scenario scripts no task described %q", description)
	}
	c := *m
	c.scenario = &Scenario{Name: m.scenario.Name, Steps: ts.Steps}
	return &c, nil
}

// Scenario returns the scenario the model plays.
func (m *Scripted) Scenario() *Scenario { return m.scenario }

// Name returns the model's name.
func (m *Scripted) Name() string { return m.name }

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Reply plays the step after the replies already in req.Messages, those a
// compaction summarised included. A request for a summary (Request.Compact)
// is not a step: it is answered with a summary made from the request.
func (m *Scripted) Reply(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	if req.Compact {
		return m.summary(ctx, req)
	}
	made := 0
	for _, msg := range req.Messages {
		made += msg.Summarizes
		if msg.Role == RoleAssistant {
			made++
		}
	}
	if made >= len(m.scenario.Steps) {
		if len(m.scenario.Steps) == 1 {
			return Reply{}, fmt.Errorf("%w: its one step has been played", ErrScriptEnded)
		}
		return Reply{}, fmt.Errorf("%w: it has %d steps and all of them have been played", ErrScriptEnded, len(m.scenario.Steps))
	}
	n := made + 1
	step := m.scenario.Steps[made].played(req.Messages)
	read := readSinceLastReply(req.Messages)
	for _, want := range step.Expect {
		if !strings.Contains(read, want) {
			return Reply{}, fmt.Errorf("%w: step %d expected the model to have read %q, but it was not there", ErrScriptEnded, n, want)
		}
	}
	if err := m.stream(ctx, step, onDelta); err != nil {
		return Reply{}, err
	}
	reply := Reply{Text: step.Text, Stop: StopEnd}
	if step.Thinking != "" {
		reply.Reasoning = []Reasoning{{Source: m.name, Kind: ReasoningThinking, Text: step.Thinking, Tokens: len(step.Thinking) / 4}}
	}
	for i, c := range step.Calls {
		reply.Calls = append(reply.Calls, tool.Call{ID: callID(c, n, i), Name: c.Name, Arguments: c.arguments()})
	}
	if len(reply.Calls) > 0 {
		reply.Stop = StopToolCalls
	}
	if step.Cut != nil {
		reply.Cut = &tool.Call{ID: callID(*step.Cut, n, len(step.Calls)), Name: step.Cut.Name, Arguments: step.Cut.arguments()}
		reply.Stop = StopOutputLimit
	}
	out := utf8.RuneCountInString(step.Text) + utf8.RuneCountInString(step.Thinking)
	for _, c := range reply.Calls {
		out += len(c.Name) + len(c.Arguments)
	}
	if reply.Cut != nil {
		out += len(reply.Cut.Name) + len(reply.Cut.Arguments)
	}
	reply.Usage = Usage{InputTokens: approxTokens(req), OutputTokens: out / 4, ReasoningTokens: len(step.Thinking) / 4}
	return reply, nil
}

// summary answers a summary request: it names how much history it was
// given and quotes the first person's line of it, so a test can see what a
// compaction kept.
func (m *Scripted) summary(ctx context.Context, req Request) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, err
	}
	var history string
	if len(req.Messages) > 0 {
		history = req.Messages[0].Text
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(history, "PERSON: "), "\n")
	text := fmt.Sprintf("Summary of the session so far (%d bytes of history, written by the scripted model). Goal: %s", len(history), first)
	return Reply{Text: text, Stop: StopEnd, Usage: Usage{InputTokens: approxTokens(req), OutputTokens: len(text) / 4}}, nil
}

// stream passes the step's thinking and then its text to onDelta, each in a
// few pieces spread over its share of the delay, the way a real model's
// reply arrives.
func (m *Scripted) stream(ctx context.Context, step Step, onDelta func(Delta)) error {
	delay := time.Duration(step.DelayMS) * time.Millisecond
	if onDelta == nil || step.Text == "" && step.Thinking == "" {
		return m.sleep(ctx, delay)
	}
	if step.Thinking != "" {
		share := delay
		if step.Text != "" {
			share = delay / 2
		}
		delay -= share
		if err := m.pieces(ctx, step.Thinking, share, func(s string) Delta { return Delta{Thinking: s} }, onDelta); err != nil {
			return err
		}
	}
	if step.Text == "" {
		return nil
	}
	return m.pieces(ctx, step.Text, delay, func(s string) Delta { return Delta{Text: s} }, onDelta)
}

// pieces passes text to onDelta in up to eight pieces of whole words, spread
// over delay.
func (m *Scripted) pieces(ctx context.Context, text string, delay time.Duration, delta func(string) Delta, onDelta func(Delta)) error {
	words := strings.SplitAfter(text, " ")
	const pieces = 8
	per := (len(words) + pieces - 1) / pieces
	chunks := 0
	for i := 0; i < len(words); i += per {
		chunks++
	}
	for i := 0; i < len(words); i += per {
		if err := m.sleep(ctx, delay/time.Duration(chunks)); err != nil {
			return err
		}
		onDelta(delta(strings.Join(words[i:min(i+per, len(words))], "")))
	}
	return nil
}

func callID(c ScriptedCall, step, index int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", step, index)
}

// readSinceLastReply returns the text the model reads since its last reply:
// the results of that reply's calls and the user messages after it.
func readSinceLastReply(msgs []Message) string {
	start := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant {
			start = i + 1
			break
		}
	}
	var b strings.Builder
	for _, msg := range msgs[start:] {
		b.WriteString(msg.Text)
		b.WriteByte('\n')
		for _, r := range msg.Results {
			b.WriteString(r.Content)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// readSoFar returns the text the model has read in the whole conversation:
// every tool result and user message, but not its own replies.
func readSoFar(msgs []Message) string {
	var b strings.Builder
	for _, msg := range msgs {
		if msg.Role == RoleAssistant {
			continue
		}
		b.WriteString(msg.Text)
		b.WriteByte('\n')
		for _, r := range msg.Results {
			b.WriteString(r.Content)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// approxTokens estimates the request's input tokens at four characters a
// token, so the scripted model's usage figures move like a real model's.
func approxTokens(req Request) int {
	n := utf8.RuneCountInString(req.System)
	for _, m := range req.Messages {
		n += utf8.RuneCountInString(m.Text)
		for _, c := range m.Calls {
			n += len(c.Arguments)
		}
		for _, r := range m.Results {
			n += utf8.RuneCountInString(r.Content)
		}
	}
	return n / 4
}
