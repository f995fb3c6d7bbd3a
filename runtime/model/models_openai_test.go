package model

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// openaiEfforts are OpenAI's reasoning.effort values, from least to most.
var openaiEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// TestOpenAIRowsAreConsistent checks every OpenAI row against the rules the
// table's comment states, so that a row added later cannot contradict them.
func TestOpenAIRowsAreConsistent(t *testing.T) {
	for name, info := range openaiModels {
		if info.Window <= 0 || info.MaxOutput <= 0 || info.MaxOutput > info.Window {
			t.Errorf("%s: window %d, max output %d", name, info.Window, info.MaxOutput)
		}
		r := info.Reasoning
		if r.Budget {
			t.Errorf("%s: OpenAI takes no thinking budget", name)
		}
		if r.Effort {
			last := -1
			for _, l := range r.Levels {
				i := slices.Index(openaiEfforts, l)
				if i <= last {
					t.Errorf("%s: level %q is not one of OpenAI's, or out of order: %q", name, l, r.Levels)
				}
				last = i
			}
			canStop := r.Accepts("none") || r.Accepts("minimal")
			if r.AlwaysOn == canStop {
				t.Errorf("%s: always on %v, but its levels %q say it can stop: %v", name, r.AlwaysOn, r.Levels, canStop)
			}
			if !r.Accepts(r.Default) {
				t.Errorf("%s: default %q is not one of its levels %q", name, r.Default, r.Levels)
			}
		} else if r.Reasons() || len(r.Levels) > 0 || r.Default != "" {
			t.Errorf("%s: a model without an effort has reasoning settings %+v", name, r)
		}
		p := info.Price
		if p == nil {
			if info.Reasoning.Reasons() {
				t.Errorf("%s: a current reasoning model has no price", name)
			}
			continue
		}
		if p.Input <= 0 || p.CachedInput > p.Input || p.CacheWrite < p.Input || p.Output < p.Input {
			t.Errorf("%s: implausible price %+v", name, *p)
		}
		switch {
		case info.Window == 1_050_000:
			want := Price{Input: 2 * p.Input, CachedInput: 2 * p.CachedInput, CacheWrite: 2 * p.CacheWrite, Output: 1.5 * p.Output}
			if p.LongAbove != 272_000 || p.Long == nil || *p.Long != want {
				t.Errorf("%s: long-context price %d %+v, want above 272000 %+v", name, p.LongAbove, p.Long, want)
			}
		case p.Long != nil || p.LongAbove != 0:
			t.Errorf("%s: a long-context price for a %d-token window", name, info.Window)
		}
	}
}

func TestOpenAILookup(t *testing.T) {
	for _, tc := range []struct {
		name      string
		window    int
		levels    string
		def       string
		alwaysOn  bool
		input     float64
		cacheRead float64
	}{
		{"openai:gpt-6.2-astra", 1_050_000, "low medium high xhigh max", "medium", true, 8, 0.40},
		{"openai:gpt-6.2-sol", 1_050_000, "low medium high xhigh max", "medium", true, 2, 0.10},
		{"openai:gpt-6.1-terra", 1_050_000, "none low medium high xhigh max", "medium", false, 1, 0.05},
		{"openai:gpt-6-luna", 1_050_000, "none low medium high xhigh max", "medium", false, 0.10, 0.01},
		// gpt-5.6 is an alias of gpt-5.6-sol; Terra has its own row.
		{"openai:gpt-5.6", 1_050_000, "none low medium high xhigh max", "medium", false, 4, 0.40},
		{"openai:gpt-5.6-terra", 1_050_000, "none low medium high xhigh max", "medium", false, 2, 0.20},
		// A dated snapshot shares its family's row.
		{"openai:gpt-5.5-2026-04-23", 1_050_000, "none low medium high xhigh", "medium", false, 5, 0.50},
		{"openai:gpt-5.5-pro", 1_050_000, "medium high xhigh", "high", true, 30, 30},
		{"openai:gpt-5.4-mini", 400_000, "none low medium high xhigh", "none", false, 0.75, 0.075},
		{"openai:gpt-5", 400_000, "minimal low medium high", "medium", false, 1.25, 0.125},
		{"openai:gpt-5-pro", 400_000, "high", "high", true, 15, 15},
		{"openai:o4-mini-2025-04-16", 200_000, "low medium high", "medium", true, 1.10, 0.275},
		// The chat-latest aliases are not their family's reasoning models.
		{"openai:gpt-5-chat-latest", 128_000, "", "", false, 1.25, 0.125},
		{"openai:gpt-4o-2024-08-06", 128_000, "", "", false, 2.50, 1.25},
	} {
		info, ok := Lookup(tc.name)
		if !ok {
			t.Errorf("%s: unknown", tc.name)
			continue
		}
		r := info.Reasoning
		if info.Window != tc.window || strings.Join(r.Levels, " ") != tc.levels || r.Default != tc.def || r.AlwaysOn != tc.alwaysOn {
			t.Errorf("%s: window %d levels %q default %q always on %v", tc.name, info.Window, r.Levels, r.Default, r.AlwaysOn)
		}
		if info.Price == nil || info.Price.Input != tc.input || info.Price.CachedInput != tc.cacheRead {
			t.Errorf("%s: price %+v", tc.name, info.Price)
		}
	}
	if _, ok := Lookup("openai:gpt-6.3-sol"); ok {
		t.Error("a model OpenAI has not documented was found in the table")
	}
}

// TestOpenAIPrices prices a turn of GPT-6.2 Sol below and above the
// long-context line: the cache write is billed, and above 272,000 input
// tokens every rate of the request changes.
func TestOpenAIPrices(t *testing.T) {
	p, ok := PriceOf("openai:gpt-6.2-sol")
	if !ok {
		t.Fatal("no price")
	}
	short := Usage{InputTokens: 100_000, CacheReadTokens: 80_000, CacheWriteTokens: 10_000, OutputTokens: 2_000}
	// 10k fresh × $2 + 80k cached × $0.10 + 10k written × $2.50 + 2k out × $10.
	if got, want := p.Cost(short), (10_000*2+80_000*0.10+10_000*2.50+2_000*10)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("short request costs %v, want %v", got, want)
	}
	longReq := Usage{InputTokens: 300_000, CacheReadTokens: 250_000, OutputTokens: 1_000}
	if got, want := p.Cost(longReq), (50_000*4+250_000*0.20+1_000*15)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("long request costs %v, want %v", got, want)
	}
}

func TestOpenAIEffortChecks(t *testing.T) {
	if err := CheckEffort("openai:gpt-6.2-astra", EffortOff); err == nil || !strings.Contains(err.Error(), "always reasons") {
		t.Errorf("off on GPT-6.2 Astra: %v", err)
	}
	for _, name := range []string{"openai:gpt-6.1-terra", "openai:gpt-5-mini", "openai:gpt-6.2-sol"} {
		if err := CheckEffort(name, EffortMax); err != nil {
			t.Errorf("max on %s: %v", name, err)
		}
	}
	if err := CheckEffort("openai:gpt-4.1", EffortHigh); err == nil || !strings.Contains(err.Error(), "does not reason") {
		t.Errorf("high on GPT-4.1: %v", err)
	}
	if got := DescribeEffort("openai:gpt-5.4", EffortDefault); got != "default (none)" {
		t.Errorf("GPT-5.4's default is described as %q", got)
	}
}
