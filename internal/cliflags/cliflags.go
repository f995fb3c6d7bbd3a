// Package cliflags parses agenttui's command lines the way its commands
// take them: flags before, between and after the arguments, a flag
// package error said in one line, and a mistyped command's name
// recognised.
package cliflags

import (
	"flag"
	"fmt"
	"strings"
)

// Parse parses args with fs, taking flags wherever they stand among the
// arguments (everything after "--" is an argument), and returns the
// arguments in order. Its errors are fs.Parse's own, flag.ErrHelp
// included; Problem words them for the person.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		switch {
		case len(args) == 0:
			return positional, nil
		case args[0] == "--":
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// Problem words an error of the flag package as one line, naming command
// where it tells the person to look at its help.
func Problem(err error, command string) string {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "invalid value ") && strings.Contains(msg, ": --"):
		// A flag's own check already says what is wrong, and with what.
		return msg[strings.Index(msg, ": --")+2:]
	case strings.HasPrefix(msg, "flag provided but not defined: -"):
		return fmt.Sprintf("unknown flag --%s (see %s --help)", strings.TrimPrefix(msg, "flag provided but not defined: -"), command)
	case strings.HasPrefix(msg, "flag needs an argument: -"):
		return fmt.Sprintf("flag --%s needs a value", strings.TrimPrefix(msg, "flag needs an argument: -"))
	}
	return msg
}
