package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agenttui/agenttui/internal/ctrlchar"
)

// Parse reads the value of a configuration's "hooks" key. null or {} give
// an empty Config. Matchers are compiled once, here.
//
// The configuration is checked strictly, since a hook the person believes is
// guarding their tool calls and that silently never runs is worse than a
// configuration that does not load: an unknown event or key, an empty
// command, a matcher that is not a regular expression, a timeout that is not
// a positive number and a kind of hook agenttui does not run are all errors.
// An error is one line that names the place as a path, such as
//
//	hooks.PreToolUse[0].hooks[1].command: is empty
func Parse(raw []byte) (Config, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Config{}, nil
	}
	fields, err := objectFields(raw)
	if err != nil {
		return nil, fmt.Errorf("hooks: %w", err)
	}
	c := Config{}
	for _, f := range fields {
		path := "hooks." + pathKey(f.key)
		ev := Event(f.key)
		if !knownEvent(ev) {
			return nil, fmt.Errorf("%s: not a hook event; the events are %s", path, eventList())
		}
		if _, dup := c[ev]; dup {
			return nil, fmt.Errorf("%s: is given twice", path)
		}
		groups, err := parseGroups(path, f.val)
		if err != nil {
			return nil, err
		}
		c[ev] = groups
	}
	return c, nil
}

