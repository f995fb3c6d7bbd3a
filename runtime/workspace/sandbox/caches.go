package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The toolchain caches are the folders where Go, npm, pip and cargo keep
// what they built and downloaded, and the XDG cache tree most other tools
// use. A build in the sandbox needs to write them: Go cannot build at all
// without its build cache. Where they are is the toolchains' own business
// (environment variables, their configuration files), so the toolchains
// are asked, once per session, and only those found on PATH.

// ToolchainCaches reports whether sandboxed commands may change the
// toolchains' caches: the sandbox is in workspace-write mode and
// Config.ToolchainCaches asked for them.
func (s *Sandbox) ToolchainCaches() bool { return s.Enabled() && s.caches != nil }

// Caches returns the toolchains' cache folders sandboxed commands may
// change, resolved: those that Go (go env GOCACHE GOMODCACHE), npm (npm
// config get cache) and pip (pip cache dir) report, and cargo's registry
// and git folders ($CARGO_HOME, else ~/.cargo), for each toolchain found on
// PATH outside the folders commands may change, and the XDG cache folder
// ($XDG_CACHE_HOME, else ~/.cache). Only folders that exist are given,
// except that Go's build cache, which every Go build needs, is created when
// missing (and its module cache too when the network is allowed). A folder
// is left out when it is the root, the home folder or holds it, holds the
// workspace, holds or lies in $XDG_CONFIG_HOME or $XDG_STATE_HOME, lies in
// the workspace (which is writable anyway), or is reached through a
// symbolic link inside a folder commands may change; one inside another is
// covered by it.
//
// The toolchains are asked once per session, the first time Caches (or
// Writable, or a command's start) needs them, from the session's temporary
// folder so that no project file changes their answer, and for at most five
// seconds; one that has not answered by then is left out. Close ends the
// asking, if it is under way. It is nil when ToolchainCaches is false.
func (s *Sandbox) Caches() []string {
	if !s.ToolchainCaches() {
		return nil
	}
	return slices.Clone(s.caches.get())
}

// cacheTimeout bounds how long asking the toolchains may take; they are
// asked all at once, and one that has not answered by then is left out.
const cacheTimeout = 5 * time.Second

// cacheFinder finds a session's toolchain caches the first time they are
// needed, and keeps them. A view made by Within shares its parent's.
type cacheFinder struct {
	once  sync.Once
	found []string
	// stop ends the asking when the sandbox closes; ask is its context.
	stop func()
	ctx  context.Context
	// refused says, for the tests, which folders were found and left
	// out, and why.
	refused []string

	// env is the environment the toolchains are asked in, and whose
	// HOME, PATH and XDG variables are read.
	env []string
	// dir is the folder the toolchains are asked from: the session's
	// temporary folder, which holds no project file (.npmrc, go.mod, a
	// pyenv version file) that could change their answers.
	dir       string
	workspace string
	// network says the sandbox lets commands download, so the module
	// cache Go downloads into is worth creating.
	network bool
	// fixed are the other folders commands may change, resolved.
	fixed []string
	// timeout bounds the asking; zero means cacheTimeout.
	timeout time.Duration
}

// newCacheFinder returns a finder that asks the toolchains in env from dir.
func newCacheFinder(env []string, dir, workspace string, network bool, fixed []string) *cacheFinder {
	ctx, stop := context.WithCancel(context.Background())
	return &cacheFinder{env: env, dir: dir, workspace: workspace, network: network, fixed: fixed, ctx: ctx, stop: stop}
}

// get returns the caches, finding them the first time.
func (f *cacheFinder) get() []string {
	if f == nil {
		return nil
	}
	f.once.Do(func() { f.found, f.refused = f.find() })
	return f.found
}

// close ends the asking and waits until it has ended, so that no toolchain
// program outlives the sandbox; later calls of get find nothing.
func (f *cacheFinder) close() {
	if f == nil {
		return
	}
	f.stop()
	// Do waits for a finding under way, which the stop cuts short, or
	// marks the finding done before it began.
	f.once.Do(func() {})
}

// cacheCandidate is a folder a toolchain reported, and whether to create it
// when it does not exist.
type cacheCandidate struct {
	path   string
	create bool
	what   string
}

