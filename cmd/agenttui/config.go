package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// config is the configuration file: agenttui.json in the workspace, else
// $XDG_CONFIG_HOME/agenttui/config.json, or the file --config names.
type config struct {
	path            string
	model           string
	mode            approval.Mode
	maxParallel     int
	maxOutputTokens int
	budgets         runtime.Budgets
	rules           []approval.NamedRule
	// contextWindow overrides the model's context window; autoCompact,
	// when set, is the share of it at which a session is compacted (0:
	// never automatically).
	contextWindow int
	autoCompact   *float64
	// idleTimeout is stream_idle_timeout: how long a model's stream may
	// send nothing before the attempt is abandoned; zero means the default.
	idleTimeout time.Duration
	// modelRetries is model_retries: how many more attempts a model
	// request gets after one that failed in a way that may pass; nil means
	// the default.
	modelRetries *int
	// maxResultBytes is max_tool_result_bytes: how much of one call's
	// result the model reads; zero means the default.
	maxResultBytes int
	// sandbox is the "sandbox" object; an empty mode means the default.
	sandbox sandbox.Config
	// sandboxedShell is "approval": {"sandboxed_shell": "allow"}: sandboxed
	// shell commands run without asking.
	sandboxedShell bool
}

// configKeys are the keys a configuration file may hold, for error messages.
var configKeys = []string{"model", "mode", "max_parallel", "max_output_tokens", "stream_idle_timeout", "model_retries", "budgets", "rules",
	"context_window", "auto_compact", "max_tool_result_bytes", "sandbox", "approval"}

var sandboxKeys = []string{"mode", "network", "writable", "protect_git"}

var approvalKeys = []string{"sandboxed_shell"}

var budgetKeys = []string{"max_turns", "max_time", "max_invalid_replies", "call_timeout"}

var ruleKeys = []string{"name", "tool", "args", "decision", "reason"}

// findConfig returns the configuration file to read: explicit when given
// (it must exist), else agenttui.json in the workspace, else the user's
// config.json; "" when there is none.
func findConfig(explicit, workspace string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", usagef("config file %s cannot be read: %v", explicit, unwrapPathError(err))
		}
		return explicit, nil
	}
	candidates := []string{filepath.Join(workspace, "agenttui.json")}
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		if home, err := os.UserHomeDir(); err == nil {
			base = filepath.Join(home, ".config")
		}
	}
	if base != "" {
		candidates = append(candidates, filepath.Join(base, "agenttui", "config.json"))
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// loadConfig reads and checks the configuration file at path. Every problem
// is one line naming the file, the key and what is wrong.
func loadConfig(path string) (*config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("config file %s cannot be read: %v", path, unwrapPathError(err))
	}
	return parseConfig(path, data)
}

