package feedback

import "testing"

// The notes the model reads after an undo, a redo and a rewind, pinned.
func TestRestoreNotes(t *testing.T) {
	calls := []UndoneCall{{Turn: 4, Name: "run_shell", Brief: "rm old.txt"}, {Turn: 4, Name: "write_file", Brief: "new.txt"}}
	files := []RestoredFile{{Path: "old.txt", How: "brought back"}, {Path: "new.txt", How: "removed"}}
	for _, c := range []struct{ got, want string }{
		{Restored(calls, files, []string{"mine.txt"}, 0), "[agenttui] The person undid the changes these earlier calls made to the workspace, " +
			"so they are no longer in place: turn 4 run_shell (rm old.txt); turn 4 write_file (new.txt). " +
			"Files put back as they were before those calls: old.txt (brought back), new.txt (removed). " +
			"These files were changed by someone else since, and were left as they are: mine.txt. " +
			"Read a file again before relying on what you knew of it."},
		{Redone(calls, files, nil), "[agenttui] The person redid changes that an undo had taken back; these calls' changes " +
			"are in the workspace again: turn 4 run_shell (rm old.txt); turn 4 write_file (new.txt). Files written: old.txt, new.txt."},
		{Restored(nil, files, nil, 0), "[agenttui] The person undid the changes these earlier calls made to the workspace, " +
			"so they are no longer in place: (none recorded). Files put back as they were before those calls: " +
			"old.txt (brought back), new.txt (removed). Read a file again before relying on what you knew of it."},
		// Nothing undone and nothing left behind: nothing to say.
		{Restored(nil, nil, nil, 0), ""},
		{Redone(nil, nil, nil), ""},
		// What a checkpoint could not record is counted, never named as
		// undone.
		{Restored(calls[1:], files[1:], nil, 1), "[agenttui] The person undid the changes these earlier calls made to the workspace, " +
			"so they are no longer in place: turn 4 write_file (new.txt). Files put back as they were before those calls: new.txt (removed). " +
			"One file the turns being undone changed could not be recorded by its checkpoint (too large, unreadable, or changing while " +
			"it was read), so it was not taken back: it is as the turns being undone left it. " +
			"Read a file again before relying on what you knew of it."},
		{Restored(nil, nil, nil, 2), "[agenttui] The person asked to undo earlier calls' changes to the workspace, but none was undone. " +
			"2 files the turns being undone changed could not be recorded by their checkpoints (too large, unreadable, or changing while " +
			"they were read), so they were not taken back: they are as the turns being undone left them."},
		{Rewound(3, true, nil, 1), "[agenttui] The person rewound the conversation to before turn 3; what came after is gone from it. " +
			"The workspace was rewound with it. One file the later turns changed could not be recorded by its checkpoint (too large, " +
			"unreadable, or changing while it was read), so it was not taken back: it is as the later turns left it."},
		{Rewound(3, false, nil, 1), "[agenttui] The person rewound the conversation to before turn 3; what came after is gone from it. " +
			"The workspace was not rewound. One file the later turns changed could not be recorded by its checkpoint (too large, " +
			"unreadable, or changing while it was read), so it was not taken back: it is as the later turns left it."},
		{Rewound(3, false, []string{"a.txt"}, 0), "[agenttui] The person rewound the conversation to before turn 3; what came after is gone from it. " +
			"The workspace was not rewound: these files are still as the later turns left them: a.txt."},
		{Rewound(3, true, nil, 0), "[agenttui] The person rewound the conversation to before turn 3; what came after is gone from it. " +
			"The workspace was rewound with it."},
	} {
		if c.got != c.want {
			t.Errorf("got\n%s\nwant\n%s", c.got, c.want)
		}
	}
}
