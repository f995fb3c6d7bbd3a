package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/internal/txtar"
	"github.com/agenttui/agenttui/runtime"
)

// Suite is the cases of a suite file, or of every suite file of a folder.
type Suite struct {
	// Name is the suite file's name, or the folder's.
	Name string
	// Cases are in file order, the files sorted by name.
	Cases []*Case
}

// Case is one goal of a suite and what its run must end in.
type Case struct {
	// Suite is the name of the suite file the case is in, which the
	// reports name with the case.
	Suite string
	// File is the path of the suite file the case is in, as it was loaded.
	File string
	// Name names the case; it is unique across the suite folder.
	Name string
	// Goal is what the agent is asked.
	Goal string
	// Mode is the approval mode: ask, reads, auto or plan.
	Mode string
	// Model is the absolute path of the scenario file when Scenario is
	// true, else the model spec (openai:NAME, anthropic:NAME).
	Model string
	// Scenario says Model is a scenario file, played as a scripted model.
	Scenario bool
	// Workspace is the files the run starts from; nil for an empty folder.
	Workspace *txtar.Archive
	// Answers answer the agent's clarification questions, in order.
	Answers []string
	// Expect is what the run must end in.
	Expect Expect
}

// Expect is what a case's run must end in. A zero bound is no bound.
type Expect struct {
	// Status is the outcome's status; succeeded unless the suite says
	// otherwise.
	Status runtime.Status
	// Data are checks on the outcome's extracted data.
	Data []DataCheck
	// Files are checks on the workspace the run left.
	Files []FileCheck
	// MaxTurns bounds the model turns the run asked.
	MaxTurns int
	// MaxTokens bounds the input and output tokens together.
	MaxTokens int
	// MaxCostUSD bounds the cost in US dollars; a run whose cost is not
	// known fails it.
	MaxCostUSD float64
}

// DataCheck checks the value a JSON pointer names in the extracted data.
// Exactly one of Equals and Contains is set.
type DataCheck struct {
	// Pointer is an RFC 6901 JSON pointer; "" is the whole value.
	Pointer string
	// Equals is the JSON value the pointed value must be JSON-equal to.
	Equals json.RawMessage
	// Contains is what the pointed value must contain: a string's
	// substring, an array's element, an object's key.
	Contains json.RawMessage
}

// FileCheck checks a file of the workspace the run left. At least one of
// Exists and Contains is set.
type FileCheck struct {
	// Path is slash-separated and relative to the workspace, as the suite
	// wrote it.
	Path string
	// Exists says whether the file must exist; nil checks nothing.
	Exists *bool
	// Contains is a text the file must hold; nil checks nothing.
	Contains *string
}

// SuiteError is a suite that cannot be loaded: a file that is not there or
// not JSON, a field that is unknown, missing or wrong.
type SuiteError struct {
	// File is the suite file (or folder) at fault, as it was named.
	File string
	// Problem says what is wrong, on one line.
	Problem string
}

// Error returns "FILE: problem" on one line, so a command can print it as
// its only line of complaint.
func (e *SuiteError) Error() string {
	return e.File + ": " + strings.Join(strings.Fields(strings.ReplaceAll(e.Problem, "\n", " ")), " ")
}