// find asks the toolchains on PATH where their caches are and returns the
// folders that exist (creating Go's build cache, which every Go build
// needs), resolved, that are safe to make writable, without those inside
// the workspace (writable anyway) or inside another. It also returns the
// folders it left out, with why.
func (f *cacheFinder) find() (found, refused []string) {
	if _, err := os.Stat(f.dir); err != nil {
		// The sandbox was closed: no command will need them.
		return nil, nil
	}
	home := f.getenv("HOME")
	if home != "" && !filepath.IsAbs(home) {
		home = ""
	}
	under := func(p ...string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(append([]string{home}, p...)...)
	}
	xdgCache := f.absEnv("XDG_CACHE_HOME", under(".cache"))
	cargoHome := f.absEnv("CARGO_HOME", under(".cargo"))

	// A program found inside a folder sandboxed commands may change could
	// have been put there by one of them; it is not run.
	writable := slices.Clone(f.fixed)
	if xdgCache != "" {
		writable = append(writable, xdgCache)
	}
	if cargoHome != "" {
		writable = append(writable, filepath.Join(cargoHome, "registry"), filepath.Join(cargoHome, "git"))
	}
	look := func(names ...string) string {
		for _, name := range names {
			if p := f.lookPath(name, writable); p != "" {
				return p
			}
		}
		return ""
	}

	timeout := f.timeout
	if timeout <= 0 {
		timeout = cacheTimeout
	}
	ctx, cancel := context.WithTimeout(f.ctx, timeout)
	defer cancel()
	var goCaches, npmCache, pipCache []string
	var wg sync.WaitGroup
	if p := look("go"); p != "" {
		// GOTOOLCHAIN=local: a go.mod asking for a newer Go must not make
		// this download one.
		wg.Go(func() { goCaches = f.ask(ctx, p, []string{"env", "GOCACHE", "GOMODCACHE"}, "GOTOOLCHAIN=local") })
	}
	if p := look("npm"); p != "" {
		wg.Go(func() {
			npmCache = f.ask(ctx, p, []string{"config", "get", "cache"}, "npm_config_update_notifier=false")
		})
	}
	if p := look("pip3", "pip"); p != "" {
		wg.Go(func() {
			pipCache = f.ask(ctx, p, []string{"cache", "dir"}, "PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1")
		})
	}
	wg.Wait()
	if f.ctx.Err() != nil {
		// The sandbox closed meanwhile: no command will need them.
		return nil, nil
	}

	var cands []cacheCandidate
	if len(goCaches) == 2 {
		// Every go build and go test needs the build cache, and Go
		// creates it on first use, which the sandbox would refuse. The
		// module cache is needed only to download modules, so it is made
		// only when commands may use the network.
		cands = append(cands, cacheCandidate{goCaches[0], true, "Go's build cache"},
			cacheCandidate{goCaches[1], f.network, "Go's module cache"})
	}
	if len(npmCache) == 1 {
		cands = append(cands, cacheCandidate{npmCache[0], false, "npm's cache"})
	}
	if len(pipCache) == 1 {
		cands = append(cands, cacheCandidate{pipCache[0], false, "pip's cache"})
	}
	if cargoHome != "" && look("cargo") != "" {
		cands = append(cands, cacheCandidate{filepath.Join(cargoHome, "registry"), false, "cargo's registry"},
			cacheCandidate{filepath.Join(cargoHome, "git"), false, "cargo's git checkouts"})
	}
	if xdgCache != "" {
		cands = append(cands, cacheCandidate{xdgCache, false, "the XDG cache"})
	}

	g := f.guards(home)
	// A symbolic link inside a folder commands may change could have been
	// planted by one, to make a later session open another folder: such
	// links are not followed.
	linkFree := slices.Clone(f.fixed)
	for _, c := range cands {
		if real, err := filepath.EvalSymlinks(c.path); err == nil && g.check(real, f.workspace) == nil {
			linkFree = append(linkFree, real)
		}
	}
	for _, c := range cands {
		if !filepath.IsAbs(c.path) {
			// "off", or nothing: the toolchain keeps no cache there.
			continue
		}
		real, err := f.vet(c, g, linkFree)
		switch {
		case errors.Is(err, errInsideWorkspace):
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			refused = append(refused, fmt.Sprintf("%s %s: %v", c.what, c.path, err))
		default:
			found = append(found, real)
		}
	}
	return outermost(found), refused
}

// errInsideWorkspace leaves out a cache inside the workspace, which commands
// may change anyway.
var errInsideWorkspace = errors.New("inside the workspace")

// cacheGuards are the folders a cache must keep clear of.
type cacheGuards struct {
	// home is the home folder: a cache must not be it or above it.
	home string
	// settings are where the person's configuration and programs' state
	// live ($XDG_CONFIG_HOME, $XDG_STATE_HOME, with agenttui's own rules,
	// trusted hooks and sessions): a cache must not be in them or hold
	// them.
	settings []string
}

