// Package sandbox runs shell commands so that they can read the whole
// filesystem but change only a few folders, and open network connections only
// when allowed. It uses Linux Landlock (github.com/landlock-lsm/go-landlock)
// and, when the network is off, a small seccomp filter.
//
// Landlock restricts the process that asks for it, for good, so the program
// that uses this package never restricts itself: Wrap turns a command into
// one that starts a helper — the same program, started again with a hidden
// first argument — which applies the rules to itself and then executes the
// command. The helper is this package's init function: any program that links
// the package serves as its own helper, so it works alike from "go run", from
// "go test" and from an installed binary, with nothing to wire. It is started
// through /proc/self/exe, which names the running program's file even when
// that file was replaced or deleted since it started (as "go install" and
// "go run" do).
//
// Starting that helper, a whole Go program, costs more than the command
// usually does. So Start keeps one spare helper started ahead of time and
// waiting, unrestricted, for one command; it hands the command over, and the
// spare applies the rules to itself and executes it (see spare_linux.go).
// Close ends the spare.
//
// Within makes a view of a sandbox that lets commands change only some paths
// of the workspace (a sub-agent's declared paths), sharing the session's
// spare helper and temporary folder.
//
// A sandboxed command may:
//
//   - read and execute anything;
//   - change its writable roots: in workspace-write mode the workspace, its
//     git folder (unless ProtectGit), the extra folders of Config.Writable,
//     the toolchains' caches (with Config.ToolchainCaches; see Caches) and
//     the session's temporary folder; in read-only mode only the temporary
//     folder; TMPDIR names that folder;
//   - write to /dev/null, /dev/zero, /dev/full, /dev/random and /dev/urandom;
//   - open TCP connections only when the network is allowed (Landlock ABI 4
//     and later); with the network off, a seccomp filter also refuses
//     Multipath TCP, UDP, raw and packet sockets, and io_uring, which
//     Landlock does not cover.
//
// Everything else is refused by the kernel with EACCES (EXDEV for a link or
// rename that would carry a file out of the writable roots).
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Mode is how much a sandboxed command may change.
type Mode string

// The sandbox modes.
const (
	// WorkspaceWrite lets commands change the workspace, the session's
	// temporary folder and the configured extra folders; the default where
	// the kernel offers Landlock.
	WorkspaceWrite Mode = "workspace-write"
	// ReadOnly lets commands change nothing but the session's temporary
	// folder.
	ReadOnly Mode = "read-only"
	// Off runs commands unsandboxed.
	Off Mode = "off"
)

// Modes lists the modes in the order the usage text names them.
var Modes = []Mode{WorkspaceWrite, ReadOnly, Off}

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown sandbox mode %q: use workspace-write, read-only or off", s)
}

// Config is the sandbox the person asked for, from flags and configuration.
type Config struct {
	// Mode is the mode asked for. Empty means the default: workspace-write
	// where the kernel offers Landlock, else off. A mode other than off
	// asked for explicitly is an error where the kernel has no Landlock.
	Mode Mode
	// Network lets sandboxed commands open network connections.
	Network bool
	// Writable lists more folders (or files) sandboxed commands may change
	// in workspace-write mode. A relative path is taken from the workspace;
	// ~/ is the home folder. Each must exist.
	Writable []string
	// ProtectGit keeps the workspace's .git read-only in workspace-write
	// mode.
	ProtectGit bool
	// ToolchainCaches lets sandboxed commands in workspace-write mode also
	// change the caches of the toolchains on PATH, which builds need (see
	// Sandbox.Caches).
	ToolchainCaches bool
}

// Support is what the kernel offers.
type Support struct {
	// ABI is the kernel's Landlock ABI version; 0 means no Landlock.
	ABI int
}

// detected caches Detect's answer: the kernel does not change under a
// running program.
var detected = sync.OnceValue(detect)

// Detect reports what the running kernel offers. It asks once per process.
func Detect() Support { return detected() }

// UnavailableError says a sandbox was asked for that this system cannot give.
type UnavailableError struct {
	// Mode is the mode asked for.
	Mode Mode
}

// Error says what was asked and why it cannot be had, in one line.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("the %s sandbox cannot be had: %s; run with --sandbox off to run shell commands unsandboxed", e.Mode, noLandlock)
}

// Available reports, without making anything, whether the sandbox cfg asks
// for can be had given what the kernel offers: an *UnavailableError when cfg
// asks for a sandbox explicitly and the kernel has no Landlock. The default
// mode is always available: it turns the sandbox off where there is none.
func Available(cfg Config, support Support) error {
	if cfg.Mode == "" || cfg.Mode == Off || support.ABI >= 1 {
		return nil
	}
	return &UnavailableError{Mode: cfg.Mode}
}

