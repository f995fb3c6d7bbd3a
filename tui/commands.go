package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/internal/usercommands"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/detail"
	"github.com/agenttui/agenttui/tui/input"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/mdtranscript"
	"github.com/agenttui/agenttui/tui/taskview"
	"github.com/agenttui/agenttui/tui/transcript"
)

// command is a slash command typed in the input. Commands that act on the
// session call what the matching key calls, so /mode and Shift+Tab, /help
// and F1, /quit and Ctrl+C do the same.
type command struct {
	// Command is the command as the input's menu and the help show it.
	input.Command
	// run carries the command out with its argument; nil for a command
	// file's.
	run func(m *Model, arg string) tea.Cmd
	// file is the command file the command comes from, if it does: its
	// text, arguments put in, is sent as input.
	file *usercommands.Command
}

// commands returns the console's slash commands, in the order the menu and
// the help list them.
func commands() []command {
	var modes []input.Choice
	for _, md := range []approval.Mode{approval.ModeAsk, approval.ModeReads, approval.ModeAuto, approval.ModePlan} {
		modes = append(modes, input.Choice{Name: string(md), Desc: modeDescriptions[md]})
	}
	cmd := func(name, args, desc string, run func(m *Model, arg string) tea.Cmd) command {
		return command{Command: input.Command{Name: name, Args: args, Desc: desc}, run: run}
	}
	mode := cmd("mode", "<ask|reads|auto|plan>", "set the approval mode (shift+tab cycles it)", (*Model).cmdMode)
	mode.Choices = modes
	reasoning := cmd("reasoning", "<level>", "how hard the model reasons: off, low, medium, high, max, default", (*Model).cmdReasoning)
	for _, e := range append(append([]model.Effort{}, model.Efforts...), model.EffortDefault) {
		reasoning.Choices = append(reasoning.Choices, input.Choice{Name: e.String(), Desc: effortDescriptions[e]})
	}
	return []command{
		cmd("help", "", "every key and command", (*Model).cmdHelp),
		mode,
		cmd("model", "<provider:name>", "switch the model from the next turn, e.g. "+model.RecommendedAnthropic, (*Model).cmdModel),
		reasoning,
		cmd("compact", "[focus]", "compact the conversation to free context", (*Model).cmdCompact),
		cmd("clear", "", "start a new session in this console", (*Model).cmdClear),
		cmd("sessions", "", "list this workspace's sessions", (*Model).cmdSessions),
		cmd("resume", "<id>", "open a session of this workspace and carry it on", (*Model).cmdResume),
		cmd("undo", "", "put back the files the last reply changed, after showing what it writes", (*Model).cmdUndo),
		cmd("redo", "", "take back the last undo", (*Model).cmdRedo),
		cmd("rewind", "", "go back to an earlier point: code, conversation or both", (*Model).cmdRewind),
		cmd("export", "[file]", "write the transcript as Markdown", (*Model).cmdExport),
		cmd("quit", "", "quit the console", (*Model).cmdQuit),
	}
}

// menuCommands returns the slash commands as the input's menu offers them:
// the console's own, then the command files'.
func menuCommands(files []command) []input.Command {
	var out []input.Command
	for _, c := range append(commands(), files...) {
		out = append(out, c.Command)
	}
	return out
}

// modeDescriptions say what each approval mode does, for the menu.
var modeDescriptions = map[approval.Mode]string{
	approval.ModeAsk:   "ask before every call",
	approval.ModeReads: "run calls that only read, ask before the rest",
	approval.ModeAuto:  "run every call unless a rule denies it",
	approval.ModePlan:  "read-only: calls that change things are skipped",
}

// commandNames lists the commands, for the message about an unknown one.
func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, "/"+c.Name)
	}
	return strings.Join(names, " ")
}

