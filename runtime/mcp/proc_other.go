//go:build !unix

package mcp

import "os/exec"

// ownProcessGroup does nothing where process groups do not exist.
func ownProcessGroup(*exec.Cmd) {}

// killGroup kills the server's process; where there are no process groups,
// what it started is left to exit when its input closes.
func killGroup(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
