package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Scenario is a scripted conversation: each step is one model reply. It is
// the format of the demo, of tests, and of users who want a reproducible
// session; see the README for the file format.
type Scenario struct {
	// Name names the scenario.
	Name string `json:"name"`
	// Description is one line shown in the console's header.
	Description string `json:"description,omitempty"`
	// Workspace names a txtar archive of the files the scenario starts
	// from, relative to the scenario file; the console and headless runs
	// unpack it into a fresh temporary folder and work there. Empty means
	// the scenario works in the workspace it is given.
	Workspace string `json:"workspace,omitempty"`
	// Steps are the replies, in order.
	Steps []Step `json:"steps"`
	// Tasks script sub-agents: a task whose description is a key here is
	// played by that script's steps (see Scripted.ForTask).
	Tasks map[string]*TaskScript `json:"tasks,omitempty"`
}

// TaskScript is the scripted model of one task's agent.
type TaskScript struct {
	// Steps are the agent's replies, in order, as a scenario's steps.
	Steps []Step `json:"steps"`
}

// Step is one scripted reply, and what the person did around it.
type Step struct {
	// Input is what the person sent before this reply: the goal, the
	// answer to a question, a follow-up, as the model reads it. The
	// console's autopilot types it (doubling a leading /, which would
	// make it a slash command); without the autopilot, the first step's
	// input is the goal the input line starts with, and the others are
	// not used.
	Input string `json:"input,omitempty"`
	// DelayMS is how long the model seems to think before replying, in
	// milliseconds; its text is streamed over the same time.
	DelayMS int `json:"delay_ms,omitempty"`
	// Expect lists texts that must all appear in what the model reads before
	// this step: the tool results and user messages since its last reply.
	Expect []string `json:"expect,omitempty"`
	// Thinking is what the model reasons before its reply, streamed
	// before the text and kept with the reply as its reasoning.
	Thinking string `json:"thinking,omitempty"`
	// Text is the reply text. A step with text and no calls ends the run as
	// succeeded.
	Text string `json:"text,omitempty"`
	// Calls are the reply's complete calls.
	Calls []ScriptedCall `json:"calls,omitempty"`
	// Cut is a call the reply was cut off in the middle of by the output
	// limit.
	Cut *ScriptedCall `json:"cut,omitempty"`
	// Variants are other versions of this reply, for what the person chose
	// earlier (a write approved or skipped): the first whose WhenRead texts
	// the model has all read plays instead of the step as written, which
	// plays when none matches. The step's input stays the step's.
	Variants []Variant `json:"variants,omitempty"`
}

// Variant is another version of a step's reply.
type Variant struct {
	// WhenRead lists texts that must all appear in what the model has read
	// in the conversation so far (every tool result and user message, not
	// only those since its last reply) for the variant to play.
	WhenRead []string `json:"when_read"`
	// Step is the reply played instead: its text, thinking, calls, cut,
	// expect and delay_ms. A variant has no input, variants or decisions
	// of its own.
	Step
}

// played returns the version of the step that plays after msgs: its first
// variant whose texts the model has all read, else the step itself.
func (s Step) played(msgs []Message) Step {
	if len(s.Variants) == 0 {
		return s
	}
	read := readSoFar(msgs)
	for _, v := range s.Variants {
		if !slices.ContainsFunc(v.WhenRead, func(want string) bool { return !strings.Contains(read, want) }) {
			return v.Step
		}
	}
	return s
}

// ScriptedCall is one call of a scripted reply. Exactly one of Args and
// RawArgs may be given; with neither, the arguments are {}.
type ScriptedCall struct {
	// ID is the call's identifier; by default call_<step>_<index>.
	ID string `json:"id,omitempty"`
	// Name is the tool called.
	Name string `json:"name"`
	// Args are the arguments as JSON.
	Args json.RawMessage `json:"args,omitempty"`
	// RawArgs is the exact argument text the model sent, so invalid
	// arguments can be scripted.
	RawArgs *string `json:"raw_args,omitempty"`
	// Decision is how the person answered the call's approval; nil when
	// it was not asked, or not recorded. Only the console's autopilot
	// uses it.
	Decision *Decision `json:"decision,omitempty"`
}

// Arguments returns the exact text the model sends for the call.
func (c ScriptedCall) Arguments() string { return c.arguments() }

// arguments returns the text the model sends for the call.
func (c ScriptedCall) arguments() string {
	switch {
	case c.RawArgs != nil:
		return *c.RawArgs
	case len(c.Args) > 0:
		var compact bytes.Buffer
		if err := json.Compact(&compact, c.Args); err == nil {
			return compact.String()
		}
		return string(c.Args)
	default:
		return "{}"
	}
}

// LoadScenario reads and checks the scenario file at path.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("scenario file %s does not exist", path)
		}
		return nil, fmt.Errorf("scenario file %s cannot be read: %v", path, err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("scenario file %s: %v", path, err)
	}
	return sc, nil
}