// parseConfig checks the configuration data read from path.
func parseConfig(path string, data []byte) (*config, error) {
	c := &config{path: path}
	fail := func(key, format string, args ...any) error {
		return usagef("config %s: %s: %s", path, key, fmt.Sprintf(format, args...))
	}
	top, err := objectOf(data)
	if err != nil {
		return nil, usagef("config %s: not a JSON object: %v", path, err)
	}
	for _, key := range sortedKeys(top) {
		raw := top[key]
		switch key {
		case "model":
			if c.model, err = stringOf(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.model == "" {
				return nil, fail(key, "must not be empty")
			}
		case "mode":
			s, err := stringOf(raw)
			if err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.mode, err = approval.ParseMode(s); err != nil {
				return nil, fail(key, "%v", err)
			}
		case "max_parallel":
			if c.maxParallel, err = positiveInt(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
		case "max_output_tokens":
			if c.maxOutputTokens, err = positiveInt(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
		case "stream_idle_timeout":
			if c.idleTimeout, err = duration(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
		case "model_retries":
			n, err := countOf(raw)
			if err != nil {
				return nil, fail(key, "%v", err)
			}
			c.modelRetries = &n
		case "budgets":
			if err := c.loadBudgets(raw, fail); err != nil {
				return nil, err
			}
		case "max_tool_result_bytes":
			if c.maxResultBytes, err = positiveInt(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.maxResultBytes < 4096 {
				return nil, fail(key, "%d bytes is too small to read anything by; give at least 4096", c.maxResultBytes)
			}
		case "context_window":
			if c.contextWindow, err = positiveInt(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.contextWindow < 1000 {
				return nil, fail(key, "%d tokens is too small for any model; give the window in tokens, such as 128000", c.contextWindow)
			}
		case "auto_compact":
			var share float64
			if err := json.Unmarshal(raw, &share); err != nil {
				return nil, fail(key, "expected a number, got %s", kindOf(raw))
			}
			if share < 0 || share >= 1 || (share > 0 && share < 0.1) {
				return nil, fail(key, "must be 0 (never compact automatically) or a share of the window from 0.1 to below 1, such as 0.85; not %s",
					strings.TrimSpace(string(raw)))
			}
			c.autoCompact = &share
		case "rules":
			if err := c.loadRules(raw, fail); err != nil {
				return nil, err
			}
		case "sandbox":
			if err := c.loadSandbox(raw, fail); err != nil {
				return nil, err
			}
		case "approval":
			if err := c.loadApproval(raw, fail); err != nil {
				return nil, err
			}
		default:
			return nil, fail(key, "unknown key (known keys: %s)", strings.Join(configKeys, ", "))
		}
	}
	return c, nil
}

func (c *config) loadBudgets(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("budgets", "%v", err)
	}
	for _, key := range sortedKeys(obj) {
		full := "budgets." + key
		v := obj[key]
		switch key {
		case "max_turns":
			if c.budgets.MaxTurns, err = positiveInt(v); err != nil {
				return fail(full, "%v", err)
			}
		case "max_invalid_replies":
			if c.budgets.MaxInvalidReplies, err = positiveInt(v); err != nil {
				return fail(full, "%v", err)
			}
		case "max_time":
			if c.budgets.MaxTime, err = duration(v); err != nil {
				return fail(full, "%v", err)
			}
		case "call_timeout":
			if c.budgets.CallTimeout, err = duration(v); err != nil {
				return fail(full, "%v", err)
			}
		default:
			return fail(full, "unknown key (known keys: %s)", strings.Join(budgetKeys, ", "))
		}
	}
	return nil
}

func (c *config) loadSandbox(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("sandbox", "%v", err)
	}
	for _, key := range sortedKeys(obj) {
		full := "sandbox." + key
		v := obj[key]
		switch key {
		case "mode":
			s, err := stringOf(v)
			if err != nil {
				return fail(full, "%v", err)
			}
			if c.sandbox.Mode, err = sandbox.ParseMode(s); err != nil {
				return fail(full, "%v", err)
			}
		case "network":
			if c.sandbox.Network, err = boolOf(v); err != nil {
				return fail(full, "%v", err)
			}
		case "protect_git":
			if c.sandbox.ProtectGit, err = boolOf(v); err != nil {
				return fail(full, "%v", err)
			}
		case "writable":
			var items []json.RawMessage
			if err := json.Unmarshal(v, &items); err != nil || items == nil {
				return fail(full, "expected an array of folders, got %s", kindOf(v))
			}
			for i, item := range items {
				s, err := stringOf(item)
				if err != nil || s == "" {
					return fail(fmt.Sprintf("%s[%d]", full, i), "expected a folder, got %s", kindOf(item))
				}
				c.sandbox.Writable = append(c.sandbox.Writable, s)
			}
		default:
			return fail(full, "unknown key (known keys: %s)", strings.Join(sandboxKeys, ", "))
		}
	}
	return nil
}

func (c *config) loadApproval(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("approval", "%v", err)
	}
	for _, key := range sortedKeys(obj) {
		full := "approval." + key
		switch key {
		case "sandboxed_shell":
			s, err := stringOf(obj[key])
			if err != nil {
				return fail(full, "%v", err)
			}
			switch s {
			case "allow":
				c.sandboxedShell = true
			case "mode":
				c.sandboxedShell = false
			default:
				return fail(full, `must be "allow" (sandboxed shell commands run without asking) or "mode" (the mode decides), not %q`, s)
			}
		default:
			return fail(full, "unknown key (known keys: %s)", strings.Join(approvalKeys, ", "))
		}
	}
	return nil
}

func boolOf(raw json.RawMessage) (bool, error) {
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, fmt.Errorf("expected true or false, got %s", kindOf(raw))
	}
	return b, nil
}

func (c *config) loadRules(raw json.RawMessage, fail func(string, string, ...any) error) error {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return fail("rules", "expected an array of rules, got %s", kindOf(raw))
	}
	for i, item := range items {
		at := fmt.Sprintf("rules[%d]", i)
		obj, err := objectOf(item)
		if err != nil {
			return fail(at, "%v", err)
		}
		var r approval.Rule
		for _, key := range sortedKeys(obj) {
			v := obj[key]
			var err error
			switch key {
			case "name":
				r.Name, err = stringOf(v)
			case "tool":
				r.Tool, err = stringOf(v)
			case "reason":
				r.Reason, err = stringOf(v)
			case "decision":
				var d string
				d, err = stringOf(v)
				r.Decision = approval.Decision(d)
			case "args":
				r.Args, err = stringMap(v)
			default:
				return fail(at+"."+key, "unknown key (known keys: %s)", strings.Join(ruleKeys, ", "))
			}
			if err != nil {
				return fail(at+"."+key, "%v", err)
			}
		}
		if err := r.Check(); err != nil {
			var re *approval.RuleError
			if errors.As(err, &re) {
				return fail(at+"."+re.Field, "%s", re.Problem)
			}
			return fail(at, "%v", err)
		}
		c.rules = append(c.rules, approval.NamedRule{Rule: r, Label: fmt.Sprint(i + 1)})
	}
	return nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// objectOf decodes a JSON object, refusing duplicate-free garbage such as
// trailing data.
func objectOf(raw json.RawMessage) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil || m == nil {
		if err != nil && !strings.Contains(err.Error(), "cannot unmarshal") {
			return nil, err
		}
		return nil, fmt.Errorf("expected an object, got %s", kindOf(raw))
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the object")
	}
	return m, nil
}

func stringOf(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("expected a string, got %s", kindOf(raw))
	}
	return s, nil
}

