package main

import (
	"io"
)

// runConsole opens the interactive console.
func runConsole(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	_, err := parseOptions("agenttui", args, false, stdout)
	if err != nil {
		return 2, err
	}
	return 0, usagef("the interactive console is not available in this build; use: agenttui run \"goal\"")
}
