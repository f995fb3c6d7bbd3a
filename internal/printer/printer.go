// Package printer shows a headless run (agenttui run) as it goes: for a
// person, one line per reply, call and notice, sanitised, on stderr, and the
// outcome on stdout; or for a program, one JSON event per line.
package printer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// JSON returns a sink that writes one JSON object per event line to w,
// flushing after each so that a reader sees events as they happen: the
// stream of agenttui run --json.
func JSON(w *bufio.Writer) runtime.Sink {
	return func(e runtime.Event) {
		b, err := runtime.EncodeEvent(e)
		if err != nil {
			b, _ = json.Marshal(map[string]string{"type": "error", "error": err.Error()})
		}
		w.Write(b)
		w.WriteByte('\n')
		w.Flush()
	}
}

// Outcome prints the outcome for a person: the summary and extracted data,
// the failure report, or the question.
func Outcome(w io.Writer, o runtime.GoalOutcome) {
	switch o.Status {
	case runtime.StatusSucceeded:
		fmt.Fprintf(w, "Succeeded: %s\n", sanitize.Text(o.Summary))
		if len(o.ExtractedData) > 0 {
			var pretty strings.Builder
			var v any
			if json.Unmarshal(o.ExtractedData, &v) == nil {
				b, _ := json.MarshalIndent(v, "", "  ")
				pretty.Write(b)
			} else {
				pretty.Write(o.ExtractedData)
			}
			fmt.Fprintf(w, "Extracted data:\n%s\n", sanitize.Text(pretty.String()))
		}
	case runtime.StatusFailed:
		fmt.Fprintf(w, "Failed: %s\nFailing step: %s\n", sanitize.Text(o.FailingSubGoal), sanitize.Text(o.FailingStep))
		for _, a := range o.Attempts {
			fmt.Fprintf(w, "  - %s\n", sanitize.Line(a))
		}
	case runtime.StatusRefused:
		fmt.Fprintf(w, "The agent asks: %s\n(answer it with --answer \"…\")\n", sanitize.Text(o.Summary))
	}
}

// Progress prints a run's events for a person, as agenttui run does on
// stderr. Everything that comes from the model or a tool is sanitised
// first.
type Progress struct {
	mu        sync.Mutex // guards everything below; the runtime sends events from several goroutines
	w         io.Writer
	workspace string
	// shell says whether shell commands run in a sandbox; it is printed
	// with the session line.
	shell string
	// trace is the session's trace id, said at the first run; empty when
	// traces are off.
	trace     string
	traceSaid bool
	names     map[int]string
	// task is set on the Progress that prints one task's run, inside its
	// parent's; tasks are those of the tasks this run started, by path.
	task  bool
	tasks map[string]*Progress
}

// New returns a Progress that prints to w, showing paths relative to
// workspace.
func New(w io.Writer, workspace string) *Progress { return &Progress{w: w, workspace: workspace} }

// SetSession gives what the session line says once the session is set up:
// the workspace it works in (a scenario's playground is made only then),
// whether shell commands run in a sandbox, and the session's trace (empty
// when traces are off).
func (p *Progress) SetSession(workspace, shell, trace string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.workspace, p.shell, p.trace = workspace, shell, trace
}

