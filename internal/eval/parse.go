package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/internal/txtar"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// The wire forms of a case and its parts. Each nested part is decoded on
// its own, so that an unknown field is reported with the part it is in:
// the JSON decoder names the field but not where it was.
type (
	caseWire struct {
		Name      string          `json:"name"`
		Goal      string          `json:"goal"`
		Workspace string          `json:"workspace"`
		Model     string          `json:"model"`
		Mode      string          `json:"mode"`
		Answers   []string        `json:"answers"`
		Expect    json.RawMessage `json:"expect"`
	}
	expectWire struct {
		Status     string            `json:"status"`
		Data       []json.RawMessage `json:"data"`
		Files      []json.RawMessage `json:"files"`
		MaxTurns   *int              `json:"max_turns"`
		MaxTokens  *int              `json:"max_tokens"`
		MaxCostUSD *float64          `json:"max_cost_usd"`
	}
	dataWire struct {
		Pointer  *string         `json:"pointer"`
		Equals   json.RawMessage `json:"equals"`
		Contains json.RawMessage `json:"contains"`
	}
	fileWire struct {
		Path     string  `json:"path"`
		Exists   *bool   `json:"exists"`
		Contains *string `json:"contains"`
	}
)

// defaultMode is a case's approval mode when the suite names none: nobody
// can approve a call during an eval, so anything stricter would hold back
// every write.
const defaultMode = "auto"

// parseCase decodes and checks the n-th case of a suite file in folder dir,
// reading its workspace and scenario file. Its errors start with the case:
// its name when it has one, else its number.
func parseCase(raw json.RawMessage, n int, dir string) (*Case, error) {
	label := fmt.Sprintf("case %d", n)
	var named struct {
		Name any `json:"name"`
	}
	if json.Unmarshal(raw, &named) == nil {
		if s, ok := named.Name.(string); ok && strings.TrimSpace(s) != "" {
			label = fmt.Sprintf("case %q", s)
		}
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", label, fmt.Sprintf(format, args...))
	}
	var w caseWire
	if problem := decodeStrict(raw, &w, "a JSON object"); problem != "" {
		return nil, fail("%s", problem)
	}
	switch {
	case strings.TrimSpace(w.Goal) == "":
		return nil, fmt.Errorf(`%s has no "goal"`, label)
	case strings.TrimSpace(w.Name) == "":
		return nil, fmt.Errorf(`%s has no "name"`, label)
	case strings.TrimSpace(w.Model) == "":
		return nil, fmt.Errorf(`%s has no "model": give a scenario file (a path ending in .json) or a model such as openai:NAME`, label)
	}
	c := &Case{Name: w.Name, Goal: w.Goal, Mode: w.Mode, Answers: w.Answers}
	if c.Mode == "" {
		c.Mode = defaultMode
	}
	if _, err := approval.ParseMode(c.Mode); err != nil {
		return nil, fail("%v", err)
	}
	for i, a := range w.Answers {
		if strings.TrimSpace(a) == "" {
			return nil, fail("answer %d is empty", i+1)
		}
	}
	if err := c.setModel(w.Model, dir); err != nil {
		return nil, fail("%v", err)
	}
	if w.Workspace != "" {
		a, err := readWorkspace(w.Workspace, dir)
		if err != nil {
			return nil, fail("workspace %s: %v", w.Workspace, err)
		}
		c.Workspace = a
	}
	exp, err := parseExpect(w.Expect)
	if err != nil {
		return nil, fail("%v", err)
	}
	c.Expect = exp
	return c, nil
}

// setModel sets the case's model from the suite's "model": a scenario
// file, loaded now so a broken one is found before anything runs, or a
// provider's model spec.
func (c *Case) setModel(spec, dir string) error {
	if strings.HasSuffix(spec, ".json") {
		path := resolve(spec, dir)
		if _, err := model.LoadScenario(path); err != nil {
			// The scenario's own error names its file.
			return fmt.Errorf("model: %v", err)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return fmt.Errorf("model %s: %v", spec, err)
		}
		c.Model, c.Scenario = abs, true
		return nil
	}
	_, name, _ := strings.Cut(spec, ":")
	if !providers.IsSpec(spec) || strings.TrimSpace(name) == "" {
		return fmt.Errorf("model %q is neither a scenario file (a path ending in .json) nor a model spec (openai:NAME or anthropic:NAME)", spec)
	}
	c.Model = spec
	return nil
}

