package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/runtime"
)

// checkRun checks one run of case c, which left its files in workspace,
// and returns every failing check in words, in the order status, data,
// files, bounds; none when the run passed. A run that could not be run at
// all fails with that alone, since nothing else it gave means anything.
func checkRun(c *Case, a Attempt, workspace string) []string {
	if a.Err != nil {
		return []string{"run: " + a.Err.Error()}
	}
	var failures []string
	if f := checkStatus(c.Expect.Status, a.Outcome); f != "" {
		failures = append(failures, f)
	}
	failures = append(failures, checkData(c.Expect.Data, a.Outcome)...)
	failures = append(failures, checkFiles(c.Expect.Files, workspace)...)
	return append(failures, checkBounds(c.Expect, a)...)
}

// checkStatus compares the outcome's status with the one wanted, and says
// what the run ended in when they differ.
func checkStatus(want runtime.Status, o runtime.GoalOutcome) string {
	if o.Status == want {
		return ""
	}
	if o.Status == "" {
		return fmt.Sprintf("status: want %s, got none (the runner gave no outcome)", want)
	}
	return fmt.Sprintf("status: want %s, got %s%s", want, o.Status, outcomeDetail(o))
}

// outcomeDetail returns, in parentheses, what the outcome says for itself:
// the step that died and its last error, the question asked, the summary.
func outcomeDetail(o runtime.GoalOutcome) string {
	var d string
	switch o.Status {
	case runtime.StatusFailed:
		parts := []string{}
		if o.FailingStep != "" {
			parts = append(parts, o.FailingStep)
		}
		if n := len(o.Attempts); n > 0 {
			parts = append(parts, o.Attempts[n-1])
		}
		d = strings.Join(parts, ": ")
	case runtime.StatusRefused:
		d = "asked " + show(o.Summary)
	case runtime.StatusSucceeded:
		if o.Summary != "" {
			d = show(o.Summary)
		}
	}
	if d == "" {
		return ""
	}
	return " (" + clip(d, 100) + ")"
}

// checkData runs the data checks on the outcome's extracted data.
func checkData(checks []DataCheck, o runtime.GoalOutcome) []string {
	if len(checks) == 0 {
		return nil
	}
	var data any
	missing := len(o.ExtractedData) == 0
	if !missing {
		v, err := decodeValue(o.ExtractedData)
		if err != nil {
			return []string{fmt.Sprintf("data: the extracted data is not valid JSON: %v", err)}
		}
		data = v
	}
	var failures []string
	for _, d := range checks {
		name := "data " + d.Pointer
		if d.Pointer == "" {
			name = "data (whole value)"
		}
		want := d.Equals
		if want == nil {
			want = d.Contains
		}
		wantV, err := decodeValue(want)
		if err != nil {
			// Load checks the suite's values; a case made by hand may
			// still carry a broken one.
			failures = append(failures, fmt.Sprintf("%s: the expected value is not valid JSON: %v", name, err))
			continue
		}
		tokens, err := parsePointer(d.Pointer)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		var got any
		var why error
		if missing {
			why = errors.New("no extracted data")
		} else {
			got, why = lookup(data, tokens)
		}
		if f := checkValue(name, d.Equals != nil, wantV, got, why); f != "" {
			failures = append(failures, f)
		}
	}
	return failures
}

// checkValue checks the value got found at a data check's pointer (or why
// none was found) against want, as an equals check or a contains check.
func checkValue(name string, equals bool, want, got any, why error) string {
	if equals {
		switch {
		case why != nil:
			return fmt.Sprintf("%s: want %s, got nothing (%v)", name, show(want), why)
		case !jsonEqual(want, got):
			return fmt.Sprintf("%s: want %s, got %s", name, show(want), show(got))
		}
		return ""
	}
	s, isString := want.(string)
	if why != nil {
		return fmt.Sprintf("%s: want something containing %s, got nothing (%v)", name, show(want), why)
	}
	switch g := got.(type) {
	case string:
		if isString && strings.Contains(g, s) {
			return ""
		}
		if isString {
			return fmt.Sprintf("%s: want a string containing %s, got %s", name, show(want), show(got))
		}
	case []any:
		for _, e := range g {
			if jsonEqual(e, want) {
				return ""
			}
		}
	case map[string]any:
		if _, ok := g[s]; ok && isString {
			return ""
		}
		if isString {
			return fmt.Sprintf("%s: want an object with key %s, got %s", name, show(want), show(got))
		}
	default:
		return fmt.Sprintf("%s: want a string, array or object containing %s, got %s", name, show(want), show(got))
	}
	// Only an array can hold a value that is not a string.
	return fmt.Sprintf("%s: want an array with an element %s, got %s", name, show(want), show(got))
}

// checkFiles runs the file checks on the workspace the run left. Files are
// read through an os.Root, so a symbolic link the run made cannot lead a
// check outside the workspace.
func checkFiles(checks []FileCheck, workspace string) []string {
	if len(checks) == 0 {
		return nil
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return []string{fmt.Sprintf("files: the workspace cannot be opened: %v", err)}
	}
	defer root.Close()
	var failures []string
	for _, f := range checks {
		if msg := checkFile(root, f); msg != "" {
			failures = append(failures, "file "+f.Path+": "+msg)
		}
	}
	return failures
}

// checkFile checks one file, returning what is wrong or "".
func checkFile(root *os.Root, f FileCheck) string {
	name := filepath.Clean(filepath.FromSlash(f.Path))
	info, err := root.Stat(name)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "cannot be read: " + unwrapPath(err).Error()
	case f.Exists != nil && !*f.Exists && exists:
		return "should not exist"
	case f.Exists != nil && !*f.Exists:
		return ""
	case !exists:
		return "does not exist"
	case f.Contains == nil:
		return ""
	case info.IsDir():
		return "is a folder, not a file"
	}
	data, err := root.ReadFile(name)
	if err != nil {
		return "cannot be read: " + unwrapPath(err).Error()
	}
	if !strings.Contains(string(data), *f.Contains) {
		return "does not contain " + show(*f.Contains)
	}
	return ""
}

// checkBounds checks the turns, tokens and cost the run used.
func checkBounds(e Expect, a Attempt) []string {
	var failures []string
	if e.MaxTurns > 0 && a.Turns > e.MaxTurns {
		failures = append(failures, fmt.Sprintf("turns: %d > max %d", a.Turns, e.MaxTurns))
	}
	if t := a.Usage.Tokens(); e.MaxTokens > 0 && t > e.MaxTokens {
		failures = append(failures, fmt.Sprintf("tokens: %d > max %d", t, e.MaxTokens))
	}
	if e.MaxCostUSD > 0 {
		switch c := a.Usage.CostUSD; {
		case c == nil:
			failures = append(failures, fmt.Sprintf("cost: not known, so it cannot be held to max %s", dollars(e.MaxCostUSD)))
		case *c > e.MaxCostUSD:
			failures = append(failures, fmt.Sprintf("cost: %s > max %s", dollars(*c), dollars(e.MaxCostUSD)))
		}
	}
	return failures
}

// dollars formats a cost in US dollars to a hundredth of a cent, the
// precision a cheap model's run needs.
func dollars(c float64) string { return fmt.Sprintf("$%.4f", c) }