// ParseScenario decodes and checks a scenario. Its errors name the step and
// the field at fault, such as "step 3: calls[0]: name is missing".
func ParseScenario(data []byte) (*Scenario, error) {
	var top struct {
		Name        string                     `json:"name"`
		Description string                     `json:"description"`
		Workspace   string                     `json:"workspace"`
		Steps       []json.RawMessage          `json:"steps"`
		Tasks       map[string]json.RawMessage `json:"tasks"`
	}
	if err := strictDecode(data, &top, scenarioShape); err != nil {
		return nil, fmt.Errorf("not a valid scenario: %v", err)
	}
	if top.Steps == nil {
		return nil, errors.New("field steps is missing: a scenario needs at least one step")
	}
	if len(top.Steps) == 0 {
		return nil, errors.New("field steps is empty: a scenario needs at least one step")
	}
	if top.Workspace != "" && !localPath(top.Workspace) {
		return nil, fmt.Errorf("field workspace: %q is not a path inside the scenario's folder: "+
			"give the archive relative to the scenario file, without .. or a leading /", top.Workspace)
	}
	sc := &Scenario{Name: top.Name, Description: top.Description, Workspace: top.Workspace, Steps: make([]Step, len(top.Steps))}
	for i, raw := range top.Steps {
		n := i + 1
		if err := strictDecode(raw, &sc.Steps[i], stepShape); err != nil {
			return nil, fmt.Errorf("step %d: %v", n, err)
		}
		if err := sc.Steps[i].check(); err != nil {
			return nil, fmt.Errorf("step %d: %v", n, err)
		}
	}
	for desc, raw := range top.Tasks {
		ts, err := parseTaskScript(raw)
		if err != nil {
			return nil, fmt.Errorf("tasks[%q]: %v", desc, err)
		}
		if sc.Tasks == nil {
			sc.Tasks = map[string]*TaskScript{}
		}
		sc.Tasks[desc] = ts
	}
	return sc, nil
}

// parseTaskScript decodes and checks the script of one task.
func parseTaskScript(data []byte) (*TaskScript, error) {
	var top struct {
		Steps []json.RawMessage `json:"steps"`
	}
	if err := strictDecode(data, &top, taskShape); err != nil {
		return nil, err
	}
	if len(top.Steps) == 0 {
		return nil, errors.New("field steps is missing or empty: a task's script needs at least one step")
	}
	ts := &TaskScript{Steps: make([]Step, len(top.Steps))}
	for i, raw := range top.Steps {
		if err := strictDecode(raw, &ts.Steps[i], stepShape); err != nil {
			return nil, fmt.Errorf("step %d: %v", i+1, err)
		}
		if ts.Steps[i].Input != "" {
			return nil, fmt.Errorf("step %d: a task's step has no input: the task's prompt is its only input", i+1)
		}
		if err := ts.Steps[i].check(); err != nil {
			return nil, fmt.Errorf("step %d: %v", i+1, err)
		}
	}
	return ts, nil
}

func (s Step) check() error {
	if s.Text == "" && len(s.Calls) == 0 && s.Cut == nil {
		return errors.New("a step needs text, calls or cut")
	}
	if s.Input != "" && strings.TrimSpace(s.Input) == "" {
		return errors.New("field input: must not be blank; leave it out when the person typed nothing")
	}
	if s.DelayMS < 0 {
		return errors.New("field delay_ms: must not be negative")
	}
	for i, c := range s.Calls {
		if err := c.check(); err != nil {
			return fmt.Errorf("calls[%d]: %v", i, err)
		}
	}
	if s.Cut != nil {
		if err := s.Cut.check(); err != nil {
			return fmt.Errorf("cut: %v", err)
		}
		if s.Cut.Decision != nil {
			return errors.New("cut: field decision: a call cut off by the output limit never runs, so nobody decides on it")
		}
	}
	for i, e := range s.Expect {
		if e == "" {
			return fmt.Errorf("expect[%d]: an expected text must not be empty", i)
		}
	}
	for i, v := range s.Variants {
		if err := v.check(); err != nil {
			return fmt.Errorf("variants[%d]: %v", i, err)
		}
	}
	if len(s.Variants) > 0 {
		// The autopilot answers a call by its place in the step, and
		// cannot tell which version played.
		for i, c := range s.Calls {
			if c.Decision != nil {
				return fmt.Errorf("calls[%d]: field decision: a step with variants records no decisions, "+
					"since the autopilot cannot tell which version of it played", i)
			}
		}
	}
	return nil
}

func (v Variant) check() error {
	if len(v.WhenRead) == 0 {
		return errors.New("field when_read is missing: a variant plays when the model has read all of its texts")
	}
	for i, w := range v.WhenRead {
		if w == "" {
			return fmt.Errorf("when_read[%d]: a text to look for must not be empty", i)
		}
	}
	switch {
	case v.Input != "":
		return errors.New("field input: a variant is the model's reply; the person's input is the step's")
	case len(v.Variants) > 0:
		return errors.New("field variants: a variant has no variants of its own")
	}
	for i, c := range v.Calls {
		if c.Decision != nil {
			return fmt.Errorf("calls[%d]: field decision: the autopilot answers only the calls of a step without variants", i)
		}
	}
	return v.Step.check()
}

func (c ScriptedCall) check() error {
	if c.Name == "" {
		return errors.New("field name is missing")
	}
	if len(c.Args) > 0 && c.RawArgs != nil {
		return errors.New("give args or raw_args, not both")
	}
	if c.Decision != nil {
		if err := c.Decision.check(); err != nil {
			return fmt.Errorf("field decision: %v", err)
		}
	}
	return nil
}

// localPath reports whether p is a slash-separated relative path that stays
// inside its folder: no leading /, no .. component, nothing to clean.
func localPath(p string) bool {
	return filepath.IsLocal(filepath.FromSlash(p)) && path.Clean(p) == p && !strings.Contains(p, `\`)
}

// CarriesPerson reports whether the scenario records its person: a step's
// input or a call's decision, which the console's autopilot plays.
func (sc *Scenario) CarriesPerson() bool {
	for _, st := range sc.Steps {
		if st.Input != "" {
			return true
		}
		for _, c := range st.Calls {
			if c.Decision != nil {
				return true
			}
		}
	}
	return false
}

// Encode writes the scenario as a scenario file: indented JSON that
// ParseScenario reads back as the same scenario. Arguments keep their
// exact text: characters such as < and & are not escaped, and raw_args are
// kept as they are.
func (sc *Scenario) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
