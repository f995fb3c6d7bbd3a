package model

import (
	"fmt"
	"strings"
)

// String says the usage in one line, as the console's status bar, the final
// outcome and agenttui sessions show it: "tokens 48k in (41k cached) · 2.1k
// out · $0.07". The cached part is shown only when some input came from
// the cache, and the cost only when it is known.
func (u Usage) String() string {
	var b strings.Builder
	b.WriteString("tokens ")
	b.WriteString(CountTokens(u.InputTokens))
	b.WriteString(" in")
	if u.CacheReadTokens > 0 {
		fmt.Fprintf(&b, " (%s cached)", CountTokens(u.CacheReadTokens))
	}
	b.WriteString(" · ")
	b.WriteString(CountTokens(u.OutputTokens))
	b.WriteString(" out")
	if u.CostUSD != nil {
		b.WriteString(" · ")
		b.WriteString(Dollars(*u.CostUSD))
	}
	return b.String()
}

// CountTokens says a number of tokens in a few characters: 950, 2.1k, 48k,
// 1.2M.
func CountTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
}

// Dollars says an amount of US dollars to the cent, or to a tenth of a cent
// below one cent, so that a cheap session does not read as free: $0.07,
// $12.40, $0.004.
func Dollars(usd float64) string {
	if usd > 0 && usd < 0.01 {
		return fmt.Sprintf("$%.3f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}
