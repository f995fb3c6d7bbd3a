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

// tables are the known models of each provider, by the prefix of their
// names; the longest matching prefix wins, so dated and suffixed versions
// (claude-sonnet-4-5-20250929) share their family's row.
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

// longestPrefix returns the row of table whose key is the longest prefix of
// name that ends at a word boundary, and the key's length.
func longestPrefix[V any](table map[string]V, name string) (int, V, bool) {
	best := -1
	var row V
	for prefix, v := range table {
		if strings.HasPrefix(name, prefix) && len(prefix) > best && (len(name) == len(prefix) || !isAlnum(name[len(prefix)])) {
			best, row = len(prefix), v
		}
	}
	return best, row, best >= 0
}

// ContextWindow returns the context window, in tokens, of the model called
// name ("openai:gpt-5", "anthropic:claude-sonnet-4-5", or the bare model
// name), and whether the table knows it; for an unknown model it returns
// GuessedWindow and false.
func ContextWindow(name string) (int, bool) {
	info, ok := Lookup(name)
	if !ok || info.Window <= 0 {
		return GuessedWindow, false
	}
	return info.Window, true
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
