// Package tui is agenttui's interactive console: a bubbletea program in which
// a person watches a tool-using agent run and steers it.
//
// The console never calls a tool or the model itself. It starts runs through
// a function it is given (Options.Run), reads the run's events through a
// Bridge, and answers approval requests that reach it through the same
// Bridge. Everything it draws that came from outside agenttui (model text,
// tool names, arguments, tool output, reasons, questions) is cleaned first,
// so no output can move the cursor, recolour the screen, or draw a fake
// approval line.
//
// The screen, from the top: the header (goal, model, approval mode, how hard
// the model reasons, a DEMO badge in the demo, the MCP servers); the
// transcript (the model's thinking folded above each reply); the call board of the
// active reply, grouped into the batches that run together; the detail pane
// of the focused call; the note line; the input; the status bar.
//
// # A root and its parts
//
// Model is the root. It routes messages and keys, keeps the focus, lays the
// screen out, draws the header and the status bar, gathers what the help
// lists, carries out the slash commands, and applies the runtime's events
// to the view of the reply.
// Each part of the screen is a package beneath it that imports neither this
// package nor another part, only the shared leaves: tui/callview (the view
// of the reply and its calls, which every part reads), tui/internal/text
// (cleaning, cutting, styles and symbols), tui/internal/screen (the renderer
// and the terminal hand-over), tui/diffview and tui/markdown. The parts are
// tui/board (the call board, its approval keys and their grace period),
// tui/detail (the detail pane and the full-screen diff), tui/transcript,
// tui/input (the text, its history and the slash-command menu), tui/grant
// (the grant chooser), tui/help (every key and command, scrolling as a
// pager; the root hands it its key maps and commands as plain sections)
// and tui/autopilot (a pure function from what the screen shows to the
// next key). A part's Update returns an action value saying what the
// person asked for; the root performs it. Key maps and styles are values
// the root hands down.
//
// # Tasks
//
// A call named task runs a sub-agent, whose events arrive wrapped in
// runtime.TaskEvent. They change only the task's own view (tui/taskview,
// which keeps each task's callview.Task: its agent, description, writes,
// reply, turn and outcome) and its own transcript, never the session's
// board, transcript, usage or outcome. The board draws the task call's row
// from its callview.Task and, under it, a row for each of the task's calls
// that waits for the person, which the approval keys answer in place; a
// request of a task nothing has named yet is shown after the reply's calls.
// Enter on a task's row shows the task's own board and transcript in place of
// the session's, under a breadcrumb; Esc goes back (and there never stops
// the run).
//
// Every answer to the runtime goes through one function, Model.respond: the
// board's y, a and A, the skip reason, the person's edit, a grant, and the
// skip of a request the board cannot show. Nothing else holds the channel a
// request waits on, so an answer is always bound to the preview the person
// saw and is sent once.
//
// # Opening a session
//
// Nothing slow happens before the first frame. A caller with work to do
// before the session can run (reading a journal, starting MCP servers)
// passes Options.Open, which the console calls after its first frame, and
// hands the session over with Bridge.Open: a stored session's events
// (Opened.History) go through the same path as live ones, so the earlier
// transcript looks as it did, and an interrupted run carries on as a run
// (Opened.Resume). Run draws the console on a terminal.
//
// One goroutine owns each piece of mutable state: everything in Model is
// touched only by bubbletea's event loop; the Bridge's queue is guarded by
// its mutex; an approval request hands its answer over a channel.
package tui
