package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/journal"
)

// CheckpointDir returns the folder of session id's checkpoints: beside its
// journal in the sessions folder, so that it is removed with the session.
func CheckpointDir(sessions, id string) string { return filepath.Join(sessions, id+".checkpoints") }

// openCheckpoints gives the host's session its checkpoint store, when it
// has none and checkpoints are on: beside the journal, or in a temporary
// folder, removed at Close, for a session that is not journaled. It
// returns what the person should know: an interrupted restore the store
// finished, or a store that cannot be opened (the session goes on without
// undo).
func (h *Host) openCheckpoints(ctx context.Context) []runtime.Notice {
	s := h.session
	if s.Checkpoints != nil || h.checkpointsOff() {
		return nil
	}
	var dir string
	if h.opts.Unjournaled {
		tmp, err := os.MkdirTemp("", "agenttui-checkpoints-")
		if err != nil {
			return []runtime.Notice{noUndo(err)}
		}
		dir, h.tempCheckpoints = tmp, tmp
	} else {
		sessions, err := journal.Dir()
		if err != nil {
			return []runtime.Notice{noUndo(err)}
		}
		dir = CheckpointDir(sessions, s.ID)
	}
	store, notices, err := OpenStore(ctx, h.opts, dir, h.agent, s)
	if err != nil {
		return append(notices, noUndo(err))
	}
	_ = store
	return notices
}

// OpenStore opens the checkpoint store in dir for session s of the
// workspace o.Workspace, with the bounds o.Config sets, and settles a
// restore that s's record started and did not finish (its notice is
// returned, said through agent when it has a sink).
func OpenStore(ctx context.Context, o Options, dir string, agent *runtime.Agent, s *runtime.Session) (*checkpoint.Store, []runtime.Notice, error) {
	co := checkpoint.Options{Dir: dir, Workspace: o.Workspace}
	var maxBytes int64
	if c := o.Config; c != nil {
		co.MaxFileBytes, maxBytes = c.Checkpoints.MaxFileBytes, c.Checkpoints.MaxBytes
		// One snapshot larger than the whole cap could never be kept.
		co.MaxSnapshotBytes = maxBytes
	}
	store, err := checkpoint.Open(co)
	if err != nil {
		return nil, nil, err
	}
	s.Checkpoints = &runtime.CheckpointStore{Store: store, Workspace: o.Workspace, MaxBytes: maxBytes}
	var notices []runtime.Notice
	agent.SettleCheckpoints(ctx, s)
	if n, ok := agent.SettleRestore(ctx, s); ok {
		notices = append(notices, n)
	} else if rec := store.Recovered(); rec != nil {
		notices = append(notices, runtime.Notice{Level: "warning", Text: fmt.Sprintf(
			"a restore (%s) was interrupted when agenttui stopped; it was finished: %s written", rec.Label, plural.Of(len(rec.Paths), "path"))})
	}
	return store, notices, nil
}

// noUndo says that the session goes on without checkpoints, and why.
func noUndo(err error) runtime.Notice {
	return runtime.Notice{Level: "warning", Text: fmt.Sprintf("checkpoints are off for this session (%v): /undo and /rewind cannot restore files", err)}
}

// checkpointsOff says the configuration turned checkpoints off.
func (h *Host) checkpointsOff() bool { return h.opts.Config != nil && h.opts.Config.Checkpoints.Off }

// closeCheckpoints closes the session's checkpoint store, and removes it
// when it was a temporary one.
func (h *Host) closeCheckpoints() {
	if cp := h.session.Checkpoints; cp != nil {
		cp.Store.Close()
		h.session.Checkpoints = nil
	}
	if h.tempCheckpoints != "" {
		os.RemoveAll(h.tempCheckpoints)
		h.tempCheckpoints = ""
	}
}

// PlanUndo plans taking back the session's last reply that changed the
// workspace (the console's /undo).
func (h *Host) PlanUndo(ctx context.Context) (*runtime.Restore, error) {
	if err := h.needCheckpoints(); err != nil {
		return nil, err
	}
	return h.session.PlanUndo(ctx)
}

// PlanRedo plans taking back the session's last undo (the console's /redo).
func (h *Host) PlanRedo(ctx context.Context) (*runtime.Restore, error) {
	if err := h.needCheckpoints(); err != nil {
		return nil, err
	}
	return h.session.PlanRedo(ctx)
}

// PlanRewind plans going back to before the session's point (an index into
// its Points): its code, its conversation, or both (the console's
// /rewind).
func (h *Host) PlanRewind(ctx context.Context, point int, code, conversation bool) (*runtime.Restore, error) {
	if code {
		if err := h.needCheckpoints(); err != nil {
			return nil, err
		}
	}
	return h.session.PlanRewind(ctx, point, code, conversation)
}

// Restore does the restore r, which the person confirmed on a preview with
// digest, overwriting the conflicting paths in overwrite.
func (h *Host) Restore(ctx context.Context, r *runtime.Restore, digest string, overwrite []string) (runtime.RestoreFinished, error) {
	return h.agent.Restore(ctx, h.session, r, digest, overwrite)
}

// needCheckpoints says why the session cannot restore files, if it cannot.
func (h *Host) needCheckpoints() error {
	switch {
	case h.checkpointsOff():
		return fmt.Errorf("checkpoints are off in %s (\"checkpoints\": {\"enabled\": false})", h.opts.Config.Path)
	case h.session.Checkpoints == nil && len(h.session.Changes) == 0:
		return fmt.Errorf("%w: no reply of this session has changed the workspace yet", runtime.ErrNothingToRestore)
	case h.session.Checkpoints == nil:
		return fmt.Errorf("this session's checkpoints cannot be opened")
	}
	return nil
}

// RewindPoints returns the session's points, oldest first, as the
// console's /rewind shows them.
func (h *Host) RewindPoints() []runtime.RewindPoint { return h.session.RewindPoints() }