func stringMap(raw json.RawMessage) (map[string]string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("expected an object of argument patterns, got %s", kindOf(raw))
	}
	out := map[string]string{}
	for _, k := range sortedKeys(m) {
		s, err := stringOf(m[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		out[k] = s
	}
	return out, nil
}

func positiveInt(raw json.RawMessage) (int, error) {
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("expected a whole number, got %s", kindOf(raw))
	}
	if n != float64(int(n)) || n < 1 {
		return 0, fmt.Errorf("must be a whole number of at least 1, not %s", strings.TrimSpace(string(raw)))
	}
	return int(n), nil
}

// countOf reads a whole number of at least 0.
func countOf(raw json.RawMessage) (int, error) {
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("expected a whole number, got %s", kindOf(raw))
	}
	if n != float64(int(n)) || n < 0 {
		return 0, fmt.Errorf("must be a whole number of at least 0, not %s", strings.TrimSpace(string(raw)))
	}
	return int(n), nil
}

func duration(raw json.RawMessage) (time.Duration, error) {
	s, err := stringOf(raw)
	if err != nil {
		return 0, errors.New(`expected a duration such as "15m" or "90s"`)
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf(`%q is not a positive duration such as "15m" or "90s"`, s)
	}
	return d, nil
}

// kindOf names the JSON type of raw for error messages.
func kindOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// flagRules turns --allow and --deny values into rules named by their flag.
func flagRules(allow, deny []string) ([]approval.NamedRule, error) {
	var out []approval.NamedRule
	for _, group := range []struct {
		flag  string
		specs []string
		d     approval.Decision
	}{{"--deny", deny, approval.Deny}, {"--allow", allow, approval.Allow}} {
		for _, spec := range group.specs {
			r, err := approval.ParseRule(spec, group.d)
			if err != nil {
				return nil, usagef("%s: %v", group.flag, err)
			}
			out = append(out, approval.NamedRule{Rule: r, Label: group.flag + " " + strings.TrimSpace(spec)})
		}
	}
	return out, nil
}

// applyConfig finds and reads the configuration and lays it under the flags
// the person set explicitly.
func applyConfig(o *options) error {
	path, err := findConfig(o.configPath, o.workspace)
	if err != nil || path == "" {
		return err
	}
	c, err := loadConfig(path)
	if err != nil {
		return err
	}
	o.config = c
	if !o.set["model"] && c.model != "" && o.scenario == "" {
		o.model = c.model
	}
	if !o.set["mode"] && c.mode != "" {
		o.mode = c.mode
	}
	if !o.set["max-parallel"] && c.maxParallel > 0 {
		o.maxParallel = c.maxParallel
	}
	mode := o.sandbox.Mode
	o.sandbox = c.sandbox
	if o.set["sandbox"] {
		o.sandbox.Mode = mode
	}
	return nil
}

// rules returns the configured rules followed by the flags' rules.
func (o *options) rules() ([]approval.NamedRule, error) {
	fr, err := flagRules(o.allow, o.deny)
	if err != nil {
		return nil, err
	}
	var rules []approval.NamedRule
	if o.config != nil {
		rules = slices.Clone(o.config.rules)
	}
	return append(rules, fr...), nil
}
