package model

import (
	"strings"
	"testing"
)

func TestAnthropicModelsLookUp(t *testing.T) {
	for _, tc := range []struct {
		name      string
		window    int
		maxOutput int
		input     float64 // the input price; 0 when the table knows none
		reasoning string  // "adaptive", "always", "budget" or "none"
		def       string  // the default effort
	}{
		{"anthropic:claude-fable-5-2", 1_000_000, 128_000, 8, "always", "high"},
		{"anthropic:claude-mythos-5-2", 1_000_000, 128_000, 8, "always", "high"},
		{"anthropic:claude-fable-5-1", 1_000_000, 128_000, 10, "always", "high"},
		{"anthropic:claude-fable-5", 1_000_000, 128_000, 10, "always", "high"},
		{"anthropic:claude-mythos-5", 1_000_000, 128_000, 10, "always", "high"},
		{"anthropic:claude-mythos-preview", 0, 0, 0, "always", "high"},
		{"anthropic:claude-opus-5-5", 1_000_000, 128_000, 4, "always", "medium"},
		{"anthropic:claude-opus-5", 1_000_000, 128_000, 5, "adaptive", "high"},
		{"anthropic:claude-opus-4-8", 1_000_000, 128_000, 5, "adaptive", "high"},
		{"anthropic:claude-opus-4-7", 1_000_000, 128_000, 5, "adaptive", "high"},
		{"anthropic:claude-opus-4-6", 1_000_000, 128_000, 5, "adaptive", "high"},
		{"anthropic:claude-opus-4-5-20251101", 200_000, 64_000, 5, "budget", ""},
		{"anthropic:claude-opus-4-1-20250805", 200_000, 32_000, 15, "budget", ""},
		{"anthropic:claude-opus-4-20250514", 200_000, 32_000, 15, "budget", ""},
		{"anthropic:claude-opus-4-0", 200_000, 32_000, 15, "budget", ""},
		{"anthropic:claude-sonnet-5-5", 1_000_000, 128_000, 2, "adaptive", "high"},
		{"anthropic:claude-sonnet-5", 1_000_000, 128_000, 2, "adaptive", "high"},
		{"anthropic:claude-sonnet-4-6", 1_000_000, 128_000, 3, "adaptive", "high"},
		{"anthropic:claude-sonnet-4-5-20250929", 200_000, 64_000, 3, "budget", ""},
		{"anthropic:claude-sonnet-4-20250514", 200_000, 64_000, 3, "budget", ""},
		{"anthropic:claude-haiku-5-5", 1_000_000, 128_000, 0.10, "adaptive", "medium"},
		{"anthropic:claude-haiku-4-5-20251001", 200_000, 64_000, 1, "budget", ""},
		{"anthropic:claude-3-7-sonnet-20250219", 200_000, 64_000, 0, "budget", ""},
		{"anthropic:claude-3-5-haiku-20241022", 200_000, 8_192, 0.80, "none", ""},
		{"anthropic:claude-3-haiku-20240307", 200_000, 4_096, 0, "none", ""},
		{"claude-opus-5-5", 1_000_000, 128_000, 4, "always", "medium"}, // a bare name
	} {
		info, ok := Lookup(tc.name)
		if !ok {
			t.Errorf("%s: not in the table", tc.name)
			continue
		}
		if info.Window != tc.window || info.MaxOutput != tc.maxOutput {
			t.Errorf("%s: window %d, output %d; want %d, %d", tc.name, info.Window, info.MaxOutput, tc.window, tc.maxOutput)
		}
		switch {
		case tc.input == 0 && info.Price != nil:
			t.Errorf("%s: priced %+v, but the pricing page lists no price", tc.name, *info.Price)
		case tc.input != 0 && (info.Price == nil || info.Price.Input != tc.input):
			t.Errorf("%s: price %+v, want input %v", tc.name, info.Price, tc.input)
		}
		r := info.Reasoning
		got := "none"
		switch {
		case r.AlwaysOn:
			got = "always"
		case r.Effort:
			got = "adaptive"
		case r.Budget:
			got = "budget"
		}
		if got != tc.reasoning || r.Default != tc.def {
			t.Errorf("%s: reasoning %s default %q, want %s %q", tc.name, got, r.Default, tc.reasoning, tc.def)
		}
		if r.Effort && (!r.Accepts("low") || !r.Accepts("high") || r.Top() != "max") {
			t.Errorf("%s: levels %v: every adaptive model takes low to max", tc.name, r.Levels)
		}
	}
	for _, name := range []string{"anthropic:claude-opus-6", "anthropic:claude-fable", "anthropic:claude-sonnet-45", "openai:claude-opus-5"} {
		if info, ok := Lookup(name); ok {
			t.Errorf("%s: found %+v, want unknown", name, info)
		}
	}
}

