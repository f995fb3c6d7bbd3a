package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// inputMode is what the input line is for.
type inputMode int

const (
	modeGoal     inputMode = iota // the first goal of the session
	modeFollowUp                  // a follow-up after an outcome
	modeAnswer                    // the answer to the agent's question
	modeReason                    // the reason for skipping a call
)

// inputLine is the input line: the goal, the answer to a clarification
// question, a follow-up, or the reason for a skip. When the agent asks a
// question, the question is shown above the line.
type inputLine struct {
	// Keys are the input's keys.
	Keys InputKeys

	ti       textinput.Model
	mode     inputMode
	question string // clean
	// reasonFor is the call a skip reason is for; draft and draftMode are
	// what the line held before the reason prompt opened.
	reasonFor *call
	draft     string
	draftMode inputMode
}

func newInput(prefill string) inputLine {
	ti := textinput.New()
	ti.Prompt = ""
	// A blinking cursor would redraw the screen twice a second while the
	// console is idle; a static one costs nothing.
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Placeholder = "type what the agent should do, then press enter"
	ti.PlaceholderStyle = stDim
	ti.SetValue(prefill)
	ti.Focus()
	return inputLine{Keys: DefaultInputKeys(), ti: ti}
}

// value returns what was typed.
func (in *inputLine) value() string { return in.ti.Value() }

// reset empties the line.
func (in *inputLine) reset() { in.ti.SetValue("") }

// setMode switches what the line is for; question is shown in modeAnswer.
func (in *inputLine) setMode(mode inputMode, question string) {
	in.mode, in.question = mode, question
	switch mode {
	case modeGoal:
		in.ti.Placeholder = "type what the agent should do, then press enter"
	case modeFollowUp:
		in.ti.Placeholder = "type a follow-up for the agent, then press enter"
	case modeAnswer:
		in.ti.Placeholder = "type your answer to the question above, then press enter"
	case modeReason:
		in.ti.Placeholder = "optional; enter with nothing typed skips without a reason"
	}
}

// openReason turns the line into the skip-reason prompt for c, keeping what
// was typed so far for later.
func (in *inputLine) openReason(c *call) {
	in.draft, in.draftMode = in.ti.Value(), in.mode
	in.reasonFor = c
	in.ti.SetValue("")
	in.setMode(modeReason, in.question)
}

// closeReason restores the line as it was before the reason prompt.
func (in *inputLine) closeReason() {
	in.reasonFor = nil
	in.setMode(in.draftMode, in.question)
	in.ti.SetValue(in.draft)
	in.ti.CursorEnd()
	in.draft = ""
}

// Update passes a key to the text field.
func (in *inputLine) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	in.ti, cmd = in.ti.Update(msg)
	return cmd
}

// prompt is the label before the text.
func (in *inputLine) prompt(running bool) string {
	switch in.mode {
	case modeReason:
		if c := in.reasonFor; c != nil {
			return fmt.Sprintf("Skip #%d %s · reason › ", c.index+1, c.name)
		}
		return "Skip · reason › "
	case modeAnswer:
		return "Answer › "
	case modeFollowUp:
		return "Follow-up › "
	}
	if running {
		return "› "
	}
	return "Goal › "
}

// lines returns how many lines the input takes.
func (in *inputLine) lines() int {
	if in.mode == modeAnswer || (in.mode == modeReason && in.draftMode == modeAnswer) {
		return 2
	}
	return 1
}

// View draws the input: the question when there is one, then the line.
func (in *inputLine) View(width int, hasFocus, running bool) string {
	mark := "  "
	style := stDim
	if hasFocus {
		mark, style = symFocus+" ", stKey
	}
	p := mark + in.prompt(running)
	in.ti.Width = max(1, width-ansi.StringWidth(p)-1)
	if running && in.mode != modeReason && in.ti.Value() == "" {
		in.ti.Placeholder = "a run is going: esc stops it; you can type your next message meanwhile"
	}
	line := cut(style.Render(p)+in.ti.View(), width)
	if in.lines() == 2 {
		q := stWarn.Render(cut("  "+symAsk+" "+cleanLine(in.question), width))
		return q + "\n" + line
	}
	return line
}

// focus and blur follow the console's focus, so keys reach the field only
// when it has focus.
func (in *inputLine) focus() { in.ti.Focus() }
func (in *inputLine) blur()  { in.ti.Blur() }
