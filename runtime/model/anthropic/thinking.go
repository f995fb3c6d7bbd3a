package anthropic

import (
	"strings"

	"github.com/agenttui/agenttui/runtime/model"
)

// The thinking rules below come from Anthropic's documentation:
//   - which thinking types each model takes and refuses, and which think by
//     default: https://platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting
//   - budget_tokens is at least 1,024 and below max_tokens; the thinking of
//     a reply counts toward max_tokens; a tool-use loop is one assistant
//     turn, which runs in one thinking mode, and with thinking enabled the
//     final assistant turn starts with a thinking block:
//     https://platform.claude.com/docs/en/build-with-claude/extended-thinking
//   - preserved thinking and the prefix check:
//     https://platform.claude.com/docs/en/build-with-claude/preserved-thinking

// Budgets of the budget form (thinking.type "enabled") for each effort. The
// API takes at least MinBudget and advises against more than about 32,000
// outside batch requests.
const (
	MinBudget = 1_024
	budgetLow = 2_048
	budgetMed = 8_192
	budgetHi  = 16_384
	budgetMax = 32_000
)

// ThinkingMaxTokens is the output limit of a request that thinks and sets
// none: a reply's thinking counts toward max_tokens, and DefaultMaxTokens
// alone would leave a reply that thinks hard little room to answer. It is
// capped at the model's own output limit.
const ThinkingMaxTokens = 32_000

// compactThinkingRoom is what a compaction request on a model that cannot
// stop thinking gets on top of its output limit, so that the summary is not
// cut short by the little thinking the least effort still does.
const compactThinkingRoom = 8_192

// BindingBeta is the beta header value that lets a request set
// thinking.block_binding.prefix_mismatch_behavior.
const BindingBeta = "thinking-binding-controls-2026-08-01"

// family is what the provider must know of a model beyond the table in
// runtime/model, which does not say how a model turns thinking off or
// whether it checks the prefix of its thinking blocks.
type family struct {
	// onByDefault says the model thinks when a request has no thinking
	// parameter, so that turning thinking off takes a parameter.
	onByDefault bool
	// betweenTools says thinking is turned off with {"type":
	// "between_tools"}, the model refusing "disabled".
	betweenTools bool
	// preserved says the model checks that nothing before a thinking block
	// sent back has changed since the block was made (the prefix check of
	// preserved thinking), from Claude Fable 5.1 on.
	preserved bool
}

// families are the models' families by the prefix of their names; the
// longest prefix that ends at a word boundary wins. A model found in none
// thinks only when asked and checks no prefix, as every model before Claude
// 5 does.
var families = map[string]family{
	"claude-fable-5":        {onByDefault: true},
	"claude-fable-5-1":      {onByDefault: true, preserved: true},
	"claude-fable-5-2":      {onByDefault: true, preserved: true},
	"claude-mythos-5":       {onByDefault: true},
	"claude-mythos-5-1":     {onByDefault: true, preserved: true},
	"claude-mythos-5-2":     {onByDefault: true, preserved: true},
	"claude-mythos-preview": {onByDefault: true},
	"claude-opus-5":         {onByDefault: true},
	"claude-opus-5-5":       {onByDefault: true, preserved: true},
	"claude-sonnet-5":       {onByDefault: true},
	"claude-sonnet-5-5":     {onByDefault: true, betweenTools: true, preserved: true},
	"claude-haiku-5-5":      {onByDefault: true, preserved: true},
}

