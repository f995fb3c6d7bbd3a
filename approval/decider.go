package approval

import (
	"strings"

	"github.com/agenttui/agenttui/runtime"
)

// Who is the kind of thing that decided about a call.
type Who int

// The deciders of a call. Every decision the policy makes, and every answer
// the person gives, is made by exactly one of them.
const (
	// WhoUnknown is a decider this package does not know, such as one a
	// hook of another package named; its Label is what the hook said.
	WhoUnknown Who = iota
	// WhoMode is the approval mode; the Label is the mode's name.
	WhoMode
	// WhoRule is a rule of the configuration or the command line; the
	// Label is the rule's label ("2", "--allow write_file(path=docs/**)").
	WhoRule
	// WhoGrant is a grant of this session; the Label is the grant's
	// label ("write_file within docs/").
	WhoGrant
	// WhoPerson is the person at the console.
	WhoPerson
	// WhoHeadless is a headless run, in which nobody can approve a call.
	WhoHeadless
	// WhoRuntime is the runtime itself, which clears its own control
	// tools.
	WhoRuntime
	// WhoSandbox is the sandbox's part in a decision: a call that asks to
	// leave its sandbox (Label "false"), or sandboxed shell commands that
	// the configuration lets run (Label "sandboxed_shell:allow").
	WhoSandbox
	// WhoProvenance is the provenance of a call's arguments: text from an
	// untrusted result carried into an action asks the person.
	WhoProvenance
	// WhoHook is one of the person's hook commands; the Label is the
	// command as written in the configuration.
	WhoHook
)

// Decider is who decided about a call, and its label. Its String is the form
// the event stream and the journal carry in a decision's "by"; ParseDecider
// reads that form back, so that no other package needs to know it.
type Decider struct {
	Who   Who
	Label string
}

// The deciders that have no label of their own.
var (
	// Person is the person at the console.
	Person = Decider{Who: WhoPerson}
	// Headless is a headless run.
	Headless = Decider{Who: WhoHeadless}
	// Runtime is the runtime itself.
	Runtime = Decider{Who: WhoRuntime}
)

// The sandbox deciders.
var (
	// escalation asks about a call that asked to leave its sandbox.
	escalation = Decider{Who: WhoSandbox, Label: "false"}
	// sandboxedShell runs a sandboxed call under approval.sandboxed_shell.
	sandboxedShell = Decider{Who: WhoSandbox, Label: "sandboxed_shell:allow"}
)

// ModeDecider returns the decider that is mode m.
func ModeDecider(m Mode) Decider { return Decider{Who: WhoMode, Label: string(m)} }

// RuleDecider returns the decider that is the rule labelled label.
func RuleDecider(label string) Decider { return Decider{Who: WhoRule, Label: label} }

// HookDecider returns the decider that is the hook command command.
func HookDecider(command string) Decider { return Decider{Who: WhoHook, Label: command} }

// GrantDecider returns the decider that is the grant labelled label.
func GrantDecider(label string) Decider { return Decider{Who: WhoGrant, Label: label} }

// The forms of the deciders without a label, as the event stream names them.
const (
	personBy   = "user"
	headlessBy = "headless"
	runtimeBy  = "runtime"
)

// The prefixes of the deciders with a label, as the event stream names them.
const (
	modePrefix    = "mode:"
	rulePrefix    = "rule:"
	grantPrefix   = "grant:"
	sandboxPrefix = "sandbox:"
	hookPrefix    = "hook:"
)

// String returns the decider as the event stream names it: "mode:reads",
// "rule:2", "grant:write_file within docs/", "user", "headless", "runtime",
// "sandbox:false", "sandboxed_shell:allow" or "hook:~/bin/check".
func (d Decider) String() string {
	switch d.Who {
	case WhoMode:
		return modePrefix + d.Label
	case WhoRule:
		return rulePrefix + d.Label
	case WhoGrant:
		return grantPrefix + d.Label
	case WhoPerson:
		return personBy
	case WhoHeadless:
		return headlessBy
	case WhoRuntime:
		return runtimeBy
	case WhoProvenance:
		return provenanceBy
	case WhoHook:
		return hookPrefix + d.Label
	case WhoSandbox:
		if d == sandboxedShell {
			return d.Label
		}
		return sandboxPrefix + d.Label
	}
	return d.Label
}

// ParseDecider reads back a decider from the form String gives it. A form it
// does not know is WhoUnknown with the form as its Label.
func ParseDecider(by string) Decider {
	switch by {
	case personBy:
		return Person
	case headlessBy:
		return Headless
	case runtimeBy:
		return Runtime
	case provenanceBy:
		return provenanceDecider
	case sandboxedShell.Label:
		return sandboxedShell
	}
	for _, p := range []struct {
		prefix string
		who    Who
	}{{modePrefix, WhoMode}, {rulePrefix, WhoRule}, {grantPrefix, WhoGrant}, {sandboxPrefix, WhoSandbox}, {hookPrefix, WhoHook}} {
		if label, ok := strings.CutPrefix(by, p.prefix); ok {
			return Decider{Who: p.who, Label: label}
		}
	}
	return Decider{Label: by}
}

// What the policy says of a call a grant lets run: covered by one given
// before the call was reviewed, or released by one given while it waited.
const (
	grantAllowed  = "allowed by a grant of this session"
	grantReleased = "released by a grant of this session"
)

// Provenance is who made one decision about a call, as the console, the
// exporter and the event stream's readers need it.
type Provenance struct {
	Decider
	// Released says a grant given while the call waited for the person
	// let it run: the person gave that grant from this call or from one
	// beside it.
	Released bool
}

// ProvenanceOf returns who made the decision ev records.
func ProvenanceOf(ev runtime.CallDecision) Provenance {
	d := ParseDecider(ev.By)
	return Provenance{Decider: d, Released: d.Who == WhoGrant && ev.Decision == runtime.DecisionRun && ev.Reason == grantReleased}
}

// Asker returns who asks the person about the request's call.
func (r Request) Asker() Decider { return ParseDecider(r.By) }