// noLandlock says why a system has no sandbox.
const noLandlock = "this kernel has no Landlock"

// Sandbox is one session's shell sandbox. A nil *Sandbox is a sandbox that is
// off: its commands run unsandboxed. A Sandbox is safe for concurrent use.
type Sandbox struct {
	mode       Mode
	why        string // why the mode is off, for Status
	workspace  string
	temp       string
	extra      []string
	gitDirs    []string
	network    bool
	protectGit bool
	abi        int
	// spares keeps the spare helper that the next command starts from. A
	// view made by Within shares its parent's: a spare takes whatever
	// policy the command it serves is sent with.
	spares *pool
	// protected holds the files besides .git that commands may not
	// change (SetProtected); a view shares its parent's.
	protected *protection
	// caches finds the toolchains' caches when they are first needed;
	// nil when they stay read-only. A view shares its parent's.
	caches *cacheFinder
	// view is set on a sandbox made by Within: in workspace-write mode its
	// commands may change only roots (and the temporary folder), and Close
	// leaves the spares and the temporary folder, which are the parent's,
	// alone.
	view  bool
	roots []string
}

// New returns the sandbox cfg asks for over workspace (absolute, with its
// symbolic links resolved), given what the kernel offers. It creates the
// session's temporary folder, which Close removes. It fails with an
// *UnavailableError when cfg asks for a sandbox and the kernel has no
// Landlock, and with a plain error when an extra writable folder does not
// exist.
func New(workspace string, cfg Config, support Support) (*Sandbox, error) {
	s := &Sandbox{mode: cfg.Mode, workspace: workspace, network: cfg.Network, protectGit: cfg.ProtectGit, abi: support.ABI, spares: &pool{},
		protected: &protection{}}
	switch {
	case cfg.Mode == Off:
		s.why = "the sandbox is off"
		return s, nil
	case support.ABI < 1 && cfg.Mode == "":
		s.mode, s.why = Off, noLandlock
		return s, nil
	case support.ABI < 1:
		return nil, Available(cfg, support)
	case cfg.Mode == "":
		s.mode = WorkspaceWrite
	}
	if s.mode == WorkspaceWrite {
		for _, w := range cfg.Writable {
			p, err := resolveWritable(w, workspace)
			if err != nil {
				return nil, err
			}
			s.extra = append(s.extra, p)
		}
		if !cfg.ProtectGit {
			s.gitDirs = worktreeGitDirs(workspace)
		}
	}
	temp, err := os.MkdirTemp("", "agenttui-shell-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: the temporary folder: %w", err)
	}
	if s.temp, err = filepath.EvalSymlinks(temp); err != nil {
		os.RemoveAll(temp)
		return nil, fmt.Errorf("sandbox: the temporary folder: %w", err)
	}
	if s.mode == WorkspaceWrite && cfg.ToolchainCaches {
		fixed := append(append([]string{workspace}, s.extra...), s.gitDirs...)
		s.caches = newCacheFinder(os.Environ(), s.temp, workspace, cfg.Network, append(fixed, s.temp))
	}
	return s, nil
}

// resolveWritable makes an extra writable path absolute and resolved, and
// checks that it exists.
func resolveWritable(p, workspace string) (string, error) {
	orig := p
	if rest, ok := strings.CutPrefix(p, "~/"); ok || p == "~" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("sandbox writable %s: %v", orig, err)
		}
		p = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workspace, p)
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("sandbox writable %s: %s does not exist", orig, p)
		}
		return "", fmt.Errorf("sandbox writable %s: %v", orig, err)
	}
	return resolved, nil
}

// Enabled reports whether commands run sandboxed.
func (s *Sandbox) Enabled() bool { return s != nil && s.mode != Off }

// Mode returns the sandbox's mode; Off for a nil Sandbox.
func (s *Sandbox) Mode() Mode {
	if s == nil {
		return Off
	}
	return s.mode
}

// Network reports whether sandboxed commands may open network connections.
func (s *Sandbox) Network() bool { return s.Enabled() && s.network }

// TempDir returns the session's temporary folder, which TMPDIR names in
// sandboxed commands; empty when the sandbox is off.
func (s *Sandbox) TempDir() string {
	if !s.Enabled() {
		return ""
	}
	return s.temp
}

