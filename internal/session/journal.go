package session

import (
	"fmt"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
)

// StartJournal creates the journal of the fresh session, with goal as its
// goal and the tools the agent offers now (so call it once the MCP servers
// are attached). It does so once per session: Run calls it at the first
// run, and agenttui run calls it first, since it does not run without one.
// A session in a temporary workspace is not journaled.
func (h *Host) StartJournal(goal string) error {
	if h.journalTried {
		return nil
	}
	h.journalTried = true
	if h.opts.Unjournaled {
		return nil
	}
	dir, err := journal.Dir()
	if err != nil {
		return err
	}
	jw, err := journal.Create(dir, journal.Header{
		Session: h.session.ID, Goal: goal, Model: h.agent.Model.Name(), Mode: string(h.opts.Policy.Mode()),
		Workspace: h.opts.Workspace, Catalog: h.agent.CurrentCatalog().Digest(), Started: time.Now().UTC(), TraceID: h.headerTrace,
	}, redact.FromEnv())
	if err != nil {
		return err
	}
	h.jw.Store(jw)
	return nil
}

// JournalErr returns the first error writing the session's journal met,
// after which nothing more is written and nothing more runs (it is the
// agent's Durable); nil while the journal is whole, or when there is none.
func (h *Host) JournalErr() error {
	if jw := h.jw.Load(); jw != nil {
		return jw.Err()
	}
	return nil
}

// JournalLost says what a person can do once the journal of session id
// could not be written (err): everything up to the failure is in it, so the
// session resumes from there once the cause is mended.
func JournalLost(id string, err error) runtime.Notice {
	return runtime.Notice{Level: "warning", Text: fmt.Sprintf("%v; nothing more runs in this session. "+
		"The journal holds everything up to the failure: mend the cause (free disk space, for instance), "+
		"then resume with agenttui --resume %s", err, id)}
}

// Clear ends the session (its journal is closed, so it can be resumed
// later) and starts a fresh one, with no grants: the next run's input is its
// goal (the console's /clear).
func (h *Host) Clear() error {
	if err := h.closeJournal(); err != nil {
		return err
	}
	h.closeCheckpoints()
	h.session = runtime.NewSession(newID(time.Now()))
	h.journalTried, h.toolsCheck = false, nil
	h.opts.Policy.ClearGrants()
	return nil
}

// closeJournal closes the session's journal, if it has one.
func (h *Host) closeJournal() error {
	if jw := h.jw.Swap(nil); jw != nil {
		if err := jw.Close(); err != nil {
			return fmt.Errorf("closing the journal of session %s: %w", h.session.ID, err)
		}
	}
	return nil
}

// Load finds and loads the journal of session id, or with id "" the most
// recent session of workspace (--continue), and checks that the session
// belongs to workspace. A session that cannot be found, read or carried on
// here is an *Error.
func Load(workspace, id string) (*journal.Replay, error) {
	dir, err := journal.Dir()
	if err != nil {
		return nil, err
	}
	var rp *journal.Replay
	if id == "" {
		rp, err = journal.Latest(dir, workspace)
	} else {
		var path string
		if path, err = journal.Find(dir, id); err == nil {
			rp, err = journal.Load(path)
		}
	}
	if err != nil {
		return nil, &Error{Err: err}
	}
	if rp.Header.Workspace != workspace {
		return nil, &Error{Err: fmt.Errorf("session %s belongs to the workspace %s, not %s: resume it there, or pass --workspace %s",
			rp.Header.Session, rp.Header.Workspace, workspace, rp.Header.Workspace)}
	}
	return rp, nil
}
