package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// configKeys are the keys a configuration file may hold, for error messages.
var configKeys = []string{"model", "mode", "max_parallel", "max_output_tokens", "stream_idle_timeout", "model_retries", "budgets", "rules",
	"context_window", "auto_compact", "max_tool_result_bytes", "sandbox", "approval", "reasoning", "prices", "openai_api",
	"system_prompt_file", "checkpoints", "web", "provenance", "hooks"}

var webKeys = []string{"allow_private"}

var provenanceKeys = []string{"untrusted"}

// UntrustedNames are the sources "provenance.untrusted" may name.
var UntrustedNames = []string{"web", "mcp", "shell", "workspace", "new_files", "task"}

var checkpointKeys = []string{"enabled", "max_mb", "max_file_mb"}

var sandboxKeys = []string{"mode", "network", "writable", "protect_git", "toolchain_caches"}

var approvalKeys = []string{"sandboxed_shell"}

var budgetKeys = []string{"max_turns", "max_time", "max_invalid_replies", "call_timeout", "task_max_turns"}

var ruleKeys = []string{"name", "tool", "args", "decision", "reason", "provenance", "argument", "from"}

// Parse checks the configuration data read from path; path is only named
// in errors and kept in Path.
func Parse(path string, data []byte) (*Config, error) {
	// The toolchains' caches are writable unless the file says otherwise:
	// without them a sandboxed go build cannot even start.
	c := &Config{Path: path, Sandbox: sandbox.Config{ToolchainCaches: true}}
	fail := func(key, format string, args ...any) error {
		return &Error{File: path, Key: key, Problem: fmt.Sprintf(format, args...)}
	}
	top, err := objectOf(data)
	if err != nil {
		return nil, &Error{File: path, Problem: fmt.Sprintf("not a JSON object: %v", err)}
	}
	for _, key := range sortedKeys(top) {
		raw := top[key]
		switch key {
		case "model":
			if c.Model, err = stringOf(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.Model == "" {
				return nil, fail(key, "must not be empty")
			}
		case "mode":
			s, err := stringOf(raw)
			if err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.Mode, err = approval.ParseMode(s); err != nil {
				return nil, fail(key, "%v", err)
			}
		case "max_parallel":
			if c.MaxParallel, err = positiveInt(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
		case "max_output_tokens":
			if c.MaxOutputTokens, err = positiveInt(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
		case "stream_idle_timeout":
			if c.IdleTimeout, err = duration(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
		case "model_retries":
			n, err := countOf(raw)
			if err != nil {
				return nil, fail(key, "%v", err)
			}
			c.ModelRetries = &n
		case "budgets":
			if err := c.loadBudgets(raw, fail); err != nil {
				return nil, err
			}
		case "max_tool_result_bytes":
			if c.MaxResultBytes, err = positiveInt(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.MaxResultBytes < 4096 {
				return nil, fail(key, "%s is too small to read anything by; give at least 4096", plural.Of(c.MaxResultBytes, "byte"))
			}
		case "context_window":
			if c.ContextWindow, err = positiveInt(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.ContextWindow < 1000 {
				return nil, fail(key, "%s is too small for any model; give the window in tokens, such as 128000", plural.Of(c.ContextWindow, "token"))
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
			c.AutoCompact = &share
		case "rules":
			if err := c.loadRules(raw, fail); err != nil {
				return nil, err
			}
		case "sandbox":
			if err := c.loadSandbox(raw, fail); err != nil {
				return nil, err
			}
		case "checkpoints":
			if err := c.loadCheckpoints(raw, fail); err != nil {
				return nil, err
			}
		case "approval":
			if err := c.loadApproval(raw, fail); err != nil {
				return nil, err
			}
		case "web":
			if err := c.loadWeb(raw, fail); err != nil {
				return nil, err
			}
		case "provenance":
			if err := c.loadProvenance(raw, fail); err != nil {
				return nil, err
			}
		case "reasoning":
			if err := c.loadReasoning(raw, fail); err != nil {
				return nil, err
			}
		case "prices":
			if err := c.loadPrices(raw, fail); err != nil {
				return nil, err
			}
		case "openai_api":
			if c.OpenAIAPI, err = stringOf(raw); err != nil {
				return nil, fail(key, "%v", err)
			}
			if c.OpenAIAPI != OpenAIResponses && c.OpenAIAPI != OpenAIChat {
				return nil, fail(key, `must be "responses" (OpenAI's Responses API) or "chat" (Chat Completions), not %q`, c.OpenAIAPI)
			}
		case "hooks":
			if c.Hooks, err = hooks.Parse(raw); err != nil {
				return nil, &Error{File: path, Problem: err.Error()}
			}
		case "system_prompt_file":
			p, err := stringOf(raw)
			if err != nil {
				return nil, fail(key, "%v", err)
			}
			if strings.TrimSpace(p) == "" {
				return nil, fail(key, "must not be empty; leave the key out to use agenttui's own prompt")
			}
			c.SystemPromptFile = promptPath(path, p)
		default:
			return nil, fail(key, "unknown key (known keys: %s)", strings.Join(configKeys, ", "))
		}
	}
	return c, nil
}

func (c *Config) loadBudgets(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("budgets", "%v", err)
	}
	for _, key := range sortedKeys(obj) {
		full := "budgets." + key
		v := obj[key]
		switch key {
		case "max_turns":
			if c.Budgets.MaxTurns, err = positiveInt(v); err != nil {
				return fail(full, "%v", err)
			}
		case "max_invalid_replies":
			if c.Budgets.MaxInvalidReplies, err = positiveInt(v); err != nil {
				return fail(full, "%v", err)
			}
		case "max_time":
			if c.Budgets.MaxTime, err = duration(v); err != nil {
				return fail(full, "%v", err)
			}
		case "call_timeout":
			if c.Budgets.CallTimeout, err = duration(v); err != nil {
				return fail(full, "%v", err)
			}
		case "task_max_turns":
			if c.TaskMaxTurns, err = positiveInt(v); err != nil {
				return fail(full, "%v", err)
			}
		default:
			return fail(full, "unknown key (known keys: %s)", strings.Join(budgetKeys, ", "))
		}
	}
	return nil
}

func (c *Config) loadSandbox(raw json.RawMessage, fail func(string, string, ...any) error) error {
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
			if c.Sandbox.Mode, err = sandbox.ParseMode(s); err != nil {
				return fail(full, "%v", err)
			}
		case "network":
			if c.Sandbox.Network, err = boolOf(v); err != nil {
				return fail(full, "%v", err)
			}
		case "protect_git":
			if c.Sandbox.ProtectGit, err = boolOf(v); err != nil {
				return fail(full, "%v", err)
			}
		case "toolchain_caches":
			if c.Sandbox.ToolchainCaches, err = boolOf(v); err != nil {
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
				c.Sandbox.Writable = append(c.Sandbox.Writable, s)
			}
		default:
			return fail(full, "unknown key (known keys: %s)", strings.Join(sandboxKeys, ", "))
		}
	}
	return nil
}

func (c *Config) loadApproval(raw json.RawMessage, fail func(string, string, ...any) error) error {
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
				c.SandboxedShell = true
			case "mode":
				c.SandboxedShell = false
			default:
				return fail(full, `must be "allow" (sandboxed shell commands run without asking) or "mode" (the mode decides), not %q`, s)
			}
		default:
			return fail(full, "unknown key (known keys: %s)", strings.Join(approvalKeys, ", "))
		}
	}
	return nil
}

func (c *Config) loadRules(raw json.RawMessage, fail func(string, string, ...any) error) error {
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
			case "provenance":
				r.Provenance, err = stringOf(v)
			case "argument":
				r.Argument, err = stringOf(v)
			case "from":
				r.From, err = stringList(v)
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
		c.Rules = append(c.Rules, approval.NamedRule{Rule: r, Label: fmt.Sprint(i + 1)})
	}
	return nil
}

