package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/tui/help"
)

// helpTitle heads the help (tui/help), which lists every key and command.
const helpTitle = "Keys and commands"

// helpSections returns what the help lists, as plain data: the keys of
// each part of the console (KeyMap.FullHelp, the keys that work anywhere
// first, since those are the ones a newcomer looks for), the slash
// commands and the person's own commands from command files.
func (m *Model) helpSections() []help.Section {
	full := m.keys.FullHelp()
	// FullHelp's blocks, in its order, and the order the help lists them.
	titles := []string{"On the board", "In the input and the transcript", "Anywhere", "In the full-screen diff (f)"}
	notes := []string{"(approval keys are ignored 1½ s after you type, and ½ s after the call under focus changes)", "", "", ""}
	var out []help.Section
	for _, i := range []int{2, 0, 1, 3} {
		s := help.Section{Title: titles[i], Note: notes[i]}
		for _, b := range full[i] {
			if b.Enabled() {
				s.Rows = append(s.Rows, help.Row{Key: b.Help().Key, Desc: b.Help().Desc})
			}
		}
		out = append(out, s)
	}
	cmds := help.Section{Title: "Slash commands", Note: "(type / in the input; tab completes)"}
	for _, c := range commands() {
		cmds.Rows = append(cmds.Rows, help.Row{Key: strings.TrimSpace("/" + c.Name + " " + c.Args), Desc: c.Desc})
	}
	cmds.Rows = append(cmds.Rows, help.Row{Key: "//text", Desc: "send text that begins with /"})
	out = append(out, cmds)
	if mine := helpFiles(m.user.cmds, m.opts.Workspace); len(mine) > 0 {
		out = append(out, help.Section{Title: "Your commands",
			Note: "(from command files: each sends its file's text, with your arguments)", Rows: mine})
	}
	return out
}

// toggleHelp opens the help at its start, or closes it.
func (m *Model) toggleHelp() {
	if m.help.Shown() {
		m.help.Hide()
		return
	}
	m.help.Show(helpTitle, m.helpSections())
}

// helpKey hands a key or the mouse wheel to the open help. The help takes
// every key, so nothing reaches the board beneath it: an approval key
// only says how to close the help.
func (m *Model) helpKey(msg tea.Msg) {
	var act help.Action
	m.help, act = m.help.Update(msg)
	if act.Note != "" {
		m.note = act.Note
	}
}
