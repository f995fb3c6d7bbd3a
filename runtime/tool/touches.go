package tool

import (
	"encoding/json"
	"fmt"
)

// Access says how a call touches its scope.
type Access uint8

// The three kinds of footprint.
const (
	// AccessReads reads the scope and changes nothing; such a call is safe to
	// run again after a restart.
	AccessReads Access = iota
	// AccessWrites reads and may change the scope.
	AccessWrites
	// AccessIndependent changes nothing the reply's other calls see, but may
	// read anything; such a call is never run again after a restart.
	AccessIndependent
)

var accessIDs = [...]string{"reads", "writes", "independent"}

// String returns "reads", "writes" or "independent".
func (a Access) String() string {
	if int(a) < len(accessIDs) {
		return accessIDs[a]
	}
	return fmt.Sprintf("access(%d)", uint8(a))
}

// Touches is a call's footprint: what it reads and what it may change. Calls
// whose footprints do not conflict run side by side.
//
// The zero Touches reads nothing.
type Touches struct {
	Access Access
	// Scope is what the call reads or writes; it is unused for Independent.
	Scope Scope
}

// Reads returns the footprint of a call that reads s and changes nothing.
func Reads(s Scope) Touches { return Touches{Access: AccessReads, Scope: s} }

// Writes returns the footprint of a call that reads and may change s.
func Writes(s Scope) Touches { return Touches{Access: AccessWrites, Scope: s} }

// Independent returns the footprint of a call that changes nothing the other
// calls of its reply see, such as handing work to another agent.
func Independent() Touches { return Touches{Access: AccessIndependent} }

// ReadsOnly reports whether the call only reads: true for Reads and nothing
// else. Independent is not ReadsOnly, because what it does elsewhere is not
// known.
func (t Touches) ReadsOnly() bool { return t.Access == AccessReads }

// effective returns the footprint used for conflict checks: Independent counts
// as Reads(Anything).
func (t Touches) effective() Touches {
	if t.Access == AccessIndependent {
		return Reads(Anything())
	}
	return t
}

// ConflictsWith reports whether a call touching t must not run beside one
// touching o: one of them writes what the other reads or writes. It is
// symmetric, and Independent counts as Reads(Anything).
func (t Touches) ConflictsWith(o Touches) bool {
	a, b := t.effective(), o.effective()
	if a.Access == AccessReads && b.Access == AccessReads {
		return false
	}
	return a.Scope.Overlaps(b.Scope)
}

// Normalized returns the footprint with its scope normalized.
func (t Touches) Normalized() Touches {
	if t.Access == AccessIndependent {
		return Independent()
	}
	return Touches{Access: t.Access, Scope: t.Scope.Normalized()}
}

// FromAnnotations derives a footprint from annotations the tool's own code
// declares: Reads(Anything) when it says it only reads, else
// Writes(Anything).
func FromAnnotations(a Annotations) Touches {
	if a.ReadOnly {
		return Reads(Anything())
	}
	return Writes(Anything())
}

// FromHints derives a footprint from annotations that cannot be checked, such
// as those an MCP server sends: a tool that says it only reads is
// Independent, so its calls still run beside readers but are never run again
// after a restart; any other is Writes(Anything). Only a local declaration
// makes a call Reads.
func FromHints(a Annotations) Touches {
	if a.ReadOnly {
		return Independent()
	}
	return Writes(Anything())
}

// String returns a short form such as "reads /w/a" or "writes anything".
func (t Touches) String() string {
	if t.Access == AccessIndependent {
		return "independent"
	}
	return t.Access.String() + " " + t.Scope.String()
}

type touchesJSON struct {
	Kind  string `json:"kind"`
	Scope *Scope `json:"scope,omitempty"`
}

// MarshalJSON encodes the footprint as {"kind": ..., "scope": ...}, with no
// scope for Independent.
func (t Touches) MarshalJSON() ([]byte, error) {
	w := touchesJSON{Kind: t.Access.String()}
	if t.Access != AccessIndependent {
		s := t.Scope
		w.Scope = &s
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the form written by MarshalJSON.
func (t *Touches) UnmarshalJSON(data []byte) error {
	var w touchesJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	switch w.Kind {
	case "independent":
		*t = Independent()
		return nil
	case "reads", "writes":
		if w.Scope == nil {
			return fmt.Errorf("tool: %s footprint without a scope", w.Kind)
		}
		access := AccessReads
		if w.Kind == "writes" {
			access = AccessWrites
		}
		*t = Touches{Access: access, Scope: *w.Scope}
		return nil
	default:
		return fmt.Errorf("tool: unknown footprint kind %q", w.Kind)
	}
}
