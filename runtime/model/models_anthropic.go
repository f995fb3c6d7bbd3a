package model

// anthropicModels are Anthropic's models by the prefix of their names, as
// Anthropic's documentation gave them on 2026-11-10 (after Claude Fable 5.2
// and Claude Mythos 5.2 were released on 2026-11-09).
//
// The pages the rows come from:
//
//   - [overview] the lineup, context windows and output limits:
//     https://platform.claude.com/docs/en/about-claude/models/overview and
//     each model's page, https://platform.claude.com/docs/en/models/<model>/overview
//   - [pricing] input, 5-minute cache write, cache read and output per
//     million tokens: https://platform.claude.com/docs/en/about-claude/pricing
//   - [thinking] which thinking types each model takes, which it refuses
//     with a 400 and whether it thinks by default:
//     https://platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting
//     ("Thinking support, defaults, and rejected configurations by model")
//   - [effort] the effort levels each model takes and its default:
//     https://platform.claude.com/docs/en/build-with-claude/effort
//
// How the rows read the reasoning columns:
//
//   - Effort: the model takes thinking {type: "adaptive"} with
//     output_config.effort (every Claude model from Opus 4.6 and Sonnet 4.6
//     on). Budget: it takes thinking {type: "enabled", budget_tokens} and no
//     adaptive thinking (Claude 4.5 and earlier; [thinking]: "On Claude 4.5
//     and earlier models that support thinking, extended thinking is the
//     only available thinking mode").
//   - AlwaysOn: [thinking] marks the model "Always on": it refuses
//     thinking.type "disabled" with a 400.
//   - Default: the effort the model thinks at when agenttui asks for
//     thinking without an effort. agenttui asks adaptive models for adaptive
//     thinking at their default effort, so the models on which thinking is
//     "Off" by default (Opus 4.6 to 4.8, Sonnet 4.6) still think at their
//     default effort, high; budget models are asked for no thinking by
//     default, so their Default is empty.
//
// Models Anthropic has retired from its own API keep their rows: a gateway,
// Amazon Bedrock or Google Cloud may still serve them ([pricing] lists
// several as "retired, except on Bedrock and Google Cloud"), and their
// windows and prices are still facts. A retired model the pricing page no
// longer lists has no price: its tokens are shown without a guessed cost.
var anthropicModels = map[string]Info{
	// Claude Fable 5.2 and Claude Mythos 5.2, released 2026-11-09: 1M
	// window, 128K output [overview]; adaptive thinking always on, effort
	// low to max, default high [thinking, effort]; $8 input, $10 5-minute
	// cache write, $0.20 cache read, $40 output [pricing]. Mythos 5.2 has
	// Fable 5.2's specifications and prices.
	"claude-fable-5-2":  {Window: 1_000_000, MaxOutput: 128_000, Reasoning: alwaysOn5, Price: &Price{Input: 8, CacheWrite: 10, CachedInput: 0.20, Output: 40}},
	"claude-mythos-5-2": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: alwaysOn5, Price: &Price{Input: 8, CacheWrite: 10, CachedInput: 0.20, Output: 40}},
	// Claude Fable 5.1 and Claude Mythos 5.1, released 2026-09-01: 1M /
	// 128K; always on, default high; $10, $12.50, $0.25 (0.025 times input),
	// $50 [overview, thinking, pricing].
	"claude-fable-5-1":  {Window: 1_000_000, MaxOutput: 128_000, Reasoning: alwaysOn5, Price: &Price{Input: 10, CacheWrite: 12.50, CachedInput: 0.25, Output: 50}},
	"claude-mythos-5-1": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: alwaysOn5, Price: &Price{Input: 10, CacheWrite: 12.50, CachedInput: 0.25, Output: 50}},
	// Claude Fable 5 and Claude Mythos 5 (legacy), released 2026-06-09: 1M /
	// 128K; always on, default high; $10, $12.50, $1, $50.
	"claude-fable-5":  {Window: 1_000_000, MaxOutput: 128_000, Reasoning: alwaysOn5, Price: &Price{Input: 10, CacheWrite: 12.50, CachedInput: 1, Output: 50}},
	"claude-mythos-5": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: alwaysOn5, Price: &Price{Input: 10, CacheWrite: 12.50, CachedInput: 1, Output: 50}},
	// Claude Mythos Preview (invitation only): adaptive and extended
	// thinking, always on, refuses "disabled" [thinking]; effort up to max
	// without xhigh, default high [effort]. Its window and price are not
	// on the pages above, so the row leaves them unknown.
	"claude-mythos-preview": {Reasoning: ReasoningInfo{Effort: true, Budget: true, AlwaysOn: true, Levels: []string{"low", "medium", "high", "max"}, Default: "high"}},

	// Claude Opus 5.5, released 2026-09-22: 1M / 128K; always on, effort low
	// to max, default medium; $4, $5, $0.20 (0.05 times input), $20.
	"claude-opus-5-5": {Window: 1_000_000, MaxOutput: 128_000,
		Reasoning: ReasoningInfo{Effort: true, AlwaysOn: true, Levels: levels5, Default: "medium"},
		Price:     &Price{Input: 4, CacheWrite: 5, CachedInput: 0.20, Output: 20}},
	// Claude Opus 5 (legacy), released 2026-07-24: 1M / 128K; adaptive,
	// thinks by default and takes "disabled" at effort high or below;
	// default high; $5, $6.25, $0.50, $25.
	"claude-opus-5": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: adaptive5, Price: &Price{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	// Claude Opus 4.8 (2026-05-28) and 4.7 (2026-04-16), legacy: 1M / 128K;
	// adaptive only ("enabled" is a 400), thinking off unless asked; effort
	// low to max; $5, $6.25, $0.50, $25.
	"claude-opus-4-8": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: adaptive5, Price: &Price{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	"claude-opus-4-7": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: adaptive5, Price: &Price{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	// Claude Opus 4.6 (legacy, 2026-02-05): 1M / 128K; adaptive, extended
	// deprecated but accepted; effort low, medium, high, max (no xhigh);
	// $5, $6.25, $0.50, $25.
	"claude-opus-4-6": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: adaptive46, Price: &Price{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	// Claude Opus 4.5 (legacy, claude-opus-4-5-20251101): 200K / 64K;
	// extended thinking only ("adaptive" is a 400); $5, $6.25, $0.50, $25.
	// It is the one extended-thinking model that also takes an effort,
	// which composes with the budget; agenttui sends it the budget alone.
	"claude-opus-4-5": {Window: 200_000, MaxOutput: 64_000, Reasoning: budgetOnly, Price: &Price{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	// Claude Opus 4.1 and Opus 4 (retired on the Claude API, still on
	// Bedrock and Google Cloud): 200K / 32K; extended thinking only; $15,
	// $18.75, $1.50, $75.
	"claude-opus-4-1": {Window: 200_000, MaxOutput: 32_000, Reasoning: budgetOnly, Price: &Price{Input: 15, CacheWrite: 18.75, CachedInput: 1.50, Output: 75}},
	"claude-opus-4":   {Window: 200_000, MaxOutput: 32_000, Reasoning: budgetOnly, Price: &Price{Input: 15, CacheWrite: 18.75, CachedInput: 1.50, Output: 75}},

	// Claude Sonnet 5.5, released 2026-09-28: 1M / 128K; adaptive, thinks by
	// default, turns up-front thinking off with "between_tools" and refuses
	// "disabled"; effort low to max, default high; $2, $2.50, $0.10 (cut from
	// $0.20 on 2026-10-07), $10.
	"claude-sonnet-5-5": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: adaptive5, Price: &Price{Input: 2, CacheWrite: 2.50, CachedInput: 0.10, Output: 10}},
	// Claude Sonnet 5 (legacy): 1M / 128K; adaptive, thinks by default and
	// takes "disabled"; default high; $2, $2.50, $0.20, $10 (the $3 / $15
	// announced for 2026-09-01 was called off).
	"claude-sonnet-5": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: adaptive5, Price: &Price{Input: 2, CacheWrite: 2.50, CachedInput: 0.20, Output: 10}},
	// Claude Sonnet 4.6 (legacy, 2026-02-17): 1M / 128K; adaptive, extended
	// deprecated; effort low, medium, high, max; $3, $3.75, $0.30, $15 ("Claude
	// 4.6 and later models include the full 1M token context window at
	// standard pricing").
	"claude-sonnet-4-6": {Window: 1_000_000, MaxOutput: 128_000, Reasoning: adaptive46, Price: &Price{Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15}},
	// Claude Sonnet 4.5 (legacy, claude-sonnet-4-5-20250929): 200K / 64K;
	// extended only; $3, $3.75, $0.30, $15.
	"claude-sonnet-4-5": {Window: 200_000, MaxOutput: 64_000, Reasoning: budgetOnly, Price: &Price{Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15}},
	// Claude Sonnet 4 (retired on the Claude API, still on Bedrock and Google
	// Cloud): 200K / 64K; extended only; $3, $3.75, $0.30, $15.
	"claude-sonnet-4": {Window: 200_000, MaxOutput: 64_000, Reasoning: budgetOnly, Price: &Price{Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15}},

	// Claude Haiku 5.5, released 2026-10-07: 1M / 128K; adaptive, thinks by
	// default, takes "disabled" at effort high or below; effort low to max,
	// default medium. Priced by prompt length (input, cache reads and cache
	// writes together): up to 100,000 tokens $0.10, $0.125, $0.01, $0.50;
	// above, $0.50, $0.625, $0.05, $2.50 on every token of the request.
	"claude-haiku-5-5": {Window: 1_000_000, MaxOutput: 128_000,
		Reasoning: ReasoningInfo{Effort: true, Levels: levels5, Default: "medium"},
		Price: &Price{Input: 0.10, CacheWrite: 0.125, CachedInput: 0.01, Output: 0.50,
			LongAbove: 100_000, Long: &Price{Input: 0.50, CacheWrite: 0.625, CachedInput: 0.05, Output: 2.50}}},
	// Claude Haiku 4.5 (claude-haiku-4-5-20251001): 200K / 64K; extended
	// only, no effort; $1, $1.25, $0.10, $5.
	"claude-haiku-4-5": {Window: 200_000, MaxOutput: 64_000, Reasoning: budgetOnly, Price: &Price{Input: 1, CacheWrite: 1.25, CachedInput: 0.10, Output: 5}},
	// Any other Claude Haiku 4 name: the window of the family.
	"claude-haiku-4": {Window: 200_000},

	// Claude 3 models. Claude Sonnet 3.7 (extended thinking, 64K output),
	// Opus 3 and Haiku 3 are retired and no longer on [pricing]; Haiku 3.5
	// is retired except on Bedrock and Google Cloud and still priced at
	// $0.80, $1, $0.08, $4. Their 200K windows stand.
	"claude-3":          {Window: 200_000},
	"claude-3-5":        {Window: 200_000},
	"claude-3-5-sonnet": {Window: 200_000, MaxOutput: 8_192},
	"claude-3-5-haiku":  {Window: 200_000, MaxOutput: 8_192, Price: &Price{Input: 0.80, CacheWrite: 1, CachedInput: 0.08, Output: 4}},
	"claude-3-7":        {Window: 200_000},
	"claude-3-7-sonnet": {Window: 200_000, MaxOutput: 64_000, Reasoning: budgetOnly},
	"claude-3-opus":     {Window: 200_000, MaxOutput: 4_096},
	"claude-3-haiku":    {Window: 200_000, MaxOutput: 4_096},
}

// levels5 are the effort levels of the models that take all five [effort].
var levels5 = []string{"low", "medium", "high", "xhigh", "max"}

// The reasoning of the families that share it.
var (
	// alwaysOn5 is Fable and Mythos from 5 on: adaptive only, always on.
	alwaysOn5 = ReasoningInfo{Effort: true, AlwaysOn: true, Levels: levels5, Default: "high"}
	// adaptive5 is the adaptive models with all five levels that can turn
	// thinking off: Opus 4.7 to 5, Sonnet 5 and 5.5.
	adaptive5 = ReasoningInfo{Effort: true, Levels: levels5, Default: "high"}
	// adaptive46 is Opus 4.6 and Sonnet 4.6: no xhigh [effort].
	adaptive46 = ReasoningInfo{Effort: true, Levels: []string{"low", "medium", "high", "max"}, Default: "high"}
	// budgetOnly is the extended-thinking models: a budget, no effort, no
	// thinking unless asked.
	budgetOnly = ReasoningInfo{Budget: true}
)