// Writable returns what a sandboxed command may change, absolute: the
// workspace (in workspace-write mode), the extra folders, the git folders of
// a worktree, the toolchains' caches (see Caches), and the temporary folder.
// It is nil when the sandbox is off. With ProtectGit the workspace is listed
// although its .git stays read-only; Protected names it. For a view made by
// Within, it is the view's paths (in workspace-write mode), the caches and
// the temporary folder; a path that does not exist is listed although
// commands cannot create it (see Within). The first call may wait for the
// toolchains to say where their caches are.
func (s *Sandbox) Writable() []string {
	out := s.Roots()
	if len(out) == 0 {
		return nil
	}
	return slices.Insert(out, len(out)-1, s.Caches()...)
}

// Roots returns what Writable returns but the toolchains' caches: what the
// configuration alone says commands may change. Unlike Writable it never
// waits for the toolchains.
func (s *Sandbox) Roots() []string {
	if !s.Enabled() {
		return nil
	}
	var out []string
	switch {
	case s.mode != WorkspaceWrite:
	case s.view:
		out = append(out, s.roots...)
	default:
		out = append(out, s.workspace)
		out = append(out, s.extra...)
		out = append(out, s.gitDirs...)
	}
	return append(out, s.temp)
}

// Protected returns the paths inside Writable that stay read-only: the
// workspace's .git when ProtectGit is set, and the files SetProtected
// names (for a view, those one of its paths holds or lies inside).
func (s *Sandbox) Protected() []string {
	if !s.Enabled() || s.mode != WorkspaceWrite {
		return nil
	}
	var all []string
	if s.protectGit {
		all = append(all, s.gitPath())
	}
	all = append(all, s.protected.get()...)
	if s.view {
		all = slices.DeleteFunc(all, func(p string) bool {
			return !slices.ContainsFunc(s.roots, func(r string) bool { return within(p, r) || within(r, p) })
		})
	}
	if len(all) == 0 {
		return nil
	}
	return all
}

// gitPath is the workspace's .git.
func (s *Sandbox) gitPath() string { return filepath.Join(s.workspace, ".git") }

// CanWrite reports whether a sandboxed command may change the file at path
// (absolute).
func (s *Sandbox) CanWrite(path string) bool {
	if !s.Enabled() {
		return true
	}
	for _, p := range s.Protected() {
		if within(path, p) {
			return false
		}
		// A folder on the way to a protected path is granted entry by
		// entry: nothing can be made in it.
		if dir := filepath.Dir(path); within(p, dir) && p != dir && !exists(path) {
			return false
		}
	}
	for _, root := range s.Writable() {
		if within(path, root) && (!s.view || root == s.temp || present(root)) {
			return true
		}
	}
	return slices.Contains(devices, path)
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	return path == root || root == "/" || strings.HasPrefix(path, root+"/")
}

// Status describes the shell's confinement in one line for the header:
// "shell: sandboxed (workspace-write, no network)", "shell: sandboxed
// (workspace-write + caches, no network)" when the toolchains' caches are
// writable too, "shell: not sandboxed: this kernel has no Landlock".
func (s *Sandbox) Status() string {
	switch {
	case s == nil:
		return "shell: not sandboxed"
	case !s.Enabled():
		return "shell: not sandboxed: " + s.why
	}
	net := "no network"
	if s.network {
		net = "network allowed"
	}
	mode := string(s.mode)
	if s.ToolchainCaches() {
		mode += " + caches"
	}
	if s.view && s.mode == WorkspaceWrite {
		return fmt.Sprintf("shell: sandboxed (%s within %s, %s)", mode, s.rootNames(), net)
	}
	return fmt.Sprintf("shell: sandboxed (%s, %s)", mode, net)
}