// TestAnthropicEffortLevels pins which models take xhigh: the effort page
// lists it for Opus 4.7 and later and the 5 family, not for Opus 4.6,
// Sonnet 4.6 or Mythos Preview.
func TestAnthropicEffortLevels(t *testing.T) {
	for name, xhigh := range map[string]bool{
		"claude-fable-5-2": true, "claude-opus-5-5": true, "claude-opus-4-7": true, "claude-sonnet-5-5": true,
		"claude-haiku-5-5": true, "claude-opus-4-6": false, "claude-sonnet-4-6": false, "claude-mythos-preview": false,
	} {
		info, _ := Lookup("anthropic:" + name)
		if got := info.Reasoning.Accepts("xhigh"); got != xhigh {
			t.Errorf("%s takes xhigh: %v, want %v", name, got, xhigh)
		}
	}
}

func TestAnthropicCheckEffort(t *testing.T) {
	for _, tc := range []struct {
		name   string
		effort Effort
		want   string // part of the error; empty for none
	}{
		// Always on: Fable, Mythos, Opus 5.5 refuse to have thinking off.
		{"anthropic:claude-fable-5-2", EffortOff, "always reasons and refuses to have it turned off"},
		{"anthropic:claude-mythos-5-1", EffortOff, "always reasons"},
		{"anthropic:claude-opus-5-5", EffortOff, "always reasons"},
		{"anthropic:claude-mythos-preview", EffortOff, "always reasons"},
		{"anthropic:claude-opus-5-5", EffortMax, ""},
		{"anthropic:claude-fable-5", EffortLow, ""},
		// Adaptive models that can turn thinking off.
		{"anthropic:claude-opus-5", EffortOff, ""},
		{"anthropic:claude-sonnet-5-5", EffortOff, ""},
		{"anthropic:claude-haiku-5-5", EffortOff, ""},
		{"anthropic:claude-opus-4-6", EffortOff, ""},
		{"anthropic:claude-sonnet-4-6", EffortHigh, ""},
		// Budget models take every level and off.
		{"anthropic:claude-sonnet-4-5", EffortMax, ""},
		{"anthropic:claude-haiku-4-5", EffortOff, ""},
		// A model that does not reason: an effort changes nothing.
		{"anthropic:claude-3-5-haiku", EffortHigh, "does not reason"},
		{"anthropic:claude-3-5-haiku", EffortOff, ""},
		{"anthropic:claude-opus-6", EffortOff, ""}, // unknown: the provider decides
	} {
		err := CheckEffort(tc.name, tc.effort)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s: %v", tc.name, tc.effort, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %s: %v, want %q", tc.name, tc.effort, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%s %s: more than one line: %q", tc.name, tc.effort, err)
		}
	}
}

func TestAnthropicDescribeEffort(t *testing.T) {
	for _, tc := range []struct {
		name   string
		effort Effort
		want   string
	}{
		{"anthropic:claude-opus-5-5", EffortDefault, "default (medium)"},
		{"anthropic:claude-fable-5-2", EffortDefault, "default (high)"},
		{"anthropic:claude-haiku-5-5", EffortDefault, "default (medium)"},
		{"anthropic:claude-sonnet-4-5", EffortDefault, "default (off)"},
		{"anthropic:claude-sonnet-4-5", EffortHigh, "high"},
		{"anthropic:claude-3-5-haiku", EffortHigh, "none"},
	} {
		if got := DescribeEffort(tc.name, tc.effort); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.name, tc.effort, got, tc.want)
		}
	}
}

// TestAnthropicPrices checks the cache prices against the multipliers the
// pricing page states (a 5-minute write is 1.25 times input; a read 0.1
// times input, 0.05 on Opus 5.5 and Sonnet 5.5, 0.025 on Fable and Mythos
// 5.1 and 5.2 at $0.20 on $8) and Haiku 5.5's long-prompt tier.
func TestAnthropicPrices(t *testing.T) {
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	read := map[string]float64{"claude-opus-5-5": 0.05, "claude-sonnet-5-5": 0.05, "claude-fable-5-1": 0.025,
		"claude-mythos-5-1": 0.025, "claude-fable-5-2": 0.025, "claude-mythos-5-2": 0.025, "claude-haiku-5-5": 0.1}
	for name, info := range anthropicModels {
		p := info.Price
		if p == nil {
			continue
		}
		if !near(p.CacheWrite, 1.25*p.Input) {
			t.Errorf("%s: 5-minute cache write %v is not 1.25 × input %v", name, p.CacheWrite, p.Input)
		}
		want, ok := read[name]
		if !ok {
			want = 0.1
		}
		if !near(p.CachedInput, want*p.Input) {
			t.Errorf("%s: cache read %v is not %v × input %v", name, p.CachedInput, want, p.Input)
		}
	}
	haiku, _ := PriceOf("anthropic:claude-haiku-5-5")
	short := haiku.Cost(Usage{InputTokens: 100_000, CacheReadTokens: 90_000, OutputTokens: 1_000})
	if want := (10_000*0.10 + 90_000*0.01 + 1_000*0.50) / 1e6; !near(short, want) {
		t.Errorf("a 100,000-token prompt costs %v, want %v", short, want)
	}
	long := haiku.Cost(Usage{InputTokens: 100_001, CacheReadTokens: 90_000, OutputTokens: 1_000})
	if want := (10_001*0.50 + 90_000*0.05 + 1_000*2.50) / 1e6; !near(long, want) {
		t.Errorf("a 100,001-token prompt costs %v, want %v, every token at the long rates", long, want)
	}
}
