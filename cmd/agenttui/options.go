package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/config"
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
	)
	return errors.As(err, &usage) || errors.As(err, &file) || errors.As(err, &unread) || errors.As(err, &flagRule) ||
		errors.As(err, &tracing) || errors.As(err, &setup) || errors.As(err, &scenario) || errors.As(err, &provider)
}

// options are the flags shared by the console and headless runs, and the
// headless-only ones.
type options struct {
	model       string
	workspace   string
	mode        approval.Mode
	scenario    string
	maxParallel int
	reasoning   model.Effort

	configPath string
	mcpConfig  string
	allow      []string
	deny       []string
	resume     string
	cont       bool
	// sandbox is the shell sandbox asked for: the --sandbox flag laid over
	// the configuration's "sandbox" object; shell is the sandbox made from
	// it once the workspace is final (see shellSandbox).
	sandbox sandbox.Config
	shell   *sandbox.Sandbox

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

	goal string

	// set records the flags given on the command line, which win over the
	// configuration file.
	set map[string]bool
	// cfg is the configuration file read, if any.
	cfg *config.Config
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// parseOptions parses args for the given command ("agenttui" or "agenttui
// run"). Flags and the goal may come in any order.
func parseOptions(command string, args []string, headless bool, help io.Writer) (*options, error) {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := &options{}
	mode := "reads"
	sandboxMode := ""
	fs.StringVar(&o.model, "model", "", "the model: openai:NAME, anthropic:NAME or demo (default: the configured model, else the demo)")
	fs.StringVar(&o.workspace, "workspace", "", "the folder the agent works in (default: the current folder)")
	fs.StringVar(&mode, "mode", mode, "approval mode: ask, reads, auto or plan")
	fs.StringVar(&sandboxMode, "sandbox", "", "run shell commands in a sandbox: workspace-write, read-only or off (default: workspace-write where the kernel has Landlock, else off)")
	fs.StringVar(&o.scenario, "scenario", "", "play the scenario FILE as a scripted model")
	fs.IntVar(&o.maxParallel, "max-parallel", 8, "how many calls may run at once")
	fs.Func("reasoning", "how hard the model reasons: off, low, medium, high, max or default (default: the configured effort, else the model's)", func(v string) (err error) {
		o.reasoning, err = model.ParseEffort(v)
		return err
	})
	fs.StringVar(&o.configPath, "config", "", "read the configuration from FILE (default: agenttui.json in the workspace, else $XDG_CONFIG_HOME/agenttui/config.json)")
	fs.Var((*stringList)(&o.allow), "allow", "allow calls matching RULE without asking, e.g. 'write_file(path=docs/**)' (repeatable)")
	fs.Var((*stringList)(&o.deny), "deny", "skip calls matching RULE, e.g. 'run_shell(command=rm *)' (repeatable)")
	fs.StringVar(&o.mcpConfig, "mcp-config", "", "read MCP servers from FILE (default: .mcp.json in the workspace)")
	fs.StringVar(&o.resume, "resume", "", "resume the session ID (see agenttui sessions)")
	fs.BoolVar(&o.cont, "continue", false, "resume the most recent session of this workspace")
	o.speed = 1
	if !headless {
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
	var positional []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(command, fs, help)
				return nil, flag.ErrHelp
			}
			return nil, usageError{flagError(err, command)}
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			positional = append(positional, rest[1:]...)
			break
		}
		positional = append(positional, rest[0])
		rest = rest[1:]
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	m, err := approval.ParseMode(mode)
	if err != nil {
		return nil, usagef("--mode: %v", err)
	}
	o.mode = m
	if sandboxMode != "" {
		if o.sandbox.Mode, err = sandbox.ParseMode(sandboxMode); err != nil {
			return nil, usagef("--sandbox: %v", err)
		}
	}
	if o.maxParallel < 1 {
		return nil, usagef("--max-parallel must be at least 1, not %d", o.maxParallel)
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
	if headless && o.goal == "" && o.resume == "" && !o.cont {
		return nil, usagef(`%s needs a goal, for example: %s "fix the failing test"`, command, command)
	}
	if o.scenario != "" && o.model != "" && o.model != "demo" {
		return nil, usagef("--scenario and --model %s cannot be used together", o.model)
	}
	ws, err := resolveWorkspace(o.workspace)
	if err != nil {
		return nil, err
	}
	o.workspace = ws
	if err := applyConfig(o); err != nil {
		return nil, err
	}
	if err := sandbox.Available(o.sandbox, landlockSupport()); err != nil {
		return nil, usageError{err.Error()}
	}
	if _, err := o.rules(); err != nil {
		return nil, err
	}
	return o, nil
}

// landlockSupport tells what the kernel offers the shell sandbox; tests
// replace it to play a kernel without Landlock.
var landlockSupport = sandbox.Detect

// sessionOptions returns what the command line and the configuration say
// of the session: its workspace, model (nil while a resumed session's is
// not known), approval policy and rules, bounds, shell sandbox, MCP servers
// and traces. The caller adds how events are shown.
func (o *options) sessionOptions(m model.Model, policy *approval.Policy, tr traces.Settings) (session.Options, error) {
	rules, err := o.rules()
	if err != nil {
		return session.Options{}, err
	}
	return session.Options{Workspace: o.workspace, Model: m, Policy: policy, Rules: rules, Config: o.cfg, MaxParallel: o.maxParallel,
		Reasoning: o.reasoning, Shell: o.shellSandbox, MCPConfig: o.mcpConfig, Traces: tr}, nil
}

// shellSandbox returns the session's shell sandbox over root (the resolved
// workspace), making it the first time: the workspace is final by then (the
// demo's is a copy made after the flags are read). A missing extra writable
// folder is a usage error.
func (o *options) shellSandbox(root string) (*sandbox.Sandbox, error) {
	if o.shell != nil {
		return o.shell, nil
	}
	sb, err := sandbox.New(root, o.sandbox, landlockSupport())
	if err != nil {
		return nil, usageError{err.Error()}
	}
	o.shell = sb
	// The spare helper starts a moment later, so that starting a second Go
	// program does not compete with the console's first frame on a small
	// machine, and still well before a model's first reply asks for a
	// shell command, which then finds it ready. A command that comes sooner
	// starts a helper of its own, as without a spare. Warm does nothing
	// once closeShell has closed the sandbox.
	time.AfterFunc(spareDelay, func() { sb.Warm() })
	return sb, nil
}

// spareDelay is how long after the sandbox is made its spare helper starts.
const spareDelay = time.Second

// closeShell ends the shell sandbox's spare helper and removes its temporary
// folder, if one was made.
func (o *options) closeShell() {
	if o.shell != nil {
		o.shell.Close()
	}
}

// The bounds of --speed: slower than a tenth is no demo, and faster than a
// thousand times leaves nothing to see.
const (
	minSpeed = 0.1
	maxSpeed = 1000.0
)

// flagError words a flag package error as one line.
func flagError(err error, command string) string {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "invalid value ") && strings.Contains(msg, ": --"):
		// A flag's own check already says what is wrong, and with what.
		return msg[strings.Index(msg, ": --")+2:]
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		name := strings.TrimPrefix(msg, "flag provided but not defined: ")
		return fmt.Sprintf("unknown flag -%s (see %s --help)", name, command)
	case strings.HasPrefix(msg, "flag needs an argument: "):
		return fmt.Sprintf("flag -%s needs a value", strings.TrimPrefix(msg, "flag needs an argument: "))
	}
	return msg
}

