package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agenttui/agenttui/runtime"
)

// Decision is what a rule decides for the calls it matches.
type Decision string

// The decisions a rule can make.
const (
	// Allow runs the call without asking.
	Allow Decision = "allow"
	// AskFirst asks the person before the call runs.
	AskFirst Decision = "ask"
	// Deny skips the call; the model reads the rule's reason.
	Deny Decision = "deny"
)

// Rule matches calls by tool name and top-level string (or true/false)
// arguments and decides for them. Rules are evaluated deny first, then ask, then allow; within each
// the first match wins; the mode decides for calls no rule matches.
type Rule struct {
	// Name identifies the rule in the event stream ("rule:<name>"); empty
	// means the rule is named by its label.
	Name string `json:"name,omitempty"`
	// Tool is a glob on the tool name, such as "write_file" or "fs__*".
	Tool string `json:"tool"`
	// Args maps a top-level string argument to a glob its value must
	// match (doublestar syntax, as the workspace tools' globs). Path-like
	// arguments (see IsPathArgument) are matched against the
	// workspace-relative path after resolution, with * staying within one
	// folder, ** crossing folders and {a,b} an alternation; a pattern
	// starting with / is matched against the absolute path. Other arguments
	// are matched as text: * matches anything, / included, and braces are
	// plain characters; a true/false argument matches as "true" or "false".
	Args map[string]string `json:"args,omitempty"`
	// Decision is allow, ask or deny.
	Decision Decision `json:"decision"`
	// Reason explains the rule. For a deny rule it is what the model reads.
	Reason string `json:"reason,omitempty"`
	// Provenance, set to "allow" on an allow rule, lets the calls the
	// rule matches run although their arguments carry text from an
	// untrusted result into an action, which otherwise always asks.
	Provenance string `json:"provenance,omitempty"`
	// Argument and From make the rule protect an argument: the call's
	// top-level string argument Argument must come, at least in part, from
	// one of the sources From names (person, workspace, web, mcp, shell,
	// task, agenttui, or model for text found in no source); otherwise
	// the rule's decision applies, ask (the default) or deny.
	Argument string   `json:"argument,omitempty"`
	From     []string `json:"from,omitempty"`
}

// sourceKinds are the sources a protected argument's From may name.
var sourceKinds = []string{"person", "workspace", "web", "mcp", "shell", "task", "agenttui", "model"}

// compiledRule is a rule ready to match.
type compiledRule struct {
	Rule
	label string
	tool  pattern
	args  []argPattern
}

type argPattern struct {
	name string
	pattern
}

// IsPathArgument reports whether an argument name holds a path, so that rules
// match it as a resolved workspace path rather than as text.
func IsPathArgument(name string) bool {
	switch name {
	case "path", "file", "dir", "directory", "filename", "source", "destination", "target", "root":
		return true
	}
	return strings.HasSuffix(name, "_path") || strings.HasSuffix(name, "_file") || strings.HasSuffix(name, "_dir")
}

// RuleError says which field of a rule is wrong and why.
type RuleError struct {
	// Field is "tool", "decision" or "args.<name>".
	Field string
	// Problem says what is wrong.
	Problem string
}

// Error returns "field: problem".
func (e *RuleError) Error() string { return e.Field + ": " + e.Problem }

func ruleErr(field, format string, args ...any) error {
	return &RuleError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// compile checks the rule and compiles its patterns; label names the rule in
// decisions when it has no name.
func (r Rule) compile(label string) (compiledRule, error) {
	c := compiledRule{Rule: r, label: label}
	if r.Name != "" {
		c.label = r.Name
	}
	if len(r.From) > 0 || r.Argument != "" {
		if r.Argument == "" {
			return c, ruleErr("argument", "missing: a rule with from protects one argument, such as url")
		}
		if len(r.From) == 0 {
			return c, ruleErr("from", "missing: name the sources the argument must come from, such as [\"person\", \"workspace\"]")
		}
		for _, f := range r.From {
			if !slices.Contains(sourceKinds, f) {
				return c, ruleErr("from", "unknown source %q: use %s", f, strings.Join(sourceKinds, ", "))
			}
		}
		switch r.Decision {
		case "":
			c.Decision = AskFirst
		case AskFirst, Deny:
		default:
			return c, ruleErr("decision", "a rule that protects an argument asks or denies, not %q", r.Decision)
		}
	}
	if r.Provenance != "" && (r.Provenance != "allow" || r.Decision != Allow) {
		return c, ruleErr("provenance", "only \"allow\", on an allow rule, not %q", r.Provenance)
	}
	switch c.Decision {
	case Allow, AskFirst, Deny:
	case "":
		return c, ruleErr("decision", "missing: use allow, ask or deny")
	default:
		return c, ruleErr("decision", "must be allow, ask or deny, not %q", r.Decision)
	}
	if strings.TrimSpace(r.Tool) == "" {
		return c, ruleErr("tool", "missing: give a tool name or a glob such as fs__*")
	}
	var err error
	if c.tool, err = compilePattern(r.Tool, false); err != nil {
		return c, ruleErr("tool", "%v", err)
	}
	names := make([]string, 0, len(r.Args))
	for name := range r.Args {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "" {
			return c, ruleErr("args", "an argument name is empty")
		}
		p, err := compilePattern(r.Args[name], IsPathArgument(name))
		if err != nil {
			return c, ruleErr("args."+name, "%v", err)
		}
		c.args = append(c.args, argPattern{name: name, pattern: p})
	}
	return c, nil
}

// matches reports whether the rule covers the call.
func (c compiledRule) matches(call runtime.CallInfo, workspace string) bool {
	if !c.tool.match(call.Call.Name) {
		return false
	}
	if len(c.args) == 0 {
		return true
	}
	var args map[string]any
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return false
	}
	for _, a := range c.args {
		v, ok := args[a.name].(string)
		if b, isBool := args[a.name].(bool); isBool {
			// A switch such as run_shell's sandbox matches as its text,
			// so a rule can name sandbox=false.
			v, ok = strconv.FormatBool(b), true
		}
		if !ok {
			return false
		}
		if a.paths {
			v = rulePath(v, workspace, strings.HasPrefix(a.text, "/"))
		}
		if !a.match(v) {
			return false
		}
	}
	return true
}