// Load reads the suite at path: a suite file, or a folder whose top-level
// *.json files are each a suite. Any problem is a *SuiteError.
func Load(path string) (*Suite, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, &SuiteError{File: path, Problem: statProblem(err, "file or folder")}
	}
	if !info.IsDir() {
		cases, name, err := loadFile(path)
		if err != nil {
			return nil, err
		}
		return &Suite{Name: name, Cases: cases}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, &SuiteError{File: path, Problem: "cannot be read: " + unwrapPath(err).Error()}
	}
	s := &Suite{Name: filepath.Base(filepath.Clean(path))}
	// seen maps each case's name to the file it is in, since a name must be
	// unique across the folder: the report and JUnit name cases by it.
	seen := map[string]string{}
	files := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		file := filepath.Join(path, e.Name())
		// A symbolic link to a suite file counts; a folder named x.json
		// does not.
		if fi, err := os.Stat(file); err == nil && fi.IsDir() {
			continue
		}
		files++
		cases, _, err := loadFile(file)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if other, ok := seen[c.Name]; ok {
				return nil, &SuiteError{File: file, Problem: fmt.Sprintf("case %q: the name is also used in %s; names must be unique across the folder", c.Name, other)}
			}
			seen[c.Name] = file
		}
		s.Cases = append(s.Cases, cases...)
	}
	if files == 0 {
		return nil, &SuiteError{File: path, Problem: "no suite files: a suite folder holds one or more *.json suite files"}
	}
	return s, nil
}

// suiteWire is a suite file as it is written.
type suiteWire struct {
	Name  string            `json:"name"`
	Cases []json.RawMessage `json:"cases"`
}

// loadFile reads one suite file and returns its cases and its name.
func loadFile(file string) ([]*Case, string, error) {
	fail := func(format string, args ...any) error {
		return &SuiteError{File: file, Problem: fmt.Sprintf(format, args...)}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fail("%s", statProblem(err, "file"))
	}
	// Checking the syntax on its own first gives every syntax error its
	// place in the file; the field-by-field decoding below cannot.
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			at := syn.Offset - 1 // the byte the decoder choked on
			if int(syn.Offset) >= len(data) && strings.Contains(syn.Error(), "end of JSON input") {
				at = int64(len(data)) // nothing to choke on: the file stops
			}
			line, col := position(data, at)
			return nil, "", fail("line %d, column %d: %s", line, col, syn.Error())
		}
		return nil, "", fail("not valid JSON: %v", err)
	}
	// A file without "cases" is most likely a scenario file or some other
	// JSON left at the top of a suite folder: say that, rather than name
	// its first field as unknown.
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) == nil && fields != nil && fields["cases"] == nil {
		return nil, "", fail(`no "cases": this is not a suite (a suite folder keeps scenario files and workspaces in a subfolder)`)
	}
	var w suiteWire
	if problem := decodeStrict(data, &w, `a JSON object with "cases"`); problem != "" {
		return nil, "", fail("%s", problem)
	}
	if w.Cases == nil {
		return nil, "", fail(`"cases" is null: a suite needs a list of cases`)
	}
	if len(w.Cases) == 0 {
		return nil, "", fail(`"cases" is empty: a suite needs at least one case`)
	}
	name := w.Name
	if strings.TrimSpace(name) == "" {
		name = strings.TrimSuffix(filepath.Base(file), ".json")
	}
	dir := filepath.Dir(file)
	cases := make([]*Case, len(w.Cases))
	index := map[string]int{}
	for i, raw := range w.Cases {
		c, err := parseCase(raw, i+1, dir)
		if err != nil {
			return nil, "", fail("%v", err)
		}
		if j, ok := index[c.Name]; ok {
			return nil, "", fail("case %q: the name is used twice (cases %d and %d)", c.Name, j, i+1)
		}
		index[c.Name] = i + 1
		c.Suite, c.File = name, file
		cases[i] = c
	}
	return cases, name, nil
}

// position returns the line and column (counted in characters, from 1) of
// the byte at offset in data.
func position(data []byte, offset int64) (line, col int) {
	at := int(min(max(offset, 0), int64(len(data))))
	before := data[:at]
	line = 1 + strings.Count(string(before), "\n")
	lastNL := strings.LastIndexByte(string(before), '\n')
	col = 1 + len([]rune(string(before[lastNL+1:])))
	return line, col
}

// statProblem words an error of reading or finding what (a "file", a "file
// or folder") without repeating its path, which the message names already.
func statProblem(err error, what string) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no such " + what
	}
	return "cannot be read: " + unwrapPath(err).Error()
}

// unwrapPath returns the cause of a path error alone, for messages that
// name the path themselves.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
