package model

import "testing"

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
