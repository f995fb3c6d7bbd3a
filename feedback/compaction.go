package feedback

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/runtime/model"
)

// CompactionSystem is the system prompt of the request that asks the model
// for a summary of the conversation so far.
const CompactionSystem = "You summarise a working session between a person and an agent that uses tools in a software workspace. " +
	"The summary replaces the older part of the conversation in the agent's memory, so it must keep everything the agent " +
	"needs to go on without re-reading it. Write plain text; do not call tools."

// CompactionInstructions ends the summary request: what the summary must
// hold. focus, when set, is what the person asked it to keep in particular.
func CompactionInstructions(focus string) string {
	s := "Summarise the session above for the agent that will carry it on. Keep, under short headings:\n" +
		"- the goal, and anything the person added or decided since;\n" +
		"- the decisions taken, and why;\n" +
		"- what was changed and where: files written or edited (with their paths), commands run and what they showed;\n" +
		"- what was learnt that is still needed: facts, names, paths, values, error messages;\n" +
		"- open questions, and what remains to be done, in order.\n" +
		"Be concrete and brief. Say nothing about this request."
	if focus = strings.TrimSpace(focus); focus != "" {
		s += "\nThe person asks the summary to keep in particular: " + focus
	}
	return s
}

// CompactedHistory is the message the model reads in place of the older
// part of a compacted conversation: the summary, then the values it stored
// with remember, so none of them is lost.
func CompactedHistory(summary string, memory map[string]json.RawMessage) string {
	var b strings.Builder
	b.WriteString("The earlier part of this conversation was compacted to fit the context window. " +
		"A summary of it follows; the messages after it are as they were.\n\n")
	b.WriteString(strings.TrimSpace(summary))
	if len(memory) > 0 {
		b.WriteString("\n\nValues you stored with remember, which stay as they are:")
		keys := make([]string, 0, len(memory))
		for k := range memory {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "\n- %s = %s", k, memory[k])
		}
	}
	return b.String()
}

// cutResult stands in for a tool result left out of a summary request that
// would not fit otherwise.
func cutResult(name string, size int) string {
	return fmt.Sprintf("[the result of %s (%d bytes) was cut to make this summary request fit]", name, size)
}

// History renders messages as plain text for a summary request, within
// budget bytes: the oldest tool results are cut to short stubs first, then
// the oldest texts, until it fits. Plain text carries no tool-call blocks,
// so every provider takes it in a request that offers no tools.
func History(msgs []model.Message, budget int) string {
	msgs = slices.Clone(msgs)
	render := func() string {
		var b strings.Builder
		for _, m := range msgs {
			writeMessage(&b, m)
		}
		return b.String()
	}
	out := render()
	for i := 0; len(out) > budget && i < len(msgs); i++ {
		if len(msgs[i].Results) == 0 {
			continue
		}
		rs := slices.Clone(msgs[i].Results)
		for j, r := range rs {
			if len(r.Content) > 200 {
				rs[j].Content = cutResult(r.Name, len(r.Content))
			}
		}
		msgs[i].Results = rs
		out = render()
	}
	if len(out) > budget {
		// Still too long: keep the end, which matters most, and say so.
		keep := out[len(out)-max(budget-200, 0):]
		if i := strings.IndexByte(keep, '\n'); i >= 0 {
			keep = keep[i+1:]
		}
		out = fmt.Sprintf("[the oldest %d bytes of the session were cut to make this summary request fit]\n", len(out)-len(keep)) + keep
	}
	return out
}

// writeMessage renders one message of a history.
func writeMessage(b *strings.Builder, m model.Message) {
	switch m.Role {
	case model.RoleUser:
		b.WriteString("PERSON: ")
		b.WriteString(m.Text)
		b.WriteString("\n\n")
	case model.RoleAssistant:
		b.WriteString("AGENT: ")
		b.WriteString(m.Text)
		b.WriteByte('\n')
		for _, c := range m.Calls {
			fmt.Fprintf(b, "AGENT CALLED %s %s\n", c.Name, c.Arguments)
		}
		if m.Cut != nil {
			fmt.Fprintf(b, "AGENT CALLED %s %s (cut off by the output limit)\n", m.Cut.Name, m.Cut.Arguments)
		}
		b.WriteByte('\n')
	case model.RoleTool:
		for _, r := range m.Results {
			outcome := "RESULT"
			if r.IsError {
				outcome = "RESULT (error)"
			}
			fmt.Fprintf(b, "%s OF %s:\n%s\n\n", outcome, r.Name, r.Content)
		}
	}
}