// resolve returns path, which a suite wrote relative to its file's folder
// dir, as a path from here.
func resolve(path, dir string) string {
	path = filepath.FromSlash(path)
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// readWorkspace reads and parses the txtar archive a case names.
func readWorkspace(path, dir string) (*txtar.Archive, error) {
	full := resolve(path, dir)
	if info, err := os.Stat(full); err == nil && info.IsDir() {
		return nil, errors.New("is a folder, not a txtar archive")
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, errors.New(statProblem(err, "file"))
	}
	return txtar.Parse(data)
}

// parseExpect decodes and checks a case's "expect"; absent, it asks for a
// succeeded run.
func parseExpect(raw json.RawMessage) (Expect, error) {
	e := Expect{Status: runtime.StatusSucceeded}
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return e, nil
	}
	var w expectWire
	if problem := decodeStrict(raw, &w, "a JSON object"); problem != "" {
		return e, fmt.Errorf("expect: %s", problem)
	}
	switch runtime.Status(w.Status) {
	case "":
	case runtime.StatusSucceeded, runtime.StatusFailed, runtime.StatusRefused:
		e.Status = runtime.Status(w.Status)
	default:
		return e, fmt.Errorf("expect: status %q is not one of succeeded, failed, refused", w.Status)
	}
	if len(w.Data) > 0 && e.Status != runtime.StatusSucceeded {
		return e, fmt.Errorf(`data checks need "status": "succeeded", since only a succeeded run extracts data`)
	}
	for i, raw := range w.Data {
		d, err := parseDataCheck(raw)
		if err != nil {
			return e, fmt.Errorf("data check %d%v", i+1, err)
		}
		e.Data = append(e.Data, d)
	}
	for i, raw := range w.Files {
		f, err := parseFileCheck(raw)
		if err != nil {
			return e, fmt.Errorf("file check %d%v", i+1, err)
		}
		e.Files = append(e.Files, f)
	}
	for _, b := range []struct {
		name string
		v    *int
		to   *int
	}{{"max_turns", w.MaxTurns, &e.MaxTurns}, {"max_tokens", w.MaxTokens, &e.MaxTokens}} {
		if b.v == nil {
			continue
		}
		if *b.v < 1 {
			return e, fmt.Errorf("expect: %s must be at least 1, not %d", b.name, *b.v)
		}
		*b.to = *b.v
	}
	if w.MaxCostUSD != nil {
		if !(*w.MaxCostUSD > 0) {
			return e, fmt.Errorf("expect: max_cost_usd must be more than 0, not %g", *w.MaxCostUSD)
		}
		e.MaxCostUSD = *w.MaxCostUSD
	}
	return e, nil
}

// parseDataCheck decodes and checks one data check. Its errors start with
// ": " or " ", so that they read on from "data check N".
func parseDataCheck(raw json.RawMessage) (DataCheck, error) {
	var w dataWire
	if problem := decodeStrict(raw, &w, "a JSON object"); problem != "" {
		return DataCheck{}, fmt.Errorf(": %s", problem)
	}
	if w.Pointer == nil {
		return DataCheck{}, errors.New(` has no "pointer" (use "" for the whole value)`)
	}
	if _, err := parsePointer(*w.Pointer); err != nil {
		return DataCheck{}, fmt.Errorf(": %v", err)
	}
	switch {
	case w.Equals != nil && w.Contains != nil:
		return DataCheck{}, errors.New(` has both "equals" and "contains"`)
	case w.Equals == nil && w.Contains == nil:
		return DataCheck{}, errors.New(` needs "equals" or "contains"`)
	}
	return DataCheck{Pointer: *w.Pointer, Equals: w.Equals, Contains: w.Contains}, nil
}

// parseFileCheck decodes and checks one file check. Its errors start with
// ": " or " ", so that they read on from "file check N".
func parseFileCheck(raw json.RawMessage) (FileCheck, error) {
	var w fileWire
	if problem := decodeStrict(raw, &w, "a JSON object"); problem != "" {
		return FileCheck{}, fmt.Errorf(": %s", problem)
	}
	switch {
	case w.Path == "":
		return FileCheck{}, errors.New(` has no "path"`)
	case strings.Contains(w.Path, `\`) || !filepath.IsLocal(filepath.FromSlash(w.Path)):
		return FileCheck{}, fmt.Errorf(": path %q must be relative and stay inside the workspace", w.Path)
	case w.Exists == nil && w.Contains == nil:
		return FileCheck{}, fmt.Errorf(` (%s) needs "exists" or "contains"`, w.Path)
	case w.Exists != nil && !*w.Exists && w.Contains != nil:
		return FileCheck{}, fmt.Errorf(` (%s) has "exists": false and "contains", which cannot both hold`, w.Path)
	}
	return FileCheck{Path: w.Path, Exists: w.Exists, Contains: w.Contains}, nil
}

// decodeStrict decodes one JSON value into v, refusing unknown fields, and
// returns what is wrong in words, or "" when nothing is. want says what
// the value as a whole should be, for a value of the wrong type.
func decodeStrict(data []byte, v any, want string) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return ""
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return fmt.Sprintf("want %s, got %s", want, typeErr.Value)
	case errors.As(err, &typeErr):
		return fmt.Sprintf("field %s: want %s, got %s", typeErr.Field, typeWords(typeErr.Type), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// typeWords says what a value of Go type t looks like in JSON.
func typeWords(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}
