// Command agenttui is a terminal console in which a person watches and steers
// a tool-using LLM agent; "agenttui run" runs the agent headless.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"unicode"

	"github.com/agenttui/agenttui/internal/cliflags"
)

// main runs the command. When agenttui is started as the shell sandbox's
// helper (run_shell starts it again through /proc/self/exe with a hidden
// first argument), main never runs: the helper is the init function of
// runtime/workspace/sandbox, which this binary links through the workspace
// tools, so it confines and executes the command before the rest of
// agenttui starts up.
func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs the command with args and returns the exit code: 0 succeeded, 1
// failed, 2 usage or configuration error, 3 refused.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var err error
	code := 0
	switch {
	case len(args) > 0 && args[0] == "run":
		code, err = runHeadless(args[1:], stdin, stdout, stderr)
	case len(args) > 0 && args[0] == "mcp":
		code, err = runMCP(args[1:], stdin, stdout, stderr)
	case len(args) > 0 && args[0] == "eval":
		code = runEval(args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "sessions":
		code, err = runSessions(args[1:], stdout, stderr)
	default:
		if err = mistypedCommand(args); err == nil {
			code, err = runConsole(args, stdin, stdout, stderr)
		}
	}
	if err == nil {
		return code
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if isUsage(err) {
		fmt.Fprintf(stderr, "agenttui: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "agenttui: %v\n", err)
	return 1
}

// endSignals end a console, a run, the MCP server or an eval the same way,
// stopping what runs and removing the temporary folders: an interrupt,
// SIGTERM, and SIGHUP, which the terminal's closing sends.
var endSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// commands are the subcommands Main takes as its first argument.
var commands = []string{"run", "mcp", "eval", "sessions"}

// mistypedCommand refuses a first argument that is one word near a
// command's name ("sesions"), which would otherwise start a run with that
// word as its goal. A goal of more words, or one word with a space in it,
// runs; so does any one word after "--".
func mistypedCommand(args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") || strings.ContainsFunc(args[0], unicode.IsSpace) {
		return nil
	}
	name, ok := cliflags.Suggest(args[0], commands)
	if !ok {
		return nil
	}
	return usagef("unknown command %q: did you mean %q? (see agenttui --help; to run %q as a goal: agenttui -- %s)",
		args[0], name, args[0], args[0])
}