func (c *Config) loadCheckpoints(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("checkpoints", "%v", err)
	}
	for _, key := range sortedKeys(obj) {
		full := "checkpoints." + key
		v := obj[key]
		switch key {
		case "enabled":
			on, err := boolOf(v)
			if err != nil {
				return fail(full, "%v", err)
			}
			c.Checkpoints.Off = !on
		case "max_mb":
			n, err := positiveInt(v)
			if err != nil {
				return fail(full, "%v", err)
			}
			c.Checkpoints.MaxBytes = int64(n) << 20
		case "max_file_mb":
			n, err := positiveInt(v)
			if err != nil {
				return fail(full, "%v", err)
			}
			c.Checkpoints.MaxFileBytes = int64(n) << 20
		default:
			return fail(full, "unknown key (known keys: %s)", strings.Join(checkpointKeys, ", "))
		}
	}
	return nil
}

func (c *Config) loadWeb(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("web", "%v", err)
	}
	for _, key := range sortedKeys(obj) {
		switch key {
		case "allow_private":
			if c.WebAllowPrivate, err = boolOf(obj[key]); err != nil {
				return fail("web."+key, "%v", err)
			}
		default:
			return fail("web."+key, "unknown key (known keys: %s)", strings.Join(webKeys, ", "))
		}
	}
	return nil
}

func (c *Config) loadProvenance(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("provenance", "%v", err)
	}
	for _, key := range sortedKeys(obj) {
		switch key {
		case "untrusted":
			names, err := stringList(obj[key])
			if err != nil {
				return fail("provenance.untrusted", "%v", err)
			}
			for _, n := range names {
				if !slices.Contains(UntrustedNames, n) {
					return fail("provenance.untrusted", "unknown source %q (known: %s)", n, strings.Join(UntrustedNames, ", "))
				}
			}
			c.Untrusted = names
		default:
			return fail("provenance."+key, "unknown key (known keys: %s)", strings.Join(provenanceKeys, ", "))
		}
	}
	return nil
}

// stringList reads a JSON array of strings.
func stringList(raw json.RawMessage) ([]string, error) {
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil || out == nil {
		return nil, fmt.Errorf("expected an array of strings, got %s", kindOf(raw))
	}
	return out, nil
}