// familyOf returns the family of the model called name (without
// "anthropic:").
func familyOf(name string) family {
	name = strings.ToLower(name)
	best, found := -1, family{}
	for prefix, f := range families {
		if strings.HasPrefix(name, prefix) && len(prefix) > best &&
			(len(name) == len(prefix) || !isAlnum(name[len(prefix)])) {
			best, found = len(prefix), f
		}
	}
	return found
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// The thinking modes of a request, as thinking.type says them; modeOmit
// sends no thinking parameter.
const (
	modeOmit         = ""
	modeAdaptive     = "adaptive"
	modeEnabled      = "enabled"
	modeDisabled     = "disabled"
	modeBetweenTools = "between_tools"
)

// plan is how a request asks the model to think.
type plan struct {
	mode    string
	display string // "summarized", "omitted", or "" to leave the model's default
	effort  string // output_config.effort; "" sends none
	budget  int    // thinking.budget_tokens of modeEnabled
	// maxTokens is the request's max_tokens.
	maxTokens int
	// dropBlocks sets thinking.block_binding.prefix_mismatch_behavior to
	// "drop_block", with its beta header.
	dropBlocks bool
	// strip leaves out the reasoning of every message from this index on;
	// -1 for none.
	strip int
}

// thinks reports whether the model may write thinking blocks in reply.
func (p plan) thinks() bool { return p.mode == modeAdaptive || p.mode == modeEnabled }

// planFor decides how the request asks the model called name (without
// "anthropic:") to think, from the table in runtime/model and the family.
// defaultMax is the output limit of a request that sets none. It returns
// an error, and no request is to be sent, when the effort asked for is one
// the model refuses whatever is sent.
func planFor(name string, req model.Request, defaultMax int) (plan, error) {
	info, known := model.Lookup("anthropic:" + name)
	fam := familyOf(name)
	r := info.Reasoning
	p := plan{maxTokens: defaultMax, strip: -1}
	explicitMax := req.MaxOutputTokens > 0
	if explicitMax {
		p.maxTokens = req.MaxOutputTokens
	}
	limit := func(n int) int {
		if info.MaxOutput > 0 && n > info.MaxOutput {
			return info.MaxOutput
		}
		return n
	}
	e := req.Effort
	switch {
	case req.Compact:
		// The summary is read by the runtime, not by the person, and the
		// effort of the session is no reason to spend more on it: thinking
		// is off where the model allows it, else at its least effort.
		switch {
		case known && r.AlwaysOn:
			p.mode, p.display, p.effort = modeAdaptive, "omitted", leastLevel(r)
			p.maxTokens = limit(p.maxTokens + compactThinkingRoom)
		case known && r.Reasons():
			p.mode = offMode(fam)
		}
		return p, nil
	case !known:
		// The tables do not know the model, most likely because it is newer
		// than they are. The default and off send no thinking parameter,
		// which no model refuses; an explicit effort takes the adaptive form,
		// which every model since Claude 4.6 takes and the newest require. A
		// model that refuses it says so, and errors.go says which setting
		// to change.
		if e == model.EffortDefault || e == model.EffortOff {
			return p, nil
		}
		p.mode, p.display, p.effort = modeAdaptive, "summarized", string(e)
	case !r.Reasons():
		// A model that does not reason is sent no thinking parameter, which
		// it would refuse; model.CheckEffort tells the person the effort
		// changes nothing.
		return p, nil
	case e == model.EffortOff:
		if r.AlwaysOn {
			return plan{}, model.CheckEffort("anthropic:"+name, e)
		}
		p.mode = offMode(fam)
		return p, nil
	case r.Effort:
		p.mode, p.display = modeAdaptive, "summarized"
		if e != model.EffortDefault {
			p.effort = level(r, e)
		}
	case r.Budget:
		if e == model.EffortDefault {
			// The budget form has no default: the model does not think
			// unless it is given a budget.
			return p, nil
		}
		p.mode, p.display = modeEnabled, "summarized"
		p.budget, p.maxTokens = budgetFor(e, p.maxTokens, info.MaxOutput)
		return p, nil
	}
	if !explicitMax {
		p.maxTokens = limit(max(p.maxTokens, ThinkingMaxTokens))
	}
	return p, nil
}

// offMode returns how a request turns thinking off on a model of family f
// that allows it.
func offMode(f family) string {
	switch {
	case f.betweenTools:
		return modeBetweenTools
	case f.onByDefault:
		return modeDisabled
	}
	return modeOmit
}

// level returns the model's own effort value for e: every model that takes
// an effort takes low, medium and high, and "max" is the model's top level,
// which is "max" itself on every current model.
func level(r model.ReasoningInfo, e model.Effort) string {
	if e == model.EffortMax && r.Top() != "" {
		return r.Top()
	}
	return string(e)
}

// leastLevel returns the least effort the model takes.
func leastLevel(r model.ReasoningInfo) string {
	if len(r.Levels) == 0 {
		return "low"
	}
	return r.Levels[0]
}

// budgetFor returns the thinking budget of effort e and the max_tokens that
// leaves room past it, answer tokens for the answer: the API requires
// max_tokens above budget_tokens, and budget_tokens at least MinBudget. The
// two are kept within the model's output limit (limit, zero when unknown),
// the budget giving way first.
func budgetFor(e model.Effort, answer, limit int) (budget, maxTokens int) {
	switch e {
	case model.EffortLow:
		budget = budgetLow
	case model.EffortMedium:
		budget = budgetMed
	case model.EffortHigh:
		budget = budgetHi
	default:
		budget = budgetMax
	}
	maxTokens = budget + answer
	if limit > 0 && maxTokens > limit {
		maxTokens = limit
		budget = max(limit-answer, MinBudget)
		if budget >= maxTokens {
			budget = max(maxTokens/2, MinBudget)
		}
	}
	return budget, maxTokens
}

// adjust fits the plan to the conversation it is sent with.
//
//   - The budget form requires the final assistant turn of a tool-use loop
//     to start with a thinking block, and a loop runs in one thinking mode:
//     a loop whose last reply has no thinking of this model (it was written
//     by another model after /model, with thinking off, or read from an old
//     journal) is finished with thinking off, as the API's error advises
//     ("To avoid this requirement, disable `thinking`"). Adaptive thinking
//     has no such rule: the model may skip thinking on any reply.
//   - A model with preserved thinking refuses a thinking block sent back
//     when anything before it changed since it was made: a compaction,
//     which replaces the turns before the ones it keeps, a tool list that
//     changed during the session (an MCP server that connected late), a
//     system prompt read again. Asked to ("drop_block", a beta that
//     adaptive thinking takes), the API drops such blocks and keeps the
//     valid ones, so every adaptive request to such a model asks it; a
//     request that drops nothing is unchanged by it. Where it cannot be
//     asked (thinking off, or a model the tables do not know, which may
//     not take the beta), the reasoning of the turns after a compaction's
//     summary is left out instead, which the documentation gives as the
//     other fix.
func (p plan) adjust(name, source string, msgs []model.Message) plan {
	if p.mode == modeEnabled && openLoopWithoutThinking(msgs, source) {
		p.mode, p.display, p.budget = modeOmit, "", 0
	}
	_, known := model.Lookup("anthropic:" + name)
	fam := familyOf(name)
	if known && fam.preserved && p.mode == modeAdaptive {
		// Asked from the first request on, not from the first that sends
		// blocks back: the thinking setting is part of the prefix the
		// prompt cache keys on, and changing it would miss the cache.
		p.dropBlocks = true
		return p
	}
	if known && !fam.preserved {
		// No prefix check: the blocks of the kept turns are still valid.
		return p
	}
	summary := -1
	for i, m := range msgs {
		if m.Role == model.RoleUser && m.Summarizes > 0 {
			summary = i
		}
	}
	if summary >= 0 && reasoningAfter(msgs[summary+1:], source) {
		p.strip = summary + 1
	}
	return p
}

// openLoopWithoutThinking reports whether msgs end in a tool-use loop whose
// last reply carries no reasoning of source that can be sent back.
func openLoopWithoutThinking(msgs []model.Message, source string) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != model.RoleAssistant {
			continue
		}
		if i == len(msgs)-1 || len(msgs[i].Calls) == 0 && msgs[i].Cut == nil {
			return false
		}
		return len(sendable(msgs[i].Reasoning, source)) == 0
	}
	return false
}

// reasoningAfter reports whether any of msgs carries reasoning of source.
func reasoningAfter(msgs []model.Message, source string) bool {
	for _, m := range msgs {
		if len(sendable(m.Reasoning, source)) > 0 {
			return true
		}
	}
	return false
}

// sendable returns the parts of parts that source made and that can be
// sent back: a thinking block without its signature cannot (the reply was
// cut before the block was finished), since the API refuses it.
func sendable(parts []model.Reasoning, source string) []model.Reasoning {
	var out []model.Reasoning
	for _, p := range model.ReasoningFor(parts, source) {
		if (p.Kind == model.ReasoningThinking || p.Kind == model.ReasoningRedacted) && p.Data != "" {
			out = append(out, p)
		}
	}
	return out
}
