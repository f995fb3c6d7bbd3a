package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// init runs the helper when the program was started as one (see Wrap), and
// never returns then. It runs as early as the package's imports allow, before
// the program's main and most of its other packages' init functions, since
// every command pays for the helper's start.
func init() {
	if len(os.Args) < 4 || os.Args[1] != helperCommand {
		return
	}
	argv := os.Args[4:]
	if len(argv) == 0 {
		argv = []string{os.Args[3]}
	}
	os.Exit(runHelper(os.Args[2], os.Args[3], argv))
}

// runHelper applies the policy encoded in pol to this thread and executes
// the program at path with argv from it. It returns only when that fails: it
// then writes one line saying why to standard error, which is the command's
// output, and returns helperFailed; the command never ran.
func runHelper(pol, path string, argv []string) int {
	// Landlock and seccomp bind the thread that asks for them, and execve
	// hands that thread's restrictions to the program, so everything from
	// here to the exec happens on one thread, never unlocked: go-landlock's
	// single-threaded enforcement for an exec wrapper. The helper's other
	// threads run only the Go runtime and end at the exec.
	runtime.LockOSThread()
	err := func() error {
		p, err := decodePolicy(pol)
		if err != nil {
			return err
		}
		if err := enforce(p); err != nil {
			return err
		}
		return syscall.Exec(path, argv, os.Environ())
	}()
	fmt.Fprintf(os.Stderr, "%s%v; the command did not run\n", helperPrefix, err)
	return helperFailed
}

// detect asks the kernel for its Landlock ABI version, as go-landlock does:
// an ABI 6 or later whose signal scoping erratum is not fixed counts as 5.
func detect() Support {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return Support{}
	}
	if v >= 6 {
		if errata, err := ll.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return Support{ABI: v}
}

// enforce restricts the calling thread, which must be locked, and whatever
// it executes, to the policy. It fails rather than run a command less
// confined than asked: without Landlock, or when a writable root is no
// longer the folder the session resolved (a symbolic link swapped in by an
// earlier command).
func enforce(p policy) error {
	abi := detect().ABI
	if abi < 1 {
		return fmt.Errorf("%s", noLandlock)
	}
	fd, flags, err := ruleset(p, abi)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("could not set no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("could not apply the sandbox: %w", err)
	}
	if !p.Network {
		if err := refuseOtherSockets(abi >= 4); err != nil {
			return fmt.Errorf("could not apply the network filter: %w", err)
		}
	}
	return nil
}

// ruleset builds the Landlock ruleset of the policy for a kernel of the
// given ABI, without enforcing it: a file descriptor (close-on-exec) and the
// flags to enforce it with.
func ruleset(p policy, abi int) (int, uint32, error) {
	read := landlock.RODirs("/")
	if p.Network {
		// From ABI 9, connecting to a Unix socket made outside the sandbox
		// (a name service, an SSH agent) is a right of its own.
		read = read.WithResolveUnix()
	}
	rules := []landlock.Rule{read, landlock.RWFiles(devices...).IgnoreIfMissing()}
	roots, err := writableRoots(p)
	// The rules name the roots through their descriptors, which are not
	// needed once the ruleset holds them.
	defer func() {
		for _, r := range roots {
			unix.Close(r.fd)
		}
	}()
	if err != nil {
		return -1, 0, err
	}
	for _, r := range roots {
		if r.dir {
			rule := landlock.RWDirs(r.path)
			if abi >= 2 {
				// Moving and linking files within the writable roots; a
				// file can never be carried out of them.
				rule = rule.WithRefer()
			}
			rules = append(rules, rule)
		} else {
			rules = append(rules, landlock.RWFiles(r.path))
		}
	}
	// The newest configuration go-landlock knows, cut down to what this
	// kernel offers. Best effort cannot fall back to no sandbox here: the
	// kernel has Landlock (checked above), "refer" is only asked for where
	// it exists, and a ruleset that came out empty is refused below.
	// Denials are not sent to the audit log: a command probing what it may
	// do would flood it, and the command's own output says what failed.
	cfg := landlock.V11
	if p.Network {
		cfg.HandledAccessNet = 0
		cfg.Scoped &= ll.ScopeSignal
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	switch {
	case err != nil:
		return -1, 0, fmt.Errorf("could not build the sandbox: %w", err)
	case fd < 0:
		return -1, 0, fmt.Errorf("could not build the sandbox: the kernel's Landlock offers nothing to restrict")
	}
	return fd, flags, nil
}

// root is one writable path, opened as fd: path names it through
// /proc/self/fd so that the rule is for exactly the file that was checked.
type root struct {
	fd   int
	path string
	dir  bool
}

// writableRoots opens the policy's writable paths and checks that each is
// still what it names: a folder or a regular file, reached without a
// symbolic link. The caller closes the roots' descriptors, those returned
// with an error included.
func writableRoots(p policy) ([]root, error) {
	var out []root
	for _, w := range p.Write {
		r, ok, err := openRoot(w)
		if err != nil {
			return out, err
		}
		if !ok {
			return out, fmt.Errorf("the writable folder %s is no longer a folder or a file", w)
		}
		out = append(out, r)
	}
	if p.Entries != "" {
		ws, ok, err := openRoot(p.Entries)
		if err != nil || !ok {
			return out, fmt.Errorf("the workspace %s cannot be opened: %v", p.Entries, err)
		}
		unix.Close(ws.fd)
		entries, err := os.ReadDir(p.Entries)
		if err != nil {
			return out, fmt.Errorf("the workspace %s cannot be listed: %w", p.Entries, err)
		}
		for _, e := range entries {
			if e.Name() == ".git" {
				continue
			}
			// Links and special files are left out: only folders and
			// regular files become writable.
			if r, ok, err := openRoot(filepath.Join(p.Entries, e.Name())); err == nil && ok {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// openRoot opens path without following a symbolic link at its end and
// checks that the file opened has path as its real name, so no link on the
// way led elsewhere. ok is false for anything but a folder or a regular
// file.
func openRoot(path string) (root, bool, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return root{}, false, fmt.Errorf("the writable folder %s cannot be opened: %w", path, err)
	}
	proc := "/proc/self/fd/" + strconv.Itoa(fd)
	real, err := os.Readlink(proc)
	if err != nil || real != path {
		unix.Close(fd)
		return root{}, false, fmt.Errorf("the writable folder %s is not the one the session started with (it resolves to %q)", path, real)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return root{}, false, fmt.Errorf("the writable folder %s: %w", path, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return root{fd: fd, path: proc, dir: true}, true, nil
	case unix.S_IFREG:
		return root{fd: fd, path: proc}, true, nil
	}
	unix.Close(fd)
	return root{}, false, nil
}
