package model

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPriceCostSplitsInputByCache(t *testing.T) {
	p := Price{Input: 5, CachedInput: 0.5, CacheWrite: 6.25, Output: 25}
	u := Usage{InputTokens: 48_000, CacheReadTokens: 41_000, CacheWriteTokens: 2_000, OutputTokens: 2_100, ReasoningTokens: 900}
	// 5,000 fresh at $5, 41,000 read at $0.50, 2,000 written at $6.25 and
	// 2,100 out at $25 (reasoning is output, not counted again).
	want := (5_000*5 + 41_000*0.5 + 2_000*6.25 + 2_100*25) / 1e6
	if got := p.Cost(u); !near(got, want) {
		t.Errorf("cost %v, want %v", got, want)
	}
	if got := p.Cost(Usage{}); got != 0 {
		t.Errorf("no tokens cost %v", got)
	}
}

func TestPriceLongContextTier(t *testing.T) {
	long := Price{Input: 6, CachedInput: 0.6, CacheWrite: 7.5, Output: 22.5}
	p := Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15, LongAbove: 200_000, Long: &long}
	at := Usage{InputTokens: 200_000, OutputTokens: 1_000}
	if got, want := p.Cost(at), (200_000*3+1_000*15)/1e6; !near(got, want) {
		t.Errorf("at the threshold %v, want %v", got, want)
	}
	above := Usage{InputTokens: 200_001, OutputTokens: 1_000}
	if got, want := p.Cost(above), (200_001*6+1_000*22.5)/1e6; !near(got, want) {
		t.Errorf("above the threshold %v, want %v", got, want)
	}
}

func TestUsageAddKeepsCostOnlyWhenEveryPartIsPriced(t *testing.T) {
	priced := func(in, out int, usd float64) Usage {
		return Usage{InputTokens: in, OutputTokens: out, CostUSD: &usd}
	}
	total := Usage{}.Add(priced(100, 10, 0.02)).Add(priced(200, 20, 0.03))
	if total.InputTokens != 300 || total.OutputTokens != 30 || total.CostUSD == nil || !near(*total.CostUSD, 0.05) {
		t.Fatalf("total %+v", total)
	}
	mixed := total.Add(Usage{InputTokens: 50, OutputTokens: 5})
	if mixed.CostUSD != nil {
		t.Errorf("a turn of unknown price left a cost of %v", *mixed.CostUSD)
	}
	if again := mixed.Add(priced(1, 1, 1)); again.CostUSD != nil {
		t.Errorf("the cost came back after an unpriced turn: %v", *again.CostUSD)
	}
	if u := (Usage{}).Add(Usage{}); u.CostUSD != nil {
		t.Errorf("nothing used has a cost %v", *u.CostUSD)
	}
	sum := Usage{CacheReadTokens: 1, CacheWriteTokens: 2, ReasoningTokens: 3}.Add(Usage{CacheReadTokens: 10, CacheWriteTokens: 20, ReasoningTokens: 30})
	if sum.CacheReadTokens != 11 || sum.CacheWriteTokens != 22 || sum.ReasoningTokens != 33 {
		t.Errorf("sum %+v", sum)
	}
}

func TestPricesOverrideTheTable(t *testing.T) {
	custom := Prices{
		"anthropic:claude-opus": {Input: 1, Output: 2},
		"my-model":              {Input: 3, Output: 4},
	}
	if p, ok := custom.Of("anthropic:claude-opus-4-7"); !ok || p.Input != 1 {
		t.Errorf("provider prefix: %+v %v", p, ok)
	}
	if p, ok := custom.Of("openai:my-model-2"); !ok || p.Input != 3 {
		t.Errorf("bare prefix under a provider: %+v %v", p, ok)
	}
	if _, ok := custom.Of("openai:my-modelx"); ok {
		t.Error("a prefix matched in the middle of a word")
	}
	if _, ok := custom.Of("openai:unknown-model"); ok {
		t.Error("an unknown model has a price")
	}
	if _, ok := Prices(nil).Of("demo"); ok {
		t.Error("the demo has a price")
	}
}

func TestPricedUsage(t *testing.T) {
	u := Priced(Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, Price{Input: 2, Output: 10}, true)
	if u.CostUSD == nil || !near(*u.CostUSD, 12) {
		t.Errorf("priced %+v", u)
	}
	if u := Priced(u, Price{}, false); u.CostUSD != nil {
		t.Errorf("unknown price kept a cost %v", *u.CostUSD)
	}
}
