//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture the seccomp filter expects system calls
// from; arm64 has no second calling convention sharing it.
const (
	auditArch uint32 = unix.AUDIT_ARCH_AARCH64
	x32Bit    uint32 = 0
)