// parseGroups reads one event's list of groups.
func parseGroups(path string, raw json.RawMessage) ([]Group, error) {
	if isNull(raw) {
		return []Group{}, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, fmt.Errorf(`%s: must be a list of groups, each with "matcher" and "hooks"`, path)
	}
	groups := make([]Group, 0, len(items))
	for i, item := range items {
		g, err := parseGroup(fmt.Sprintf("%s[%d]", path, i), item)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// parseGroup reads one group: its matcher, compiled, and its commands.
func parseGroup(path string, raw json.RawMessage) (Group, error) {
	fields, err := objectFields(raw)
	if err != nil {
		return Group{}, fmt.Errorf(`%s: must be an object with "matcher" and "hooks"`, path)
	}
	var g Group
	seen := map[string]bool{}
	for _, f := range fields {
		at := path + "." + pathKey(f.key)
		if seen[f.key] {
			return Group{}, fmt.Errorf("%s: is given twice", at)
		}
		seen[f.key] = true
		switch f.key {
		case "matcher":
			if isNull(f.val) {
				continue
			}
			if json.Unmarshal(f.val, &g.Matcher) != nil {
				return Group{}, fmt.Errorf("%s: must be a string", at)
			}
			re, err := compileMatcher(g.Matcher)
			if err != nil {
				return Group{}, fmt.Errorf("%s: not a regular expression: %s", at, ctrlchar.ToSpaces(err.Error()))
			}
			g.re = re
		case "hooks":
			var items []json.RawMessage
			if isNull(f.val) || json.Unmarshal(f.val, &items) != nil {
				return Group{}, fmt.Errorf("%s: must be a list of commands", at)
			}
			g.Hooks = make([]Command, 0, len(items))
			for i, item := range items {
				c, err := parseCommand(fmt.Sprintf("%s[%d]", at, i), item)
				if err != nil {
					return Group{}, err
				}
				g.Hooks = append(g.Hooks, c)
			}
		default:
			return Group{}, fmt.Errorf(`%s: not a key of a group; a group has "matcher" and "hooks"`, at)
		}
	}
	if !seen["hooks"] {
		return Group{}, fmt.Errorf("%s.hooks: is missing", path)
	}
	return g, nil
}

// parseCommand reads one command entry.
func parseCommand(path string, raw json.RawMessage) (Command, error) {
	fields, err := objectFields(raw)
	if err != nil {
		return Command{}, fmt.Errorf(`%s: must be an object with "type" and "command"`, path)
	}
	var c Command
	seen := map[string]bool{}
	for _, f := range fields {
		at := path + "." + pathKey(f.key)
		if seen[f.key] {
			return Command{}, fmt.Errorf("%s: is given twice", at)
		}
		seen[f.key] = true
		switch f.key {
		case "type":
			if json.Unmarshal(f.val, &c.Type) != nil || c.Type == "" {
				return Command{}, fmt.Errorf(`%s: must be "command"`, at)
			}
			if c.Type != "command" {
				return Command{}, fmt.Errorf(`%s: %s hooks are not supported; only "command"`, at, strconv.Quote(ctrlchar.ToSpaces(c.Type)))
			}
		case "command":
			if json.Unmarshal(f.val, &c.Command) != nil {
				return Command{}, fmt.Errorf("%s: must be a string", at)
			}
			if strings.TrimSpace(c.Command) == "" {
				return Command{}, fmt.Errorf("%s: is empty", at)
			}
		case "timeout":
			if isNull(f.val) {
				continue
			}
			// JSON has no NaN or infinity, so a number that decodes is
			// finite; only its sign needs checking.
			if json.Unmarshal(f.val, &c.Timeout) != nil || c.Timeout <= 0 {
				return Command{}, fmt.Errorf("%s: must be a positive number of seconds", at)
			}
		case "on_error":
			if isNull(f.val) {
				continue
			}
			if json.Unmarshal(f.val, &c.OnError) != nil || (c.OnError != OnErrorDeny && c.OnError != "ignore") {
				return Command{}, fmt.Errorf(`%s: must be "deny" or "ignore"`, at)
			}
		default:
			return Command{}, fmt.Errorf(`%s: not a key of a hook; a hook has "type", "command", "timeout" and "on_error"`, at)
		}
	}
	// Claude Code requires the type too; asking for it keeps a file that
	// works here working there.
	if !seen["type"] {
		return Command{}, fmt.Errorf(`%s.type: is missing; it must be "command"`, path)
	}
	if !seen["command"] {
		return Command{}, fmt.Errorf("%s.command: is missing", path)
	}
	return c, nil
}

// field is one key of a JSON object and its value, as written.
type field struct {
	key string
	val json.RawMessage
}

// objectFields returns the keys of the JSON object raw in the order they are
// written, so that the first mistake in the file is the one reported and a
// key given twice is seen (a map would keep only the last).
func objectFields(raw []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, errors.New("not valid JSON: " + ctrlchar.ToSpaces(err.Error()))
	}
	if tok != json.Delim('{') {
		return nil, errors.New("must be an object whose keys are hook events")
	}
	var fields []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("not valid JSON: " + ctrlchar.ToSpaces(err.Error()))
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, errors.New("not valid JSON: " + ctrlchar.ToSpaces(err.Error()))
		}
		fields = append(fields, field{key, val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("not valid JSON: " + ctrlchar.ToSpaces(err.Error()))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not valid JSON: more follows the object")
	}
	return fields, nil
}

// isNull reports whether raw is JSON's null.
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// pathKey writes a key for an error's path: as it is when it is a plain
// name, else quoted, so that a key with spaces or line breaks keeps the
// message on one line and unambiguous.
func pathKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return strconv.Quote(k)
		}
	}
	return k
}

// knownEvent reports whether ev is one of Events.
func knownEvent(ev Event) bool {
	for _, e := range Events() {
		if e == ev {
			return true
		}
	}
	return false
}

// eventList returns the events' names for a message: "A, B, C".
func eventList() string {
	names := make([]string, 0, len(Events()))
	for _, e := range Events() {
		names = append(names, string(e))
	}
	return strings.Join(names, ", ")
}

// compileMatcher compiles a group's matcher anchored at both ends, as Claude
// Code matches it; nil for one that matches every tool. The matcher is
// compiled alone first so that an error speaks of what the person wrote,
// not of the anchors around it.
func compileMatcher(m string) (*regexp.Regexp, error) {
	if matchesAll(m) {
		return nil, nil
	}
	if _, err := regexp.Compile(m); err != nil {
		return nil, err
	}
	return regexp.Compile("^(?:" + m + ")$")
}

// matchesAll reports whether the matcher m matches every tool.
func matchesAll(m string) bool { return m == "" || m == "*" }