// Event prints one event; it is a runtime.Sink.
func (p *Progress) Event(e runtime.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if te, ok := e.(runtime.TaskEvent); ok {
		p.taskEvent(te)
		return
	}
	switch ev := e.(type) {
	case runtime.RunStarted:
		if p.task {
			fmt.Fprintf(p.w, "› %s\n", sanitize.Line(ev.Input))
			return
		}
		switch {
		case ev.Resumed:
			// A resumed run carries on where the journal ends; it has no
			// input of its own.
			fmt.Fprintf(p.w, "agenttui: resuming session %s · model %s · mode %s · workspace %s\n",
				ev.Session, sanitize.Line(ev.Model), ev.Mode, sanitize.Line(p.workspace))
			p.shellLine()
			p.sayTrace()
			return
		case ev.Input == ev.Goal:
			fmt.Fprintf(p.w, "agenttui: session %s · model %s · mode %s · workspace %s\n",
				ev.Session, sanitize.Line(ev.Model), ev.Mode, sanitize.Line(p.workspace))
			p.shellLine()
		}
		p.sayTrace()
		fmt.Fprintf(p.w, "› %s\n", sanitize.Line(ev.Input))
	case runtime.ReplyReceived:
		p.names = map[int]string{}
		for _, r := range ev.Reasoning {
			if r.Hidden() {
				fmt.Fprintf(p.w, "turn %d · thinking: reasoning hidden by the provider\n", ev.Turn)
			} else if t := strings.TrimSpace(r.Text); t != "" {
				fmt.Fprintf(p.w, "turn %d · thinking: %s\n", ev.Turn, short(sanitize.Line(t), 100))
			}
		}
		if t := strings.TrimSpace(ev.Text); t != "" {
			fmt.Fprintf(p.w, "turn %d · %s\n", ev.Turn, sanitize.Line(t))
		} else {
			fmt.Fprintf(p.w, "turn %d\n", ev.Turn)
		}
		for _, c := range ev.Calls {
			p.names[c.Index] = c.Name
			fp := "invalid"
			if c.Touches != nil {
				fp = p.relative(c.Touches.String())
			}
			switch {
			case c.Sandbox == nil:
			case c.Sandbox.Sandboxed:
				fp += " · sandboxed"
			case c.Sandbox.Escalated:
				fp += " · asks to run unsandboxed"
			default:
				fp += " · not sandboxed"
			}
			fmt.Fprintf(p.w, "  #%d %s %s  [%s] batch %d\n", c.Index+1, sanitize.Line(c.Name),
				short(sanitize.Line(string(c.Args)), 60), sanitize.Line(fp), c.Batch)
		}
		if ev.Cut != nil {
			fmt.Fprintf(p.w, "  (cut by the output limit inside a call to %s)\n", sanitize.Line(ev.Cut.Name))
		}
	case runtime.InvalidReply:
		fmt.Fprintf(p.w, "  invalid reply, nothing ran:\n")
		for i, r := range ev.Results {
			fmt.Fprintf(p.w, "    #%d %s\n", i+1, short(sanitize.Line(r), 160))
		}
	case runtime.CallDecision:
		if ev.Decision == runtime.DecisionRun {
			return
		}
		fmt.Fprintf(p.w, "  #%d %s: %s by %s\n", ev.Index+1, sanitize.Line(p.names[ev.Index]), ev.Decision, sanitize.Line(ev.By))
	case runtime.CallRetried:
		fmt.Fprintf(p.w, "  #%d retry: attempt %d of %d in %d ms after %s\n", ev.Index+1, ev.Attempt, ev.MaxAttempts, ev.BackoffMS,
			sanitize.Line(ev.Failure))
	case runtime.CallFinished:
		status := ev.Outcome
		if words, ok := tool.ProcessEnd(ev.Code); ok {
			status += ": " + words
		} else if ev.Kind != nil {
			status += " " + *ev.Kind
		}
		if ev.NotFinished {
			status = "not finished"
		}
		if d := ev.Diffstat; d != nil {
			status += fmt.Sprintf(", +%d −%d", d.Added, d.Removed)
		}
		fmt.Fprintf(p.w, "  #%d %s → %s (%d ms): %s\n", ev.Index+1, sanitize.Line(ev.Name), status, ev.DurationMS,
			short(sanitize.Line(ev.Result), 100))
	case runtime.Notice:
		fmt.Fprintf(p.w, "%s: %s\n", ev.Level, sanitize.Line(ev.Text))
	case runtime.HookRan:
		p.hookRan(ev)
	case runtime.RunContinued:
		fmt.Fprintf(p.w, "  the Stop hook %s sent the agent on: %s\n", sanitize.Line(approval.ParseDecider(ev.By).Label),
			short(sanitize.Line(ev.Reason), 160))
	case runtime.CompactionStarted:
		fmt.Fprintf(p.w, "compacting the conversation (%s, about %d tokens of a %d-token window)…\n", ev.Reason, ev.Tokens, ev.Window)
	case runtime.Compacted:
		fmt.Fprintf(p.w, "context compacted: %s → a summary of about %d tokens; the next request is about %d tokens; "+
			"the prompt cache starts again\n", plural.Of(ev.Replies, "turn"), (len(ev.Summary)+3)/4, ev.TokensAfter)
	case runtime.RunFinished:
		if p.task {
			fmt.Fprintf(p.w, "%s\n", short(sanitize.Line(outcomeLine(ev.Outcome)), 160))
			return
		}
		if ev.Usage != nil && ev.Usage.Tokens() > 0 {
			fmt.Fprintf(p.w, "agenttui: %s\n", ev.Usage)
		}
	case runtime.CompactionFailed:
		fmt.Fprintf(p.w, "the conversation could not be compacted: %s\n", sanitize.Line(ev.Error))
	case runtime.ModelRetry:
		// The reply text is printed only once whole, so nothing the failed
		// attempt streamed was shown.
		fmt.Fprintf(p.w, "turn %d · retrying: %s (attempt %d of %d, in %.1f s)\n", ev.Turn, sanitize.Line(ev.Why),
			ev.Attempt, ev.Max, float64(ev.WaitMS)/1000)
	}
}

