// Command bare is the yardstick of agenttui's start-up: the least a
// bubbletea v1 program can do, drawing one line and waiting for a key. It
// is built from agenttui's own module graph, so the two share the same
// versions of bubbletea, lipgloss and termenv, and the difference between
// their first frames is what agenttui adds.
package main

import (
	"fmt"
	"os"

	tea "github.com/charmbracelet/bubbletea"
)

type model struct{}

func (model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		return m, tea.Quit
	}
	return m, nil
}

func (model) View() string { return "bare bubbletea: press any key to quit" }

func main() {
	if _, err := tea.NewProgram(model{}).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
