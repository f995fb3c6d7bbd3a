package model

// openaiModels are OpenAI's models by the prefix of their names, as OpenAI's
// documentation gave them in December 2026. Each row cites its model page
// under https://developers.openai.com/api/docs/models/; the lineup is the
// models page (https://developers.openai.com/api/docs/models) and the prices
// are per million tokens at Standard processing, as the model pages and
// https://developers.openai.com/api/docs/pricing give them.
//
// What the rows encode:
//   - Levels are OpenAI's own reasoning.effort values in OpenAI's words. A
//     model whose levels have neither "none" nor "minimal" cannot stop
//     reasoning, and is AlwaysOn.
//   - Models before gpt-5.1 default to "medium"; gpt-5.1, gpt-5.2 and gpt-5.4
//     default to "none"; gpt-5.5 and later default to "medium"; the pro
//     models default to "high" (the reasoning.effort reference:
//     https://developers.openai.com/api/docs/api-reference/responses/create).
//   - OpenAI began billing cache writes with GPT-5.6, at 1.25 times fresh
//     input for the default 30-minute retention; older models write to the
//     cache for free, so their CacheWrite is their Input.
//   - Models with a 1,050,000-token window bill a request of more than
//     272,000 input tokens at twice the input and cache rates and 1.5 times
//     the output rate, for the whole request (LongAbove and Long).
//   - A request to a model with a 400,000-token window may carry at most
//     272,000 tokens of input, and one with a 1,050,000-token window at
//     most 922,000: the rest of the window is kept for the reply
//     (MaxInput), so the conversation is compacted against that bound.
//   - A model without a cached-input price (the pro models) caches nothing,
//     so its CachedInput is its Input.
var openaiModels = map[string]Info{
	// The GPT-6.2 family, released on 17 November 2026; both refuse the
	// efforts "none" and "minimal".
	// https://developers.openai.com/api/docs/models/gpt-6.2-astra
	"gpt-6.2-astra": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 8, CachedInput: 0.40, CacheWrite: 10, Output: 40})},
	// https://developers.openai.com/api/docs/models/gpt-6.2-sol
	"gpt-6.2-sol": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 2, CachedInput: 0.10, CacheWrite: 2.50, Output: 10})},

	// The GPT-6.1 family, released on 29 September 2026. GPT-6.1 Sol no
	// longer takes "none"; GPT-6.1 Terra does, and takes tools only on the
	// Responses API.
	// https://developers.openai.com/api/docs/models/gpt-6.1-sol
	"gpt-6.1-sol": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 2, CachedInput: 0.10, CacheWrite: 2.50, Output: 10})},
	// https://developers.openai.com/api/docs/models/gpt-6.1-terra
	"gpt-6.1-terra": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "none", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 1, CachedInput: 0.05, CacheWrite: 1.25, Output: 5})},

	// The GPT-6 family: Astra on 3 September 2026, Sol and Luna on 22
	// September 2026. On Chat Completions they take function tools only with
	// reasoning_effort "none".
	// https://developers.openai.com/api/docs/models/gpt-6-astra
	"gpt-6-astra": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 10, CachedInput: 1, CacheWrite: 12.50, Output: 50})},
	// https://developers.openai.com/api/docs/models/gpt-6-sol
	"gpt-6-sol": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "none", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 2, CachedInput: 0.20, CacheWrite: 2.50, Output: 10})},
	// https://developers.openai.com/api/docs/models/gpt-6-luna
	"gpt-6-luna": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "none", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 0.10, CachedInput: 0.01, CacheWrite: 0.125, Output: 0.50})},

	// The GPT-5.6 family, released on 9 July 2026 and repriced on 30 July
	// 2026; gpt-5.6 is an alias of gpt-5.6-sol.
	// https://developers.openai.com/api/docs/models/gpt-5.6-sol
	"gpt-5.6":     gpt56Sol,
	"gpt-5.6-sol": gpt56Sol,
	// https://developers.openai.com/api/docs/models/gpt-5.6-terra
	"gpt-5.6-terra": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "none", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 2, CachedInput: 0.20, CacheWrite: 2.50, Output: 12})},
	// https://developers.openai.com/api/docs/models/gpt-5.6-luna
	"gpt-5.6-luna": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "none", "low", "medium", "high", "xhigh", "max"),
		Price:     long(Price{Input: 0.20, CachedInput: 0.02, CacheWrite: 0.25, Output: 1.20})},

	// GPT-5.5, released on 23 April 2026.
	// https://developers.openai.com/api/docs/models/gpt-5.5
	"gpt-5.5": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "none", "low", "medium", "high", "xhigh"),
		Price:     long(Price{Input: 5, CachedInput: 0.50, CacheWrite: 5, Output: 30})},
	// https://developers.openai.com/api/docs/models/gpt-5.5-pro (Responses
	// API only)
	"gpt-5.5-pro": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: onlyOn("high", "medium", "high", "xhigh"),
		Price:     long(Price{Input: 30, CachedInput: 30, CacheWrite: 30, Output: 180})},

	// GPT-5.4 and its mini and nano.
	// https://developers.openai.com/api/docs/models/gpt-5.4
	"gpt-5.4": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: canStop("none", "none", "low", "medium", "high", "xhigh"),
		Price:     long(Price{Input: 2.50, CachedInput: 0.25, CacheWrite: 2.50, Output: 15})},
	// https://developers.openai.com/api/docs/models/gpt-5.4-mini
	"gpt-5.4-mini": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: canStop("none", "none", "low", "medium", "high", "xhigh"),
		Price:     &Price{Input: 0.75, CachedInput: 0.075, CacheWrite: 0.75, Output: 4.50}},
	// https://developers.openai.com/api/docs/models/gpt-5.4-nano
	"gpt-5.4-nano": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: canStop("none", "none", "low", "medium", "high", "xhigh"),
		Price:     &Price{Input: 0.20, CachedInput: 0.02, CacheWrite: 0.20, Output: 1.25}},
	// https://developers.openai.com/api/docs/models/gpt-5.4-pro
	"gpt-5.4-pro": {Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
		Reasoning: onlyOn("high", "medium", "high", "xhigh"),
		Price:     long(Price{Input: 30, CachedInput: 30, CacheWrite: 30, Output: 180})},

	// https://developers.openai.com/api/docs/models/gpt-5.3-codex
	"gpt-5.3-codex": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "none", "low", "medium", "high", "xhigh"),
		Price:     &Price{Input: 1.75, CachedInput: 0.175, CacheWrite: 1.75, Output: 14}},
	// https://developers.openai.com/api/docs/models/gpt-5.3-chat-latest,
	// which takes no reasoning setting.
	"gpt-5.3-chat": {Window: 128_000, MaxOutput: 16_384,
		Price: &Price{Input: 1.75, CachedInput: 0.175, CacheWrite: 1.75, Output: 14}},

	// GPT-5.2.
	// https://developers.openai.com/api/docs/models/gpt-5.2
	"gpt-5.2": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: canStop("none", "none", "low", "medium", "high", "xhigh"),
		Price:     &Price{Input: 1.75, CachedInput: 0.175, CacheWrite: 1.75, Output: 14}},
	// https://developers.openai.com/api/docs/models/gpt-5.2-pro
	"gpt-5.2-pro": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: onlyOn("high", "medium", "high", "xhigh"),
		Price:     &Price{Input: 21, CachedInput: 21, CacheWrite: 21, Output: 168}},
	// https://developers.openai.com/api/docs/models/gpt-5.2-codex
	"gpt-5.2-codex": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high", "xhigh"),
		Price:     &Price{Input: 1.75, CachedInput: 0.175, CacheWrite: 1.75, Output: 14}},
	// https://developers.openai.com/api/docs/models/gpt-5.2-chat-latest,
	// which takes only "medium".
	"gpt-5.2-chat": {Window: 128_000, MaxOutput: 16_384,
		Reasoning: onlyOn("medium", "medium"),
		Price:     &Price{Input: 1.75, CachedInput: 0.175, CacheWrite: 1.75, Output: 14}},

	// GPT-5.1.
	// https://developers.openai.com/api/docs/models/gpt-5.1
	"gpt-5.1": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: canStop("none", "none", "low", "medium", "high"),
		Price:     &Price{Input: 1.25, CachedInput: 0.125, CacheWrite: 1.25, Output: 10}},
	// https://developers.openai.com/api/docs/models/gpt-5.1-codex
	"gpt-5.1-codex": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high"),
		Price:     &Price{Input: 1.25, CachedInput: 0.125, CacheWrite: 1.25, Output: 10}},
	// https://developers.openai.com/api/docs/models/gpt-5.1-codex-mini
	"gpt-5.1-codex-mini": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high"),
		Price:     &Price{Input: 0.25, CachedInput: 0.025, CacheWrite: 0.25, Output: 2}},
	// https://developers.openai.com/api/docs/models/gpt-5.1-codex-max, the
	// first model to take "xhigh".
	"gpt-5.1-codex-max": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high", "xhigh"),
		Price:     &Price{Input: 1.25, CachedInput: 0.125, CacheWrite: 1.25, Output: 10}},
	// https://developers.openai.com/api/docs/models/gpt-5.1-chat-latest,
	// which takes only "medium".
	"gpt-5.1-chat": {Window: 128_000, MaxOutput: 16_384,
		Reasoning: onlyOn("medium", "medium"),
		Price:     &Price{Input: 1.25, CachedInput: 0.125, CacheWrite: 1.25, Output: 10}},

	// GPT-5 and its mini and nano, which take "minimal" but not "none".
	// https://developers.openai.com/api/docs/models/gpt-5
	"gpt-5": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "minimal", "low", "medium", "high"),
		Price:     &Price{Input: 1.25, CachedInput: 0.125, CacheWrite: 1.25, Output: 10}},
	// https://developers.openai.com/api/docs/models/gpt-5-mini
	"gpt-5-mini": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "minimal", "low", "medium", "high"),
		Price:     &Price{Input: 0.25, CachedInput: 0.025, CacheWrite: 0.25, Output: 2}},
	// https://developers.openai.com/api/docs/models/gpt-5-nano (deprecated)
	"gpt-5-nano": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: canStop("medium", "minimal", "low", "medium", "high"),
		Price:     &Price{Input: 0.05, CachedInput: 0.005, CacheWrite: 0.05, Output: 0.40}},
	// https://developers.openai.com/api/docs/models/gpt-5-pro, which
	// "defaults to (and only supports) reasoning.effort: high".
	"gpt-5-pro": {Window: 400_000, MaxOutput: 272_000,
		Reasoning: onlyOn("high", "high"),
		Price:     &Price{Input: 15, CachedInput: 15, CacheWrite: 15, Output: 120}},
	// https://developers.openai.com/api/docs/models/gpt-5-codex (shut down;
	// kept so that old sessions still read their window)
	"gpt-5-codex": {Window: 400_000, MaxInput: 272_000, MaxOutput: 128_000,
		Reasoning: onlyOn("medium", "low", "medium", "high"),
		Price:     &Price{Input: 1.25, CachedInput: 0.125, CacheWrite: 1.25, Output: 10}},
	// https://developers.openai.com/api/docs/models/gpt-5-chat-latest,
	// which takes no reasoning setting.
	"gpt-5-chat": {Window: 128_000, MaxOutput: 16_384,
		Price: &Price{Input: 1.25, CachedInput: 0.125, CacheWrite: 1.25, Output: 10}},

	// The o-series reasoning models, which always reason.
	// https://developers.openai.com/api/docs/models/o3
	"o3": {Window: 200_000, MaxOutput: 100_000,
		Reasoning: onlyOn("medium", "low", "medium", "high"),
		Price:     &Price{Input: 2, CachedInput: 0.50, CacheWrite: 2, Output: 8}},
	// https://developers.openai.com/api/docs/models/o3-pro (Responses API
	// only)
	"o3-pro": {Window: 200_000, MaxOutput: 100_000,
		Reasoning: onlyOn("medium", "low", "medium", "high"),
		Price:     &Price{Input: 20, CachedInput: 20, CacheWrite: 20, Output: 80}},
	// https://developers.openai.com/api/docs/models/o3-mini
	"o3-mini": {Window: 200_000, MaxOutput: 100_000,
		Reasoning: onlyOn("medium", "low", "medium", "high"),
		Price:     &Price{Input: 1.10, CachedInput: 0.55, CacheWrite: 1.10, Output: 4.40}},
	// https://developers.openai.com/api/docs/models/o4-mini
	"o4-mini": {Window: 200_000, MaxOutput: 100_000,
		Reasoning: onlyOn("medium", "low", "medium", "high"),
		Price:     &Price{Input: 1.10, CachedInput: 0.275, CacheWrite: 1.10, Output: 4.40}},
	// https://developers.openai.com/api/docs/models/o1
	"o1": {Window: 200_000, MaxOutput: 100_000,
		Reasoning: onlyOn("medium", "low", "medium", "high"),
		Price:     &Price{Input: 15, CachedInput: 7.50, CacheWrite: 15, Output: 60}},

	// GPT-4.1, GPT-4o and older models, which do not reason.
	// https://developers.openai.com/api/docs/models/gpt-4.1
	"gpt-4.1": {Window: 1_047_576, MaxOutput: 32_768,
		Price: &Price{Input: 2, CachedInput: 0.50, CacheWrite: 2, Output: 8}},
	// https://developers.openai.com/api/docs/models/gpt-4.1-mini
	"gpt-4.1-mini": {Window: 1_047_576, MaxOutput: 32_768,
		Price: &Price{Input: 0.40, CachedInput: 0.10, CacheWrite: 0.40, Output: 1.60}},
	// https://developers.openai.com/api/docs/models/gpt-4.1-nano
	"gpt-4.1-nano": {Window: 1_047_576, MaxOutput: 32_768,
		Price: &Price{Input: 0.10, CachedInput: 0.025, CacheWrite: 0.10, Output: 0.40}},
	// https://developers.openai.com/api/docs/models/gpt-4o
	"gpt-4o": {Window: 128_000, MaxOutput: 16_384,
		Price: &Price{Input: 2.50, CachedInput: 1.25, CacheWrite: 2.50, Output: 10}},
	// https://developers.openai.com/api/docs/models/gpt-4o-mini
	"gpt-4o-mini": {Window: 128_000, MaxOutput: 16_384,
		Price: &Price{Input: 0.15, CachedInput: 0.075, CacheWrite: 0.15, Output: 0.60}},
	// https://developers.openai.com/api/docs/models/gpt-4-turbo
	"gpt-4-turbo": {Window: 128_000, MaxOutput: 4_096},
	// https://developers.openai.com/api/docs/models/gpt-4
	"gpt-4": {Window: 8_192, MaxOutput: 8_192},
	// https://developers.openai.com/api/docs/models/gpt-3.5-turbo
	"gpt-3.5-turbo": {Window: 16_385, MaxOutput: 4_096},
}

