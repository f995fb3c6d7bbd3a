package model

import (
	"errors"
	"strings"
)

// GuessedWindow is the context window assumed for a model the table does not
// know: small enough that a session compacts before any current model would
// refuse it.
const GuessedWindow = 32_000

// ErrContextOverflow is wrapped by the error a provider returns when the
// request is longer than the model's context window. The agent loop answers
// it by compacting the conversation and asking once more.
var ErrContextOverflow = errors.New("the request is longer than the model's context window")

// Info is what agenttui knows of a model from its provider's documentation:
// its context window, how it takes a reasoning setting, and its price. The
// tables are in models_anthropic.go and models_openai.go, each row citing
// the page it comes from.
type Info struct {
	// Window is the context window in tokens.
	Window int
	// MaxInput, when not zero, is the most input tokens one request may
	// carry, less than Window because the model keeps the rest for its
	// reply; the conversation must fit in it.
	MaxInput int
	// MaxOutput is the most output tokens one reply may have; zero when
	// the table does not say.
	MaxOutput int
	// Reasoning says how the model takes a reasoning effort.
	Reasoning ReasoningInfo
	// Price is what the model's tokens cost; nil when it is not known.
	Price *Price
}

// ReasoningInfo says how a model takes a reasoning effort. Its zero value is
// a model that does not reason, or takes no setting for it.
type ReasoningInfo struct {
	// Effort says the model takes an effort level: Anthropic's adaptive
	// thinking with output_config.effort, OpenAI's reasoning.effort.
	Effort bool
	// Budget says the model takes a thinking budget in tokens (Anthropic's
	// thinking.type "enabled" with budget_tokens). A model with both
	// takes the effort form.
	Budget bool
	// AlwaysOn says the model refuses a request that turns its reasoning
	// off, so EffortOff cannot be honoured.
	AlwaysOn bool
	// Levels are the provider's own effort values the model accepts, from
	// least to most, such as "low", "medium", "high", "xhigh", "max".
	Levels []string
	// Default is the level the model reasons at when none is asked for;
	// empty when the model does not reason unless asked.
	Default string
}

// Reasons reports whether the model can reason at all.
func (r ReasoningInfo) Reasons() bool { return r.Effort || r.Budget || r.AlwaysOn }

// Accepts reports whether level is one of the model's effort values.
func (r ReasoningInfo) Accepts(level string) bool {
	for _, l := range r.Levels {
		if l == level {
			return true
		}
	}
	return false
}

// Top returns the most effort the model offers, or "" when it lists none.
func (r ReasoningInfo) Top() string {
	if len(r.Levels) == 0 {
		return ""
	}
	return r.Levels[len(r.Levels)-1]
}

// The models agenttui's own texts give as examples, one a provider: the
// current model it recommends, as --model and /model take it. The demo's
// hint, the /model command's description and the hints of a model flag
// without a name all say these, so that the console names one set of
// models; each is a row of its provider's table, as a test checks.
const (
	// RecommendedOpenAI is OpenAI's current model.
	RecommendedOpenAI = "openai:gpt-6.2-sol"
	// RecommendedAnthropic is Anthropic's current model.
	RecommendedAnthropic = "anthropic:claude-opus-5-5"
)

// tables are the known models of each provider, by name. A dated snapshot
// (claude-sonnet-4-5-20250929, gpt-4o-2024-08-06) or an alias ending in
// -latest shares the row of the name it extends, but any other name that
// merely begins with a row's name is not that model: claude-fable-5-3 is
// not Claude Fable 5, and pricing it so would be a guess.
var tables = map[string]map[string]Info{
	"anthropic": anthropicModels,
	"openai":    openaiModels,
}

// Lookup returns what the tables know of the model called name
// ("openai:gpt-5", "anthropic:claude-opus-4-7", or the bare model name, which
// is looked for in every provider's table), and whether they know it.
func Lookup(name string) (Info, bool) {
	provider, bare, found := strings.Cut(name, ":")
	if !found {
		provider, bare = "", name
	}
	bare = strings.ToLower(bare)
	best, info := -1, Info{}
	for p, table := range tables {
		if provider != "" && p != provider {
			continue
		}
		if n, i, ok := longestPrefix(table, bare); ok && n > best {
			best, info = n, i
		}
	}
	return info, best >= 0
}

// longestPrefix returns the row of table whose key is name, or the longest
// key that name extends with a snapshot's date or -latest, and the key's
// length.
func longestPrefix[V any](table map[string]V, name string) (int, V, bool) {
	best := -1
	var row V
	for key, v := range table {
		if strings.HasPrefix(name, key) && len(key) > best && snapshotSuffix(name[len(key):]) {
			best, row = len(key), v
		}
	}
	return best, row, best >= 0
}

// snapshotSuffix reports whether s, what follows a known model's name, names
// a snapshot or alias of that same model: nothing, "-latest", "-0"
// (claude-opus-4-0 is Claude Opus 4), or a date as the providers write them
// (-20250929, -2024-08-06, and OpenAI's older -0613).
func snapshotSuffix(s string) bool {
	if s == "" || s == "-latest" || s == "-0" {
		return true
	}
	if s[0] != '-' {
		return false
	}
	s = s[1:]
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return s != ""
	}
	switch len(s) {
	case 4, 8:
		return digits(s)
	case 10:
		return s[4] == '-' && s[7] == '-' && digits(s[:4]) && digits(s[5:7]) && digits(s[8:])
	}
	return false
}

// ContextWindow returns the room, in tokens, the conversation of the model
// called name ("openai:gpt-5", "anthropic:claude-sonnet-4-5", or the bare
// model name) has: its context window, or the input bound of a model that
// keeps part of the window for its reply; and whether the table knows it.
// For an unknown model it returns GuessedWindow and false.
func ContextWindow(name string) (int, bool) {
	info, ok := Lookup(name)
	if !ok || info.Window <= 0 {
		return GuessedWindow, false
	}
	if info.MaxInput > 0 && info.MaxInput < info.Window {
		return info.MaxInput, true
	}
	return info.Window, true
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
