//go:build !unix

package hooks

import "os/exec"

// ownProcessGroup does nothing where process groups do not exist.
func ownProcessGroup(*exec.Cmd) {}

// killGroup kills the hook's process; where there are no process groups,
// what it started is left to exit when its pipes close.
func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
