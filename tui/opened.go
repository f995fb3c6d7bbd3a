package tui

import (
	"context"

	"github.com/agenttui/agenttui/runtime"
)

// Opened is the session the console shows. When Options.Open is set, the
// console calls it after its first frame, and it hands the session over
// through Bridge.Open once it is ready: a fresh session, or one loaded from
// its journal, which is shown as it was and then carried on.
type Opened struct {
	// ID names the session in the header; empty shows none (the demo,
	// which is not journaled).
	ID string
	// Model names the model in the header; empty keeps Options.Model. A
	// resumed session's model is known only once its journal is read.
	Model string
	// ContextWindow and ContextGuessed, when the window is set, replace
	// Options' (a resumed session's model is known only now).
	ContextWindow  int
	ContextGuessed bool
	// History is the session's events so far, as its journal recorded
	// them. The console shows them as they were: each reply's calls with
	// their outcomes, model text, the person's messages and each outcome;
	// the last reply stays on the board, and a last outcome that is a
	// question turns the input into the Answer prompt.
	History []runtime.Event
	// Notices are shown after the history, such as damage the journal
	// tolerated.
	Notices []runtime.Notice
	// Resume, when set, starts at once as the session's run: it carries on
	// a session that was interrupted, its events shown as any run's.
	Resume func(ctx context.Context) runtime.GoalOutcome
	// Err says the session could not be opened (an unknown id, another
	// workspace, another journal version…). The console shows it and runs
	// nothing; the person can only quit.
	Err error
}
