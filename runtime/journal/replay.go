package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/provenance"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Replay is a session rebuilt from its journal.
type Replay struct {
	// Header is the journal's first line.
	Header Header
	// Path is the journal file.
	Path string
	// Events are every recorded event, in order, so a console can show the
	// earlier transcript.
	Events []runtime.Event
	// Session is the conversation rebuilt from the events.
	Session *runtime.Session
	// Interrupted is the reply that was running when the session stopped;
	// nil when it stopped between turns or at rest.
	Interrupted *runtime.Interrupted
	// LastOutcome is the outcome of the last run, when it was recorded.
	LastOutcome *runtime.GoalOutcome
	// AtRest says the last run ended and its outcome was recorded: there is
	// nothing to carry on until the person says more.
	AtRest bool
	// Warnings are problems that were tolerated, such as a torn last line.
	Warnings []string
	// LastActivity is the time of the last recorded event.
	LastActivity time.Time

	// validBytes is the length of the file up to the last whole line.
	validBytes int64
}

// ErrNoSession is returned by Find when no journal has the id.
var ErrNoSession = errors.New("no such session")

// Load reads and rebuilds the session journaled at path. A torn or damaged
// last line — the process stopped while writing it — is ignored and reported
// in Warnings; damage anywhere else, a missing header or another format
// version is an error.
func Load(path string) (*Replay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist", ErrNoSession, path)
		}
		return nil, fmt.Errorf("reading the journal %s: %w", path, err)
	}
	return parse(path, data)
}

// parse rebuilds the session journaled in data, read from path.
func parse(path string, data []byte) (*Replay, error) {
	rp := &Replay{Path: path}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("the journal %s is empty: the session stopped before it began, so there is nothing to resume", path)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if last := lines[len(lines)-1]; len(last) == 0 {
		lines = lines[:len(lines)-1]
	}
	var offset int64
	b := newBuilder()
	for i, raw := range lines {
		isLast := i == len(lines)-1
		complete := bytes.HasSuffix(raw, []byte("\n"))
		line := bytes.TrimSpace(raw)
		if i == 0 {
			if !complete {
				return nil, fmt.Errorf("the journal %s is truncated: its header line is incomplete, so the session cannot be resumed", path)
			}
			if err := rp.readHeader(line); err != nil {
				return nil, fmt.Errorf("the journal %s: %w", path, err)
			}
			if !isSessionID(rp.Header.Session) {
				return nil, &DamageError{Path: path, Line: 1, Problem: fmt.Sprintf("the header names the session %s, which is not a session id",
					quoted(rp.Header.Session))}
			}
			offset += int64(len(raw))
			continue
		}
		if !complete {
			rp.Warnings = append(rp.Warnings, fmt.Sprintf("the last line of the journal (line %d) was cut off "+
				"when the session stopped while writing it; it was ignored", i+1))
			break
		}
		e, err := runtime.DecodeEvent(line)
		if err != nil {
			if isLast {
				rp.Warnings = append(rp.Warnings, fmt.Sprintf("the last line of the journal (line %d) is damaged (%s); it was ignored", i+1,
					printable(err.Error())))
				break
			}
			return nil, &DamageError{Path: path, Line: i + 1, Problem: printable(err.Error())}
		}
		if err := b.check(e); err != nil {
			return nil, &DamageError{Path: path, Line: i + 1, Problem: err.Error()}
		}
		offset += int64(len(raw))
		rp.Events = append(rp.Events, e)
		b.apply(e)
	}
	rp.validBytes = offset
	b.finish(rp)
	return rp, nil
}

