// Package xdg finds the base folders of the XDG Base Directory
// Specification, in one place, so that the session journals, the input
// history, the configuration file, the user's own instructions and git's
// global excludes are all looked for where the person's environment says.
//
// Each folder is the environment variable's value when it is set, else its
// default below the home folder. The error of a function is the one finding
// the home folder met; callers word it for what they were looking for.
package xdg

import (
	"os"
	"path/filepath"
)

// StateHome returns $XDG_STATE_HOME, else ~/.local/state: where a program
// keeps what should outlive a restart but is not worth backing up, such as
// session journals and input history.
func StateHome() (string, error) {
	return dir("XDG_STATE_HOME", ".local", "state")
}

// ConfigHome returns $XDG_CONFIG_HOME, else ~/.config: where the person
// keeps configuration, such as agenttui's config.json and git's own files.
func ConfigHome() (string, error) {
	return dir("XDG_CONFIG_HOME", ".config")
}

// dir returns the value of the variable env when it is set, else the home
// folder joined with below.
func dir(env string, below ...string) (string, error) {
	if d := os.Getenv(env); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{home}, below...)...), nil
}
