package model

import "strings"

// Price is what a model's tokens cost, in US dollars per million tokens.
type Price struct {
	// Input is fresh input: neither read from nor written to a cache.
	Input float64 `json:"input"`
	// CachedInput is input read from the prompt cache.
	CachedInput float64 `json:"cached_input"`
	// CacheWrite is input written to the prompt cache (Anthropic's
	// five-minute cache); providers that cache without charging for it
	// price it as fresh input.
	CacheWrite float64 `json:"cache_write"`
	// Output is output, reasoning included.
	Output float64 `json:"output"`
	// LongAbove, when not zero, is the input size in tokens above which a
	// request is billed at Long's rates instead, as some models' long
	// context is.
	LongAbove int    `json:"long_above,omitempty"`
	Long      *Price `json:"long,omitempty"`
}

// Cost returns what one request's usage costs at p.
func (p Price) Cost(u Usage) float64 {
	if p.LongAbove > 0 && p.Long != nil && u.InputTokens > p.LongAbove {
		p = *p.Long
	}
	return (float64(u.FreshInputTokens())*p.Input +
		float64(u.CacheReadTokens)*p.CachedInput +
		float64(u.CacheWriteTokens)*p.CacheWrite +
		float64(u.OutputTokens)*p.Output) / 1e6
}

// Prices are prices the configuration sets, by model name or the prefix of
// one ("anthropic:claude-opus-4-7", "claude-opus", "openai:gpt-5"), which
// take precedence over the built-in table.
type Prices map[string]Price

// Of returns the price of the model called name: the configuration's, by
// the longest name or prefix that matches, else the built-in table's; false
// when neither knows it, and the cost of its tokens is then unknown.
func (ps Prices) Of(name string) (Price, bool) {
	lower := strings.ToLower(name)
	_, bare, _ := strings.Cut(lower, ":")
	if !strings.Contains(lower, ":") {
		bare = lower
	}
	best, found := -1, Price{}
	for key, p := range ps {
		k := strings.ToLower(key)
		target := bare
		if strings.Contains(k, ":") {
			target = lower
		}
		if strings.HasPrefix(target, k) && len(k) > best && (len(target) == len(k) || !isAlnum(target[len(k)])) {
			best, found = len(k), p
		}
	}
	if best >= 0 {
		return found, true
	}
	return PriceOf(name)
}

// PriceOf returns the built-in price of the model called name, and whether
// the table knows it.
func PriceOf(name string) (Price, bool) {
	info, ok := Lookup(name)
	if !ok || info.Price == nil {
		return Price{}, false
	}
	return *info.Price, true
}

// Priced returns u with its cost at p, or without a cost when known is
// false.
func Priced(u Usage, p Price, known bool) Usage {
	u.CostUSD = nil
	if known {
		c := p.Cost(u)
		u.CostUSD = &c
	}
	return u
}
