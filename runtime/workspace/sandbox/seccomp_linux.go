package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Offsets into struct seccomp_data, which the filter reads: the system call
// number, the architecture, and the low 32 bits of each argument (both
// architectures the filter knows are little-endian).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
)

// The filter's verdicts.
const (
	retAllow = unix.SECCOMP_RET_ALLOW
	// retRefuse is EACCES, the error Landlock gives, so a refused socket
	// reads like a refused connection.
	retRefuse = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	// retNoMPTCP is what a kernel without Multipath TCP answers; Go, curl
	// and the rest then fall back to plain TCP, which Landlock governs.
	retNoMPTCP = unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)
	// retForeign answers every system call made through another
	// architecture's entry point (int 0x80, x32), which would otherwise
	// reach sockets by other numbers.
	retForeign = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// refuseOtherSockets installs, on the calling thread, a seccomp filter that
// leaves the network to Landlock: an Internet socket may only be plain TCP
// (whose connect and bind Landlock refuses), and only when Landlock governs
// TCP (tcp); Multipath TCP, UDP, raw and packet sockets, and io_uring (which
// can open sockets past this filter) are refused. enforce has set
// no_new_privs on the thread, which a filter needs. On an architecture the filter does not know, it
// installs nothing and Landlock alone governs TCP.
func refuseOtherSockets(tcp bool) error {
	prog := socketFilter(tcp)
	if prog == nil {
		return nil
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECCOMP): %w", err)
	}
	return nil
}

// socketFilter assembles the filter; nil when the architecture is unknown.
func socketFilter(tcp bool) []unix.SockFilter {
	if auditArch == 0 {
		return nil
	}
	tcpVerdict := uint32(retAllow)
	if !tcp {
		tcpVerdict = retRefuse
	}
	var a asm
	a.load(offArch)
	a.jumpUnless(auditArch, "foreign")
	a.load(offNr)
	if x32Bit != 0 {
		a.jumpIfAtLeast(x32Bit, "foreign")
	}
	a.jumpIf(unix.SYS_SOCKET, "socket")
	a.jumpIf(unix.SYS_IO_URING_SETUP, "refuse")
	a.ret(retAllow)

	a.label("socket")
	a.load(offArg0) // domain
	a.jumpIf(unix.AF_INET, "inet")
	a.jumpIf(unix.AF_INET6, "inet")
	a.jumpIf(unix.AF_PACKET, "refuse")
	a.ret(retAllow)

	a.label("inet")
	a.load(offArg1) // type, with SOCK_NONBLOCK and SOCK_CLOEXEC
	a.and(0xf)
	a.jumpUnless(unix.SOCK_STREAM, "refuse")
	a.load(offArg2) // protocol
	a.jumpIf(0, "tcp")
	a.jumpIf(unix.IPPROTO_TCP, "tcp")
	a.jumpIf(unix.IPPROTO_MPTCP, "mptcp")
	a.ret(retRefuse)

	a.label("tcp")
	a.ret(tcpVerdict)
	a.label("mptcp")
	a.ret(retNoMPTCP)
	a.label("refuse")
	a.ret(retRefuse)
	a.label("foreign")
	a.ret(retForeign)
	return a.assemble()
}

// asm assembles a classic BPF program with forward jumps to labels.
type asm struct {
	prog   []unix.SockFilter
	labels map[string]int
	// jumps maps an instruction's index to the labels its true and false
	// branches go to; "" falls through.
	jumps map[int][2]string
}

func (a *asm) emit(code uint16, k uint32) int {
	a.prog = append(a.prog, unix.SockFilter{Code: code, K: k})
	return len(a.prog) - 1
}

func (a *asm) jump(op uint16, k uint32, yes, no string) {
	if a.jumps == nil {
		a.jumps = map[int][2]string{}
	}
	a.jumps[a.emit(unix.BPF_JMP|op|unix.BPF_K, k)] = [2]string{yes, no}
}

func (a *asm) load(off uint32)                   { a.emit(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }
func (a *asm) and(k uint32)                      { a.emit(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, k) }
func (a *asm) ret(k uint32)                      { a.emit(unix.BPF_RET|unix.BPF_K, k) }
func (a *asm) jumpIf(k uint32, to string)        { a.jump(unix.BPF_JEQ, k, to, "") }
func (a *asm) jumpUnless(k uint32, to string)    { a.jump(unix.BPF_JEQ, k, "", to) }
func (a *asm) jumpIfAtLeast(k uint32, to string) { a.jump(unix.BPF_JGE, k, to, "") }
func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// assemble resolves the jumps; every label lies ahead of its jumps, within
// the 255 instructions a jump can skip.
func (a *asm) assemble() []unix.SockFilter {
	for at, to := range a.jumps {
		for i, name := range to {
			if name == "" {
				continue
			}
			target, ok := a.labels[name]
			if !ok || target <= at || target-at-1 > 255 {
				panic("sandbox: bad jump to " + name)
			}
			off := uint8(target - at - 1)
			if i == 0 {
				a.prog[at].Jt = off
			} else {
				a.prog[at].Jf = off
			}
		}
	}
	return a.prog
}
