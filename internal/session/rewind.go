package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/checkpoint"
	"github.com/agenttui/agenttui/runtime/journal"
)

// ErrConflict is returned by Rewind when a file the rewind would write was
// changed after the changes it takes back, and Force was not given: nothing
// was written.
var ErrConflict = errors.New("files changed since the changes a rewind takes back; nothing was written (pass --force to overwrite them)")

// RewindOptions say which session to rewind, to where, and how.
type RewindOptions struct {
	// Workspace is the workspace the session belongs to.
	Workspace string
	// ID is the session.
	ID string
	// To is the point: its number as listed (1 is the oldest), "goal",
	// or "turn:N" for the reply of turn N. Empty lists the points.
	To string
	// Code and Conversation say what is rewound; both false means both.
	Code, Conversation bool
	// DryRun says what would be done, and does nothing.
	DryRun bool
	// Force overwrites files changed since, instead of refusing.
	Force bool
	// Config bounds the checkpoint store, as in a session.
	Config *config.Config
}

// RewindReport is what agenttui sessions rewind prints, as JSON.
type RewindReport struct {
	Session string `json:"session"`
	// Points lists the session's points, when no point was named.
	Points []PointReport `json:"points,omitempty"`
	// Point is the point rewound to.
	Point        *PointReport `json:"point,omitempty"`
	Code         bool         `json:"code"`
	Conversation bool         `json:"conversation"`
	DryRun       bool         `json:"dry_run"`
	// Steps are what the rewind writes to the workspace.
	Steps  []StepReport `json:"steps,omitempty"`
	Digest string       `json:"digest,omitempty"`
	// Conflicts are files changed since the changes the rewind takes back.
	Conflicts []string `json:"conflicts"`
	// MessagesKept is how many messages of the conversation are kept; -1
	// when it is left alone.
	MessagesKept int      `json:"messages_kept"`
	NotCovered   []string `json:"not_covered,omitempty"`
	// Done says the rewind was made; Written and Kept say how.
	Done    bool     `json:"done"`
	Written []string `json:"written,omitempty"`
	Kept    []string `json:"kept,omitempty"`
	// Note is what the model reads with the next input.
	Note string `json:"note,omitempty"`
}

// PointReport is one point of a session.
type PointReport struct {
	Point        int                  `json:"point"`
	Kind         string               `json:"kind"`
	Turn         int                  `json:"turn"`
	Text         string               `json:"text"`
	Files        []runtime.FileChange `json:"files,omitempty"`
	Conversation bool                 `json:"conversation"`
}

// StepReport is what a rewind does to one path.
type StepReport struct {
	Path     string `json:"path"`
	Action   string `json:"action"`
	Conflict bool   `json:"conflict,omitempty"`
}

// Rewind rewinds a session at rest from the command line, as /rewind does
// in the console: its journal records the rewind, and the model reads the
// note at the next --resume. A conflict without Force is ErrConflict, with
// the report saying which files; a session or point that cannot be
// rewound is an *Error.
func Rewind(ctx context.Context, o RewindOptions) (RewindReport, error) {
	rp, err := Load(o.Workspace, o.ID)
	if err != nil {
		return RewindReport{}, err
	}
	s := rp.Session
	rep := RewindReport{Session: s.ID, MessagesKept: -1, Conflicts: []string{}}
	if o.To == "" {
		for i := range s.Points {
			rep.Points = append(rep.Points, pointReport(s, i))
		}
		return rep, nil
	}
	if rp.Interrupted != nil {
		return rep, &Error{Err: fmt.Errorf("session %s stopped in the middle of a reply: resume it first, then rewind it", s.ID)}
	}
	point, err := findPoint(s, o.To)
	if err != nil {
		return rep, &Error{Err: err}
	}
	if !o.Code && !o.Conversation {
		o.Code, o.Conversation = true, true
	}
	jw, err := journal.Reopen(rp, redact.FromEnv())
	if err != nil {
		return rep, err
	}
	defer jw.Close()
	agent := &runtime.Agent{Sink: jw.Event, Durable: jw.Err}
	if len(s.Changes) > 0 {
		sessions, err := journal.Dir()
		if err != nil {
			return rep, err
		}
		store, _, err := OpenStore(ctx, Options{Workspace: o.Workspace, Config: o.Config}, CheckpointDir(sessions, s.ID), agent, s)
		if err != nil {
			return rep, err
		}
		defer store.Close()
	}
	r, err := s.PlanRewind(ctx, point, o.Code, o.Conversation)
	if err != nil {
		return rep, &Error{Err: err}
	}
	pr := pointReport(s, point)
	rep.Point, rep.Code, rep.Conversation, rep.DryRun = &pr, o.Code, o.Conversation, o.DryRun
	rep.MessagesKept, rep.NotCovered = r.Messages, r.NotCovered
	digest := ""
	if r.Plan != nil {
		digest = r.Plan.Digest
		rep.Digest = digest
		for _, st := range r.Plan.Steps {
			if st.Action == checkpoint.None {
				continue
			}
			rep.Steps = append(rep.Steps, StepReport{Path: st.Path, Action: st.Action.String(), Conflict: st.Conflict})
		}
	}
	rep.Conflicts = append(rep.Conflicts, r.Conflicts()...)
	if o.DryRun {
		return rep, nil
	}
	if len(rep.Conflicts) > 0 && !o.Force {
		return rep, ErrConflict
	}
	var overwrite []string
	if o.Force {
		overwrite = rep.Conflicts
	}
	fin, err := agent.Restore(ctx, s, r, digest, overwrite)
	if err != nil {
		return rep, err
	}
	rep.Done, rep.Written, rep.Kept, rep.Note = true, fin.Written, fin.Kept, fin.Note
	return rep, jw.Err()
}

// findPoint returns the index of the point to names.
func findPoint(s *runtime.Session, to string) (int, error) {
	switch {
	case to == "goal":
		for i, p := range s.Points {
			if p.Kind == "goal" {
				return i, nil
			}
		}
	case strings.HasPrefix(to, "turn:"):
		n, err := strconv.Atoi(strings.TrimPrefix(to, "turn:"))
		if err == nil {
			for i := len(s.Points) - 1; i >= 0; i-- {
				if p := s.Points[i]; p.Kind == "reply" && p.Turn == n {
					return i, nil
				}
			}
		}
	default:
		if n, err := strconv.Atoi(to); err == nil && n >= 1 && n <= len(s.Points) {
			return n - 1, nil
		}
	}
	return 0, fmt.Errorf("--to %s: no such point in session %s (it has %d; list them with agenttui sessions rewind %s)",
		to, s.ID, len(s.Points), s.ID)
}

// pointReport describes point i of s.
func pointReport(s *runtime.Session, i int) PointReport {
	p := s.RewindPoints()[i]
	return PointReport{Point: i + 1, Kind: p.Kind, Turn: p.Turn, Text: journal.FirstLine(p.Text), Files: p.Files,
		Conversation: p.Messages >= 0}
}
