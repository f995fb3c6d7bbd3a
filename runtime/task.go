package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/agents"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Task is the name of the tool that hands work to a sub-agent.
const Task = "task"

// DefaultTaskTurns is how many model turns a task's run may use when
// Tasks.MaxTurns is not set: fewer than a session's own, since a task is a
// piece of the work.
const DefaultTaskTurns = 30

// DefaultTaskAgent is the agent a task call that names none gets.
const DefaultTaskAgent = "explore"

// Tasks is what the task tool needs to run sub-agents.
type Tasks struct {
	// Agents are the kinds of agent a task may name.
	Agents []agents.Definition
	// Workspace is the workspace's absolute root: a task's writes are
	// paths below it.
	Workspace string
	// Tools returns the tools a task's agent draws on, made for a task that
	// may change only writes (absolute paths; none for a task that only
	// reads): the built-in tools, whose sandboxed shell commands may write
	// only there, and the MCP tools. scratch lists paths beyond writes
	// that the tools may change without it counting as a change of the
	// workspace, such as the shell's temporary folder.
	Tools func(writes []string) (tools []tool.Tool, scratch []string)
	// Model returns the model a task runs on: the agent's own when it
	// names one, else the parent's (parent). The task's description lets
	// a scripted model pick the script the scenario gives that task. Nil
	// means the parent's model always.
	Model func(def agents.Definition, description string, parent model.Model) (model.Model, error)
	// MaxTurns bounds each task's model turns; zero means
	// DefaultTaskTurns.
	MaxTurns int
}

// taskArgs are the task tool's arguments.
type taskArgs struct {
	Description string   `json:"description"`
	Prompt      string   `json:"prompt"`
	Agent       string   `json:"agent"`
	Writes      []string `json:"writes"`
}

// taskTool runs a sub-agent: a run of the same runtime with its own
// conversation and catalogue, which shares the parent's hooks (mode, rules,
// grants and the person), journal and event sink.
type taskTool struct {
	cfg  Tasks
	decl tool.Declaration
}

// NewTaskTool returns the task tool over cfg's agents.
func NewTaskTool(cfg Tasks) tool.Tool {
	names := agents.Names(cfg.Agents)
	enum, _ := json.Marshal(names)
	params := `{"type":"object","properties":{` +
		`"description":{"type":"string","minLength":1,"maxLength":120,"description":"A few words saying what the task is, shown to the person."},` +
		`"prompt":{"type":"string","minLength":1,"description":"The task's goal, complete and self-contained: the agent sees nothing of this conversation."},` +
		`"agent":{"type":"string","enum":` + string(enum) + `,"description":"The kind of agent (default explore)."},` +
		`"writes":{"type":"array","maxItems":32,"items":{"type":"string","minLength":1},"description":"Workspace paths (files or folders, relative to the workspace) the agent may change; ` +
		`an agent that can write changes nothing else. Omit for a task that only reads."}},` +
		`"required":["description","prompt"],"additionalProperties":false}`
	return &taskTool{cfg: cfg, decl: tool.Declaration{
		Name: Task,
		Description: "Hand a piece of work to a sub-agent, which does it with its own conversation and tools and reports back: " +
			"its summary and data when it succeeds, its report when it fails, or its question. Tasks in one reply run side by " +
			"side unless what one may write overlaps what another may write or read, so split independent work into several " +
			"tasks. An agent that can write changes only the paths in writes. The agents:\n" + agents.Describe(cfg.Agents),
		Parameters:  json.RawMessage(params),
		Annotations: tool.Annotations{Title: "Task", Delegates: true},
	}}
}

// Declaration returns the task tool's declaration.
func (t *taskTool) Declaration() tool.Declaration { return t.decl }

