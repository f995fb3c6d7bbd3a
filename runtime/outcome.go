package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Status is the shape a run ended in.
type Status string

// The three statuses of a GoalOutcome.
const (
	// StatusSucceeded: the goal was reached.
	StatusSucceeded Status = "succeeded"
	// StatusFailed: the run gave up or was stopped.
	StatusFailed Status = "failed"
	// StatusRefused: the run asks the person a clarification question.
	StatusRefused Status = "refused"
)

// GoalOutcome is how a whole run ended. Every caller (the console, headless
// runs, tests) consumes this one shape. There is no timeout variant: an
// exhausted budget is a failure whose attempts say why.
type GoalOutcome struct {
	Status Status
	// Summary is the recap of a succeeded run, or the question of a refused
	// one, verbatim.
	Summary string
	// ExtractedData is the data a succeeded run extracted; nil encodes as
	// null.
	ExtractedData json.RawMessage
	// FailingSubGoal is the goal, or the plan step, a failed run was on.
	FailingSubGoal string
	// FailingStep is the tool call or model turn that died.
	FailingStep string
	// Attempts are the last three error messages, oldest first.
	Attempts []string
}

// Succeeded returns a succeeded outcome.
func Succeeded(summary string, data json.RawMessage) GoalOutcome {
	return GoalOutcome{Status: StatusSucceeded, Summary: summary, ExtractedData: data}
}

// Failed returns a failed outcome, keeping the last three attempts.
func Failed(subGoal, step string, attempts []string) GoalOutcome {
	if len(attempts) > 3 {
		attempts = attempts[len(attempts)-3:]
	}
	return GoalOutcome{Status: StatusFailed, FailingSubGoal: subGoal, FailingStep: step, Attempts: append([]string{}, attempts...)}
}

// Refused returns a refused outcome carrying the clarification question.
func Refused(question string) GoalOutcome {
	return GoalOutcome{Status: StatusRefused, Summary: question}
}

type succeededJSON struct {
	Status        Status          `json:"status"`
	Summary       string          `json:"summary"`
	ExtractedData json.RawMessage `json:"extracted_data"`
}

type failedJSON struct {
	Status         Status   `json:"status"`
	FailingSubGoal string   `json:"failing_sub_goal"`
	FailingStep    string   `json:"failing_step"`
	Attempts       []string `json:"attempts"`
}

type refusedJSON struct {
	Status  Status `json:"status"`
	Summary string `json:"summary"`
}

// MarshalJSON encodes the outcome tagged by "status", with exactly the fields
// of its shape.
func (o GoalOutcome) MarshalJSON() ([]byte, error) {
	switch o.Status {
	case StatusSucceeded:
		data := o.ExtractedData
		if len(bytes.TrimSpace(data)) == 0 {
			data = json.RawMessage("null")
		}
		return json.Marshal(succeededJSON{o.Status, o.Summary, data})
	case StatusFailed:
		attempts := o.Attempts
		if attempts == nil {
			attempts = []string{}
		}
		return json.Marshal(failedJSON{o.Status, o.FailingSubGoal, o.FailingStep, attempts})
	case StatusRefused:
		return json.Marshal(refusedJSON{o.Status, o.Summary})
	default:
		return nil, fmt.Errorf("runtime: goal outcome with unknown status %q", o.Status)
	}
}

// UnmarshalJSON decodes the form written by MarshalJSON.
func (o *GoalOutcome) UnmarshalJSON(data []byte) error {
	var tag struct {
		Status Status `json:"status"`
	}
	if err := json.Unmarshal(data, &tag); err != nil {
		return err
	}
	switch tag.Status {
	case StatusSucceeded:
		var w succeededJSON
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		if bytes.Equal(bytes.TrimSpace(w.ExtractedData), []byte("null")) {
			w.ExtractedData = nil
		}
		*o = Succeeded(w.Summary, w.ExtractedData)
	case StatusFailed:
		var w failedJSON
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		*o = Failed(w.FailingSubGoal, w.FailingStep, w.Attempts)
	case StatusRefused:
		var w refusedJSON
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		*o = Refused(w.Summary)
	default:
		return fmt.Errorf("runtime: goal outcome with unknown status %q", tag.Status)
	}
	return nil
}

// ExitCode returns the process exit code for the outcome: 0 succeeded, 1
// failed, 3 refused.
func (o GoalOutcome) ExitCode() int {
	switch o.Status {
	case StatusSucceeded:
		return 0
	case StatusRefused:
		return 3
	default:
		return 1
	}
}
