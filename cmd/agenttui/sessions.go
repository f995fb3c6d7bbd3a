package main

import (
	"io"
	"strings"

	"github.com/agenttui/agenttui/internal/cliflags"
	"github.com/agenttui/agenttui/internal/launch"

	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/runtime/journal"
)

// loadSession finds and loads the session --resume or --continue names, of
// this workspace; see launch.LoadSession.
func loadSession(o *options) (*journal.Replay, error) {
	return launch.LoadSession(&o.Settings, o.resume)
}

// runSessions prints the sessions of the workspace: "agenttui sessions";
// "agenttui sessions export ID" makes one a scenario.
func runSessions(args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 && args[0] == "export" {
		return runExport(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "rewind" {
		return runRewind(args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "rm" {
		return runRemove(args[1:], stdout)
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if name, ok := cliflags.Suggest(args[0], []string{"export", "rewind", "rm"}); ok {
			return 2, usagef("unknown command %q: did you mean \"agenttui sessions %s\"? (see agenttui --help)", args[0], name)
		}
	}
	o, err := parseOptions("agenttui sessions", args, false, stdout)
	if err != nil {
		return 2, err
	}
	if o.goal != "" {
		return 2, usagef("agenttui sessions takes no goal")
	}
	if err := session.PrintList(stdout, o.Workspace); err != nil {
		return 1, err
	}
	return 0, nil
}