// Empty reports whether c has no command at all.
func (c Config) Empty() bool {
	for _, groups := range c {
		for _, g := range groups {
			if len(g.Hooks) > 0 {
				return false
			}
		}
	}
	return true
}

// Merge returns a Config with c's groups and then other's, per event, as
// when a user's hooks and a workspace's both apply. Neither c nor other is
// modified, and the result shares no list with them.
func (c Config) Merge(other Config) Config {
	out := make(Config, len(c)+len(other))
	for ev, groups := range c {
		out[ev] = append([]Group(nil), groups...)
	}
	for ev, groups := range other {
		out[ev] = append(out[ev], groups...)
	}
	return out
}

// MarkWorkspace returns a copy of c in which every command is marked as
// coming from the workspace's own configuration (Command.Workspace).
func (c Config) MarkWorkspace() Config {
	out := make(Config, len(c))
	for ev, groups := range c {
		gs := make([]Group, len(groups))
		for i, g := range groups {
			g.Hooks = append([]Command(nil), g.Hooks...)
			for j := range g.Hooks {
				g.Hooks[j].Workspace = true
			}
			gs[i] = g
		}
		out[ev] = gs
	}
	return out
}

// Trusted returns a copy of c without the commands marked as the
// workspace's own, for when the person has not trusted them. Groups left
// with no command, and events left with no group, are dropped.
func (c Config) Trusted() Config {
	out := make(Config, len(c))
	for ev, groups := range c {
		var gs []Group
		for _, g := range groups {
			var keep []Command
			for _, cmd := range g.Hooks {
				if !cmd.Workspace {
					keep = append(keep, cmd)
				}
			}
			if len(keep) > 0 {
				g.Hooks = keep
				gs = append(gs, g)
			}
		}
		if len(gs) > 0 {
			out[ev] = gs
		}
	}
	return out
}

// Has reports whether any command of c would run for the event ev, and for
// a tool event, for the tool named tool.
func (c Config) Has(ev Event, tool string) bool {
	for _, g := range c[ev] {
		if len(g.Hooks) > 0 && (!ev.ToolEvent() || g.Matches(tool)) {
			return true
		}
	}
	return false
}

// commands returns the commands of c that run for ev and tool, in the
// configuration's order.
func (c Config) commands(ev Event, tool string) []Command {
	var out []Command
	for _, g := range c[ev] {
		if !ev.ToolEvent() || g.Matches(tool) {
			out = append(out, g.Hooks...)
		}
	}
	return out
}

// Describe returns one line per command, for asking the person whether to
// trust a workspace's hooks: the event, for a tool event the matcher ("*"
// for one that matches every tool), the command as written, and its time
// limit and on_error deny when its entry sets them, as in
//
//	PreToolUse run_shell|Bash: ~/bin/check (30 s, deny on error)
//	Stop: ./hooks/again.sh
//
// The lines are in the order of Events, then of the configuration. Control
// characters are shown escaped, so that a command cannot hide part of
// itself, or act on the terminal, in the prompt that asks about it.
func (c Config) Describe() []string {
	var lines []string
	for _, ev := range Events() {
		for _, g := range c[ev] {
			head := string(ev)
			if ev.ToolEvent() {
				m := g.Matcher
				if matchesAll(m) {
					m = "*"
				}
				head += " " + visible(m)
			}
			for _, cmd := range g.Hooks {
				var notes []string
				if cmd.Timeout > 0 {
					notes = append(notes, strconv.FormatFloat(cmd.Timeout, 'f', -1, 64)+" s")
				}
				if cmd.OnError == OnErrorDeny {
					notes = append(notes, "deny on error")
				}
				line := head + ": " + visible(cmd.Command)
				if len(notes) > 0 {
					line += " (" + strings.Join(notes, ", ") + ")"
				}
				lines = append(lines, line)
			}
		}
	}
	return lines
}

// visible returns s with invalid UTF-8, control characters and
// bidirectional formatting characters written as Go escapes.
func visible(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case ctrlchar.Is(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}
