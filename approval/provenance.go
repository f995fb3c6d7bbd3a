package approval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// provenanceDecider asks about a call whose arguments carry text from an
// untrusted result into an action.
var provenanceDecider = Decider{Who: WhoProvenance}

// provenanceBy is how the event stream names provenanceDecider.
const provenanceBy = "provenance"

// actingArgument reports whether argument arg (a top-level name) of c acts
// on the world: a shell command, the path and content of a file write, the
// URL of a fetch (the way data leaves), any argument of an MCP tool that is
// not read-only. Text from an untrusted result there could make the call
// do what the result, not the person, wants.
func actingArgument(c runtime.CallInfo, arg string) bool {
	switch c.Call.Name {
	case "run_shell":
		return arg == "command"
	case "write_file":
		return arg == "content" || arg == "path"
	case "edit_file":
		return arg == "new" || arg == "path"
	case "web_fetch":
		return arg == "url"
	}
	return c.Decl.Untrusted && !c.Decl.Annotations.ReadOnly
}

// topArgument returns the top-level argument an origin's Argument names.
func topArgument(a string) string {
	if rest, ok := strings.CutPrefix(a, "/"); ok {
		a, _, _ = strings.Cut(rest, "/")
		return strings.ReplaceAll(strings.ReplaceAll(a, "~1", "/"), "~0", "~")
	}
	return a
}

// Tainted returns the origins of c's arguments that carry untrusted text
// into an action (see actingArgument), in the order the runtime gave them.
func Tainted(c runtime.CallInfo) []tool.Origin {
	var out []tool.Origin
	for _, o := range c.Provenance {
		if actingArgument(c, topArgument(o.Argument)) {
			out = append(out, o)
		}
	}
	return out
}

// DescribeOrigins says, per argument, how much of it came from where:
// "command: 38 characters from web_fetch #1 of turn 3 (web:evil.example)".
// It is what the person and, for a skip, the model read.
func DescribeOrigins(origins []tool.Origin) string {
	var args []string
	chars := map[string]int{}
	first := map[string]tool.Origin{}
	for _, o := range origins {
		if _, seen := first[o.Argument]; !seen {
			args = append(args, o.Argument)
			first[o.Argument] = o
		}
		chars[o.Argument] += o.End - o.Start
	}
	parts := make([]string, 0, len(args))
	for _, a := range args {
		o := first[a]
		where := fmt.Sprintf("%s #%d of turn %d", o.Tool, o.Index+1, o.Turn)
		if len(o.Task) > 0 {
			where += " in task " + strings.Join(o.Task, "/")
		}
		parts = append(parts, fmt.Sprintf("%s: %d characters from %s (%s)", a, chars[a], where, o.Source))
	}
	return strings.Join(parts, "; ")
}

// guardProvenance applies the protected-argument rules and the provenance
// of acting arguments to c. ok is false when neither has a say.
func (p *Policy) guardProvenance(c runtime.CallInfo) (runtime.Flow, bool) {
	for _, r := range p.rules.protect {
		if !r.matches(c, p.workspace) {
			continue
		}
		if c.Sources == nil {
			continue
		}
		sources, has := c.Sources(r.Argument)
		if !has || slices.ContainsFunc(sources, func(s string) bool { return slices.Contains(r.From, s) }) {
			continue
		}
		came := "nowhere the session has seen (the model wrote it)"
		if len(sources) > 0 && !(len(sources) == 1 && sources[0] == "model") {
			came = strings.Join(sources, ", ")
		}
		why := fmt.Sprintf("rule %s: %s's %s must come from %s, and it came from %s", r.label, c.Call.Name, r.Argument,
			strings.Join(r.From, " or "), came)
		if r.Reason != "" {
			why += " (" + r.Reason + ")"
		}
		if r.Decision == Deny {
			return runtime.Skip(RuleDecider(r.label).String(), "Skipped: "+why+"; the call was not run."), true
		}
		return p.ask(RuleDecider(r.label).String(), why), true
	}
	tainted := Tainted(c)
	if len(tainted) == 0 {
		return runtime.Flow{}, false
	}
	for _, r := range p.rules.allow {
		if r.Provenance == "allow" && r.matches(c, p.workspace) {
			return runtime.Continue(RuleDecider(r.label).String(),
				"an allow rule lets this call run although its arguments came from an untrusted result ("+DescribeOrigins(tainted)+")"), true
		}
	}
	return p.ask(provenanceDecider.String(), "its arguments came from an untrusted result: "+DescribeOrigins(tainted)), true
}