func resolveWorkspace(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", usagef("cannot find the current folder: %v", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usagef("--workspace %s: %v", dir, err)
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", usagef("--workspace %s does not exist", dir)
	case err != nil:
		return "", usagef("--workspace %s: %v", dir, err)
	case !info.IsDir():
		return "", usagef("--workspace %s is not a folder", dir)
	}
	return abs, nil
}

// applyConfig finds and reads the configuration and lays it under the flags
// the person set explicitly.
func applyConfig(o *options) error {
	path, err := config.Find(o.configPath, o.workspace)
	if err != nil || path == "" {
		return err
	}
	c, err := config.Load(path)
	if err != nil {
		return err
	}
	o.cfg = c
	if !o.set["model"] && c.Model != "" && o.scenario == "" {
		o.model = c.Model
	}
	if !o.set["mode"] && c.Mode != "" {
		o.mode = c.Mode
	}
	if !o.set["max-parallel"] && c.MaxParallel > 0 {
		o.maxParallel = c.MaxParallel
	}
	if !o.set["reasoning"] && c.Reasoning != nil {
		o.reasoning = *c.Reasoning
	}
	mode := o.sandbox.Mode
	o.sandbox = c.Sandbox
	if o.set["sandbox"] {
		o.sandbox.Mode = mode
	}
	return nil
}

// rules returns the configured rules followed by the flags' rules.
func (o *options) rules() ([]approval.NamedRule, error) {
	fr, err := config.FlagRules(o.allow, o.deny)
	if err != nil {
		return nil, err
	}
	var rules []approval.NamedRule
	if o.cfg != nil {
		rules = slices.Clone(o.cfg.Rules)
	}
	return append(rules, fr...), nil
}

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
	if strings.HasSuffix(command, " run") {
		fmt.Fprintf(w, "Usage: %s [flags] \"goal\"\n\nRuns the agent without the console and prints its outcome.\n"+
			"Exit codes: 0 succeeded, 1 failed, 2 usage or configuration error, 3 refused (the agent asks a question).\n\nFlags:\n", command)
	} else {
		fmt.Fprintf(w, "Usage: %s [flags] [\"goal\"]\n       %s run [flags] \"goal\"\n       %s sessions\n       %s sessions export ID [--out FILE] [--workspace-from DIR]\n\n"+
			"Opens the console. With no model configured it plays the built-in demo.\n"+
			"The console exits 0 whatever the outcome; the outcome is printed when it closes.\n\nFlags:\n", command, command, command, command)
	}
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