func (f *cacheFinder) guards(home string) cacheGuards {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	var g cacheGuards
	if home != "" {
		g.home = real(home)
	}
	under := func(p ...string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(append([]string{home}, p...)...)
	}
	for _, p := range []string{f.absEnv("XDG_CONFIG_HOME", under(".config")), f.absEnv("XDG_STATE_HOME", under(".local", "state"))} {
		if p != "" {
			g.settings = append(g.settings, real(p))
		}
	}
	return g
}

// vet returns the resolved folder of candidate c when it is safe to make
// writable, creating it first when c says so.
func (f *cacheFinder) vet(c cacheCandidate, g cacheGuards, linkFree []string) (string, error) {
	path := filepath.Clean(c.path)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) && c.create {
		// Create it below its nearest existing folder, resolved as
		// carefully as the cache itself will be, so that no planted link
		// leads the new folder elsewhere.
		base, rest := path, []string{}
		for {
			if _, err := os.Lstat(base); err == nil || base == "/" {
				break
			}
			rest = append([]string{filepath.Base(base)}, rest...)
			base = filepath.Dir(base)
		}
		realBase, err := resolveNoPlantedLinks(base, linkFree)
		if err != nil {
			return "", err
		}
		target := filepath.Join(append([]string{realBase}, rest...)...)
		if err := g.check(target, f.workspace); err != nil {
			return "", err
		}
		if err := os.MkdirAll(target, 0o777); err != nil {
			return "", err
		}
	}
	real, err := resolveNoPlantedLinks(path, linkFree)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", errors.New("not a folder")
	}
	if err := g.check(real, f.workspace); err != nil {
		return "", err
	}
	return real, nil
}

// check says why folder p (resolved) must not be made writable, or returns
// nil; errInsideWorkspace for one inside the workspace.
func (g cacheGuards) check(p, workspace string) error {
	switch {
	case p == "/":
		return errors.New("it is the root folder")
	case within(p, workspace):
		return errInsideWorkspace
	case g.home != "" && within(g.home, p):
		return errors.New("it is the home folder or holds it")
	case within(workspace, p):
		return errors.New("it holds the workspace")
	}
	for _, s := range g.settings {
		if within(s, p) || within(p, s) {
			return fmt.Errorf("it holds or lies in %s, where settings and sessions are kept", s)
		}
	}
	return nil
}

// resolveNoPlantedLinks resolves p's symbolic links as filepath.EvalSymlinks
// does, but fails on a link that lies inside one of writable (resolved
// folders that sandboxed commands may change), which one of them could have
// planted.
func resolveNoPlantedLinks(p string, writable []string) (string, error) {
	const maxLinks = 40
	rest := strings.Split(filepath.Clean(p), "/")
	cur, links := "/", 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			// cur has no links in it, so its parent is the real one.
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		info, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if info.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if slices.ContainsFunc(writable, func(w string) bool { return within(cur, w) }) {
			return "", fmt.Errorf("it is reached through the symbolic link %s, inside a folder sandboxed commands may change", next)
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("too many symbolic links on the way to %s", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, nil
}

// outermost sorts paths and drops duplicates and paths inside another.
func outermost(paths []string) []string {
	slices.Sort(paths)
	var out []string
	for _, p := range paths {
		if len(out) > 0 && within(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// ask runs the toolchain program path with args in the finder's folder and
// environment (plus env), bounded by ctx, and returns its output's lines,
// each trimmed; nil when it fails.
func (f *cacheFinder) ask(ctx context.Context, path string, args []string, env ...string) []string {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = f.dir
	cmd.Env = append(slices.Clone(f.env), env...)
	// It stays in this program's process group, so that whatever ends
	// the program's group (a terminal closing) ends it too. WaitDelay
	// keeps a program a launcher started, which may outlive the kill and
	// hold the output open, from holding the asking up.
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return lines
}

// lookPath finds the program name in the finder's PATH, as a shell would,
// skipping relative entries and programs inside any of writable (the
// workspace among them); "" when there is none.
func (f *cacheFinder) lookPath(name string, writable []string) string {
	for _, dir := range filepath.SplitList(f.getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(writable, func(w string) bool { return within(p, w) || within(real, w) }) {
			continue
		}
		return p
	}
	return ""
}

// getenv returns the variable key of the finder's environment; the last
// setting wins, as in exec.
func (f *cacheFinder) getenv(key string) string {
	for i := len(f.env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(f.env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// absEnv returns the variable key when it is an absolute path (the XDG
// specification ignores a relative one), else def.
func (f *cacheFinder) absEnv(key, def string) string {
	if v := f.getenv(key); filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return def
}