// Footprint makes a task that may write Writes(its writes), so tasks whose
// writes overlap never run at once and a task waits behind earlier calls
// that write what it reads; a task that only reads is Independent: it reads
// anything, and is never run again after a restart.
func (t *taskTool) Footprint(raw json.RawMessage) (tool.Touches, error) {
	a, def, err := t.args(raw)
	if err != nil {
		return tool.Touches{}, err
	}
	if len(a.Writes) == 0 || !canWrite(def) {
		return tool.Independent(), nil
	}
	abs, _, err := t.resolve(a.Writes)
	if err != nil {
		return tool.Writes(tool.Anything()), nil
	}
	return tool.Writes(tool.Paths(abs...)), nil
}

// args decodes the arguments and finds the agent they name.
func (t *taskTool) args(raw json.RawMessage) (taskArgs, agents.Definition, error) {
	var a taskArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, agents.Definition{}, err
	}
	if a.Agent == "" {
		a.Agent = DefaultTaskAgent
	}
	def, ok := agents.Find(t.cfg.Agents, a.Agent)
	if !ok {
		return a, def, fmt.Errorf("there is no agent named %q", a.Agent)
	}
	return a, def, nil
}

// canWrite reports whether an agent may use a tool that changes things: the
// built-in general agent, an agent with every tool, or one that names a
// writing tool or an MCP tool (which may write).
func canWrite(def agents.Definition) bool {
	if def.AllTools {
		return true
	}
	for _, name := range def.Tools {
		switch name {
		case "write_file", "edit_file", "run_shell":
			return true
		}
		if strings.Contains(name, "__") {
			return true
		}
	}
	return false
}

// resolve makes a task's writes absolute, cleaned paths inside the
// workspace, and returns them as the person reads them too.
func (t *taskTool) resolve(writes []string) (abs, rel []string, err error) {
	root := filepath.Clean(t.cfg.Workspace)
	for _, w := range writes {
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p = filepath.Clean(p)
		r, err := filepath.Rel(root, p)
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return nil, nil, fmt.Errorf("%s is outside the workspace", w)
		}
		abs = append(abs, p)
		rel = append(rel, r)
	}
	return abs, rel, nil
}

