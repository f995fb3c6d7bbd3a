//go:build !linux

package mcp_test

import "time"

// gone reports whether process pid has ended; without pidfds it cannot
// wait, so it only looks.
func gone(pid int, _ time.Duration) bool { return !alive(pid) }
