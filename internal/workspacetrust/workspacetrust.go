// Package workspacetrust is the person's trust in what a workspace's own
// configuration would run on their machine: the hook commands of its
// agenttui.json and the MCP servers of its .mcp.json. A workspace may be a
// repository just cloned, so none of that runs until the person trusts it,
// and it runs only while it is as they trusted it.
//
// One decision covers both, and one digest records it, kept where the
// hooks' trust always was ($XDG_STATE_HOME/agenttui/trusted-hooks.json): a
// workspace with hooks and no servers has the digest its hooks always had,
// so trust given before servers needed it still holds there; with servers,
// the digest covers both, so such an entry no longer matches and the
// person is asked again, told that their earlier trust covered the hooks
// alone. The person's own hooks and MCP configuration ($XDG_CONFIG_HOME,
// --config, --mcp-config) are theirs and need no trust.
//
// A session uses it so: Load reads the workspace's commands and whether
// they are trusted; the hook Runner gets Hooks and Trust; the session
// starts Servers and checks each server with Verify before it starts or
// restarts; while Pending, the console asks the Question that Ask makes and
// Grants or Declines it, and a headless run says UntrustedNotice. Once a
// hook is found changed since trust, the trust breaks (see hooks.Trust)
// and OnBreak hears it, so that the console can ask again.
package workspacetrust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agenttui/agenttui/internal/plural"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/internal/cmdfiles"
	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/mcp"
)

// Workspace is one workspace's own commands and the person's trust in them
// during a session. Its methods are safe for concurrent use.
type Workspace struct {
	dir string
	// user are the person's own hooks, which always run; own are the
	// workspace's, marked as such (hooks.Command.Workspace), defined in
	// hooksFile.
	user, own hooks.Config
	hooksFile string
	// servers are the workspace's MCP servers as .mcp.json writes them,
	// and data the file's bytes, from which they start once trusted: the
	// file read once, so what starts is what the person was asked about.
	servers     *mcp.Config
	serversFile string
	data        []byte

	store hooks.TrustStore
	trust *hooks.Trust

	mu sync.Mutex
	// trusted are the servers' files as trusted; nil until trusted.
	trusted *serverFiles
	// pending says the workspace's commands wait for the person's answer.
	pending bool
	// changed and hooksOnly say what the store knew of the workspace
	// when it was loaded: some earlier version was trusted, and that
	// version's digest was the hooks' alone.
	changed, hooksOnly bool
	protect            func([]string)
	onBreak            func(why string)
}

// Load reads the workspace dir's own commands and whether the person
// trusts them. c is the configuration read for the session (nil for none):
// its hooks are the workspace's own when it is dir's agenttui.json (see
// config.LoadHooks). mcpConfig is the MCP configuration named on the
// command line; when it is empty, dir's .mcp.json is the workspace's own.
// A file that cannot be read or is not valid is an error naming it, in one
// line; a trust store that cannot be read trusts nothing.
func Load(dir string, c *config.Config, mcpConfig string) (*Workspace, error) {
	set, err := config.LoadHooks(c, dir)
	if err != nil {
		return nil, err
	}
	w := &Workspace{dir: dir, user: set.User, own: set.Workspace, hooksFile: set.WorkspaceFile}
	w.trust = hooks.NewTrust(w.broke)
	if mcpConfig == "" {
		if err := w.loadServers(); err != nil {
			return nil, err
		}
	}
	if w.own.Empty() && w.serverCount() == 0 {
		return w, nil
	}
	if w.store, err = config.TrustStore(); err != nil {
		return nil, err
	}
	snap, files, digest := w.take()
	stored, known := w.store.TrustedDigest(dir)
	if known && stored == digest {
		w.grant(snap, files)
		return w, nil
	}
	w.pending, w.changed = true, known
	w.hooksOnly = known && w.serverCount() > 0 && stored == snap.Digest
	return w, nil
}