// hookRan prints a hook command that decided something or gave context;
// its failures are said by the notice that follows.
func (p *Progress) hookRan(ev runtime.HookRan) {
	if ev.Decision == "" && ev.Context == "" {
		return
	}
	where := ev.Event
	if ev.Index != nil {
		where = fmt.Sprintf("%s #%d", ev.Event, *ev.Index+1)
	}
	what := ev.Decision
	if what == "" {
		what = "context"
	}
	line := fmt.Sprintf("  hook %s (%s): %s", short(sanitize.Line(ev.Command), 60), where, what)
	if ev.Reason != "" {
		line += ": " + short(sanitize.Line(ev.Reason), 160)
	}
	fmt.Fprintln(p.w, line)
}

// taskEvent prints an event of a task's run, each line indented by how
// deep the task is and marked with the call that runs it ("task #2"), so
// the runs of tasks side by side can be told apart.
func (p *Progress) taskEvent(te runtime.TaskEvent) {
	key := strings.Join(te.Task, "/")
	sub := p.tasks[key]
	if sub == nil {
		label := "task"
		for _, id := range te.Task {
			if _, index, ok := runtime.ParseTaskID(id); ok {
				label += fmt.Sprintf(" #%d", index+1)
			}
		}
		prefix := strings.Repeat("  ", len(te.Task)) + label + " │ "
		sub = &Progress{w: &prefixed{w: p.w, prefix: prefix, start: true}, workspace: p.workspace, task: true}
		if p.tasks == nil {
			p.tasks = map[string]*Progress{}
		}
		p.tasks[key] = sub
	}
	sub.Event(te.Event)
}

// outcomeLine says how a task's run ended, in one line.
func outcomeLine(o runtime.GoalOutcome) string {
	switch o.Status {
	case runtime.StatusSucceeded:
		return "succeeded: " + o.Summary
	case runtime.StatusRefused:
		return "asks: " + o.Summary
	}
	last := ""
	if n := len(o.Attempts); n > 0 {
		last = ": " + o.Attempts[n-1]
	}
	return "failed at " + o.FailingStep + last
}

// prefixed writes to w with prefix at the start of every line.
type prefixed struct {
	w      io.Writer
	prefix string
	start  bool // the next byte starts a line
}

func (p *prefixed) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if p.start {
			if _, err := io.WriteString(p.w, p.prefix); err != nil {
				return 0, err
			}
			p.start = false
		}
		i := strings.IndexByte(string(b), '\n')
		if i < 0 {
			_, err := p.w.Write(b)
			return n, err
		}
		if _, err := p.w.Write(b[:i+1]); err != nil {
			return 0, err
		}
		b = b[i+1:]
		p.start = true
	}
	return n, nil
}

// shellLine says whether shell commands run in a sandbox, once per session.
func (p *Progress) shellLine() {
	if p.shell != "" {
		fmt.Fprintf(p.w, "agenttui: %s\n", p.shell)
		p.shell = ""
	}
}

// sayTrace names the session's trace, once, when it is traced.
func (p *Progress) sayTrace() {
	if p.trace != "" && !p.traceSaid {
		fmt.Fprintf(p.w, "agenttui: trace %s\n", p.trace)
		p.traceSaid = true
	}
}

// short cuts s to n runes with an ellipsis.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// relative shortens workspace paths in s for display.
func (p *Progress) relative(s string) string {
	s = strings.ReplaceAll(s, p.workspace+"/", "")
	return strings.ReplaceAll(s, p.workspace, ".")
}
