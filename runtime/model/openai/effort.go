package openai

import (
	"strings"

	"github.com/agenttui/agenttui/runtime/model"
)

// effortScale is OpenAI's reasoning.effort values from least to most, which
// is how near one level is to another.
var effortScale = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// reasoningFor maps effort e onto what a request to the model called name
// sends, by what the model tables know of the model's family:
//
//   - effort is the value of reasoning.effort (reasoning_effort on Chat
//     Completions), or "" to send none and leave the effort to the model;
//   - reasons says the model reasons, so that the Responses API may ask it
//     for a summary of its reasoning;
//   - err, when set, is why the request must not be sent at all: off on a
//     model that cannot stop reasoning.
//
// On a model the tables know to reason, EffortDefault sends no effort; off
// is "none" where the model takes it, else "minimal", else the refusal;
// low, medium and high are sent as they are, or as the nearest level the
// model takes (low on a pro model is its lowest, "medium"); max is the
// model's top level ("max" on GPT-5.6 and later, "xhigh" on GPT-5.1 Codex
// Max to GPT-5.5, "high" on the o-series). A model the tables know not to
// reason gets no reasoning settings, whatever e is. A model the tables do
// not know gets reasoning settings only when the person set an effort, in
// OpenAI's words: off is "none" and max is "xhigh", the highest value every
// OpenAI model since GPT-5.1 Codex Max takes.
//
// The compaction request (compact) asks for a summary under a small output
// limit, which reasoning would use up, so a model the tables know asks for
// its least reasoning instead, whatever e is.
func reasoningFor(name string, e model.Effort, compact bool) (effort string, reasons bool, err error) {
	full := "openai:" + name
	if base, ok := strings.CutPrefix(name, "ft:"); ok {
		// A fine-tuned model (ft:o4-mini-2025-04-16:org::id) reasons as
		// the model it was tuned from.
		base, _, _ = strings.Cut(base, ":")
		full = "openai:" + base
	}
	info, known := model.Lookup(full)
	r := info.Reasoning
	switch {
	case known && !r.Reasons():
		return "", false, nil
	case known && compact:
		if len(r.Levels) == 0 {
			return "", true, nil
		}
		return r.Levels[0], true, nil
	case known:
		switch e {
		case model.EffortDefault:
			return "", true, nil
		case model.EffortOff:
			for _, l := range []string{"none", "minimal"} {
				if r.Accepts(l) {
					return l, true, nil
				}
			}
			if err := model.CheckEffort(full, e); err != nil {
				return "", true, err
			}
			return "", true, nil
		case model.EffortMax:
			return r.Top(), true, nil
		}
		return nearest(r.Levels, string(e)), true, nil
	}
	switch e {
	case model.EffortDefault:
		return "", false, nil
	case model.EffortOff:
		return "none", true, nil
	case model.EffortMax:
		return "xhigh", true, nil
	}
	return string(e), true, nil
}

// nearest returns the level of levels nearest to level on effortScale,
// which is level itself when levels holds it; of two as near, the higher.
func nearest(levels []string, level string) string {
	want := indexOf(effortScale, level)
	best, bestAt, bestDist := "", -1, 0
	for _, l := range levels {
		at := indexOf(effortScale, l)
		dist := at - want
		if dist < 0 {
			dist = -dist
		}
		if bestAt < 0 || dist < bestDist || (dist == bestDist && at > bestAt) {
			best, bestAt, bestDist = l, at, dist
		}
	}
	return best
}

// indexOf returns where v is in s, or -1.
func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
