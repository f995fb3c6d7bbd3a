package eval

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/agenttui/agenttui/internal/cliflags"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agenttui/agenttui/internal/sanitize"
)

// commandName is how the command names itself in usage and errors.
const commandName = "agenttui eval"

// The exit codes of Command.
const (
	exitPassed = 0
	exitFailed = 1
	exitUsage  = 2
)

// flags are the parsed command line of "agenttui eval".
type flags struct {
	parallel, repeat int
	json             bool
	junit            string
	suite            string
}

// Command runs "agenttui eval" with args (flags and one SUITE path, in any
// order) and returns the exit code: 0 every case passed, 1 a case failed,
// 2 a usage error or a malformed suite (one line on stderr, prefixed
// "agenttui eval: "). The table, or the JSON Lines with --json, goes to
// stdout, so it can be piped; progress goes to stderr, as a bar when
// isTerminal (stderr is a terminal), else as one line per finished run.
// run runs one case; the caller wires it to a real agent.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer, run RunFunc, isTerminal bool) int {
	complain := func(msg string) int {
		fmt.Fprintf(stderr, "%s: %s\n", commandName, sanitize.Line(msg))
		return exitUsage
	}
	f, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return exitPassed
	}
	if err != nil {
		return complain(err.Error())
	}
	if run == nil {
		return complain("no runner is wired to run cases")
	}
	s, err := Load(f.suite)
	if err != nil {
		return complain(err.Error())
	}
	// The JUnit file is made before anything runs, so a path that cannot
	// be written is found at once, not after a long suite.
	var junit *os.File
	if f.junit != "" {
		if err := os.MkdirAll(filepath.Dir(f.junit), 0o755); err != nil {
			return complain(fmt.Sprintf("--junit %s: %v", f.junit, unwrapPath(err)))
		}
		junit, err = os.Create(f.junit)
		if err != nil {
			return complain(fmt.Sprintf("--junit %s: %v", f.junit, unwrapPath(err)))
		}
		defer junit.Close()
	}
	rep := Run(ctx, s, Options{Parallel: f.parallel, Repeat: f.repeat, Run: run, Progress: stderr, ProgressBar: isTerminal})
	if f.json {
		rep.JSON(stdout)
	} else {
		rep.Table(stdout)
	}
	if junit != nil {
		var b bytes.Buffer
		if err := rep.JUnit(&b); err != nil {
			return complain(fmt.Sprintf("--junit %s: %v", f.junit, err))
		}
		if _, err := junit.Write(b.Bytes()); err != nil {
			return complain(fmt.Sprintf("--junit %s: %v", f.junit, unwrapPath(err)))
		}
		if err := junit.Close(); err != nil {
			return complain(fmt.Sprintf("--junit %s: %v", f.junit, unwrapPath(err)))
		}
	}
	if rep.Failed() {
		return exitFailed
	}
	return exitPassed
}

// parseFlags parses the command line; flags and the suite may come in any
// order. With -h or --help it writes the usage to help and returns
// flag.ErrHelp.
func parseFlags(args []string, help io.Writer) (*flags, error) {
	f := &flags{parallel: 1, repeat: 1}
	fs := flag.NewFlagSet(commandName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("parallel", "run `N` runs at once (default 1)", atLeastOne("parallel", &f.parallel))
	fs.Func("repeat", "run each case `K` times, to measure how often it passes (default 1)", atLeastOne("repeat", &f.repeat))
	fs.BoolVar(&f.json, "json", false, "write JSON Lines on stdout instead of the table")
	fs.StringVar(&f.junit, "junit", "", "also write JUnit XML to `FILE`, for CI")
	positional, err := cliflags.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(fs, help)
		return nil, err
	}
	if err != nil {
		return nil, errors.New(cliflags.Problem(err, commandName))
	}
	switch len(positional) {
	case 0:
		return nil, fmt.Errorf("needs a suite, a suite file or a folder of them, for example: %s evals/smoke.json", commandName)
	case 1:
		f.suite = positional[0]
	default:
		return nil, fmt.Errorf("takes one suite, not %d (%s)", len(positional), strings.Join(positional, " "))
	}
	return f, nil
}

// atLeastOne returns a flag's parser of a whole number of at least 1.
func atLeastOne(name string, to *int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return fmt.Errorf("--%s needs a whole number of at least 1, not %q", name, v)
		}
		*to = n
		return nil
	}
}

// printUsage writes the command's usage.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "Usage: %s [flags] SUITE\n\n"+
		"Runs every case of SUITE, a suite file or a folder of suite files, and checks\n"+
		"what each run ended in. Nobody approves calls during an eval: a case's mode\n"+
		"(default auto) decides, and a call that would ask is skipped.\n\n"+
		"Exit codes: 0 every case passed, 1 a case failed, 2 a usage error or a malformed suite.\n\nFlags:\n", commandName)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
