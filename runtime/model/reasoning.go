package model

import (
	"errors"
	"fmt"
	"strings"
)

// The kinds of Reasoning the providers make.
const (
	// ReasoningThinking is an Anthropic thinking block: Text is its
	// thinking (a summary on the newest models, empty when the provider
	// hides it) and Data its signature.
	ReasoningThinking = "thinking"
	// ReasoningRedacted is an Anthropic redacted_thinking block: Data is
	// its encrypted data, and there is no Text.
	ReasoningRedacted = "redacted_thinking"
	// ReasoningItem is an OpenAI Responses reasoning item: Text is its
	// summary and Data the item as it was received, encrypted content
	// included.
	ReasoningItem = "reasoning"
	// ReasoningText is the reasoning text of a server that speaks an
	// OpenAI-compatible wire (reasoning_content, reasoning): shown to the
	// person and never sent back, since some such servers refuse it.
	ReasoningText = "text"
)

// Reasoning is one part of what a model reasoned while it wrote a reply:
// readable text, which may be empty, and the provider's opaque payload. The
// runtime stores, journals and compacts it with the reply it belongs to and
// never reads it; only the provider that made it does.
type Reasoning struct {
	// Source is the model that made the part, as its Name says
	// ("anthropic:claude-opus-5"). A provider sends a part back only to
	// the model of the same name: a payload means nothing to any other,
	// and some refuse it.
	Source string `json:"source"`
	// Kind is the provider's own kind of part, one of the Reasoning
	// constants.
	Kind string `json:"kind"`
	// Text is what a person can read of the reasoning; empty when the
	// provider sent none.
	Text string `json:"text,omitempty"`
	// Data is the provider's payload, kept exactly as it came and sent
	// back exactly so: a signature, encrypted data, a whole item.
	Data string `json:"data,omitempty"`
	// Calls is how many of the reply's calls came before the part, and
	// AfterText says some of the reply's text did; together they put the
	// part back where it was when the reply is sent again.
	Calls     int  `json:"calls,omitempty"`
	AfterText bool `json:"after_text,omitempty"`
	// Tokens is how many output tokens the part took, when the provider
	// says; zero when it does not.
	Tokens int `json:"tokens,omitempty"`
}

// Hidden reports whether the part carries reasoning the provider did not
// let anyone read: a payload with no readable text.
func (r Reasoning) Hidden() bool { return strings.TrimSpace(r.Text) == "" && r.Data != "" }

// ReasoningFor returns the parts of parts that source made, the ones a
// provider may send back to that model, in their order; nil when there are
// none.
func ReasoningFor(parts []Reasoning, source string) []Reasoning {
	var out []Reasoning
	for _, p := range parts {
		if p.Source == source {
			out = append(out, p)
		}
	}
	return out
}

// Effort is how hard a model is asked to reason before it replies. Each
// provider maps it onto its own setting: adaptive thinking's effort or a
// thinking budget on Anthropic, reasoning.effort on OpenAI.
type Effort string

// The efforts a person can choose.
const (
	// EffortDefault leaves the reasoning to the model's own default.
	EffortDefault Effort = ""
	// EffortOff asks for no reasoning, where the model allows it.
	EffortOff Effort = "off"
	// EffortLow, EffortMedium and EffortHigh ask for more reasoning in
	// turn.
	EffortLow    Effort = "low"
	EffortMedium Effort = "medium"
	EffortHigh   Effort = "high"
	// EffortMax asks for the most reasoning the model offers.
	EffortMax Effort = "max"
)

// Efforts are the efforts a person can choose, from least to most.
var Efforts = []Effort{EffortOff, EffortLow, EffortMedium, EffortHigh, EffortMax}

// ParseEffort reads an effort as a person writes it; "default" and the
// empty string are EffortDefault.
func ParseEffort(s string) (Effort, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "default" {
		return EffortDefault, nil
	}
	for _, e := range Efforts {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown reasoning effort %q: use off, low, medium, high, max or default", s)
}

// String returns the effort as a person writes it: "default" for
// EffortDefault.
func (e Effort) String() string {
	if e == EffortDefault {
		return "default"
	}
	return string(e)
}

// EffortError is a reasoning effort a model cannot take as asked.
type EffortError struct {
	// Msg says so in one line and names the setting to change.
	Msg string
	// Ignored says the model does not reason at all: harmless, since such
	// a model is never sent an effort, but worth saying to a person who
	// asks for one.
	Ignored bool
}

func (e *EffortError) Error() string { return e.Msg }

// Refuses reports whether err is an effort the model would refuse: an
// EffortError that is not merely ignored.
func Refuses(err error) bool {
	var ee *EffortError
	return errors.As(err, &ee) && !ee.Ignored
}

// CheckEffort says, in one line that names the setting to change, why the
// model called name cannot take e as asked; nil when it can, when e leaves
// the reasoning to the model, or when the tables do not know the model
// (its provider then says whether it takes the setting). A model that does
// not reason is never sent an effort, so asking it for one changes nothing;
// that too is reported, so the person is not misled.
func CheckEffort(name string, e Effort) error {
	info, ok := Lookup(name)
	if !ok || e == EffortDefault {
		return nil
	}
	r := info.Reasoning
	switch {
	case e == EffortOff && r.AlwaysOn:
		return &EffortError{Msg: fmt.Sprintf("%s always reasons and refuses to have it turned off: set reasoning to low, medium, high, max or default "+
			"(\"reasoning\": {\"effort\": …} in the configuration, --reasoning, or /reasoning)", name)}
	case e != EffortOff && !r.Reasons():
		return &EffortError{Msg: fmt.Sprintf("%s does not reason, so reasoning %s changes nothing: set reasoning to off or default "+
			"(\"reasoning\": {\"effort\": …} in the configuration, --reasoning, or /reasoning)", name, e), Ignored: true}
	}
	return nil
}

// DescribeEffort says in a word or two how hard the model called name is
// asked to reason at e, as the console's header shows it: the effort, or
// for EffortDefault the model's own default when the tables know it
// ("default (high)"), and "none" for a model that does not reason.
func DescribeEffort(name string, e Effort) string {
	info, ok := Lookup(name)
	switch {
	case ok && !info.Reasoning.Reasons():
		return "none"
	case e != EffortDefault:
		return string(e)
	case ok && info.Reasoning.Default != "":
		return "default (" + info.Reasoning.Default + ")"
	case ok:
		return "default (off)"
	}
	return "default"
}
