package model

import "testing"

func TestUsageString(t *testing.T) {
	cost := 0.0712
	small := 0.0042
	for _, tc := range []struct {
		u    Usage
		want string
	}{
		{Usage{InputTokens: 48_213, CacheReadTokens: 41_020, OutputTokens: 2_140, CostUSD: &cost}, "tokens 48k in (41k cached) · 2.1k out · $0.07"},
		{Usage{InputTokens: 950, OutputTokens: 12}, "tokens 950 in · 12 out"},
		{Usage{InputTokens: 1_250_000, OutputTokens: 3_000, CostUSD: &small}, "tokens 1.2M in · 3k out · $0.004"},
	} {
		if got := tc.u.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.u, got, tc.want)
		}
	}
}