// findCommand returns the command the slash command line names, which
// starts with "/", and its argument: the command of that exact name, else
// the only one, of the console's own and the command files', whose name
// starts with it. It reports false, and says why, when there is none or
// more than one: the line then stays in the input, and is never sent to
// the model.
func (m *Model) findCommand(line string) (command, string, bool) {
	name, arg := strings.TrimPrefix(line, "/"), ""
	if i := strings.IndexFunc(name, unicode.IsSpace); i >= 0 {
		name, arg = name[:i], strings.TrimSpace(name[i:])
	}
	var found []command
	for _, c := range append(commands(), m.user.cmds...) {
		if c.Name == name {
			found = []command{c}
			break
		}
		if name != "" && strings.HasPrefix(c.Name, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], arg, true
	case 0:
		names := commandNames()
		if len(m.user.cmds) > 0 {
			names += fmt.Sprintf(", and %d of yours that /help lists", len(m.user.cmds))
		}
		m.say(fmt.Sprintf("unknown command /%s; the commands are %s (start with // to send a message that begins with /)",
			text.CleanLine(name), names), true)
	default:
		var names []string
		for _, c := range found {
			names = append(names, "/"+c.Name)
		}
		m.say(fmt.Sprintf("/%s could be %s: type more of it", text.CleanLine(name), strings.Join(names, " or ")), true)
	}
	return command{}, "", false
}

// say shows a command's answer in the note line and, since that line is
// short, in the transcript too.
func (m *Model) say(text string, warn bool) {
	m.note = text
	m.transcript.Add(transcript.Note{Text: text, Warn: warn})
	m.transcript.ToBottom()
}

// idle says why a command that replaces the session cannot run now, or ""
// when it can.
func (m *Model) idle(what string) string {
	switch {
	case m.run != nil:
		return what + " waits until the run ends: wait for its outcome, or press esc to stop it"
	case m.opening:
		return what + " waits until the session is open"
	}
	return ""
}

func (m *Model) cmdHelp(string) tea.Cmd {
	if !m.help.Shown() {
		m.toggleHelp()
	}
	return nil
}

func (m *Model) cmdMode(arg string) tea.Cmd {
	if arg == "" {
		m.say(fmt.Sprintf("the approval mode is %s; /mode ask, reads, auto or plan sets it", m.mode), false)
		return nil
	}
	md, err := approval.ParseMode(arg)
	if err != nil {
		m.say(text.CleanLine(err.Error()), true)
		return nil
	}
	m.setMode(md)
	return nil
}

// compacted says a /compact has ended.
type compacted struct{ err error }

func (m *Model) cmdCompact(arg string) tea.Cmd {
	if m.opts.Compact == nil {
		m.say("compaction is not available in this build yet", true)
		return nil
	}
	if why := m.idle("/compact"); why != "" {
		m.say(why, true)
		return nil
	}
	compact := m.opts.Compact
	ctx, cancel := context.WithCancel(context.Background())
	m.opening, m.busy, m.cancelBusy = true, "compacting the conversation…", cancel
	m.note = m.busy + " (esc stops it)"
	return func() tea.Msg { return compacted{err: compact(ctx, arg)} }
}

// sessionSwitched carries the session a /clear or /resume opened.
type sessionSwitched struct {
	o   Opened
	err error
	// what is what the person asked for, for the message on failure.
	what string
}

func (m *Model) cmdClear(string) tea.Cmd {
	if m.opts.NewSession == nil {
		m.say("/clear is not available in this console", true)
		return nil
	}
	if why := m.idle("/clear"); why != "" {
		m.say(why, true)
		return nil
	}
	next := m.opts.NewSession
	m.opening, m.busy = true, "starting a new session…"
	m.note = m.busy
	return func() tea.Msg {
		o, err := next()
		return sessionSwitched{o: o, err: err, what: "a new session"}
	}
}

