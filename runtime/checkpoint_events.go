package runtime

// CheckpointTaken says what a reply may change in the workspace was
// recorded before its first writing call started; it is the intent of the
// reply's changes, so it is on disk before any of them is made.
type CheckpointTaken struct {
	Turn int `json:"turn"`
	// Seq numbers the session's workspace changes, from 1.
	Seq int `json:"seq"`
	// Tree identifies the recorded state in the session's checkpoint
	// store.
	Tree string `json:"tree"`
	// Roots are the workspace-relative paths recorded ("." for the whole
	// workspace).
	Roots []string `json:"roots"`
	// Calls are the reply's calls that may change the workspace.
	Calls []CheckpointCall `json:"calls"`
	// NotCovered says, one item each, what the checkpoint cannot bring
	// back: effects outside the workspace, files past the size bound.
	NotCovered []string `json:"not_covered,omitempty"`
	// Ignored counts what ignore files left out of the record.
	Ignored int  `json:"ignored,omitempty"`
	At      Time `json:"at"`
}

// CheckpointCall is one call a checkpoint was taken for.
type CheckpointCall struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	// Brief is the call in a few words: its path or its command.
	Brief string `json:"brief,omitempty"`
	// Roots are what the call may change, workspace-relative ("." for the
	// whole workspace), so that a restore names the call only when it
	// took back something the call may have changed. Journals written
	// before the field have none: such a call is named as before.
	Roots []string `json:"roots,omitempty"`
}

// FileChange is how one file differs between a checkpoint and the state
// after.
type FileChange struct {
	Path string `json:"path"`
	// Kind is "added", "modified", "removed" or "mode".
	Kind    string `json:"kind"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// CheckpointChanges says what a reply changed: the state of the
// checkpoint's roots once the reply's calls settled, and the files that
// differ from the checkpoint.
type CheckpointChanges struct {
	Turn  int          `json:"turn"`
	Seq   int          `json:"seq"`
	After string       `json:"after"`
	Files []FileChange `json:"files"`
	// Unrecorded are the paths the state after could not record though
	// the checkpoint knew them (a file the reply made larger than the size
	// bound, or unreadable, or that changed while it was read): Files
	// cannot say what happened to them, and no restore can take it back.
	Unrecorded []UnrecordedPath `json:"unrecorded,omitempty"`
	At         Time             `json:"at"`
}

// UnrecordedPath is a path a checkpoint could not record, and why (for
// people, such as "larger than 8 MiB").
type UnrecordedPath struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// RestoreStarted is the intent of an undo, a redo or a rewind: what it
// reverts and the state of the paths it writes, recorded before anything
// is written.
type RestoreStarted struct {
	// Seq is the workspace change the restore itself is.
	Seq int `json:"seq"`
	// Kind is "undo", "redo" or "rewind".
	Kind string `json:"kind"`
	// Reverts lists the changes whose effect the restore takes back.
	Reverts []int `json:"reverts,omitempty"`
	// Before is the state of the paths the restore writes, as they were
	// before it: with it the restore itself can be undone.
	Before string `json:"before,omitempty"`
	// Digest is the digest of the preview the person confirmed.
	Digest string   `json:"digest,omitempty"`
	Paths  []string `json:"paths,omitempty"`
	// Messages and Points are what a rewind of the conversation keeps, as
	// in RestoreFinished; Messages is -1 when the conversation is left
	// alone.
	Messages int  `json:"messages"`
	Points   int  `json:"points,omitempty"`
	Turn     int  `json:"turn,omitempty"`
	At       Time `json:"at"`
}

// RestoreFinished ends a restore: what was written, what was kept because
// someone changed it since, the note the model will read, and, for a
// conversation rewind, how much of the conversation is kept.
type RestoreFinished struct {
	Seq  int    `json:"seq"`
	Kind string `json:"kind"`
	// After is the state of the restored paths once it was done.
	After   string   `json:"after,omitempty"`
	Written []string `json:"written,omitempty"`
	Kept    []string `json:"kept,omitempty"`
	// RolledBack says the restore was found interrupted before it wrote
	// anything, and so did nothing.
	RolledBack bool `json:"rolled_back,omitempty"`
	// Messages is how many messages of the conversation are kept, for a
	// rewind of the conversation; -1 when the conversation is untouched.
	Messages int `json:"messages"`
	// Points is how many of the session's points are kept, with Messages.
	Points int `json:"points,omitempty"`
	// Note is what the model reads with the next input about what
	// changed under it.
	Note string `json:"note,omitempty"`
	At   Time   `json:"at"`
}

// EventType returns "checkpoint".
func (CheckpointTaken) EventType() string { return "checkpoint" }

// EventType returns "checkpoint_changes".
func (CheckpointChanges) EventType() string { return "checkpoint_changes" }

// EventType returns "restore_started".
func (RestoreStarted) EventType() string { return "restore_started" }

// EventType returns "restore_finished".
func (RestoreFinished) EventType() string { return "restore_finished" }
