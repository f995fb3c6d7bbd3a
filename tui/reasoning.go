package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/transcript"
)

// What the console does with the model's reasoning and with a change of
// model: the thinking of each reply in the transcript, /reasoning and
// /model, and the lines that say the prompt cache starts again.

// cacheRestartsCompacted says, once per compaction, why the next request
// costs more than the one before: the provider's prompt cache holds the
// conversation's beginning, which a summary has replaced.
const cacheRestartsCompacted = "the prompt cache starts again: the conversation's beginning changed"

// addThinking adds the thinking of the reply ev to the transcript, folded,
// above the reply's text: its reasoning's readable text, else what l (the
// reply as it streamed, if any) streamed of it; or a line saying the
// provider hid it.
func (m *Model) addThinking(ev runtime.ReplyReceived, l *transcript.Live) {
	var streamed string
	if l != nil {
		streamed = l.Thinking.String()
	}
	tokens := 0
	if m.usageTurn == ev.Turn {
		// The usage of a turn comes just before its reply.
		tokens = m.turnUsage.ReasoningTokens
	}
	if th, ok := transcript.NewThinking(ev.Reasoning, streamed, tokens, m.thoughtFor(l)); ok {
		m.transcript.Add(th)
	}
}

// thoughtFor returns how long the model has thought in the reply l
// streams: from its first piece of thinking to now; zero when nothing of
// it streamed, or when the events are a journal's, whose reading time says
// nothing of the thinking's.
func (m *Model) thoughtFor(l *transcript.Live) time.Duration {
	if l == nil || l.ThinkingSince.IsZero() || m.replaying {
		return 0
	}
	return m.now().Sub(l.ThinkingSince)
}

// cmdModel is /model [provider:name]: it says the model, or switches it
// from the next turn and says the new model's reasoning and that the
// prompt cache starts again.
func (m *Model) cmdModel(arg string) tea.Cmd {
	switch {
	case m.opts.SwitchModel == nil:
		m.say("switching the model is not available in this console", true)
	case arg == "":
		m.say(fmt.Sprintf("the model is %s; /model openai:NAME or anthropic:NAME switches from the next turn", m.model), false)
	default:
		name, err := m.opts.SwitchModel(arg)
		if err != nil {
			m.say(fmt.Sprintf("the model stays %s: %s", m.model, text.CleanLine(err.Error())), true)
			return nil
		}
		before := m.model
		m.model = text.CleanLine(name)
		if describe := m.opts.DescribeReasoning; describe != nil {
			m.reasoning = text.CleanLine(describe())
		}
		said := fmt.Sprintf("model switched to %s %s", m.model, m.from())
		if m.reasoning != "" {
			said += ", reasoning " + m.reasoning
		}
		if m.model != before {
			// A provider's cache belongs to one model: the next
			// request is read and billed in full once.
			said += "; the prompt cache starts again with the new model"
		}
		m.say(said, false)
	}
	return nil
}

// from says when a setting changed now takes effect: the next turn of the
// run going, or the next run.
func (m *Model) from() string {
	if m.run != nil {
		return "from the next turn"
	}
	return "from the next run"
}

// cmdReasoning is /reasoning [level]: it says the level and the choices, or
// sets the level from the next turn; a level the model refuses changes
// nothing, and the refusal is said in one line.
func (m *Model) cmdReasoning(arg string) tea.Cmd {
	set := m.opts.SetReasoning
	level := m.reasoning
	if level == "" {
		level = model.EffortDefault.String()
	}
	switch {
	case set == nil:
		m.say("setting the reasoning is not available in this console", true)
		return nil
	case arg == "":
		m.say(fmt.Sprintf("reasoning is %s; /reasoning off, low, medium, high, max or default sets it from the next turn", level), false)
		return nil
	}
	e, err := model.ParseEffort(arg)
	if err == nil {
		var desc string
		if desc, err = set(e); err == nil {
			if desc == "" {
				desc = e.String()
			}
			m.reasoning = text.CleanLine(desc)
			m.say(fmt.Sprintf("reasoning set to %s %s", m.reasoning, m.from()), false)
			return nil
		}
	}
	m.say(fmt.Sprintf("reasoning stays %s: %s", level, text.CleanLine(err.Error())), true)
	return nil
}

// effortDescriptions say what each reasoning effort asks, for the menu.
var effortDescriptions = map[model.Effort]string{
	model.EffortOff:     "no reasoning, where the model allows it",
	model.EffortLow:     "a little reasoning: quicker and cheaper",
	model.EffortMedium:  "a moderate amount of reasoning",
	model.EffortHigh:    "thorough reasoning",
	model.EffortMax:     "the most reasoning the model offers",
	model.EffortDefault: "the model's own default",
}