// rulePath resolves a path argument the way the tools will: against the
// workspace, with symlinks followed as far as the path exists. It returns the
// path relative to the workspace (or absolute when asked, or when there is no
// workspace), so "docs/../secrets/x" is matched as "secrets/x" and a path
// outside the workspace starts with "../".
func rulePath(p, workspace string, absolute bool) string {
	if workspace == "" {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workspace, p)
	}
	resolved := resolveExisting(filepath.Clean(p))
	root := resolveExisting(workspace)
	if absolute {
		return filepath.ToSlash(resolved)
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil {
		return filepath.ToSlash(resolved)
	}
	return filepath.ToSlash(rel)
}

// resolveExisting follows symlinks in the longest existing prefix of p and
// appends the rest.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if resolved, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(resolved, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// ParseRule parses the short rule form of --allow and --deny:
// "tool" or "tool(arg=glob, arg=glob)", for example write_file(path=docs/**)
// or run_shell(command=git *). A value may be double-quoted to hold commas or
// parentheses.
func ParseRule(spec string, d Decision) (Rule, error) {
	spec = strings.TrimSpace(spec)
	r := Rule{Decision: d, Args: map[string]string{}}
	open := strings.IndexByte(spec, '(')
	if open < 0 {
		r.Tool = spec
	} else {
		if !strings.HasSuffix(spec, ")") {
			return r, fmt.Errorf("rule %q: missing the closing parenthesis", spec)
		}
		r.Tool = strings.TrimSpace(spec[:open])
		body := spec[open+1 : len(spec)-1]
		pairs, err := splitArgs(body)
		if err != nil {
			return r, fmt.Errorf("rule %q: %v", spec, err)
		}
		for _, pair := range pairs {
			k, v, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return r, fmt.Errorf("rule %q: %q is not of the form argument=pattern", spec, pair)
			}
			v = strings.TrimSpace(v)
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			r.Args[k] = v
		}
	}
	if r.Tool == "" {
		return r, fmt.Errorf("rule %q: the tool name is missing", spec)
	}
	if _, err := r.compile(""); err != nil {
		return r, fmt.Errorf("rule %q: %v", spec, err)
	}
	return r, nil
}

// splitArgs splits "a=1, b=\"x,y\"" at top-level commas.
func splitArgs(body string) ([]string, error) {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, c := range body {
		switch {
		case c == '"':
			quoted = !quoted
			cur.WriteRune(c)
		case c == ',' && !quoted:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(c)
		}
	}
	if quoted {
		return nil, errors.New("unclosed double quote")
	}
	if strings.TrimSpace(cur.String()) != "" || len(out) > 0 {
		out = append(out, cur.String())
	}
	return out, nil
}

// ruleSet holds compiled rules by decision, each in the order given.
type ruleSet struct {
	deny, ask, allow []compiledRule
	// protect are the rules that protect an argument's sources.
	protect []compiledRule
}

// NamedRule is a rule with the label it is known by in decisions when it has
// no name of its own: its position in the configuration ("3") or its flag
// ("--allow write_file(path=docs/**)").
type NamedRule struct {
	Rule
	Label string
}

func compileRules(rules []NamedRule) (ruleSet, error) {
	var set ruleSet
	for _, r := range rules {
		c, err := r.compile(r.Label)
		if err != nil {
			return set, fmt.Errorf("rule %s: %v", r.Label, err)
		}
		switch {
		case len(c.From) > 0:
			set.protect = append(set.protect, c)
		case r.Decision == Deny:
			set.deny = append(set.deny, c)
		case r.Decision == AskFirst:
			set.ask = append(set.ask, c)
		default:
			set.allow = append(set.allow, c)
		}
	}
	return set, nil
}

func firstMatch(rules []compiledRule, call runtime.CallInfo, workspace string) (compiledRule, bool) {
	for _, r := range rules {
		if r.matches(call, workspace) {
			return r, true
		}
	}
	return compiledRule{}, false
}

// workspaceRoot resolves the workspace once so rule paths compare equal.
func workspaceRoot(ws string) string {
	if ws == "" {
		return ""
	}
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	if _, err := os.Stat(ws); err != nil {
		return ws
	}
	return resolveExisting(ws)
}

// Check reports what is wrong with the rule, if anything, naming the field:
// "decision must be allow, ask or deny", "args.path: unclosed [ …".
func (r Rule) Check() error {
	_, err := r.compile("")
	return err
}
