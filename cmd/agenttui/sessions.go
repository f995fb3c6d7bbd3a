package main

import (
	"io"
	"strings"

	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/runtime/journal"
)

// loadSession finds and loads the session --resume or --continue names, of
// this workspace. Unless --model or --scenario says otherwise, the session
// is carried on with the model its journal names.
func loadSession(o *options) (*journal.Replay, error) {
	rp, err := session.Load(o.workspace, o.resume)
	if err != nil {
		return nil, err
	}
	if !o.set["model"] && o.scenario == "" {
		if strings.HasPrefix(rp.Header.Model, "scenario:") {
			return nil, usagef("session %s was played from a scenario file: pass --scenario FILE again to resume it", rp.Header.Session)
		}
		o.model = rp.Header.Model
	}
	return rp, nil
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
	o, err := parseOptions("agenttui sessions", args, false, stdout)
	if err != nil {
		return 2, err
	}
	if o.goal != "" {
		return 2, usagef("agenttui sessions takes no goal")
	}
	if err := session.PrintList(stdout, o.workspace); err != nil {
		return 1, err
	}
	return 0, nil
}
