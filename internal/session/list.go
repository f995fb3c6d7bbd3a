package session

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// PrintList writes the sessions of workspace as agenttui sessions lists
// them: one line each, newest first, with what their checkpoints take on
// disk, then the damaged journals of the workspace, each marked with where
// it is damaged, then how to resume one.
func PrintList(w io.Writer, workspace string) error {
	dir, err := journal.Dir()
	if err != nil {
		return err
	}
	all, damaged, notes := journal.List(dir, workspace)
	if len(all) == 0 && len(damaged) == 0 {
		fmt.Fprintf(w, "No sessions for %s yet.\n", sanitize.Line(workspace))
	} else {
		// The trace column is shown once any session was traced, so a
		// session can be found in a tracing backend.
		traced := false
		for _, rp := range all {
			traced = traced || rp.Header.TraceID != ""
		}
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		head := "ID\tSTARTED\tLAST ACTIVITY\tOUTCOME\t"
		if traced {
			head += "TRACE\t"
		}
		fmt.Fprintln(tw, head+"TOKENS IN/OUT\tCOST\tCHECKPOINTS\tGOAL")
		for _, rp := range all {
			s := rp.Describe()
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t", sanitize.Line(s.ID), s.Started.Local().Format("2006-01-02 15:04"),
				s.LastActivity.Local().Format("2006-01-02 15:04"), s.Outcome)
			if traced {
				trace := sanitize.Line(s.TraceID)
				if trace == "" {
					trace = "-"
				}
				fmt.Fprintf(tw, "%s\t", trace)
			}
			cost := "-"
			if s.Usage.CostUSD != nil {
				cost = model.Dollars(*s.Usage.CostUSD)
			}
			fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\n", model.CountTokens(s.Usage.InputTokens), model.CountTokens(s.Usage.OutputTokens), cost,
				checkpointSize(dir, s.ID), cut(sanitize.Line(journal.FirstLine(s.Goal)), 60))
		}
		for _, d := range damaged {
			// What the journal says past its header cannot be trusted, so
			// the row says only when it began and where it is damaged.
			started := "-"
			if !d.Header.Started.IsZero() {
				started = d.Header.Started.Local().Format("2006-01-02 15:04")
			}
			fmt.Fprintf(tw, "%s\t%s\t-\tdamaged\t", sanitize.Line(d.ID), started)
			if traced {
				fmt.Fprint(tw, "-\t")
			}
			fmt.Fprintf(tw, "-\t-\t%s\tdamaged: %s\n", checkpointSize(dir, d.ID), cut(sanitize.Line(d.Damage.Where()), 80))
		}
		tw.Flush()
		fmt.Fprintln(w, "\nResume one with: agenttui --resume ID   (or agenttui run --resume ID)")
		fmt.Fprintln(w, "Make one a demo that plays itself with: agenttui sessions export ID --out demo.json")
		fmt.Fprintln(w, "Go back to an earlier point with: agenttui sessions rewind ID (lists its points)")
		if len(damaged) > 0 {
			fmt.Fprintln(w, "A damaged journal cannot be resumed, rewound or exported; delete one with: agenttui sessions rm ID")
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "(%d journal(s) in %s could not be read)\n", len(notes), dir)
	}
	return nil
}

// checkpointSize says what the checkpoints of session id take on disk, or
// "-" when it has none.
func checkpointSize(dir, id string) string {
	if n := dirBytes(CheckpointDir(dir, id)); n > 0 {
		return tool.FormatSize(n)
	}
	return "-"
}

// dirBytes returns the bytes of the files under dir; 0 when there is none.
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// cut shortens s to n runes, with an ellipsis when it was longer.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Remove deletes session id of workspace: its journal and its checkpoints.
// A session of another workspace is refused, as resuming it would be. Only
// the journal's header is read, so a damaged journal can be removed too.
func Remove(workspace, id string) error {
	dir, err := journal.Dir()
	if err != nil {
		return err
	}
	path, err := journal.Find(dir, id)
	if err != nil {
		return &Error{Err: err}
	}
	h, err := journal.ReadHeader(path)
	if err != nil {
		return &Error{Err: err}
	}
	// The file names the session, as it was created; the header's id is
	// the file's to say, and is not trusted with a folder to remove.
	id = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if h.Workspace != workspace {
		return &Error{Err: fmt.Errorf("session %s belongs to the workspace %s, not %s: remove it there, or pass --workspace %s",
			id, sanitize.Line(h.Workspace), workspace, sanitize.Line(h.Workspace))}
	}
	if err := os.RemoveAll(CheckpointDir(dir, id)); err != nil {
		return fmt.Errorf("removing the checkpoints of session %s: %w", id, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("removing the journal of session %s: %w", id, err)
	}
	return nil
}
