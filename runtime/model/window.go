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

// windows are the context windows, in tokens, of the common models, by the
// prefix of their names; the longest matching prefix wins, so dated and
// suffixed versions (gpt-4o-2024-08-06, claude-sonnet-4-5-20250929) share
// their family's window.
var windows = map[string]int{
	// OpenAI.
	"gpt-4o":        128_000,
	"gpt-4o-mini":   128_000,
	"gpt-4-turbo":   128_000,
	"gpt-4":         8_192,
	"gpt-4-32k":     32_768,
	"gpt-4.1":       1_047_576,
	"gpt-4.1-mini":  1_047_576,
	"gpt-4.1-nano":  1_047_576,
	"gpt-4.5":       128_000,
	"gpt-3.5-turbo": 16_385,
	"gpt-5":         400_000,
	"gpt-5-mini":    400_000,
	"gpt-5-nano":    400_000,
	"o1":            200_000,
	"o1-mini":       128_000,
	"o3":            200_000,
	"o3-mini":       200_000,
	"o4-mini":       200_000,
	// Anthropic.
	"claude-3":          200_000,
	"claude-3-5":        200_000,
	"claude-3-7":        200_000,
	"claude-sonnet-4":   200_000,
	"claude-opus-4":     200_000,
	"claude-haiku-4":    200_000,
	"claude-sonnet-4-5": 200_000,
	"claude-opus-4-1":   200_000,
	"claude-opus-4-5":   200_000,
	"claude-haiku-4-5":  200_000,
}

// ContextWindow returns the context window, in tokens, of the model called
// name ("openai:gpt-4o", "anthropic:claude-sonnet-4-5", or the bare model
// name), and whether the table knows it; for an unknown model it returns
// GuessedWindow and false.
func ContextWindow(name string) (int, bool) {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToLower(name)
	best, window := -1, 0
	for prefix, w := range windows {
		if strings.HasPrefix(name, prefix) && len(prefix) > best && (len(name) == len(prefix) || !isAlnum(name[len(prefix)])) {
			best, window = len(prefix), w
		}
	}
	if best < 0 {
		return GuessedWindow, false
	}
	return window, true
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
