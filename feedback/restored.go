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
// and which files were kept because someone changed them since. Without it
// the model would go on as if its changes were in place.
func Restored(calls []UndoneCall, files []RestoredFile, kept []string) string {
	var b strings.Builder
	b.WriteString("[agenttui] The person undid the changes these earlier calls made to the workspace, " +
		"so they are no longer in place: ")
	writeCalls(&b, calls)
	writeFiles(&b, " Files put back as they were before those calls: ", files, true)
	writeKept(&b, kept)
	b.WriteString(" Read a file again before relying on what you knew of it.")
	return b.String()
}

// Redone is what the model reads after the person redid changes an undo
// had taken back: they are in place again.
func Redone(calls []UndoneCall, files []RestoredFile, kept []string) string {
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
// left them.
func Rewound(turn int, workspaceToo bool, changed []string) string {
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
	}
	return b.String()
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