// loadServers reads the workspace's .mcp.json, when it has one, as
// written.
func (w *Workspace) loadServers() error {
	path, err := mcp.FindConfig(w.dir)
	if err != nil || path == "" {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: cannot read the MCP configuration: %v", path, unwrapPathError(err))
	}
	cfg, err := mcp.ParseConfigAsWritten(path, data)
	if err != nil {
		return err
	}
	w.servers, w.serversFile, w.data = cfg, path, data
	return nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (w *Workspace) serverCount() int {
	if w.servers == nil {
		return 0
	}
	return len(w.servers.Servers)
}

// take reads the workspace's commands' files now and returns what they
// are, and the digest of both.
func (w *Workspace) take() (*hooks.Snapshot, *serverFiles, string) {
	snap := hooks.Take(w.dir, w.own)
	files := takeServers(w.dir, w.servers)
	if files == nil {
		// The hooks' own digest, as trust given before servers needed
		// it recorded it.
		return snap, nil, snap.Digest
	}
	h := sha256.New()
	fmt.Fprintf(h, "agenttui workspace trust: hooks %s servers %s", snap.Digest, files.digest)
	return snap, files, hex.EncodeToString(h.Sum(nil))
}

// Hooks returns the hooks a session's Runner runs: the person's own, and
// the workspace's, which run as Trust allows.
func (w *Workspace) Hooks() hooks.Config { return w.user.Merge(w.own) }

// Trust returns the person's trust in the workspace's hooks, for the
// session's Runner.
func (w *Workspace) Trust() *hooks.Trust { return w.trust }

// Pending reports whether the workspace's commands wait for the person:
// it defines some, and the person has not trusted them as they are.
func (w *Workspace) Pending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending
}

// Servers returns the workspace's MCP servers to start now: none until the
// person trusts them, else those the file defines, their ${VAR} references
// expanded from the environment (an unset one is an error naming the
// file, the server and the variable).
func (w *Workspace) Servers() (*mcp.Config, error) {
	w.mu.Lock()
	trusted := w.trusted != nil
	w.mu.Unlock()
	if !trusted || w.servers == nil {
		return nil, nil
	}
	return mcp.ParseConfig(w.serversFile, w.data, os.LookupEnv)
}

// Verify reports why the workspace's server s may not start now: the
// workspace is not trusted, or a file its command runs is not as trusted.
// It is the session's mcp.Options.Verify for the workspace's servers.
func (w *Workspace) Verify(s mcp.ServerConfig) error {
	w.mu.Lock()
	trusted := w.trusted
	w.mu.Unlock()
	if trusted == nil {
		return errors.New("this workspace's MCP servers are not trusted")
	}
	return trusted.check(w.dir, s)
}

// SetProtect hands the workspace the sandbox's way of keeping files from
// sandboxed commands (sandbox.Sandbox.SetProtected), and protects the
// trusted hooks' files at once: they run outside the sandbox, so no
// sandboxed command may change them. Each later Grant protects the files
// it trusts, and Decline none.
func (w *Workspace) SetProtect(protect func(paths []string)) {
	w.mu.Lock()
	w.protect = protect
	w.mu.Unlock()
	if protect != nil && !w.Pending() {
		w.applyProtection()
	}
}

