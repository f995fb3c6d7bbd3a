package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/agenttui/agenttui/internal/cliflags"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/internal/launch"
	"github.com/agenttui/agenttui/internal/playground"
	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// usageError is a bad command line or configuration: one line is printed and
// the process exits 2 before anything starts.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// isUsage reports whether err is the person's to mend (a bad command line
// or configuration, a session that cannot be opened as asked), which is
// said in one line and exits 2. The libraries say so by their errors' types.
func isUsage(err error) bool {
	var (
		usage    usageError
		file     *config.Error
		unread   *config.ReadError
		flagRule *config.FlagError
		tracing  *traces.Error
		setup    *session.Error
		scenario *playground.Error
		provider *providers.Error
		settings *launch.Error
	)
	return errors.As(err, &usage) || errors.As(err, &file) || errors.As(err, &unread) || errors.As(err, &flagRule) ||
		errors.As(err, &tracing) || errors.As(err, &setup) || errors.As(err, &scenario) || errors.As(err, &provider) || errors.As(err, &settings)
}

// options are the flags shared by the console and headless runs, and the
// headless-only ones; the settings of the session are launch's.
type options struct {
	launch.Settings

	resume string
	cont   bool

	// Console only.
	record string
	// autopilot plays the person the scenario records; speed divides
	// the scenario's delays and the autopilot's pauses.
	autopilot bool
	speed     float64
	// speedSet says --speed was given: a headless run then plays a
	// scenario's delays, which it otherwise skips.
	speedSet bool

	// Headless only.
	jsonOut bool
	answers []string

	// MCP server only: the address of its streamable HTTP endpoint,
	// empty to serve stdio, and the settings as the flags gave them,
	// before any workspace's configuration was laid under them.
	httpAddr string
	flags    *launch.Settings

	goal string
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// parseOptions parses args for the given command ("agenttui", "agenttui
// run" or "agenttui mcp"). Flags and the goal may come in any order. The MCP
// server takes the shared flags, which set what its sessions default to.
func parseOptions(command string, args []string, headless bool, help io.Writer) (*options, error) {
	server := strings.HasSuffix(command, " mcp")
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := &options{}
	mode := "reads"
	sandboxMode := ""
	fs.StringVar(&o.Model, "model", "", "the model: openai:NAME, anthropic:NAME or demo (default: the configured model, else the demo)")
	fs.StringVar(&o.Workspace, "workspace", "", "the folder the agent works in (default: the current folder)")
	fs.StringVar(&mode, "mode", mode, "approval mode: ask, reads, auto or plan")
	fs.StringVar(&sandboxMode, "sandbox", "", "run shell commands in a sandbox: workspace-write, read-only or off (default: workspace-write where the kernel has Landlock, else off)")
	fs.StringVar(&o.Scenario, "scenario", "", "play the scenario FILE as a scripted model")
	fs.IntVar(&o.MaxParallel, "max-parallel", 8, "how many calls may run at once")
	fs.Func("reasoning", "how hard the model reasons: off, low, medium, high, max or default (default: the configured effort, else the model's)", func(v string) (err error) {
		o.Reasoning, err = model.ParseEffort(v)
		return err
	})
	fs.StringVar(&o.ConfigPath, "config", "", "read the configuration from FILE (default: agenttui.json in the workspace, else $XDG_CONFIG_HOME/agenttui/config.json)")
	fs.Var((*stringList)(&o.Allow), "allow", "allow calls matching RULE without asking, e.g. 'write_file(path=docs/**)' (repeatable)")
	fs.Var((*stringList)(&o.Deny), "deny", "skip calls matching RULE, e.g. 'run_shell(command=rm *)' (repeatable)")
	fs.StringVar(&o.MCPConfig, "mcp-config", "", "read MCP servers from FILE (default: .mcp.json in the workspace, once trusted)")
	fs.StringVar(&o.resume, "resume", "", "resume the session ID (see agenttui sessions)")
	fs.BoolVar(&o.cont, "continue", false, "resume the most recent session of this workspace")
	o.speed = 1
	if server {
		fs.StringVar(&o.httpAddr, "http", "", "serve streamable HTTP on ADDR (a loopback address such as 127.0.0.1:8765) instead of stdio")
	}
	if !headless && !server {
		fs.StringVar(&o.record, "record", "", "record the console to FILE as an asciicast v2 file (asciinema's format)")
		fs.BoolVar(&o.autopilot, "autopilot", false, "play the person the scenario records: type its inputs, answer its approvals (any key takes over)")
	}
	speedUsage := "play a scripted model (and the autopilot) N times as fast, such as 2 or 0.5 (default 1)"
	if headless {
		speedUsage = "play a scenario's delays, N times as fast, such as 2 or 0.5 (default: no delays)"
	}
	fs.Func("speed", speedUsage, func(v string) error {
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(n >= minSpeed && n <= maxSpeed) {
			return fmt.Errorf("--speed must be a number from %g to %g, such as 2 (twice as fast) or 0.5 (half as fast), not %q",
				minSpeed, maxSpeed, v)
		}
		o.speed, o.speedSet = n, true
		return nil
	})
	if headless {
		fs.BoolVar(&o.jsonOut, "json", false, "stream one JSON event per line on stdout")
		fs.Var((*stringList)(&o.answers), "answer", "answer to the agent's next clarification question (repeatable, used in order)")
	}
	positional, err := cliflags.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(command, fs, help)
		return nil, flag.ErrHelp
	}
	if err != nil {
		return nil, usageError{cliflags.Problem(err, command)}
	}
	o.Set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.Set[f.Name] = true })
	m, err := approval.ParseMode(mode)
	if err != nil {
		return nil, usagef("--mode: %v", err)
	}
	o.Mode = m
	if sandboxMode != "" {
		if o.Sandbox.Mode, err = sandbox.ParseMode(sandboxMode); err != nil {
			return nil, usagef("--sandbox: %v", err)
		}
	}
	if o.MaxParallel < 1 {
		return nil, usagef("--max-parallel must be at least 1, not %d", o.MaxParallel)
	}
	if len(positional) > 1 {
		return nil, usagef("%s takes one goal; quote it if it has spaces (got %d words)", command, len(positional))
	}
	if len(positional) == 1 {
		o.goal = strings.TrimSpace(positional[0])
	}
	if o.resume != "" && o.cont {
		return nil, usagef("--resume and --continue cannot be used together")
	}
	if o.autopilot && (o.resume != "" || o.cont) {
		return nil, usagef("--autopilot plays a scenario from its first step, so it cannot be used with --resume or --continue")
	}
	if server && (o.goal != "" || o.resume != "" || o.cont) {
		return nil, usagef("%s takes no goal and resumes no session: its client sends goals with run_goal and continue_session", command)
	}
	if headless && o.goal == "" && o.resume == "" && !o.cont {
		return nil, usagef(`%s needs a goal, for example: %s "fix the failing test"`, command, command)
	}
	if o.Scenario != "" && o.Model != "" && o.Model != "demo" {
		return nil, usagef("--scenario and --model %s cannot be used together", o.Model)
	}
	o.flags = o.Settings.Clone()
	if err := o.Resolve(); err != nil {
		return nil, err
	}
	return o, nil
}

