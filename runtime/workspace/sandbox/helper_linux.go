package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// init runs the helper when the program was started as one (see Wrap), or
// a spare helper (see startSpare), and never returns then. It runs as early
// as the package's imports allow, before the program's main and many of its
// other packages' init functions, since a command may wait for the helper's
// start. Go initialises a package only once everything it imports is, so
// this package keeps to imports that are initialised early: net, for one,
// would make the helper wait for nearly every package of agenttui.
func init() {
	switch {
	case len(os.Args) == 2 && os.Args[1] == spareCommand:
		os.Exit(runSpare())
	case len(os.Args) >= 4 && os.Args[1] == helperCommand:
		argv := os.Args[4:]
		if len(argv) == 0 {
			argv = []string{os.Args[3]}
		}
		os.Exit(runHelper(os.Args[2], os.Args[3], argv))
	}
}

// spareControl is the spare's end of its control socket.
const spareControl = 3

// runSpare is a spare helper. It says it is ready on its control socket and
// waits for one command: the request, in JSON, with the command's standard
// streams, up to the end of the console's side. It changes to the command's
// folder and answers; then it takes the streams as its own, applies the
// policy to this thread, and executes the command with the request's
// environment. It returns only when that fails: as runHelper, with one line
// on the command's standard error and helperFailed. A spare whose console
// closes the socket without a request (the console ended it, or ended)
// exits quietly.
func runSpare() int {
	// As in runHelper: from here to the exec, one thread.
	runtime.LockOSThread()
	if err := unix.SetNonblock(spareControl, false); err != nil {
		return helperFailed
	}
	// The socket must not reach the command.
	unix.CloseOnExec(spareControl)
	if writeAll(spareControl, []byte{spareReady}) != nil {
		return 0
	}
	req, fds, err := readRequest(spareControl)
	if err != nil {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return 0
	}
	if err := unix.Chdir(req.Dir); err != nil {
		answer := []byte{spareRefused, 0, 0, 0, 0}
		errno, _ := err.(unix.Errno)
		binary.LittleEndian.PutUint32(answer[1:], uint32(errno))
		writeAll(spareControl, answer)
		return helperFailed
	}
	if writeAll(spareControl, []byte{spareStarted}) != nil {
		// The console did not hear that the command started; it must
		// not run unseen.
		return 0
	}
	unix.Close(spareControl)
	for i, fd := range fds {
		// dup3 leaves the new descriptor open across the exec.
		if err := unix.Dup3(fd, i, 0); err != nil {
			return helperFailed
		}
		unix.Close(fd)
	}
	err = enforce(req.Policy)
	if err == nil {
		err = syscall.Exec(req.Path, req.Args, req.Env)
	}
	fmt.Fprintf(os.Stderr, "%s%v; the command did not run\n", helperPrefix, err)
	return helperFailed
}

// readRequest reads a spare's request from its control socket up to the
// end of the console's side, with the three standard streams' descriptors
// (close-on-exec until they are put in place). It fails when the console
// sent nothing, or not a whole request; the caller closes the descriptors
// returned with an error.
func readRequest(ctl int) (request, []int, error) {
	var req request
	var data []byte
	var fds []int
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return req, fds, err
		}
		if oobn > 0 {
			msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err != nil {
				return req, fds, err
			}
			for _, m := range msgs {
				got, err := unix.ParseUnixRights(&m)
				if err != nil {
					return req, fds, err
				}
				fds = append(fds, got...)
			}
		}
		if flags&unix.MSG_CTRUNC != 0 {
			return req, fds, fmt.Errorf("more descriptors than the three streams")
		}
		if n == 0 {
			break
		}
		data = append(data, buf[:n]...)
	}
	if len(data) == 0 {
		return req, fds, fmt.Errorf("no request")
	}
	if len(fds) != 3 {
		return req, fds, fmt.Errorf("%d descriptors, not the three streams", len(fds))
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return req, fds, fmt.Errorf("bad request: %w", err)
	}
	return req, fds, nil
}

// writeAll writes b to fd, whole.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
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
// symbolic link. A writable folder that holds protected paths is granted
// entry by entry instead (see policy.Protected); one inside a protected
// path is not granted at all. The caller closes the roots' descriptors,
// those returned with an error included.
func writableRoots(p policy) ([]root, error) {
	var out []root
	for _, w := range p.Write {
		var below []string
		inside := false
		for _, q := range p.Protected {
			switch {
			case within(w, q):
				inside = true
			case within(q, w):
				below = append(below, q)
			}
		}
		if inside {
			continue
		}
		if len(below) > 0 {
			var err error
			if out, err = grantEntries(out, w, below); err != nil {
				return out, err
			}
			continue
		}
		r, ok, err := openRoot(w)
		if err != nil {
			return out, err
		}
		if !ok {
			return out, fmt.Errorf("the writable folder %s is no longer a folder or a file", w)
		}
		out = append(out, r)
	}
	return out, nil
}

// grantEntries adds to roots the entries of the folder dir, each whole,
// but for the protected paths below it: a protected entry is left out, and
// a folder on the way to one is granted entry by entry in its turn. Links
// and special files are left out: only folders and regular files become
// writable.
func grantEntries(roots []root, dir string, protected []string) ([]root, error) {
	d, ok, err := openRoot(dir)
	if err != nil {
		return roots, err
	}
	if ok {
		unix.Close(d.fd)
	}
	if !ok || !d.dir {
		return roots, fmt.Errorf("the writable folder %s is no longer a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return roots, fmt.Errorf("the writable folder %s cannot be listed: %w", dir, err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		var below []string
		skip := false
		for _, q := range protected {
			switch {
			case q == path:
				skip = true
			case within(q, path):
				below = append(below, q)
			}
		}
		switch {
		case skip:
		case len(below) > 0:
			if e.Type()&fs.ModeType != fs.ModeDir {
				// A link on the way to a protected path: neither it nor
				// what it leads to is granted through it.
				continue
			}
			if roots, err = grantEntries(roots, path, below); err != nil {
				return roots, err
			}
		default:
			if r, ok, err := openRoot(path); err == nil && ok {
				roots = append(roots, r)
			}
		}
	}
	return roots, nil
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
