package input

import (
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// TestShiftEnterTripwire feeds the bytes terminals send for Shift+Enter, when
// they report it as a key of its own, through a real bubbletea input reader,
// and checks that IsShiftEnter knows each message and that the box takes it
// as a line break. Bubbletea names the message's type only in its own
// package, so this is what catches a bubbletea that changes it.
func TestShiftEnterTripwire(t *testing.T) {
	for name, seq := range map[string]string{"CSI u": "\x1b[13;2u", "modifyOtherKeys": "\x1b[27;2;13~"} {
		t.Run(name, func(t *testing.T) {
			probe := &msgProbe{}
			p := tea.NewProgram(probe, tea.WithInput(strings.NewReader(seq)), tea.WithOutput(io.Discard), tea.WithoutRenderer(),
				tea.WithoutSignalHandler())
			if _, err := p.Run(); err != nil {
				t.Fatal(err)
			}
			if len(probe.msgs) != 1 || !IsShiftEnter(probe.msgs[0]) {
				t.Fatalf("%q arrived as %#v", seq, probe.msgs)
			}
			in := New("", nil, DefaultKeyMap(), text.DefaultStyles())
			in.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
			in.Newline()
			in.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b")})
			if got := in.Value(); got != "a\nb" {
				t.Fatalf("input = %q", got)
			}
		})
	}
	for _, msg := range []tea.Msg{tea.KeyMsg{Type: tea.KeyEnter}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("\x1b[13;2u")}} {
		if IsShiftEnter(msg) {
			t.Fatalf("%#v taken for Shift+Enter", msg)
		}
	}
}

// msgProbe records the first message that is not a size, and quits.
type msgProbe struct{ msgs []tea.Msg }

func (p *msgProbe) Init() tea.Cmd { return nil }
func (p *msgProbe) View() string  { return "" }
func (p *msgProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.WindowSizeMsg); ok {
		return p, nil
	}
	p.msgs = append(p.msgs, msg)
	return p, tea.Quit
}
