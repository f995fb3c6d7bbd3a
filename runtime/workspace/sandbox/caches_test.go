//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cacheWorld is a home folder, a workspace in it, a session's temporary
// folder and a bin folder of fake toolchains, for the cache finder.
type cacheWorld struct {
	t                   *testing.T
	home, ws, temp, bin string
}

func newCacheWorld(t *testing.T) *cacheWorld {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &cacheWorld{t: t, home: filepath.Join(base, "home"), temp: filepath.Join(base, "tmp"), bin: filepath.Join(base, "bin")}
	w.ws = filepath.Join(w.home, "src", "project")
	for _, d := range []string{w.ws, w.temp, w.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// tool writes a fake toolchain program into dir that runs script.
func (w *cacheWorld) tool(dir, name, script string) {
	w.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		w.t.Fatal(err)
	}
}

func (w *cacheWorld) mkdir(p ...string) string {
	w.t.Helper()
	d := filepath.Join(p...)
	if err := os.MkdirAll(d, 0o755); err != nil {
		w.t.Fatal(err)
	}
	return d
}

// finder returns a finder over the world, with env added to HOME and a
// PATH of the bin folder (and pathDirs before it).
func (w *cacheWorld) finder(network bool, env []string, pathDirs ...string) *cacheFinder {
	path := strings.Join(append(pathDirs, w.bin), ":")
	f := newCacheFinder(append([]string{"HOME=" + w.home, "PATH=" + path}, env...), w.temp, w.ws, network, []string{w.ws, w.temp})
	f.timeout = 3 * time.Second
	return f
}

// TestCachesAreWhatTheToolchainsSay checks that the caches are the
// folders the toolchains on PATH report, that exist, with Go's build cache
// created, each folder once and none inside another, and that the
// toolchains are asked from the session's folder with the settings that
// keep them off the network.
func TestCachesAreWhatTheToolchainsSay(t *testing.T) {
	w := newCacheWorld(t)
	npm := w.mkdir(w.home, ".npm")
	cargo := w.mkdir(w.home, ".cargo", "registry")
	asked := filepath.Join(w.home, "asked")
	w.tool(w.bin, "go", `echo "go $PWD $GOTOOLCHAIN" >> `+asked+`; echo "$HOME/.cache/go-build"; echo "$HOME/go/pkg/mod"`)
	w.tool(w.bin, "npm", `echo "npm $npm_config_update_notifier" >> `+asked+`; echo "$HOME/.npm"`)
	w.tool(w.bin, "pip", `echo "pip $PIP_DISABLE_PIP_VERSION_CHECK" >> `+asked+`; echo "$HOME/.cache/pip"`)
	w.tool(w.bin, "cargo", "exit 1")

	found, refused := w.finder(false, nil).find()
	if want := []string{filepath.Join(w.home, ".cache"), cargo, npm}; !slices.Equal(found, want) {
		t.Errorf("caches %q, want %q (refused %q)", found, want, refused)
	}
	if info, err := os.Stat(filepath.Join(w.home, ".cache", "go-build")); err != nil || !info.IsDir() {
		t.Errorf("Go's build cache was not created: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.home, "go")); !os.IsNotExist(err) {
		t.Errorf("Go's module cache was created with the network off: %v", err)
	}
	got, _ := os.ReadFile(asked)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	slices.Sort(lines)
	if want := []string{"go " + w.temp + " local", "npm false", "pip 1"}; !slices.Equal(lines, want) {
		t.Errorf("the toolchains were asked as %q, want %q", lines, want)
	}

	// With the network allowed, Go's module cache is made too.
	found, _ = w.finder(true, nil).find()
	if !slices.Contains(found, filepath.Join(w.home, "go", "pkg", "mod")) {
		t.Errorf("with the network allowed, the caches %q lack Go's module cache", found)
	}
}

// TestCachesKeepClearOfTheHomeAndTheWorkspace checks that a toolchain
// reporting the root, the home folder, a folder holding the workspace, the
// person's settings or a folder inside the workspace gets none of them
// made writable.
func TestCachesKeepClearOfTheHomeAndTheWorkspace(t *testing.T) {
	for _, tc := range []struct {
		name, cache string
		refused     bool
	}{
		{"the root", "/", true},
		{"the home folder", "$HOME", true},
		{"a folder holding the workspace", "$HOME/src", true},
		{"the settings", "$HOME/.config", true},
		{"a folder in the settings", "$HOME/.config/agenttui", true},
		{"a folder holding the state", "$HOME/.local", true},
		{"a folder inside the workspace", "$HOME/src/project/.cache", false},
		{"a relative path", "cache", false},
		{"off", "off", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newCacheWorld(t)
			for _, d := range []string{".config/agenttui", ".local/state", "src/project/.cache"} {
				w.mkdir(w.home, d)
			}
			w.tool(w.bin, "npm", `echo "`+tc.cache+`"`)
			found, refused := w.finder(false, nil).find()
			if len(found) != 0 {
				t.Errorf("caches %q", found)
			}
			if tc.refused != (len(refused) == 1) {
				t.Errorf("refused %q", refused)
			}
		})
	}
}

// TestCachesFollowNoPlantedLink checks that a symbolic link inside a
// writable cache, which a sandboxed command could have planted, cannot
// lead a later session's cache elsewhere, while a link the person made
// outside is followed.
func TestCachesFollowNoPlantedLink(t *testing.T) {
	w := newCacheWorld(t)
	// The person keeps the XDG cache on another disk.
	disk := w.mkdir(filepath.Dir(w.home), "disk", "cache")
	if err := os.Symlink(disk, filepath.Join(w.home, ".cache")); err != nil {
		t.Fatal(err)
	}
	// An earlier command planted pip's cache as a link to the person's
	// programs.
	bin := w.mkdir(w.home, ".local", "bin")
	if err := os.Symlink(bin, filepath.Join(disk, "pip")); err != nil {
		t.Fatal(err)
	}
	w.tool(w.bin, "pip", `echo "$HOME/.cache/pip"`)
	// And Go's build cache, missing, would be made through a planted link.
	if err := os.Symlink(bin, filepath.Join(disk, "go")); err != nil {
		t.Fatal(err)
	}
	w.tool(w.bin, "go", `echo "$HOME/.cache/go/build"; echo off`)

	found, refused := w.finder(false, nil).find()
	if !slices.Equal(found, []string{disk}) {
		t.Errorf("caches %q, want only %s (refused %q)", found, disk, refused)
	}
	if len(refused) != 2 || !strings.Contains(strings.Join(refused, "\n"), "symbolic link") {
		t.Errorf("refused %q, want pip's and Go's cache for their links", refused)
	}
	if entries, _ := os.ReadDir(bin); len(entries) != 0 {
		t.Errorf("a folder was made through the planted link: %v", entries)
	}
}

// TestCachesRunNoPlantedProgram checks that a toolchain program inside the
// workspace or a cache, which a command could have put there, is not run,
// nor one found through a relative PATH entry, and that a toolchain that
// does not answer in time is left out.
func TestCachesRunNoPlantedProgram(t *testing.T) {
	w := newCacheWorld(t)
	ran := filepath.Join(w.home, "ran")
	for _, dir := range []string{filepath.Join(w.ws, "bin"), w.mkdir(w.home, ".cache", "bin")} {
		w.tool(dir, "npm", "echo planted >> "+ran+"; echo /")
	}
	w.tool(w.temp, "go", "echo planted >> "+ran)
	w.mkdir(w.home, ".pip")
	w.tool(w.bin, "pip", `/bin/sleep 2; echo "$HOME/.pip"`)
	f := w.finder(false, nil, filepath.Join(w.ws, "bin"), filepath.Join(w.home, ".cache", "bin"), ".")
	f.timeout = 100 * time.Millisecond
	found, refused := f.find()
	if _, err := os.Stat(ran); err == nil {
		out, _ := os.ReadFile(ran)
		t.Errorf("a planted program ran: %s", out)
	}
	if !slices.Equal(found, []string{filepath.Join(w.home, ".cache")}) || len(refused) != 0 {
		t.Errorf("caches %q, refused %q", found, refused)
	}
}

// TestCachesOnlyWhenAsked checks that a sandbox has no caches unless its
// configuration asks for them in workspace-write mode, and that its status
// says when it has.
func TestCachesOnlyWhenAsked(t *testing.T) {
	support := needLandlock(t)
	ws := t.TempDir()
	for _, tc := range []struct {
		cfg    Config
		caches bool
		status string
	}{
		{Config{}, false, "shell: sandboxed (workspace-write, no network)"},
		{Config{ToolchainCaches: true}, true, "shell: sandboxed (workspace-write + caches, no network)"},
		{Config{Mode: ReadOnly, ToolchainCaches: true}, false, "shell: sandboxed (read-only, no network)"},
	} {
		sb, err := New(ws, tc.cfg, support)
		if err != nil {
			t.Fatal(err)
		}
		if sb.ToolchainCaches() != tc.caches || sb.Status() != tc.status {
			t.Errorf("%+v: caches %v, status %q", tc.cfg, sb.ToolchainCaches(), sb.Status())
		}
		if !tc.caches && (sb.Caches() != nil || !slices.Equal(sb.Writable(), sb.Roots())) {
			t.Errorf("%+v: caches %q, writable %q", tc.cfg, sb.Caches(), sb.Writable())
		}
		sb.Close()
	}
}

// TestGoBuildsInTheSandbox checks the reason for the caches: in a fresh
// home, with Go's default build cache, a sandboxed go build of a module in
// the workspace succeeds, while a write elsewhere in the home folder is
// still refused.
func TestGoBuildsInTheSandbox(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	f := newFixture(t, Config{ToolchainCaches: true})
	// Go's defaults, from the fixture's home: no cache folder the test's
	// own environment names.
	goEnv := []string{"HOME=" + f.home, "GOCACHE=", "GOMODCACHE=", "GOPATH=", "XDG_CACHE_HOME=", "XDG_CONFIG_HOME=",
		"GOENV=", "GOFLAGS=", "GOTOOLCHAIN=local", "GOPROXY=off"}
	f.sb.caches.env = append(os.Environ(), goEnv...)
	f.writeFile(filepath.Join(f.ws, "go.mod"), "module example.com/tiny\n\ngo 1.22\n")
	f.writeFile(filepath.Join(f.ws, "main.go"), "package main\n\nfunc main() {}\n")

	goCache := filepath.Join(f.home, ".cache", "go-build")
	if out := f.mustSucceed("go env GOCACHE", goEnv...); strings.TrimSpace(out) != goCache {
		t.Errorf("go env GOCACHE says %q, want %s", out, goCache)
	}
	f.mustSucceed("go build -o tiny . && ./tiny", goEnv...)
	if !slices.Contains(f.sb.Caches(), filepath.Join(f.home, ".cache")) {
		t.Errorf("caches %q", f.sb.Caches())
	}
	out := f.mustFail("echo x > $HOME/x", goEnv...)
	wantContains(t, out, "Permission denied")
	if _, err := os.Stat(filepath.Join(f.home, "x")); !os.IsNotExist(err) {
		t.Errorf("a file was written in the home folder: %v", err)
	}
	f.mustFail("mkdir -p $HOME/.config/x", goEnv...)
}

// TestCloseEndsTheAsking checks that closing the sandbox while a toolchain
// is being asked ends that program at once, so none outlives the session,
// and that nothing is found afterwards.
func TestCloseEndsTheAsking(t *testing.T) {
	w := newCacheWorld(t)
	w.mkdir(w.home, ".cache")
	fifo := filepath.Join(w.temp, "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w.tool(w.bin, "npm", "echo $$ > "+fifo+"; exec /bin/sleep 30")
	f := w.finder(false, nil)
	f.timeout = time.Minute
	found := make(chan []string)
	go func() { found <- f.get() }()
	data, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	f.close()
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("npm (process %d) still runs after the sandbox closed", pid)
	}
	if got := <-found; len(got) != 0 {
		t.Errorf("caches %q found by an asking that was ended", got)
	}
	if got := f.get(); len(got) != 0 {
		t.Errorf("caches %q found after the sandbox closed", got)
	}
}
