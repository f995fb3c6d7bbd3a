package workspacetrust

import (
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/runtime/hooks"
)

// Question is what the person is asked about a workspace's commands, as
// they were when Ask made it, and what answering does. Answer it once.
type Question struct {
	// HooksFile defines Hooks, one line per hook command (see
	// hooks.Config.Describe); both empty when the workspace has none.
	HooksFile string
	Hooks     []string
	// ServersFile defines Servers, one line per MCP server (see
	// mcp.Config.Describe); both empty when the workspace has none.
	ServersFile string
	Servers     []string
	// Changed says the person trusted an earlier version, so the question
	// is asked again because what would run is no longer what they
	// trusted; HooksOnly, that what they trusted was the hooks alone,
	// before the MCP servers the workspace defines needed trust.
	Changed, HooksOnly bool

	w      *Workspace
	snap   *hooks.Snapshot
	files  *serverFiles
	digest string
}

// Ask reads the workspace's commands' files now and returns the question
// about them: trusting it trusts them as they are now.
func (w *Workspace) Ask() *Question {
	snap, files, digest := w.take()
	q := &Question{HooksFile: w.hooksFile, Hooks: w.own.Describe(), w: w, snap: snap, files: files, digest: digest}
	if w.servers != nil {
		q.ServersFile, q.Servers = w.serversFile, w.servers.Describe()
	}
	w.mu.Lock()
	q.Changed, q.HooksOnly = w.changed || w.trust.Broken() != "", w.hooksOnly
	w.mu.Unlock()
	return q
}

// Grant trusts the workspace's commands as they were when the question was
// asked: its hooks run from now on and its servers may start, the hooks'
// files are protected from sandboxed commands, and the trust is recorded
// so that later sessions here need not ask, until something changes. The
// trust holds in this session even when it cannot be recorded; the error
// says why it could not.
func (q *Question) Grant() error {
	q.w.grant(q.snap, q.files)
	return q.w.store.Trust(q.w.dir, q.digest)
}

// Decline runs none of the workspace's commands in this session: its
// hooks are left out (and no longer protected), and its servers do not
// start, or restart. Nothing is recorded, so the next session asks again.
func (q *Question) Decline() {
	w := q.w
	w.trust.Withdraw()
	w.mu.Lock()
	w.trusted, w.pending = nil, false
	w.mu.Unlock()
	w.applyProtection()
}

// Subject names what the question is about, for saying what the answer
// did: "the hooks of agenttui.json", "the MCP servers of .mcp.json", or
// both joined by "and"; a file inside workspace is named from it.
func (q *Question) Subject(workspace string) string {
	name := func(file string) string {
		if rel, err := filepath.Rel(workspace, file); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
		return file
	}
	var parts []string
	if len(q.Hooks) > 0 {
		parts = append(parts, "the hooks of "+name(q.HooksFile))
	}
	if len(q.Servers) > 0 {
		parts = append(parts, "the MCP servers of "+name(q.ServersFile))
	}
	if len(parts) == 0 {
		return "the workspace's commands"
	}
	return strings.Join(parts, " and ")
}