// The bounds of --speed: slower than a tenth is no demo, and faster than a
// thousand times leaves nothing to see.
const (
	minSpeed = 0.1
	maxSpeed = 1000.0
)

// unwrapPathError returns the cause of a path error alone, for messages that
// name the path themselves.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func printUsage(command string, fs *flag.FlagSet, w io.Writer) {
	switch {
	case strings.HasSuffix(command, " mcp"):
		fmt.Fprintf(w, "Usage: %s [flags]\n\nServes agenttui to an MCP client on stdio (or streamable HTTP with --http): the tools run_goal, continue_session\n"+
			"and list_sessions. The flags set what sessions default to; see docs/mcp-server.md.\n\nFlags:\n", command)
	case strings.HasSuffix(command, " run"):
		fmt.Fprintf(w, "Usage: %s [flags] \"goal\"\n\nRuns the agent without the console and prints its outcome.\n"+
			"Exit codes: 0 succeeded, 1 failed, 2 usage or configuration error, 3 refused (the agent asks a question).\n\nFlags:\n", command)
	default:
		fmt.Fprintf(w, "Usage: %s [flags] [\"goal\"]\n       %s run [flags] \"goal\"\n       %s mcp [flags] [--http ADDR]\n       %s eval [flags] SUITE\n"+
			"       %s sessions\n       %s sessions export ID [--out FILE] [--workspace-from DIR]\n\n"+
			"Opens the console. With no model configured it plays the built-in demo.\n"+
			"The console exits 0 whatever the outcome; the outcome is printed when it closes.\n\nFlags:\n", command, command, command, command, command, command)
	}
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
