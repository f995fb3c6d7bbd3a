package runtime

import "github.com/agenttui/agenttui/runtime/tool"

// CallPreviewed carries what a call would do, computed without doing it:
// the change a file write would make, or the command a shell call would
// run. It is published when a reply's call with a preview is reviewed,
// again when what it waits for settles, and when the preview taken just
// before the call starts differs from the last one published.
type CallPreviewed struct {
	Turn  int `json:"turn"`
	Index int `json:"index"`
	// Kind, Path and Summary describe the preview: "file" or "command",
	// the file's workspace path, and a few words such as "+3 −1" or "new
	// file, 12 lines".
	Kind    string `json:"kind"`
	Path    string `json:"path,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Added and Removed count the lines a file change adds and removes.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Digest identifies what the preview shows; an approval is bound to
	// it.
	Digest string `json:"digest"`
	// Provisional says earlier calls of the reply that change what this
	// call touches have not settled yet (After lists them), so the
	// preview is as of now and will be computed again.
	Provisional bool  `json:"provisional,omitempty"`
	After       []int `json:"after,omitempty"`
	// Editable says the person may edit the proposed content before
	// approving (see ApprovedEdited).
	Editable bool `json:"editable,omitempty"`
	// Full is the complete preview, contents included, for consumers in
	// this process. The JSON form (the journal, the headless stream)
	// carries only the summary, so file contents are never recorded.
	Full *tool.Preview `json:"-"`
}

// PreviewStale says a call the person approved did not run because its
// preview changed between the approval and the start: the approval is
// withdrawn and the call asks again, with the new preview.
type PreviewStale struct {
	Turn  int `json:"turn"`
	Index int `json:"index"`
	// Approved is the digest the person approved; Digest is the preview's
	// digest now.
	Approved string `json:"approved"`
	Digest   string `json:"digest"`
	// Why says what changed since the approval.
	Why string `json:"why"`
}

// Diffstat counts the lines a file change added and removed.
type Diffstat struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// EventType returns "call_preview".
func (CallPreviewed) EventType() string { return "call_preview" }

// EventType returns "preview_stale".
func (PreviewStale) EventType() string { return "preview_stale" }

// previewed builds the event for call index's preview pv; after lists the
// earlier calls that change what it touches first, and
// editable says whether the person may edit it: its tool takes a person's
// version, and it shows a text change.
func previewed(turn, index int, pv tool.Preview, after []int, editable bool) CallPreviewed {
	full := pv
	return CallPreviewed{
		Turn: turn, Index: index, Kind: string(pv.Kind), Path: pv.Path, Summary: pv.Summary(),
		Added: pv.Added, Removed: pv.Removed, Digest: pv.Digest,
		Provisional: len(after) > 0, After: after, Full: &full,
		Editable: editable && pv.Kind == tool.PreviewFile && pv.Problem == "" && !pv.Binary && !pv.TooLarge,
	}
}