func (rp *Replay) readHeader(line []byte) error {
	var probe struct {
		Type    string `json:"type"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(line, &probe); err != nil || probe.Type != "header" {
		return errors.New("its first line is not an agenttui journal header")
	}
	if probe.Version != Version {
		return fmt.Errorf("it was written in journal format version %d, and this agenttui reads version %d; "+
			"resume it with the agenttui that wrote it", probe.Version, Version)
	}
	return json.Unmarshal(line, &rp.Header)
}

// builder rebuilds the conversation from events.
type builder struct {
	session *runtime.Session
	// pending is the reply being run: its calls, and what the journal knows
	// of each.
	pending     *model.Message
	pendingTurn int
	calls       []runtime.InterruptedCall
	outcome     *runtime.GoalOutcome
	atRest      bool
	last        time.Time
	warnings    []string
	// tasks are the calls each task finished, by task id, from the events
	// of the tasks' own runs; tasks inside tasks are left to their parent.
	tasks map[string]*runtime.TaskLog
}

func newBuilder() *builder { return &builder{session: runtime.NewSession("")} }

func (b *builder) apply(e runtime.Event) {
	s := b.session
	if t, ok := e.(runtime.TaskEvent); ok {
		// A task's run has a conversation of its own, which is never
		// resumed: only what it finished matters, to tell the model.
		if cf, ok := t.Event.(runtime.CallFinished); ok && cf.Source != nil {
			// What a task's agent read counts for the session's later
			// calls too.
			s.ReplayResult(cf.Result, provenance.Ref{Turn: cf.Turn, Index: cf.Index, Tool: cf.Name, Task: t.Task, Source: *cf.Source})
		}
		if len(t.Task) == 1 {
			if b.tasks == nil {
				b.tasks = map[string]*runtime.TaskLog{}
			}
			log := b.tasks[t.Task[0]]
			if log == nil {
				log = &runtime.TaskLog{}
				b.tasks[t.Task[0]] = log
			}
			log.Add(t.Event)
		}
		return
	}
	switch ev := e.(type) {
	case runtime.RunStarted:
		b.last = ev.At.Time
		s.ID = ev.Session
		if ev.Blocked != "" {
			// A hook blocked the input: the model never saw it, and the
			// run ended at once.
			return
		}
		if s.Goal == "" {
			s.Goal = ev.Goal
		}
		if !ev.Resumed {
			s.AppendInput(ev.Input, ev.Note)
			s.Note = ""
		}
		b.atRest = false
	case runtime.RunContinued:
		// A Stop hook sent the agent on: the model read its message.
		s.Messages = append(s.Messages, model.Message{Role: model.RoleUser, Text: ev.Text})
	case runtime.TurnStarted:
		b.last = ev.At.Time
	case runtime.ReplyReceived:
		msg := model.Message{Role: model.RoleAssistant, Text: ev.Text, Reasoning: ev.Reasoning}
		for _, c := range ev.Calls {
			args := string(c.Args)
			if c.Raw != "" {
				args = c.Raw
			}
			msg.Calls = append(msg.Calls, tool.Call{ID: c.ID, Name: c.Name, Arguments: args})
		}
		if ev.Cut != nil {
			msg.Cut = &tool.Call{ID: ev.Cut.ID, Name: ev.Cut.Name, Arguments: ev.Cut.Raw}
		}
		s.AppendReply(ev.Turn, msg)
		b.pending = &msg
		b.pendingTurn = ev.Turn
		b.calls = make([]runtime.InterruptedCall, len(msg.Calls))
		for i, c := range ev.Calls {
			if c.RewrittenBy != "" && i < len(b.calls) {
				b.calls[i].Rewritten, b.calls[i].RewrittenBy, b.calls[i].RewrittenByWorkspace = c.Args, c.RewrittenBy, c.RewrittenByWorkspace
			}
		}
	case runtime.InvalidReply:
		if b.pending == nil {
			return
		}
		if len(b.pending.Calls) == 0 && b.pending.Cut == nil && len(ev.Results) == 1 {
			// Text cut by the output limit: the runtime told the model so
			// in a message of its own.
			s.Messages = append(s.Messages, model.Message{Role: model.RoleUser, Text: ev.Results[0]})
			b.pending = nil
			return
		}
		var results []tool.Result
		all := append([]tool.Call{}, b.pending.Calls...)
		if b.pending.Cut != nil {
			all = append(all, *b.pending.Cut)
		}
		for i, text := range ev.Results {
			r := tool.Result{Content: text, IsError: true}
			if i < len(all) {
				r.CallID, r.Name = all[i].ID, all[i].Name
			}
			results = append(results, r)
		}
		s.Messages = append(s.Messages, model.Message{Role: model.RoleTool, Results: results})
		b.pending = nil
	case runtime.CallStarted:
		b.last = ev.At.Time
		// check made sure the call is one of the open reply's.
		b.calls[ev.Index].Started = true
	case runtime.CallFinished:
		b.last = ev.At.Time
		c := b.pending.Calls[ev.Index]
		b.calls[ev.Index].Finished = &runtime.FinishedCall{Outcome: ev.Full, Result: tool.Result{
			CallID: c.ID, Name: c.Name, Content: ev.Result, IsError: ev.Outcome != "success"}}
		if ev.Started {
			b.calls[ev.Index].Started = true
		}
		if c.Name == runtime.Remember && ev.Outcome == "success" {
			s.ReplayRemember(json.RawMessage(c.Arguments))
		}
		if ev.Source != nil {
			s.ReplayResult(ev.Result, provenance.Ref{Turn: ev.Turn, Index: ev.Index, Tool: ev.Name, Source: *ev.Source})
		}
	case runtime.TurnEnded:
		if b.pending == nil || ev.Turn != b.pendingTurn {
			return
		}
		if len(b.calls) > 0 {
			results := make([]tool.Result, len(b.calls))
			for i, c := range b.calls {
				if c.Finished == nil {
					// A turn cannot end with a call unsettled; if the journal
					// says otherwise, keep the reply open and resume it.
					return
				}
				results[i] = c.Finished.Result
			}
			s.Messages = append(s.Messages, model.Message{Role: model.RoleTool, Results: results})
		}
		b.pending = nil
	case runtime.UsageReported:
		s.Usage = ev.Total
		s.ReplayUsage(ev.Usage)
	case runtime.Compacted:
		// The conversation as the model saw it from here on: the older
		// part replaced by the summary, exactly as the run replaced it. A
		// compaction whose result was not recorded changed nothing.
		msg := model.Message{Role: model.RoleUser, Text: ev.Text, Summarizes: ev.Summarizes}
		if b.pending != nil || !s.ReplaceOlder(ev.From, ev.To, msg) {
			b.warnings = append(b.warnings, fmt.Sprintf("a compaction before turn %d does not fit the conversation "+
				"recorded before it; it was ignored", ev.Turn))
			return
		}
		s.Usage = s.Usage.Add(ev.Usage)
	case runtime.CheckpointTaken, runtime.CheckpointChanges, runtime.RestoreStarted, runtime.RestoreFinished:
		s.ReplayCheckpoint(e)
	case runtime.RunFinished:
		o := ev.Outcome
		b.outcome = &o
		b.atRest = true
	}
}

func (b *builder) finish(rp *Replay) {
	rp.Session = b.session
	if rp.Session.ID == "" {
		rp.Session.ID = rp.Header.Session
	}
	if rp.Session.Goal == "" {
		rp.Session.Goal = rp.Header.Goal
	}
	rp.Warnings = append(rp.Warnings, b.warnings...)
	rp.LastOutcome = b.outcome
	rp.AtRest = b.atRest
	rp.LastActivity = b.last
	if rp.LastActivity.IsZero() {
		rp.LastActivity = rp.Header.Started
	}
	if b.pending != nil && !b.atRest {
		for i, c := range b.pending.Calls {
			if c.Name != runtime.Task || b.calls[i].Finished != nil {
				continue
			}
			var done []string
			if log := b.tasks[runtime.TaskID(b.pendingTurn, i)]; log != nil {
				done = log.Finished()
			}
			b.calls[i].Partial = feedback.TaskProgress(done)
		}
		rp.Interrupted = &runtime.Interrupted{Turn: b.pendingTurn, Calls: b.calls}
	}
}

// Summary describes a session for "agenttui sessions".
type Summary struct {
	ID           string
	Started      time.Time
	Goal         string
	Outcome      string // succeeded, failed, refused, or "interrupted"
	LastActivity time.Time
	// TraceID is the session's trace, or empty (see Header.TraceID).
	TraceID string
	// Usage is the tokens the session used, and their cost when every
	// model it used is priced.
	Usage model.Usage
}

// Describe summarises a loaded session.
func (rp *Replay) Describe() Summary {
	s := Summary{ID: rp.Header.Session, Started: rp.Header.Started, Goal: rp.Header.Goal, LastActivity: rp.LastActivity,
		Outcome: "interrupted", TraceID: rp.Header.TraceID, Usage: rp.Session.Usage}
	if rp.AtRest && rp.LastOutcome != nil {
		s.Outcome = string(rp.LastOutcome.Status)
	}
	return s
}

// FirstLine returns the first line of text, for one-line listings.
func FirstLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return line
}