// gpt56Sol is GPT-5.6 Sol, which gpt-5.6 names too.
var gpt56Sol = Info{Window: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000,
	Reasoning: canStop("medium", "none", "low", "medium", "high", "xhigh", "max"),
	Price:     long(Price{Input: 4, CachedInput: 0.40, CacheWrite: 5, Output: 20})}

// openaiLongAbove is the input, in tokens, above which OpenAI bills a
// request to a model with a 1,050,000-token window at its long-context
// rates.
const openaiLongAbove = 272_000

// long returns p with OpenAI's long-context rates: twice the input and
// cache rates and 1.5 times the output rate above openaiLongAbove tokens of
// input.
func long(p Price) *Price {
	p.LongAbove = openaiLongAbove
	p.Long = &Price{Input: 2 * p.Input, CachedInput: 2 * p.CachedInput, CacheWrite: 2 * p.CacheWrite, Output: 1.5 * p.Output}
	return &p
}

// canStop is an OpenAI reasoning model that can be asked not to reason: its
// levels begin with "none" or "minimal".
func canStop(def string, levels ...string) ReasoningInfo {
	return ReasoningInfo{Effort: true, Levels: levels, Default: def}
}

// onlyOn is an OpenAI reasoning model that always reasons: it takes none of
// "none" and "minimal".
func onlyOn(def string, levels ...string) ReasoningInfo {
	return ReasoningInfo{Effort: true, AlwaysOn: true, Levels: levels, Default: def}
}
