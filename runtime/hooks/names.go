package hooks

import (
	"regexp"
	"strings"
)

// claudeNames gives, for each agenttui tool that Claude Code also has, the
// names Claude Code knows it by. Hook files written for Claude Code match
// on those names ("Bash", "Edit|Write"), and they should keep working
// unchanged; agenttui's edit_file does what both Edit and MultiEdit do.
var claudeNames = map[string][]string{
	"run_shell":  {"Bash"},
	"edit_file":  {"Edit", "MultiEdit"},
	"write_file": {"Write"},
	"read_file":  {"Read"},
	"glob":       {"Glob"},
	"grep":       {"Grep"},
	"list_dir":   {"LS"},
	"web_fetch":  {"WebFetch"},
	"task":       {"Task"},
}

// mcpPrefix begins Claude Code's names for MCP tools: mcp__server__tool,
// where agenttui says server__tool.
const mcpPrefix = "mcp__"

// ClaudeName returns Claude Code's name for the agenttui tool named tool,
// such as "Bash" for run_shell or "mcp__fs__read" for the MCP tool fs__read,
// or "" when Claude Code has no name for it.
func ClaudeName(tool string) string {
	if names, ok := claudeNames[tool]; ok {
		return names[0]
	}
	if isMCP(tool) {
		return mcpPrefix + tool
	}
	return ""
}

// isMCP reports whether tool is agenttui's name for an MCP server's tool:
// the server's name, "__", and the tool's.
func isMCP(tool string) bool {
	server, rest, ok := strings.Cut(tool, "__")
	return ok && server != "" && rest != ""
}

// toolNames returns every name a matcher may know the tool by: agenttui's
// first, then Claude Code's.
func toolNames(tool string) []string {
	names := []string{tool}
	if cn, ok := claudeNames[tool]; ok {
		names = append(names, cn...)
	} else if isMCP(tool) {
		names = append(names, mcpPrefix+tool)
	}
	return names
}

// Matches reports whether the group's matcher matches the tool named tool,
// by agenttui's name or by Claude Code's: "Bash" matches run_shell, and
// "mcp__fs__.*" matches fs__read. The whole name must match: "run" does not
// match run_shell. An empty matcher, or "*", matches every tool; a matcher
// that is not a regular expression, possible only in a Group not made by
// Parse, matches none.
func (g Group) Matches(tool string) bool {
	re := g.re
	if re == nil {
		if matchesAll(g.Matcher) {
			return true
		}
		// A Group built in code rather than by Parse has no compiled
		// matcher; compiling it here keeps it working, only slower.
		var err error
		if re, err = compileMatcher(g.Matcher); err != nil {
			return false
		}
	}
	return matchAny(re, toolNames(tool))
}

// matchAny reports whether re matches any of names.
func matchAny(re *regexp.Regexp, names []string) bool {
	for _, n := range names {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}