func (m *Model) cmdResume(arg string) tea.Cmd {
	switch {
	case m.opts.Resume == nil:
		m.say("/resume is not available in this console", true)
		return nil
	case arg == "":
		m.say("/resume needs a session id: /sessions lists them", true)
		return nil
	}
	if why := m.idle("/resume"); why != "" {
		m.say(why, true)
		return nil
	}
	resume := m.opts.Resume
	m.opening, m.busy = true, "loading session "+text.CleanLine(arg)+"…"
	m.note = m.busy
	return func() tea.Msg {
		o, err := resume(arg)
		return sessionSwitched{o: o, err: err, what: "session " + arg}
	}
}

// switched shows the session a /clear or /resume opened, in place of the
// one before, or says why it could not be opened.
func (m *Model) switched(s sessionSwitched) tea.Cmd {
	m.opening, m.busy = false, ""
	if s.err != nil {
		m.say(fmt.Sprintf("could not open %s: %s", text.CleanLine(s.what), text.CleanLine(s.err.Error())), true)
		return m.startQueued()
	}
	m.resetSession()
	if s.o.ID == "" {
		m.transcript.Add(transcript.Note{Text: "a new session starts here"})
	}
	return m.open(s.o)
}

// resetSession empties the console for another session: the transcript,
// the board, the outcome, the counters and the export; the input, the
// history, the mode and the model stay.
func (m *Model) resetSession() {
	m.transcript = transcript.New(m.keys.Transcript, m.styles)
	m.board = m.newBoard()
	m.tasks, m.taskLogs, m.nested = taskview.New(), map[string]*transcript.Model{}, nil
	m.detail = detail.NewPane(m.styles)
	m.diffScreen.Close()
	m.grant.Close()
	m.goal, m.session, m.queued, m.user.queued, m.user.goal = "", "", "", nil, nil
	m.last = nil
	m.runTook = 0
	m.usage, m.turnUsage, m.usageTurn = model.Usage{}, model.Usage{}, 0
	m.export = newExport(m.opts.Workspace)
	if m.input.Mode() == input.ModeReason {
		m.input.CloseReason()
	}
	m.input.SetMode(input.ModeGoal, "")
	m.setFocus(focusInput)
	if m.pilot != nil {
		m.pilot.Reset()
	}
}

// startQueued starts the input sent while a slash command was busy with
// the session, now that it is done.
func (m *Model) startQueued() tea.Cmd {
	q, ok := m.takeQueued()
	if !ok {
		return nil
	}
	cmd, _ := m.startOutgoing(q)
	return cmd
}

// sessionsListed carries the answer to /sessions.
type sessionsListed struct {
	list []SessionInfo
	err  error
}

func (m *Model) cmdSessions(string) tea.Cmd {
	if m.opts.Sessions == nil {
		m.say("/sessions is not available in this console", true)
		return nil
	}
	list := m.opts.Sessions
	m.note = "reading the sessions…"
	return func() tea.Msg {
		l, err := list()
		return sessionsListed{list: l, err: err}
	}
}

