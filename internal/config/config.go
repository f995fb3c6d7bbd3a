// Package config finds and reads agenttui's configuration file:
// agenttui.json in the workspace, else $XDG_CONFIG_HOME/agenttui/config.json,
// or the file the command line names.
//
// Every problem is reported as a typed error whose message is one line
// naming the file, the key and what is wrong, so that the command can say
// it and exit before anything starts.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/xdg"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// Config is a configuration file as read. A zero field means the file does
// not set it, and the built-in default (or the command line) decides.
type Config struct {
	// Path is the file the configuration was read from.
	Path string
	// Model is "model": the model to use, as --model names it.
	Model string
	// Mode is "mode": the approval mode.
	Mode approval.Mode
	// MaxParallel is "max_parallel": how many calls may run at once.
	MaxParallel int
	// MaxOutputTokens is "max_output_tokens": the bound of one reply.
	MaxOutputTokens int
	// Budgets are "budgets": the run's turns, time, invalid replies and
	// per-call timeout.
	Budgets runtime.Budgets
	// WebAllowPrivate is "web": {"allow_private": true}: web_fetch may
	// reach loopback, private and link-local addresses (a local server).
	WebAllowPrivate bool
	// Untrusted, when set, is "provenance": {"untrusted": […]}: which
	// sources' results are untrusted (UntrustedNames); nil means the
	// default, web, mcp and new_files.
	Untrusted []string
	// TaskMaxTurns is "budgets.task_max_turns": the model turns each
	// sub-agent's task may use; zero means runtime.DefaultTaskTurns.
	TaskMaxTurns int
	// Rules are "rules", each labelled by its place in the file ("1"
	// for the first), which the event stream names as rule:1.
	Rules []approval.NamedRule
	// ContextWindow is "context_window": it overrides the model's
	// context window, in tokens.
	ContextWindow int
	// AutoCompact, when set, is "auto_compact": the share of the window
	// at which a session is compacted (0: never automatically).
	AutoCompact *float64
	// IdleTimeout is "stream_idle_timeout": how long a model's stream may
	// send nothing before the attempt is abandoned.
	IdleTimeout time.Duration
	// ModelRetries, when set, is "model_retries": how many more attempts
	// a model request gets after one that failed in a way that may pass.
	ModelRetries *int
	// MaxResultBytes is "max_tool_result_bytes": how much of one call's
	// result the model reads.
	MaxResultBytes int
	// Sandbox is the "sandbox" object; an empty mode means the default,
	// and the toolchains' caches are writable unless "toolchain_caches"
	// is false.
	Sandbox sandbox.Config
	// SandboxedShell is "approval": {"sandboxed_shell": "allow"}:
	// sandboxed shell commands run without asking.
	SandboxedShell bool
	// Reasoning, when set, is "reasoning": {"effort": …}: how hard the
	// model is asked to reason.
	Reasoning *model.Effort
	// Prices are "prices": prices by model name or prefix, in dollars per
	// million tokens, over the built-in table's.
	Prices model.Prices
	// OpenAIAPI is "openai_api": OpenAIResponses or OpenAIChat, the wire
	// of openai: models; empty means Responses on OpenAI itself and Chat
	// Completions on a compatible server.
	OpenAIAPI string
	// SystemPromptFile is "system_prompt_file", resolved against the
	// configuration file's folder: a file whose text replaces agenttui's
	// system prompt (project instructions are still added to it).
	SystemPromptFile string
	// Checkpoints is "checkpoints": whether replies' changes are recorded
	// for /undo, and the bounds of the record.
	Checkpoints Checkpoints
	// Hooks is "hooks": the person's hook commands, in Claude Code's
	// shape (see package hooks).
	Hooks hooks.Config
}

// Checkpoints are the settings of the record /undo, /redo and /rewind use.
type Checkpoints struct {
	// Off is "enabled": false: no checkpoints are taken.
	Off bool
	// MaxBytes is "max_mb", in bytes: the size past which a session's
	// oldest checkpoints are dropped; zero means the default.
	MaxBytes int64
	// MaxFileBytes is "max_file_mb", in bytes: files larger are not
	// recorded; zero means the default.
	MaxFileBytes int64
}

