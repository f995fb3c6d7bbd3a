//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, so that the
// server and whatever it starts (npx starts node, a shell starts its
// commands) can be signalled together, and so that a Ctrl+C meant for the
// console does not reach them behind its back.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup signals the process group cmd leads: SIGKILL when hard, else
// SIGTERM. The group outlives its leader while any member is left.
func killGroup(cmd *exec.Cmd, hard bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