// listed shows the workspace's sessions in the transcript, newest first.
func (m *Model) listed(s sessionsListed) {
	switch {
	case s.err != nil:
		m.say("could not list the sessions: "+text.CleanLine(s.err.Error()), true)
		return
	case len(s.list) == 0:
		m.say("no sessions of this workspace yet", false)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d session(s) of this workspace, newest first · /resume ID opens one", len(s.list))
	for _, si := range s.list {
		mark := "  "
		if si.ID == m.session {
			mark = text.SymFocus + " "
		}
		fmt.Fprintf(&b, "\n%s%s · %s · %s · %s", mark, text.CleanLine(si.ID), si.LastActivity.Local().Format("2006-01-02 15:04"),
			text.CleanLine(si.Outcome), text.Preview(si.Goal))
	}
	m.transcript.Add(transcript.Note{Text: b.String()})
	m.transcript.ToBottom()
	m.note = ""
}

func (m *Model) cmdExport(arg string) tea.Cmd {
	if m.export.Empty() {
		m.say("nothing to export yet: the transcript is empty", true)
		return nil
	}
	dir := m.opts.ExportDir
	if dir == "" {
		dir = m.opts.Workspace
	}
	path := arg
	if path == "" {
		name := m.session
		if name == "" {
			name = m.now().Format("20060102-150405")
		}
		path = "agenttui-" + name + ".md"
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	m.export.Session = m.session
	md := m.export.Markdown(redact.FromEnv(), m.now())
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		m.say(fmt.Sprintf("could not write %s: %s", text.CleanLine(path), text.CleanLine(err.Error())), true)
		return nil
	}
	m.say("exported the transcript as Markdown to "+text.CleanLine(path), false)
	return nil
}

func (m *Model) cmdQuit(string) tea.Cmd {
	m.stop("the person quit the console")
	return tea.Quit
}

// newExport returns an empty export log for a session in workspace.
func newExport(workspace string) *mdtranscript.Log {
	l := mdtranscript.New()
	l.Workspace = workspace
	return l
}

// SessionInfo describes a stored session, for /sessions.
type SessionInfo struct {
	// ID names the session; /resume takes it.
	ID string
	// Started and LastActivity are when the session began and last
	// recorded something.
	Started, LastActivity time.Time
	// Outcome says how its last run ended, or that it was interrupted.
	Outcome string
	// Goal is the session's first goal.
	Goal string
}

// History keeps what the person types, across consoles of the workspace.
type History interface {
	// Entries returns the earlier inputs, oldest first.
	Entries() []string
	// Add records text and returns it as kept (secrets redacted); an
	// error says it could not be kept beyond this console.
	Add(text string) (string, error)
}

// inputKey routes a key to the input and acts on what it asks.
func (m *Model) inputKey(msg tea.KeyMsg) tea.Cmd {
	act, cmd := m.input.Update(msg)
	switch act {
	case input.Submit:
		return m.submit()
	case input.Editor:
		return m.editInput()
	}
	return cmd
}

// submit acts on Enter in the input: it sends the goal, answer or
// follow-up, carries out a slash command, or skips a call with the reason.
func (m *Model) submit() tea.Cmd {
	typed := strings.TrimSpace(m.input.Value())
	if m.input.Mode() == input.ModeReason {
		c := m.input.ReasonFor()
		m.input.CloseReason()
		m.setFocus(focusBoard)
		switch {
		case c == nil || c.Req == nil:
			m.note = "that call is no longer waiting for approval"
		default:
			m.respond(answer{kind: answerSkip, calls: []*callview.Call{c}, reason: typed})
			m.note = "skipped " + c.Title()
		}
		m.personChange()
		return nil
	}
	if strings.HasPrefix(typed, "/") && !strings.HasPrefix(typed, "//") {
		// A command, never a message: an unknown one stays in the input
		// to be mended.
		c, arg, ok := m.findCommand(typed)
		switch {
		case !ok:
			return nil
		case c.file != nil:
			// A command file's text goes as input would; the
			// transcript and the history show the line as typed.
			return m.sendInput(outgoing{text: c.file.Expand(arg), typed: typed, command: c.Name, model: c.file.Model})
		}
		m.remember(typed)
		m.input.Reset()
		return c.run(m, arg)
	}
	if strings.HasPrefix(typed, "//") {
		// "//" sends a message that begins with "/".
		typed = typed[1:]
	}
	return m.sendInput(outgoing{text: typed, typed: typed})
}

// remember adds text to the history: the store's, when there is one, which
// keeps it with its secrets redacted, and this console's.
func (m *Model) remember(entry string) {
	kept := entry
	if h := m.opts.History; h != nil {
		var err error
		if kept, err = h.Add(entry); err != nil {
			m.transcript.Add(transcript.Note{Text: "warning: " + text.CleanLine(err.Error()), Warn: true})
		}
	}
	m.input.Remember(kept)
}