// OnBreak sets what hears that the trust broke because a hook was found
// changed since the person trusted it, with why, in one line. It is called
// from a hook's goroutine and must not block.
func (w *Workspace) OnBreak(f func(why string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onBreak = f
}

// broke is the hooks' Trust's onBreak.
func (w *Workspace) broke(why string) {
	w.mu.Lock()
	f := w.onBreak
	w.mu.Unlock()
	if f != nil {
		f(why)
	}
}

// grant trusts the hooks of snap and the servers of files from now on.
func (w *Workspace) grant(snap *hooks.Snapshot, files *serverFiles) {
	w.trust.Grant(snap)
	w.mu.Lock()
	if files == nil {
		files = &serverFiles{}
	}
	w.trusted, w.pending = files, false
	// Asked again, the person is asked about a version they trusted.
	w.changed, w.hooksOnly = true, false
	w.mu.Unlock()
	w.applyProtection()
}

// applyProtection protects the files of the hooks trusted now, or none.
func (w *Workspace) applyProtection() {
	w.mu.Lock()
	protect := w.protect
	w.mu.Unlock()
	if protect != nil {
		protect(w.trust.Files())
	}
}

// UntrustedNotice says that the workspace's commands do not run, in a run
// that cannot ask the person, and how to trust them.
func (w *Workspace) UntrustedNotice() runtime.Notice {
	return runtime.Notice{Level: "warning", Text: untrustedText(w.hooksFile, len(w.own.Describe()), w.serversFile, w.serverCount())}
}

// untrustedText words UntrustedNotice for hooks commands in hooksFile and
// servers MCP servers in serversFile, its counts and nouns agreeing.
func untrustedText(hooksFile string, hooks int, serversFile string, servers int) string {
	var what []string
	if hooks > 0 {
		what = append(what, fmt.Sprintf("%s defines %s", hooksFile, plural.Of(hooks, "hook command")))
	}
	if servers > 0 {
		what = append(what, fmt.Sprintf("%s defines %s", serversFile, plural.Of(servers, "MCP server")))
	}
	them := "none of them runs; open the console here (agenttui) once to review and trust them"
	if hooks+servers == 1 {
		them = "it does not run; open the console here (agenttui) once to review and trust it"
	}
	return strings.Join(what, " and ") + " that this workspace has not been trusted to run, so " + them
}

// serverFiles are the workspace files each of a configuration's servers
// runs, as they were, and the digest of the servers with them.
type serverFiles struct {
	digest string
	files  map[string][]string
	states map[string]*fileState
}

// fileState is what a file was; see hooks.Snapshot.
type fileState struct {
	sum  [sha256.Size]byte
	perm os.FileMode
}

// takeServers reads the files the servers of c run from ws; nil for no
// servers.
func takeServers(ws string, c *mcp.Config) *serverFiles {
	if c == nil || len(c.Servers) == 0 {
		return nil
	}
	f := &serverFiles{files: map[string][]string{}, states: map[string]*fileState{}}
	h := sha256.New()
	// The servers as written, in name order; maps marshal sorted.
	canon, _ := json.Marshal(c.Servers)
	h.Write(canon)
	for _, s := range c.Servers {
		paths := serverPaths(ws, s)
		f.files[s.Name] = paths
		for _, p := range paths {
			if _, seen := f.states[p]; seen {
				continue
			}
			f.states[p] = nil
			content, perm, ok := cmdfiles.Read(p)
			if !ok {
				continue
			}
			f.states[p] = &fileState{sha256.Sum256(content), perm}
			rel, _ := filepath.Rel(ws, p)
			fmt.Fprintf(h, "\x00file %d %s %d\x00", len(rel), rel, len(content))
			h.Write(content)
		}
	}
	f.digest = hex.EncodeToString(h.Sum(nil))
	return f
}

// serverPaths returns the workspace files the server s runs; an HTTP
// server runs none.
func serverPaths(ws string, s mcp.ServerConfig) []string {
	if s.Transport != mcp.TransportStdio {
		return nil
	}
	return cmdfiles.Argv(ws, ws, append([]string{s.Command}, s.Args...))
}

// check reports why the server s may not start: it is not one of the
// trusted servers, or a file it runs is not as it was.
func (f *serverFiles) check(ws string, s mcp.ServerConfig) error {
	files, ok := f.files[s.Name]
	if !ok {
		return fmt.Errorf("it is not one of the MCP servers this workspace was trusted to start")
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(ws, p); err == nil {
			return r
		}
		return p
	}
	for _, p := range serverPaths(ws, s) {
		if !slices.Contains(files, p) {
			return fmt.Errorf("it now runs %s, which was not there when this workspace was trusted", rel(p))
		}
	}
	for _, p := range files {
		want := f.states[p]
		content, perm, ok := cmdfiles.Read(p)
		switch {
		case !ok && want == nil:
		case !ok:
			return fmt.Errorf("it runs %s, which is gone since this workspace was trusted", rel(p))
		case want == nil:
			return fmt.Errorf("it runs %s, which was not there when this workspace was trusted", rel(p))
		case sha256.Sum256(content) != want.sum || perm != want.perm:
			return fmt.Errorf("it runs %s, which changed since this workspace was trusted", rel(p))
		}
	}
	return nil
}
