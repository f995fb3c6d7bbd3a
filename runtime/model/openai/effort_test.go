package openai_test

import (
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// TestEffortMappingPerFamily checks what each effort becomes for each
// family of OpenAI's models, and the refusals: off on a model that always
// reasons. want is the effort sent ("" for none), "-" for no reasoning
// settings at all, or "error: …" for a refusal.
func TestEffortMappingPerFamily(t *testing.T) {
	efforts := []model.Effort{model.EffortDefault, model.EffortOff, model.EffortLow, model.EffortMedium, model.EffortHigh, model.EffortMax}
	cases := []struct {
		family string
		model  string
		want   []string // one per effort, in the order of efforts
	}{
		{"GPT-6.2, which refuses none", "gpt-6.2-sol", []string{"", "error: always reasons", "low", "medium", "high", "max"}},
		{"GPT-6.2 Astra", "gpt-6.2-astra", []string{"", "error: always reasons", "low", "medium", "high", "max"}},
		{"GPT-6.1 Sol, which no longer takes none", "gpt-6.1-sol", []string{"", "error: always reasons", "low", "medium", "high", "max"}},
		{"GPT-6.1 Terra", "gpt-6.1-terra", []string{"", "none", "low", "medium", "high", "max"}},
		{"GPT-6 Luna", "gpt-6-luna-2026-09-22", []string{"", "none", "low", "medium", "high", "max"}},
		{"GPT-5.6", "gpt-5.6", []string{"", "none", "low", "medium", "high", "max"}},
		{"GPT-5.5, whose top is xhigh", "gpt-5.5", []string{"", "none", "low", "medium", "high", "xhigh"}},
		{"GPT-5.5 Pro, from medium", "gpt-5.5-pro", []string{"", "error: always reasons", "medium", "medium", "high", "xhigh"}},
		{"GPT-5.1, without xhigh", "gpt-5.1", []string{"", "none", "low", "medium", "high", "high"}},
		{"GPT-5.1 Codex Max", "gpt-5.1-codex-max", []string{"", "error: always reasons", "low", "medium", "high", "xhigh"}},
		{"GPT-5, which stops at minimal", "gpt-5-mini", []string{"", "minimal", "low", "medium", "high", "high"}},
		{"GPT-5 Pro, high alone", "gpt-5-pro", []string{"", "error: always reasons", "high", "high", "high", "high"}},
		{"GPT-5.2 Chat, medium alone", "gpt-5.2-chat-latest", []string{"", "error: always reasons", "medium", "medium", "medium", "medium"}},
		{"the o-series", "o3", []string{"", "error: always reasons", "low", "medium", "high", "high"}},
		{"a fine-tuned o4-mini", "ft:o4-mini-2025-04-16:acme::x1", []string{"", "error: always reasons", "low", "medium", "high", "high"}},
		{"GPT-4.1, which does not reason", "gpt-4.1", []string{"-", "-", "-", "-", "-", "-"}},
		{"GPT-5 Chat, which takes no setting", "gpt-5-chat-latest", []string{"-", "-", "-", "-", "-", "-"}},
		{"a model the tables do not know", "gpt-7-nova", []string{"-", "none", "low", "medium", "high", "xhigh"}},
	}
	for _, c := range cases {
		for i, e := range efforts {
			effort, reasons, err := openai.ReasoningFor(c.model, e, false)
			got := effort
			switch {
			case err != nil:
				got = "error: " + err.Error()
			case !reasons:
				got = "-"
			}
			if got != c.want[i] && !(strings.HasPrefix(c.want[i], "error: ") && strings.Contains(got, c.want[i][len("error: "):])) {
				t.Errorf("%s (%s) at %s: %q, want %q", c.family, c.model, e, got, c.want[i])
			}
			if err != nil && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "set reasoning to")) {
				t.Errorf("%s at %s: the refusal %q is not one line naming the setting", c.model, e, err)
			}
		}
	}
}

// TestEffortOfTheCompactionRequest checks that the summary request asks a
// known reasoning model for its least reasoning, whatever the effort, and
// leaves other models as they are.
func TestEffortOfTheCompactionRequest(t *testing.T) {
	for name, want := range map[string]string{
		"gpt-6.2-sol": "low", "gpt-6.1-terra": "none", "gpt-5": "minimal", "gpt-5-pro": "high", "gpt-4o": "-", "unknown-model": "-",
	} {
		effort, reasons, err := openai.ReasoningFor(name, model.EffortOff, true)
		if name == "unknown-model" {
			effort, reasons, err = openai.ReasoningFor(name, model.EffortDefault, true)
		}
		got := effort
		if !reasons {
			got = "-"
		}
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
}
