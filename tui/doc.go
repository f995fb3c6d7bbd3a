// Package tui is agenttui's interactive console: a bubbletea program in which
// a person watches a tool-using agent run and steers it.
//
// The console never calls a tool or the model itself. It starts runs through
// a function it is given (Options.Run), reads the run's events through a
// Bridge, and answers approval requests that reach it through the same
// Bridge. Everything it draws that came from outside agenttui (model text,
// tool names, arguments, tool output, reasons, questions) passes through
// internal/sanitize first, so no output can move the cursor, recolour the
// screen, or draw a fake approval line.
//
// The screen, from the top: the header (goal, model, approval mode, a DEMO
// badge in the demo); the transcript; the call board of the active reply,
// grouped into the batches that run together; the detail pane of the focused
// call; the input line; the status bar. Each part is its own small model in
// this package, in the style of the bubbles components: transcriptModel,
// boardModel, detailPane, inputLine, grantChooser (g on a pending call),
// serverLine (the MCP servers in the header), statusBar and helpOverlay,
// each with its own Update and View and, where it takes keys, its key map
// (see KeyMap); Model only routes messages to them and lays them out. Run
// draws the console on a terminal.
//
// Nothing slow happens before the first frame. A caller with work to do
// before the session can run (reading a journal, starting MCP servers)
// passes Options.Open, which the console calls after its first frame, and
// hands the session over with Bridge.Open: a stored session's events
// (Opened.History) go through the same path as live ones, so the earlier
// transcript looks as it did, and an interrupted run carries on as a run
// (Opened.Resume).
//
// One goroutine owns each piece of mutable state: everything in Model is
// touched only by bubbletea's event loop; the Bridge's queue is guarded by
// its mutex; an approval request hands its answer over a channel.
package tui
