package model

import (
	"strings"
	"testing"
)

func TestContextWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		want  int
		known bool
	}{
		{"openai:gpt-4o", 128_000, true},
		{"openai:gpt-4o-2024-08-06", 128_000, true},
		{"gpt-4o-mini", 128_000, true},
		{"openai:gpt-4.1-mini", 1_047_576, true},
		{"openai:gpt-4", 8_192, true},
		{"openai:gpt-40", GuessedWindow, false},
		{"anthropic:claude-sonnet-4-5-20250929", 200_000, true},
		{"anthropic:claude-3-5-haiku-latest", 200_000, true},
		{"openai:llama3.1:8b", GuessedWindow, false},
		{"demo", GuessedWindow, false},
	} {
		got, known := ContextWindow(tc.name)
		if got != tc.want || known != tc.known {
			t.Errorf("%s: %d %v, want %d %v", tc.name, got, known, tc.want, tc.known)
		}
	}
}

// TestNewerVersionsAreNotGuessed checks a model the tables do not list is
// unknown even when its name begins with one they do: its price and window
// would otherwise be an older model's.
func TestNewerVersionsAreNotGuessed(t *testing.T) {
	for _, name := range []string{"anthropic:claude-fable-5-3", "anthropic:claude-opus-4-9", "openai:gpt-5-9", "openai:gpt-4o-audio", "claude-opus-4-7x"} {
		if _, ok := Lookup(name); ok {
			t.Errorf("%s is in the tables", name)
		}
		if _, ok := PriceOf(name); ok {
			t.Errorf("%s has a price", name)
		}
	}
	for _, name := range []string{"anthropic:claude-opus-4-7-20260416", "openai:gpt-4o-2024-08-06", "anthropic:claude-3-5-haiku-latest", "openai:gpt-4-0613", "anthropic:claude-opus-4-0"} {
		if _, ok := Lookup(name); !ok {
			t.Errorf("%s, a snapshot of a known model, is not in the tables", name)
		}
	}
}

// TestRecommendedModelsAreInTheTables checks that the models the console's
// texts recommend are rows of their providers' tables, by their own names
// rather than as a snapshot of a shorter one.
func TestRecommendedModelsAreInTheTables(t *testing.T) {
	for _, spec := range []string{RecommendedOpenAI, RecommendedAnthropic} {
		provider, name, _ := strings.Cut(spec, ":")
		if _, ok := tables[provider][name]; !ok {
			t.Errorf("%s is not a row of the %s table", spec, provider)
		}
	}
}
