// Package agents defines the kinds of sub-agent that an agent may hand work
// to through the task tool, and loads custom kinds from Markdown files.
//
// A kind of sub-agent is a [Definition]: a name, a description the parent
// model reads when it chooses whom to delegate to, the tools the sub-agent
// may use, an optional model and optional system instructions. Two kinds are
// built in ([Builtins]): "explore", which only reads, and "general", which
// may also write and run commands. More kinds come from Markdown files with a
// YAML front matter block ([Parse], [Load]); the format is the one Claude
// Code uses for .claude/agents/*.md, so such files load unchanged, with
// Claude Code's tool names translated to agenttui's.
//
// The package only describes agents. Running them, giving them a catalogue,
// keeping the general agent's writes inside the task's declared paths and
// applying [Definition.ReadOnlyMCP] are the runtime's work. The package
// imports nothing from the rest of agenttui but two leaves, internal/ctrlchar
// and internal/frontmatter.
package agents

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agenttui/agenttui/internal/ctrlchar"
)

// Limits on what is read and shown. They keep a stray or hostile file from
// costing much memory or flooding the model's tool description.
const (
	// MaxFileSize is the largest agent file Parse and Load accept, in bytes.
	MaxFileSize = 256 << 10
	// MaxFilesPerDir is how many agent files Load reads from one folder; the
	// rest (by file name) are left out with a notice.
	MaxFilesPerDir = 200
	// DescribeRunes is how many runes of a description Describe shows; a
	// longer description is cut and ends with an ellipsis.
	DescribeRunes = 200
	// describeTools is how many tool names Describe lists for one agent
	// before it says how many more there are.
	describeTools = 10
)

// BuiltinSource is the Source of the built-in definitions, so a caller can
// tell them from the ones loaded from files.
const BuiltinSource = "built-in"

// TaskTool is the name of the tool that delegates to a sub-agent. A
// sub-agent never gets it (see [Definition.Allows]), so delegation does not
// nest.
const TaskTool = "task"

// Definition is one kind of sub-agent.
type Definition struct {
	// Name identifies the kind in the task tool's arguments, e.g.
	// "explore". It consists of lower-case letters, digits, '-' and '_',
	// starts with a letter or digit and is at most 64 bytes long.
	Name string
	// Description is one paragraph, shown to the parent model in the task
	// tool's description, saying what the agent is good for.
	Description string
	// Tools are the names of the tools the agent may use, in agenttui's
	// names (MCP tools as "<server>__<tool>"). Nil with AllTools false
	// means no tools beyond the control tools the runtime always gives.
	Tools []string
	// AllTools says the agent gets every tool the parent has except the
	// task tool. A Claude Code file that omits `tools` means this.
	AllTools bool
	// ReadOnlyMCP says the agent also gets every MCP tool whose server marks
	// it read-only (the MCP readOnlyHint annotation). This package cannot
	// see those hints, so Allows ignores the field and the runtime applies
	// it when it builds the agent's catalogue. The built-in explore agent
	// sets it; files cannot.
	ReadOnlyMCP bool
	// Model is the model the agent runs on, as the configuration writes it
	// ("openai:gpt-5", "anthropic:claude-sonnet-4-5"); "" means the
	// parent's model.
	Model string
	// Prompt is the agent's system instructions: the Markdown body after
	// the front matter, trimmed. It is "" for the built-ins, which use the
	// runtime's default instructions.
	Prompt string
	// Source is the file the definition came from, or BuiltinSource.
	Source string
}

// The built-in workspace tools, by access.
var (
	readTools  = []string{"read_file", "list_dir", "glob", "grep"}
	writeTools = []string{"write_file", "edit_file", "run_shell"}
)

