package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/internal/usercommands"
	"github.com/agenttui/agenttui/tui/help"
	"github.com/agenttui/agenttui/tui/input"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// The person's own slash commands, from Markdown files (Options.Commands):
// the menu and the help list them after the console's own, and Enter sends
// a command's text, its arguments put in, as if the person had typed it,
// while the transcript and the history show the line as typed. A command
// may ask for a model, which its run uses and which is switched back when
// the run ends.

// BuiltinCommands returns the names of the console's own slash commands,
// without the slash, for usercommands.Load: a command file may not take
// one of these names, since the person could no longer reach the built-in.
func BuiltinCommands() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.Name)
	}
	return names
}

// fileCommands returns the commands of files the console offers, in their
// order, as the menu shows them. A name the person could not type as one
// word, one a built-in command has, or one given twice is left out:
// Options.Commands need not come from usercommands.Load.
func fileCommands(files []usercommands.Command) []command {
	taken := map[string]bool{}
	for _, n := range BuiltinCommands() {
		taken[n] = true
	}
	var out []command
	for _, f := range files {
		if f.Name == "" || taken[f.Name] || strings.ContainsFunc(f.Name, unicode.IsSpace) ||
			strings.HasPrefix(f.Name, "/") || text.CleanLine(f.Name) != f.Name {
			continue
		}
		taken[f.Name] = true
		tag := "user"
		if f.Project {
			tag = "project"
		}
		// What the files say is drawn: it is cleaned like anything else
		// the console did not write.
		out = append(out, command{Command: input.Command{Name: f.Name, Args: text.CleanLine(f.ArgumentHint),
			Desc: text.CleanLine(f.Description), Tag: tag}, file: &f})
	}
	return out
}

// userCommands are the person's commands from command files, and what the
// console keeps of the input they sent.
type userCommands struct {
	// cmds are the commands the console offers (Options.Commands).
	cmds []command
	// queued is the whole of Model.queued (what the transcript shows,
	// the model it asks for), when it came from a command file.
	queued *outgoing
	// showing is the command file's input whose run has started, until
	// the run's first event shows the line as typed in place of what
	// was sent.
	showing *outgoing
	// back is the model to go back to when the run a command file
	// switched the model for ends.
	back *modelBack
	// goal is the session's goal when it was a command file's: the runs
	// name its expansion as their goal, and the header shows the line
	// as typed.
	goal *outgoing
}

// outgoing is input on its way to a run. For a command file's, what Run
// receives (the expansion) differs from what the transcript and the
// history show (the line as typed).
type outgoing struct {
	// text is what Run receives; typed is the person's line.
	text, typed string
	// command names the command file the text comes from; empty for
	// ordinary input.
	command string
	// model is the model the command asks for; empty keeps the model.
	model string
}

// modelBack is the model to switch back to when the run a command file's
// model was switched for ends.
type modelBack struct {
	run *activeRun
	// to is the model before the switch, from the one switched to, and
	// command the command that asked for it.
	to, from, command string
}

// sendInput starts a run with o, or queues it while the session is opening, or
// says why it cannot start now, leaving it in the input.
func (m *Model) sendInput(o outgoing) tea.Cmd {
	switch {
	case m.openErr != "":
		m.note = "the session could not be opened (see above) · ctrl+c twice quits"
		return nil
	case m.run != nil || m.queued != "":
		m.note = "a run is going: wait for its outcome, or press esc to stop it; your text stays in the input"
		return nil
	case o.typed == "":
		m.note = "type something first"
		return nil
	case o.text == "":
		m.say(fmt.Sprintf("/%s sends nothing: its file has no text", text.CleanLine(o.command)), true)
		return nil
	case m.opening:
		// The session is being readied (a journal read, servers
		// started): the input starts as soon as it is open.
		m.queued = o.text
		m.user.queued = &o
		m.remember(o.typed)
		m.input.Reset()
		m.note = "opening the session; your input starts as soon as it is open"
		if m.busy != "" {
			m.note = m.busy + " your input starts once it is done"
		}
		return nil
	}
	cmd, ok := m.startOutgoing(o)
	if ok {
		m.remember(o.typed)
	}
	return cmd
}

// takeQueued returns the input queued while the session was opening, and
// forgets it; false when there is none.
func (m *Model) takeQueued() (outgoing, bool) {
	q, o := m.queued, m.user.queued
	m.queued, m.user.queued = "", nil
	switch {
	case q == "":
		return outgoing{}, false
	case o == nil || o.text != q:
		return outgoing{text: q, typed: q}, true
	}
	return *o, true
}

