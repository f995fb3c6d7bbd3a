package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The kinds of a Decision: how a person answered a call's approval.
const (
	// DecisionApprove approved the call (y).
	DecisionApprove = "approve"
	// DecisionSkip skipped it, with an optional reason (n).
	DecisionSkip = "skip"
	// DecisionGrant gave a session grant from it (g), which let it run.
	DecisionGrant = "grant"
)

// The grants a person can give from a call waiting for approval, as the
// console offers them.
const (
	// GrantTool allows the call's tool for the rest of the session.
	GrantTool = "tool"
	// GrantFolder allows the call's tool within the folders of the paths
	// it touches.
	GrantFolder = "folder"
	// GrantSandboxed allows the tool's commands that run in its sandbox.
	GrantSandboxed = "sandboxed"
)

// Decision is how the person answered a call's approval. In a scenario file
// it is written "approve", "skip" (no reason), {"skip": "the reason"} or
// {"grant": "tool" | "folder" | "sandboxed"}.
type Decision struct {
	// Kind is DecisionApprove, DecisionSkip or DecisionGrant.
	Kind string
	// Reason is a skip's reason, which the model reads; it may be empty.
	Reason string
	// Grant is the grant given: GrantTool, GrantFolder or GrantSandboxed.
	Grant string

	// bad says why the file's value is not a decision; check reports it
	// with the step and call it belongs to.
	bad string
}

// decisionForms says how a decision is written, for error messages.
const decisionForms = `use "approve", "skip", {"skip": "the reason"} or {"grant": "tool" | "folder" | "sandboxed"}`

// String describes the decision as the file writes it.
func (d Decision) String() string {
	b, _ := d.MarshalJSON()
	return string(b)
}

// MarshalJSON writes the decision in its shortest form.
func (d Decision) MarshalJSON() ([]byte, error) {
	var v any
	switch {
	case d.Kind == DecisionSkip && d.Reason != "":
		v = map[string]string{"skip": d.Reason}
	case d.Kind == DecisionGrant:
		v = map[string]string{"grant": d.Grant}
	default:
		v = d.Kind
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads any of the decision's forms. A value that is none of
// them is kept as a problem for check to report, so that the error names
// the step and the call.
func (d *Decision) UnmarshalJSON(data []byte) error {
	*d = Decision{}
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		switch s {
		case DecisionApprove, DecisionSkip:
			d.Kind = s
		case DecisionGrant:
			d.bad = `"grant" needs its kind: {"grant": "tool"}, {"grant": "folder"} or {"grant": "sandboxed"}`
		default:
			d.bad = fmt.Sprintf("unknown decision %q: %s", s, decisionForms)
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		d.bad = fmt.Sprintf("%s is not a decision: %s", strings.TrimSpace(string(data)), decisionForms)
		return nil
	}
	if len(obj) != 1 {
		d.bad = fmt.Sprintf("an object decision has exactly one field, skip or grant, not %d: %s", len(obj), decisionForms)
		return nil
	}
	for k, raw := range obj {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			d.bad = fmt.Sprintf("%s: expected a string, got %s", k, strings.TrimSpace(string(raw)))
			return nil
		}
		switch k {
		case "skip":
			d.Kind, d.Reason = DecisionSkip, v
		case "grant":
			d.Kind, d.Grant = DecisionGrant, v
		default:
			d.bad = fmt.Sprintf("unknown field %q: %s", k, decisionForms)
		}
	}
	return nil
}

// check reports what is wrong with the decision, if anything.
func (d Decision) check() error {
	if d.bad != "" {
		return errors.New(d.bad)
	}
	switch d.Kind {
	case DecisionApprove, DecisionSkip:
		return nil
	case DecisionGrant:
		switch d.Grant {
		case GrantTool, GrantFolder, GrantSandboxed:
			return nil
		}
		return fmt.Errorf("unknown grant %q: use tool (the tool for the session), folder (the tool within the call's folders) "+
			"or sandboxed (the tool's sandboxed commands)", d.Grant)
	}
	return fmt.Errorf("unknown decision %q: %s", d.Kind, decisionForms)
}
