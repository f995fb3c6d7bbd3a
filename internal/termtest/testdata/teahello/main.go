// Command teahello is a minimal bubbletea v1 program for the termtest tests.
// Before starting it asks lipgloss whether the terminal background is dark,
// which makes termenv query the terminal (OSC 11 and DSR 6n) and wait for
// the answers. It shows "hello", whether the background is dark and the last
// key message, and quits on "q".
package main

import (
	"fmt"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

type model struct {
	dark bool
	last string
}

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		if k.String() == "q" {
			return m, tea.Quit
		}
		m.last = k.String()
	}
	return m, nil
}

func (m model) View() string {
	return fmt.Sprintf("hello dark=%v\nlast=%q\n", m.dark, m.last)
}

func main() {
	dark := lipgloss.HasDarkBackground()
	if _, err := tea.NewProgram(model{dark: dark}).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