// startOutgoing starts a run with o, after switching to the model its
// command asks for. It reports false when the switch failed: then nothing
// was sent, the person's line is in the input, and the note says why.
func (m *Model) startOutgoing(o outgoing) (tea.Cmd, bool) {
	if o.command == "" {
		return m.start(o.text), true
	}
	name := text.CleanLine(o.command)
	var back *modelBack
	if o.model != "" && o.model != m.model {
		want := text.CleanLine(o.model)
		if m.opts.SwitchModel == nil {
			m.say(fmt.Sprintf("/%s was not sent: it runs on %s, and the model cannot be switched in this console", name, want), true)
			m.keepTyped(o.typed)
			return nil, false
		}
		got, err := m.opts.SwitchModel(o.model)
		if err != nil {
			m.say(fmt.Sprintf("/%s was not sent: it runs on %s, which cannot be used, so the model stays %s: %s",
				name, want, m.model, text.CleanLine(err.Error())), true)
			m.keepTyped(o.typed)
			return nil, false
		}
		back = &modelBack{to: m.model, command: name}
		m.model = text.CleanLine(got)
		back.from = m.model
		if describe := m.opts.DescribeReasoning; describe != nil {
			m.reasoning = text.CleanLine(describe())
		}
	}
	if o.text != o.typed {
		m.user.showing = &o
	}
	cmd := m.start(o.text)
	if back != nil {
		back.run, m.user.back = m.run, back
		// Said after start, which clears the note.
		m.say(fmt.Sprintf("model switched to %s for /%s; it goes back to %s when this run ends", back.from, name, back.to), false)
	}
	return cmd, true
}

// keepTyped puts the person's line back in the input after it could not
// be sent, unless something else has been typed there since.
func (m *Model) keepTyped(typed string) {
	if strings.TrimSpace(m.input.Value()) == "" {
		m.input.SetValue(typed)
	}
}

// shownInput returns the text the transcript shows for a run's input:
// the line as typed when a command file's expansion is what the run was
// given.
func (m *Model) shownInput(input string) (string, bool) {
	s := m.user.showing
	if s == nil || s.text != input {
		return input, false
	}
	m.user.showing = nil
	return s.typed, true
}

// runEnded switches back to the model that was in use before a command
// file's run, when run is that run, and says so.
func (m *Model) runEnded(run *activeRun) {
	// A run that ended before it said it started shows nothing.
	m.user.showing = nil
	b := m.user.back
	if b == nil || b.run != run {
		return
	}
	m.user.back = nil
	switch {
	case m.model != b.from:
		// The person chose another model during the run (/model): that
		// choice stands.
		m.say(fmt.Sprintf("/%s's run ended; the model stays %s, chosen during it", b.command, m.model), false)
		return
	case m.opts.SwitchModel == nil:
		return
	}
	got, err := m.opts.SwitchModel(b.to)
	if err != nil {
		m.say(fmt.Sprintf("/%s's run ended, but the model could not go back to %s, so it stays %s: %s",
			b.command, b.to, m.model, text.CleanLine(err.Error())), true)
		return
	}
	m.model = text.CleanLine(got)
	if describe := m.opts.DescribeReasoning; describe != nil {
		m.reasoning = text.CleanLine(describe())
	}
	m.say(fmt.Sprintf("/%s's run ended; the model is %s again", b.command, m.model), false)
}

// helpFiles returns the help's rows for the command files cmds, saying
// where each came from: a project's file relative to the workspace, the
// person's own below ~.
func helpFiles(cmds []command, workspace string) []help.Row {
	home, _ := os.UserHomeDir()
	var out []help.Row
	for _, c := range cmds {
		f := c.file
		from := f.Path
		switch {
		case f.Project:
			from = "project · " + text.Relative(workspace, from)
		case home != "" && strings.HasPrefix(from, home+string(filepath.Separator)):
			from = "~" + from[len(home):]
		}
		if f.Model != "" {
			from += " · runs on " + f.Model
		}
		out = append(out, help.Row{
			Key:   strings.TrimSpace("/" + c.Name + " " + c.Args),
			Desc:  c.Desc,
			Aside: text.CleanLine(from),
		})
	}
	return out
}