// Call runs the task's agent until it finishes, fails or asks, and returns
// what the model reads of it.
func (t *taskTool) Call(ctx context.Context, raw json.RawMessage) tool.Return {
	a, def, err := t.args(raw)
	if err != nil {
		msg := "task did not run: " + err.Error()
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}
	site := callSiteFrom(ctx)
	if site == nil {
		msg := "a task can only run in an agent's run"
		return tool.Fail(tool.Other(msg), feedback.TaskNotStarted(def.Name, a.Description, msg))
	}
	abs, rel, err := t.resolve(a.Writes)
	if err != nil {
		return tool.Deny(feedback.TaskNotStarted(def.Name, a.Description, "its writes must be paths inside the workspace, and "+err.Error()))
	}
	if len(abs) > 0 && !canWrite(def) {
		return tool.Deny(feedback.TaskNotStarted(def.Name, a.Description,
			fmt.Sprintf("the %s agent only reads, so it takes no writes; name an agent that can write, such as general", def.Name)))
	}
	parent := site.agent
	m := parent.Model
	if t.cfg.Model != nil {
		if m, err = t.cfg.Model(def, a.Description, parent.Model); err != nil {
			return tool.Fail(tool.Other(err.Error()), feedback.TaskNotStarted(def.Name, a.Description, err.Error()))
		}
	}
	var tools []tool.Tool
	var scratch []string
	if t.cfg.Tools != nil {
		tools, scratch = t.cfg.Tools(abs)
	}
	var reach []tool.Tool
	allowed := tool.Paths(append(slices.Clone(abs), scratch...)...).Normalized()
	for _, tl := range tools {
		d := tl.Declaration()
		if d.Name == Task || IsControl(d.Name) || !agentAllows(def, d) {
			continue
		}
		reach = append(reach, tl)
	}
	cat, _ := BuildCatalog(reach...)

	id := TaskID(site.turn, site.index)
	path := []string{id} // shared by the task's events, which no one changes
	log := &TaskLog{}
	pb := parent.budgets()
	turns := t.cfg.MaxTurns
	if turns <= 0 {
		turns = DefaultTaskTurns
	}
	sub := &Agent{
		Model:   m,
		Catalog: cat,
		Hooks:   parent.Hooks,
		// The person's hook commands see a task's calls as they see the
		// session's own, with the task in their input.
		HookCommands: parent.HookCommands,
		taskAgent:    def.Name,
		Sink: func(e Event) {
			log.Add(e)
			if _, nested := e.(TaskEvent); nested {
				site.emit(Tag(id, e))
				return
			}
			site.emit(TaskEvent{Task: path, Event: e})
		},
		MaxParallel:     parent.MaxParallel,
		Budgets:         Budgets{MaxTurns: turns, MaxTime: pb.MaxTime, MaxInvalidReplies: pb.MaxInvalidReplies, CallTimeout: pb.CallTimeout},
		System:          taskSystem(parent.system(), def, rel),
		MaxOutputTokens: parent.MaxOutputTokens,
		MaxResultBytes:  parent.MaxResultBytes,
		Clock:           parent.Clock,
		Mode:            parent.Mode,
		StopGrace:       parent.StopGrace,
		Reasoning:       parent.Effort(),
		Prices:          parent.Prices,
		Durable:         parent.Durable,
		Untrusted:       parent.Untrusted,
		task:            append(slices.Clone(parent.task), id),
		confine:         &confinement{allowed: allowed, writes: rel},
	}
	if m == parent.Model {
		sub.Context = parent.ContextPolicy()
	} else {
		sub.Context = ContextPolicy{AutoCompact: parent.ContextPolicy().AutoCompact}
	}
	sess := NewSession(site.session + "/" + id)
	// The task's prompt is the parent model's text, not the person's;
	// what the task reads counts for the session's later calls too.
	sess.inputFromModel = true
	if site.sess != nil {
		sess.shareOrigins(site.sess)
	}
	out := sub.Run(ctx, sess, a.Prompt)
	site.spent(sess.Usage)
	if ctx.Err() != nil {
		// Stopped from outside: the caller reads that it did not finish,
		// and what it had done.
		why := StopReason(ctx)
		return tool.Fail(tool.Cancelled(why), feedback.TaskProgress(log.Finished()))
	}
	switch out.Status {
	case StatusSucceeded:
		return tool.Ok(feedback.TaskSucceeded(def.Name, a.Description, out.Summary, out.ExtractedData))
	case StatusRefused:
		return tool.Ok(feedback.TaskAsked(def.Name, a.Description, out.Summary))
	default:
		text := feedback.TaskFailed(def.Name, a.Description, out.FailingStep, out.Attempts)
		return tool.Fail(tool.Other("the task failed at "+out.FailingStep), text)
	}
}

// agentAllows reports whether an agent may use the tool declared d.
func agentAllows(def agents.Definition, d tool.Declaration) bool {
	if def.AllTools || def.Allows(d.Name) {
		return true
	}
	return def.ReadOnlyMCP && d.Untrusted && d.Annotations.ReadOnly
}

// taskSystem is a task's system prompt: the parent's, which carries the
// project's instructions, then the agent's own and what the task may
// change.
func taskSystem(parent string, def agents.Definition, writes []string) string {
	var b strings.Builder
	b.WriteString(parent)
	b.WriteString("\n\n# You are a sub-agent\n")
	fmt.Fprintf(&b, "Another agent handed you one task as the %s agent. Work on it alone: nobody sees this conversation but you. "+
		"When it is done, call finish with a summary of what you found or did, written for that agent, and any data it needs. "+
		"If the task cannot be done as given, call ask_user with your question; the other agent will answer or ask the person.\n", def.Name)
	if len(writes) > 0 {
		fmt.Fprintf(&b, "You may change only these workspace paths: %s. Any other change is refused.\n", strings.Join(writes, ", "))
	} else {
		b.WriteString("You may not change anything: only read.\n")
	}
	if p := strings.TrimSpace(def.Prompt); p != "" {
		b.WriteString("\n")
		b.WriteString(p)
		b.WriteString("\n")
	}
	return b.String()
}