// Error is a configuration file that holds something agenttui cannot use.
// Its message is one line: "config FILE: KEY: PROBLEM", or "config FILE:
// PROBLEM" when the file as a whole is at fault.
type Error struct {
	// File is the configuration file.
	File string
	// Key is the key at fault as a path into the file, such as
	// "budgets.max_time" or "rules[0].tool"; empty when the file as a
	// whole is.
	Key string
	// Problem says what is wrong, and what would be right.
	Problem string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("config %s: %s", e.File, e.Problem)
	}
	return fmt.Sprintf("config %s: %s: %s", e.File, e.Key, e.Problem)
}

// ReadError is a configuration file that cannot be read at all, such as a
// --config that does not exist.
type ReadError struct {
	// File is the configuration file.
	File string
	// Err is why it cannot be read, without the path it names again.
	Err error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("config file %s cannot be read: %v", e.File, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// FlagError is a rule given on the command line, with --allow or --deny,
// that does not parse.
type FlagError struct {
	// Flag is the flag that gave it: "--allow" or "--deny".
	Flag string
	// Err says what is wrong with the rule.
	Err error
}

func (e *FlagError) Error() string { return fmt.Sprintf("%s: %v", e.Flag, e.Err) }

func (e *FlagError) Unwrap() error { return e.Err }

// Find returns the configuration file to read: explicit when it is given
// (it must exist), else agenttui.json in workspace, else the user's
// config.json; "" when there is none.
func Find(explicit, workspace string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", &ReadError{File: explicit, Err: unwrapPathError(err)}
		}
		return explicit, nil
	}
	candidates := []string{filepath.Join(workspace, "agenttui.json")}
	if base, err := xdg.ConfigHome(); err == nil {
		candidates = append(candidates, filepath.Join(base, "agenttui", "config.json"))
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", nil
}

// Load reads and checks the configuration file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ReadError{File: path, Err: unwrapPathError(err)}
	}
	return Parse(path, data)
}

// FlagRules turns --allow and --deny values into rules labelled by their
// flag ("--deny run_shell(command=rm *)"), the deny rules first; the event
// stream names the rule that decided a call by that label.
func FlagRules(allow, deny []string) ([]approval.NamedRule, error) {
	var out []approval.NamedRule
	for _, group := range []struct {
		flag  string
		specs []string
		d     approval.Decision
	}{{"--deny", deny, approval.Deny}, {"--allow", allow, approval.Allow}} {
		for _, spec := range group.specs {
			r, err := approval.ParseRule(spec, group.d)
			if err != nil {
				return nil, &FlagError{Flag: group.flag, Err: err}
			}
			out = append(out, approval.NamedRule{Rule: r, Label: group.flag + " " + strings.TrimSpace(spec)})
		}
	}
	return out, nil
}

// unwrapPathError returns the cause of a path error alone, since the
// messages name the path themselves.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// TaskTurns returns "budgets.task_max_turns", or zero (the default) for no
// configuration.
func (c *Config) TaskTurns() int {
	if c == nil {
		return 0
	}
	return c.TaskMaxTurns
}

// UntrustedSource returns which results the configuration says are
// untrusted, or nil for the runtime's default.
func (c *Config) UntrustedSource() func(tool.Source) bool {
	if c == nil || c.Untrusted == nil {
		return nil
	}
	names := slices.Clone(c.Untrusted)
	return func(s tool.Source) bool {
		switch s.Kind {
		case tool.SourceWorkspace:
			return slices.Contains(names, "workspace") || (s.Fresh && slices.Contains(names, "new_files"))
		case tool.SourceShell:
			// A command that read a new file prints it as read_file would.
			return slices.Contains(names, "shell") || (s.Fresh && slices.Contains(names, "new_files"))
		case tool.SourceWeb, tool.SourceMCP, tool.SourceTask:
			return slices.Contains(names, s.Kind)
		}
		return false
	}
}
