package tui

import (
	"context"
	"os"
	"os/exec"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/usercommands"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// Options configure the console.
type Options struct {
	// Run runs the agent on the session with the person's input (a goal, an
	// answer or a follow-up) until the run ends. The console calls it in
	// its own goroutine, one run at a time, and cancels ctx with a
	// runtime.Stop cause when the person stops the turn.
	Run func(ctx context.Context, input string) runtime.GoalOutcome
	// Bridge delivers the run's events and approval requests; the agent's
	// Sink and the policy's Approver must be this Bridge's.
	Bridge *Bridge
	// Policy is the session's approval policy, whose mode Shift+Tab
	// cycles; nil shows Mode and cycles nothing.
	Policy *approval.Policy
	// Mode is the approval mode shown when Policy is nil.
	Mode approval.Mode
	// Model names the model in the header.
	Model string
	// Demo marks the built-in demo in the header.
	Demo bool
	// Description is the scenario's one-line description, if any.
	Description string
	// Workspace is the folder the agent works in; footprints are shown
	// relative to it.
	Workspace string
	// Shell says in one line whether shell commands run in a sandbox, as
	// the header shows it, such as "shell: not sandboxed: this kernel has
	// no Landlock"; empty shows nothing.
	Shell string
	// Goal, when set, starts a run at once (once the session is open, when
	// Open is set).
	Goal string
	// Session names the session in the header; Opened.ID may name it
	// later.
	Session string
	// Open, when set, is called once, in its own goroutine, after the first
	// frame: it readies the session (loads a journal, starts tool servers)
	// and must hand it over with Bridge.Open, exactly once. Until then no
	// run starts: input sent meanwhile starts once the session is open.
	// Anything slow belongs here, not before the console is drawn.
	Open func()
	// Opening is said in the note line until Open hands the session over,
	// such as "loading the session…"; empty says nothing, which suits an
	// opening that takes no time a person would notice.
	Opening string
	// Prefill is put in the input line when there is no Goal, such as the
	// demo's goal.
	Prefill string
	// Now tells the time; nil means time.Now. Tests pass a fake clock so
	// the grace period and elapsed times need no sleeping.
	Now func() time.Time
	// Grace is how long approval keys are ignored after the approval under
	// focus changes; zero means DefaultGrace, negative means none.
	Grace time.Duration
	// ContextWindow is the model's context window in tokens, shown in the
	// header; ContextGuessed says it is a guess (the model is unknown).
	// Zero shows nothing.
	ContextWindow  int
	ContextGuessed bool
	// Reasoning says how hard the model is asked to reason, as the header
	// shows it after "reasoning", such as "high" or "default (medium)"
	// (model.DescribeEffort words it); empty shows nothing.
	Reasoning string
	// Instructions names the project instruction files the system prompt
	// carries, such as "AGENTS.md ×2"; empty shows nothing.
	Instructions string
	// Editor returns the command that opens a file in the person's editor
	// (e on a pending write, Ctrl+G in the input); nil means $VISUAL,
	// else $EDITOR, else vi.
	Editor func(path string) *exec.Cmd
	// History keeps what the person types across consoles of the
	// workspace, for ↑, Ctrl+P and Ctrl+R; nil keeps this console's only.
	History History
	// Commands are the person's own slash commands, from command files
	// (usercommands.Load, given BuiltinCommands). The menu and the help
	// list them after the console's own, marked as the person's or the
	// project's; /name args sends the command's Expand(args) as input,
	// while the transcript and the history show "/name args" as typed,
	// and a command that names a Model runs on it (through SwitchModel),
	// going back to the model before once its run ends. A command whose
	// name is a built-in's, or cannot be typed as one word, is left out.
	Commands []usercommands.Command

	// The slash commands that reach beyond the console call these. Each
	// that is nil makes its command say it is not available. Those that
	// may be slow are called in their own goroutine, never while a run is
	// going, and no run starts until they return.

	// SwitchModel switches the model from the next turn on (/model) and
	// returns the new model's name; its error says why it could not,
	// such as a missing API key.
	SwitchModel func(spec string) (string, error)
	// SetReasoning sets how hard the model is asked to reason from the
	// next turn on (/reasoning LEVEL) and returns how the header words the
	// new level, as model.DescribeEffort does; its error, such as
	// model.CheckEffort's, says in one line why the model cannot take it,
	// and then nothing has changed.
	SetReasoning func(model.Effort) (string, error)
	// DescribeReasoning says how hard the model now in use is asked to
	// reason, as Reasoning words it; the console asks it after /model
	// switches the model (which may change what the level means, or the
	// level) and when a session opens. Nil keeps the header's level as it
	// was.
	DescribeReasoning func() string
	// Compact compacts the session's conversation (/compact [focus]),
	// keeping focus, when given, in the summary; Esc cancels ctx.
	Compact func(ctx context.Context, focus string) error
	// NewSession ends the session and starts a fresh one in the same
	// console (/clear).
	NewSession func() (Opened, error)
	// Sessions lists the stored sessions of the workspace, newest first
	// (/sessions).
	Sessions func() ([]SessionInfo, error)
	// Resume ends the session and opens the stored session id in its
	// place (/resume id): its history is shown, and an interrupted
	// session carries on.
	Resume func(id string) (Opened, error)
	// Restores undoes, redoes and rewinds the session's changes (/undo,
	// /redo, /rewind).
	Restores Restorer
	// ExportDir is where /export writes a file given without a folder;
	// empty means the Workspace.
	ExportDir string

	// Trust, when set, asks the person whether to run the workspace's own
	// hooks before anything else: Open is called, and Goal started, only
	// once the person answered.
	Trust *TrustRequest

	// Autopilot, when set, plays the person its scenario records: it
	// types the inputs and answers the approvals, until a person's key
	// takes the console over.
	Autopilot *Autopilot
	// Tick schedules the autopilot's next step: it returns a command that
	// delivers fn's message after d. Nil means tea.Tick; tests pass one
	// that moves a fake clock instead of sleeping.
	Tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd

	// Ended carries the signals that end the console as quitting does
	// (an interrupt as bubbletea's Ctrl+C does): os.Interrupt, SIGTERM,
	// and SIGHUP, which closing the terminal window sends. The caller
	// catches them from before it makes anything to clean up, so that
	// none kills the process before it has stopped its run and removed
	// its temporary folders. Nil makes Run catch them itself.
	Ended <-chan os.Signal
}