// system returns the agent's system prompt.
func (a *Agent) system() string {
	if a.System == "" {
		return DefaultSystemPrompt
	}
	return a.System
}

// confinement is what a task's agent may change: a call whose footprint
// writes beyond it is refused before its tool runs.
type confinement struct {
	allowed tool.Scope
	writes  []string // as the model wrote them, for what it reads
}

// refusal returns the refusal of a call with footprint t, when t writes
// beyond the confinement.
func (c *confinement) refusal(name string, t tool.Touches) (tool.Return, bool) {
	if c == nil || t.Access != tool.AccessWrites || covered(t.Scope, c.allowed) {
		return tool.Return{}, false
	}
	what := "anything, anywhere (it is not confined to any path)"
	if !t.Scope.IsAnything() {
		what = strings.Join(t.Scope.PathList(), ", ")
	}
	return tool.Deny(feedback.TaskWriteOutside(name, c.writes, what)), true
}

// covered reports whether every path of s lies within allowed.
func covered(s, allowed tool.Scope) bool {
	if allowed.IsAnything() {
		return true
	}
	if s.IsAnything() {
		return false
	}
	for _, p := range s.PathList() {
		if !slices.ContainsFunc(allowed.PathList(), func(root string) bool {
			return p == root || root == "/" || strings.HasPrefix(p, root+"/")
		}) {
			return false
		}
	}
	return true
}

// callSite is where a call's body runs: the agent, session, turn and index
// of the call, and how its tool publishes events. The task tool needs it to
// start a sub-agent beside the call.
type callSite struct {
	agent   *Agent
	session string
	turn    int
	index   int
	emit    func(Event)
	// spent adds what a task spent on its model to the session's total.
	spent func(model.Usage)
	// sess is the session the call belongs to.
	sess *Session
}

type callSiteKey struct{}

func withCallSite(ctx context.Context, s *callSite) context.Context {
	return context.WithValue(ctx, callSiteKey{}, s)
}

func callSiteFrom(ctx context.Context) *callSite {
	s, _ := ctx.Value(callSiteKey{}).(*callSite)
	return s
}

// TaskLog gathers, from the events of one task's own run, the calls it
// finished, so the parent can read what a task that stopped had done. It is
// safe for concurrent use.
type TaskLog struct {
	mu sync.Mutex // guards turn, calls and finished
	// turn and calls are the task's last reply: a reply's calls finish
	// before the next reply arrives.
	turn     int
	calls    []PlannedCall
	finished []finishedCall
}

// finishedCall is one call a task finished; TaskLog words it only when
// asked, since most tasks end on their own and nobody asks.
type finishedCall struct {
	name, outcome string
	args          json.RawMessage
}

// Add takes in one event of the task's own run (not of a task inside it).
func (l *TaskLog) Add(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev := e.(type) {
	case ReplyReceived:
		l.turn, l.calls = ev.Turn, ev.Calls
	case CallFinished:
		if ev.NotFinished || IsControl(ev.Name) {
			return
		}
		var args json.RawMessage
		if ev.Turn == l.turn && ev.Index >= 0 && ev.Index < len(l.calls) {
			args = l.calls[ev.Index].Args
		}
		l.finished = append(l.finished, finishedCall{name: ev.Name, outcome: ev.Outcome, args: args})
	}
}

// Finished returns the calls the task finished, one line each, in the order
// they finished.
func (l *TaskLog) Finished() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, len(l.finished))
	for i, c := range l.finished {
		out[i] = feedback.TaskCallLine(c.name, c.args, c.outcome)
	}
	return out
}