// rootNames names a view's paths for Status, relative to the workspace:
// "docs", "docs and src", "nothing of the workspace".
func (s *Sandbox) rootNames() string {
	var names []string
	for _, r := range s.roots {
		rel, err := filepath.Rel(s.workspace, r)
		if err != nil {
			rel = r
		}
		names = append(names, rel)
	}
	switch len(names) {
	case 0:
		return "nothing of the workspace"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Why says why commands run unsandboxed: "the sandbox is off" or "this
// kernel has no Landlock"; empty when they run sandboxed.
func (s *Sandbox) Why() string {
	switch {
	case s == nil:
		return "the sandbox is off"
	case !s.Enabled():
		return s.why
	}
	return ""
}

// Close ends the spare helper, if one is waiting, and removes the session's
// temporary folder and everything in it. Commands started before keep
// running; none can be started after. Close of a view made by Within does
// nothing: the spares and the folder are its parent's.
func (s *Sandbox) Close() error {
	if !s.Enabled() || s.view {
		return nil
	}
	s.spares.close()
	s.caches.close()
	if s.temp == "" {
		return nil
	}
	return os.RemoveAll(s.temp)
}

// Start starts cmd, not yet started, in the sandbox, as Wrap and cmd.Start
// would, and returns the command that runs it: its Process is the sandboxed
// command's, in the process group cmd asked for, and its Wait and
// ProcessState are the ones to use. cmd itself may be left unstarted.
//
// Where it can, Start hands cmd to the spare helper, which was started ahead
// of time and is past the program's start-up: the spare applies the sandbox
// to itself and executes cmd, so a command costs hardly more than an
// unsandboxed one. The next spare starts in the background once no
// sandboxed command runs, or once this one has run for 50 ms. cmd fits a
// spare when its standard streams are files or nil, it has no ExtraFiles, no
// Cancel or WaitDelay (CommandContext), and its SysProcAttr asks for nothing
// but its own process group (Setpgid). Otherwise, or when there is no spare
// or it died, Start starts a helper for cmd alone, as Wrap does.
func (s *Sandbox) Start(cmd *exec.Cmd) (*exec.Cmd, error) {
	if !s.Enabled() {
		return nil, errors.New("sandbox: the sandbox is off")
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	s.spares.begin()
	run, ok, err := s.startOnSpare(cmd)
	if !ok {
		run = cmd
		if err = s.Wrap(cmd); err == nil {
			err = cmd.Start()
		}
	}
	if err != nil {
		s.spares.end()
		return nil, err
	}
	s.spares.endAfter(run.Process.Pid)
	return run, nil
}

// Warm makes sure a spare helper is ready for the next command: it starts
// one when there is none, and waits until it is ready. It reports whether
// one is: false when the sandbox is off or closed, or the spare could not
// start. Commands do not need it, since Start keeps a spare by itself after
// the first command; a program calls it (in a goroutine) to make its first
// command fast too, and a test or benchmark to have a command find the spare
// ready.
func (s *Sandbox) Warm() bool {
	if !s.Enabled() {
		return false
	}
	return s.spares.warm()
}

// Wrap turns cmd, not yet started, into the command that runs it in the
// sandbox: the helper, which applies the rules to itself and then executes
// cmd's program with cmd's arguments, in cmd's folder, with TMPDIR set to the
// temporary folder. Everything else about cmd (its standard streams, its
// process attributes) is kept. It fails when the sandbox is off or cmd could
// not be found.
func (s *Sandbox) Wrap(cmd *exec.Cmd) error {
	if !s.Enabled() {
		return errors.New("sandbox: the sandbox is off")
	}
	if cmd.Err != nil {
		return cmd.Err
	}
	pol := s.policy()
	arg, err := pol.encode()
	if err != nil {
		return err
	}
	cmd.Env = s.commandEnv(cmd.Env)
	cmd.Args = append([]string{"agenttui-sandbox", helperCommand, arg, cmd.Path}, cmd.Args...)
	cmd.Path = helperPath()
	return nil
}

// commandEnv is the environment of a sandboxed command whose exec.Cmd has
// env: env, or this program's when nil, with TMPDIR naming the temporary
// folder.
func (s *Sandbox) commandEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	return append(slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "TMPDIR=")
	}), "TMPDIR="+s.temp)
}

// policy is what the helper enforces for this sandbox. It is made when a
// command starts: for a view, only its paths that are present then are
// given (see Within).
func (s *Sandbox) policy() policy {
	// A path inside a protected one (in the .git) is never writable.
	p := policy{Network: s.network, Protected: s.Protected()}
	switch {
	case s.mode != WorkspaceWrite:
	case s.view:
		for _, r := range s.roots {
			if present(r) && !slices.ContainsFunc(p.Protected, func(q string) bool { return within(r, q) }) {
				p.Write = append(p.Write, r)
			}
		}
	default:
		p.Write = append(p.Write, s.workspace)
		p.Write = append(p.Write, s.extra...)
		p.Write = append(p.Write, s.gitDirs...)
	}
	if s.mode == WorkspaceWrite {
		// A cache removed since it was found cannot be given to Landlock;
		// the command runs without it rather than not at all.
		for _, c := range s.Caches() {
			if present(c) {
				p.Write = append(p.Write, c)
			}
		}
	}
	p.Write = append(p.Write, s.temp)
	return p
}

// helperPath is the program Wrap starts: the running program, through
// /proc/self/exe where there is a /proc, which keeps naming it when its file
// was replaced since it started.
func helperPath() string {
	const self = "/proc/self/exe"
	if _, err := os.Stat(self); err == nil {
		return self
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}
