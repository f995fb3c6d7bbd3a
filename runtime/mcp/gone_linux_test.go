package mcp_test

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// gone waits up to d for process pid to end and reports whether it has. A
// killed process dies a moment after the signal is sent, so a test must
// wait for it; a pidfd turns its end into an event to wait on.
func gone(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		return !alive(pid)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(d)
	for {
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return n > 0 || !alive(pid)
	}
}
