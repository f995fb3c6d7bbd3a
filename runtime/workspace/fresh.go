package workspace

import (
	"io/fs"
	"os"
	"time"

	"github.com/agenttui/agenttui/runtime/tool"
)

// SetSessionStart sets when the session began, which tells the sources of
// read_file, grep, glob and list_dir results whether what they show is
// fresh (tool.Source.Fresh): a file is fresh when its modification time, or
// its status change time where the system keeps one (Linux), is at or after
// t, so that it was created or changed since the session began, by the
// agent, a command or anyone else. The change time catches a file whose
// modification time was set back (touch -d, an unpacked archive). With no
// session start set (the zero time), nothing is fresh. Call it before
// Within and before the tools run.
func (w *Workspace) SetSessionStart(t time.Time) { w.sessionStart = t }

// fresh reports whether the file info describes was created or changed at
// or after the session start.
func (w *Workspace) fresh(info fs.FileInfo) bool {
	if w.sessionStart.IsZero() || info == nil {
		return false
	}
	if !info.ModTime().Before(w.sessionStart) {
		return true
	}
	ctime, ok := changeTime(info)
	return ok && !ctime.Before(w.sessionStart)
}

// anyFresh reports whether any of the workspace-relative paths rels is
// fresh, looking at each entry itself (a symbolic link is not followed). It
// stops at the first fresh one, and looks at nothing when no session start
// is set. A path that can no longer be examined counts as fresh: it changed
// since it was shown.
func (w *Workspace) anyFresh(root *os.Root, rels []string) bool {
	if w.sessionStart.IsZero() {
		return false
	}
	for _, rel := range rels {
		info, err := root.Lstat(rel)
		if err != nil || w.fresh(info) {
			return true
		}
	}
	return false
}

// workspaceSource is the source of a result that shows the workspace entry
// rel, or entries at or below it.
func workspaceSource(rel string, fresh bool) tool.Source {
	return tool.Source{Kind: tool.SourceWorkspace, Name: rel, Fresh: fresh}
}
