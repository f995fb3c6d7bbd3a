package runtime

import "github.com/agenttui/agenttui/runtime/model"

// CompactionStarted says the conversation is about to be compacted: the
// model is asked for a summary of its older part. It is the intent of that
// request, as TurnStarted is of a turn's.
type CompactionStarted struct {
	// Turn is the turn whose request comes next.
	Turn int `json:"turn"`
	// Reason is "auto" (the next request would cross the threshold),
	// "overflow" (the provider refused a request as too long) or "manual"
	// (the person asked).
	Reason string `json:"reason"`
	// Tokens is the estimate of the next request before compacting, and
	// Window the model's context window.
	Tokens int `json:"tokens"`
	Window int `json:"window"`
	// Messages is how many messages the summary is to replace.
	Messages int  `json:"messages"`
	At       Time `json:"at"`
}

// Compacted says the older part of the conversation was replaced by a
// summary: messages From to To (not included) became one user message whose
// text is Text. Only the model's view changes; the events before stay as
// they were.
type Compacted struct {
	Turn   int    `json:"turn"`
	Reason string `json:"reason"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	// Text is the message the model reads in place of the older part, and
	// Summarizes how many model replies it stands for (see
	// model.Message.Summarizes).
	Text       string `json:"text"`
	Summarizes int    `json:"summarizes"`
	// Summary is the model's summary alone, for people.
	Summary string `json:"summary"`
	// Replies is how many model replies the older part held, those earlier
	// compactions summarised included.
	Replies int `json:"replies"`
	// TokensBefore and TokensAfter estimate the next request's size before
	// and after; Window is the model's context window.
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	Window       int `json:"window"`
	// Usage is what the summary request used.
	Usage model.Usage `json:"usage"`
	// Context is the share of the window the conversation takes now.
	Context *ContextUse `json:"context,omitempty"`
	At      Time        `json:"at"`
}

// CompactionFailed says the summary could not be had; the conversation is
// unchanged.
type CompactionFailed struct {
	Turn   int    `json:"turn"`
	Reason string `json:"reason"`
	Error  string `json:"error"`
	At     Time   `json:"at"`
}

// EventType returns "compaction_started".
func (CompactionStarted) EventType() string { return "compaction_started" }

// EventType returns "compacted".
func (Compacted) EventType() string { return "compacted" }

// EventType returns "compaction_failed".
func (CompactionFailed) EventType() string { return "compaction_failed" }
