//go:build unix

package hooks

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, so that one
// signal reaches the hook and everything it starts, however deep, and so
// that a Ctrl+C meant for the console does not reach the hook behind its
// back.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group cmd leads with SIGKILL: a hook past
// its limit gets no chance to linger. The group outlives its leader while
// any member is left, so this reaches a grandchild whose parent is gone.
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	if err != nil {
		// The group could not be signalled; the leader at least can.
		return cmd.Process.Kill()
	}
	return nil
}