// Builtins returns the built-in definitions, explore then general. Each call
// returns fresh values, so a caller may change what it gets.
func Builtins() []Definition {
	return []Definition{
		{
			Name: "explore",
			Description: "Searches and reads the workspace to answer a question or gather context; changes nothing. " +
				"Give it one focused question and say what it should report back.",
			Tools:       slices.Clone(readTools),
			ReadOnlyMCP: true,
			Source:      BuiltinSource,
		},
		{
			Name: "general",
			Description: "Carries out a self-contained, multi-step task in the workspace: reads, edits and writes files and runs shell commands. " +
				"It may change only the paths the task declares in writes.",
			Tools:  slices.Concat(readTools, writeTools),
			Source: BuiltinSource,
		},
	}
}

// Allows reports whether the tool called name (agenttui's name; MCP tools are
// "<server>__<tool>") is within the agent's reach. The task tool is never
// allowed, so sub-agents cannot delegate further; an explicit "task" in Tools
// is kept only to show what a file asked for. Allows does not apply
// ReadOnlyMCP, which needs the servers' hints, and does not speak for the
// control tools (ask_user, finish, remember), which the runtime gives every
// agent.
func (d Definition) Allows(name string) bool {
	if name == "" || name == TaskTool {
		return false
	}
	if d.AllTools {
		return true
	}
	return slices.Contains(d.Tools, name)
}

// Names returns the definitions' names in the order given, for error
// messages and the task tool's schema.
func Names(defs []Definition) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}

// Find returns the definition called name. If several have that name, the
// last one wins, as in Merge.
func Find(defs []Definition, name string) (Definition, bool) {
	for i := len(defs) - 1; i >= 0; i-- {
		if defs[i].Name == name {
			return defs[i], true
		}
	}
	return Definition{}, false
}

// Merge returns base with the definitions of each later list laid over it:
// a definition replaces an earlier one of the same name. The result is sorted
// by name; the arguments are not changed. Callers pass the built-ins first and
// then what Load returned, so a file may replace a built-in.
func Merge(base []Definition, more ...[]Definition) []Definition {
	byName := make(map[string]int)
	var out []Definition
	add := func(defs []Definition) {
		for _, d := range defs {
			if i, ok := byName[d.Name]; ok {
				out[i] = d
				continue
			}
			byName[d.Name] = len(out)
			out = append(out, d)
		}
	}
	add(base)
	for _, defs := range more {
		add(defs)
	}
	slices.SortStableFunc(out, func(a, b Definition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Describe returns the text that lists the agents in the task tool's
// description: one line per agent, "- name: description (tools: …)", sorted
// by name and without a final newline. It is deterministic so the tool's
// description, and with it the provider's prompt cache, stays the same from
// turn to turn. Descriptions are cut to DescribeRunes runes and long tool
// lists are shortened, so one verbose file cannot crowd out the rest; all
// text is made a single line without control characters.
func Describe(defs []Definition) string {
	sorted := slices.Clone(defs)
	slices.SortStableFunc(sorted, func(a, b Definition) int { return strings.Compare(a.Name, b.Name) })
	lines := make([]string, 0, len(sorted))
	for _, d := range sorted {
		var b strings.Builder
		b.WriteString("- ")
		b.WriteString(ctrlchar.OneLine(d.Name))
		if desc := cut(ctrlchar.OneLine(d.Description), DescribeRunes); desc != "" {
			b.WriteString(": ")
			b.WriteString(desc)
		}
		b.WriteString(" (tools: ")
		b.WriteString(describeReach(d))
		b.WriteString(")")
		lines = append(lines, b.String())
	}
	return strings.Join(lines, "\n")
}

// describeReach says in a few words which tools d may use.
func describeReach(d Definition) string {
	if d.AllTools {
		return "all"
	}
	var names []string
	for _, t := range d.Tools {
		if t == TaskTool {
			continue // never allowed; see Allows
		}
		if t = ctrlchar.OneLine(t); t != "" {
			names = append(names, t)
		}
	}
	var parts []string
	if len(names) > describeTools {
		parts = append(names[:describeTools:describeTools], fmt.Sprintf("and %d more", len(names)-describeTools))
	} else {
		parts = names
	}
	if d.ReadOnlyMCP {
		parts = append(parts, "read-only MCP tools")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// cut returns s shortened to at most n runes, ending with an ellipsis when
// anything was cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:n-1]), " ") + "…"
}
