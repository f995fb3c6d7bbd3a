//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture the seccomp filter expects system calls
// from; x32Bit marks the x32 calls that share it.
const (
	auditArch uint32 = unix.AUDIT_ARCH_X86_64
	x32Bit    uint32 = 0x40000000
)
