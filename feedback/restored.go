package feedback

import (
	"fmt"
	"strings"
)

// UndoneCall is a call whose changes a restore took back, as the model is
// told of it: its turn, its tool and a few words of what it did.
type UndoneCall struct {
	Turn  int
	Name  string
	Brief string
}

// RestoredFile is a file a restore wrote, and how: "restored" (its content
// put back), "removed" (a file the calls created) or "brought back" (a file
// the calls deleted).
type RestoredFile struct {
	Path string
	How  string
}

// Restored is what the model reads, before the person's next input, after
// the person undid changes that calls made (an undo, or a rewind of the
// code): which calls' changes are gone, which files were put back and how,
// which files were kept because someone changed them since, and how many
// files the calls changed that their checkpoint could not record
// (unrecorded), which stay as the calls left them. Without it the model
// would go on as if its changes were in place. It names only what was
// undone; when nothing was, and nothing stayed behind, it is empty.
func Restored(calls []UndoneCall, files []RestoredFile, kept []string, unrecorded int) string {
	var b strings.Builder
	if len(calls) == 0 && len(files) == 0 {
		if len(kept) == 0 && unrecorded == 0 {
			return ""
		}
		b.WriteString("[agenttui] The person asked to undo earlier calls' changes to the workspace, but none was undone.")
		writeKept(&b, kept)
		writeUnrecorded(&b, unrecorded, "the turns being undone")
		return b.String()
	}
	b.WriteString("[agenttui] The person undid the changes these earlier calls made to the workspace, " +
		"so they are no longer in place: ")
	writeCalls(&b, calls)
	writeFiles(&b, " Files put back as they were before those calls: ", files, true)
	writeKept(&b, kept)
	writeUnrecorded(&b, unrecorded, "the turns being undone")
	b.WriteString(" Read a file again before relying on what you knew of it.")
	return b.String()
}

// Redone is what the model reads after the person redid changes an undo
// had taken back: they are in place again. It is empty when the redo
// wrote nothing.
func Redone(calls []UndoneCall, files []RestoredFile, kept []string) string {
	if len(calls) == 0 && len(files) == 0 && len(kept) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[agenttui] The person redid changes that an undo had taken back; these calls' changes " +
		"are in the workspace again: ")
	writeCalls(&b, calls)
	writeFiles(&b, " Files written: ", files, false)
	writeKept(&b, kept)
	return b.String()
}

// Rewound is what the model reads after the person rewound the
// conversation to before turn: the later turns are gone from it. When the
// workspace was rewound too (workspaceToo), it is as it was then, but for
// the files in changed, which are as the later turns, or someone else,
// left them, and the unrecorded files the later turns changed that their
// checkpoints could not record, which are as those turns left them.
func Rewound(turn int, workspaceToo bool, changed []string, unrecorded int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[agenttui] The person rewound the conversation to before turn %d; what came after is gone from it.", turn)
	if workspaceToo {
		b.WriteString(" The workspace was rewound with it.")
	}
	if len(changed) > 0 {
		if workspaceToo {
			b.WriteString(" These files were changed by someone else since, and were left as they are: ")
		} else {
			b.WriteString(" The workspace was not rewound: these files are still as the later turns left them: ")
		}
		b.WriteString(strings.Join(changed, ", "))
		b.WriteString(".")
	} else if !workspaceToo && unrecorded > 0 {
		b.WriteString(" The workspace was not rewound.")
	}
	writeUnrecorded(&b, unrecorded, "the later turns")
	return b.String()
}

// writeUnrecorded says that n files which who changed could not be
// recorded, so no restore took them back. The files are not named: the
// note names only what was restored, and the model can look.
func writeUnrecorded(b *strings.Builder, n int, who string) {
	switch {
	case n == 1:
		fmt.Fprintf(b, " One file %s changed could not be recorded by its checkpoint (too large, unreadable, or "+
			"changing while it was read), so it was not taken back: it is as %s left it.", who, who)
	case n > 1:
		fmt.Fprintf(b, " %d files %s changed could not be recorded by their checkpoints (too large, unreadable, or "+
			"changing while they were read), so they were not taken back: they are as %s left them.", n, who, who)
	}
}

func writeCalls(b *strings.Builder, calls []UndoneCall) {
	for i, c := range calls {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(b, "turn %d %s", c.Turn, c.Name)
		if c.Brief != "" {
			fmt.Fprintf(b, " (%s)", c.Brief)
		}
	}
	if len(calls) == 0 {
		b.WriteString("(none recorded)")
	}
}

// writeFiles ends the list of calls and, when there are files, lists them
// after head, each with how it was restored when how is set.
func writeFiles(b *strings.Builder, head string, files []RestoredFile, how bool) {
	b.WriteString(".")
	if len(files) == 0 {
		return
	}
	b.WriteString(head)
	for i, f := range files {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Path)
		if how {
			fmt.Fprintf(b, " (%s)", f.How)
		}
	}
	b.WriteString(".")
}

func writeKept(b *strings.Builder, kept []string) {
	if len(kept) == 0 {
		return
	}
	b.WriteString(" These files were changed by someone else since, and were left as they are: ")
	b.WriteString(strings.Join(kept, ", "))
	b.WriteString(".")
}
