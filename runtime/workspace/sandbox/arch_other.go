//go:build linux && !amd64 && !arm64

package sandbox

// auditArch is zero where the seccomp filter does not know the
// architecture: Landlock alone then governs the network.
const (
	auditArch uint32 = 0
	x32Bit    uint32 = 0
)
