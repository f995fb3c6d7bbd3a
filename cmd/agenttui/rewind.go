package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/agenttui/agenttui/internal/cliflags"
	"github.com/agenttui/agenttui/internal/launch"
	"io"

	"github.com/agenttui/agenttui/internal/session"
)

// runRewind is "agenttui sessions rewind ID [--to POINT] [--code |
// --conversation | --both] [--dry-run] [--force]": /rewind for scripts. It
// prints JSON; without --to, the session's points. A file changed since
// the changes it takes back stops it with exit 1, nothing written, unless
// --force.
func runRewind(args []string, stdout io.Writer) (int, error) {
	const command = "agenttui sessions rewind"
	var ro session.RewindOptions
	var both bool
	var ids []string
	rest, err := parseInterleaved(command, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ro.To, "to", "", "the point to go back to before: its number as listed, goal, or turn:N")
		fs.BoolVar(&ro.Code, "code", false, "restore the workspace only")
		fs.BoolVar(&ro.Conversation, "conversation", false, "restore the conversation only")
		fs.BoolVar(&both, "both", false, "restore the workspace and the conversation (the default)")
		fs.BoolVar(&ro.DryRun, "dry-run", false, "say what would be done, and do nothing")
		fs.BoolVar(&ro.Force, "force", false, "overwrite files changed since, instead of stopping")
		fs.StringVar(&ro.Workspace, "workspace", "", "the session's workspace (default: the current folder)")
	}, stdout, "ID [--to POINT] [--code|--conversation|--both] [--dry-run] [--force]")
	if errors.Is(err, flag.ErrHelp) {
		return 0, err
	} else if err != nil {
		return 2, err
	}
	ids = rest
	switch {
	case len(ids) != 1:
		return 2, usagef("%s takes one session id (agenttui sessions lists them), not %d", command, len(ids))
	case both && (ro.Code || ro.Conversation), ro.Code && ro.Conversation:
		return 2, usagef("%s: choose one of --code, --conversation and --both", command)
	}
	ro.ID = ids[0]
	o := &launch.Settings{Set: map[string]bool{}}
	if o.Workspace, err = launch.ResolveWorkspace(ro.Workspace); err != nil {
		return 2, err
	}
	if err := o.ReadConfig(); err != nil {
		return 2, err
	}
	ro.Workspace, ro.Config = o.Workspace, o.Config
	rep, err := session.Rewind(context.Background(), ro)
	var bad *session.Error
	switch {
	case errors.As(err, &bad):
		return 2, usageError{bad.Error()}
	case err != nil && !errors.Is(err, session.ErrConflict):
		return 1, err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if eerr := enc.Encode(rep); eerr != nil {
		return 1, eerr
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// runRemove is "agenttui sessions rm ID...": it deletes sessions of the
// workspace, their journals and their checkpoints together.
func runRemove(args []string, stdout io.Writer) (int, error) {
	var dir string
	ids, err := parseInterleaved("agenttui sessions rm", args, func(fs *flag.FlagSet) {
		fs.StringVar(&dir, "workspace", "", "the sessions' workspace (default: the current folder)")
	}, stdout, "ID...")
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0, err
	case err != nil:
		return 2, err
	case len(ids) == 0:
		return 2, usagef("agenttui sessions rm takes the ids of the sessions to delete (agenttui sessions lists them)")
	}
	ws, err := launch.ResolveWorkspace(dir)
	if err != nil {
		return 2, err
	}
	for _, id := range ids {
		var bad *session.Error
		if err := session.Remove(ws, id); errors.As(err, &bad) {
			return 2, usageError{bad.Error()}
		} else if err != nil {
			return 1, err
		}
		fmt.Fprintf(stdout, "Deleted session %s and its checkpoints.\n", id)
	}
	return 0, nil
}

// parseInterleaved parses a subcommand's flags, which may come before or
// after its arguments, and returns the arguments; -h prints the usage line
// and the flags to help.
func parseInterleaved(command string, args []string, define func(*flag.FlagSet), help io.Writer, usage string) ([]string, error) {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	define(fs)
	out, err := cliflags.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(help, "Usage: %s %s\n\nFlags:\n", command, usage)
		fs.SetOutput(help)
		fs.PrintDefaults()
		return nil, flag.ErrHelp
	}
	if err != nil {
		return nil, usageError{cliflags.Problem(err, command)}
	}
	return out, nil
}
