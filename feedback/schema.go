package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agenttui/agenttui/runtime/tool"
)

// maxProblems is how many schema problems a refusal names before it says how
// many more there are.
const maxProblems = 5

// Schema is a tool's argument schema, compiled once when the catalogue is
// built and used for every call to the tool.
type Schema struct {
	tool     string
	compiled *jsonschema.Schema
	// declared lists the top-level properties the schema names, sorted.
	declared []string
	// strict is true when arguments the schema does not name are refused:
	// the schema does not allow additional properties.
	strict bool
}

// ErrExternalRef is returned when a schema refers to a document outside
// itself. Schemas come from tools, sometimes from remote servers, and loading
// files or URLs on their behalf is not something a tool may ask for.
var ErrExternalRef = errors.New("schemas may not load documents from files or the network")

// CompileSchema compiles the parameters schema of decl. The schema must be a
// JSON object describing an object; references to files or URLs are refused.
func CompileSchema(decl tool.Declaration) (*Schema, error) {
	params := decl.Parameters
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage(`{"type":"object"}`)
	}
	var doc map[string]any
	if err := json.Unmarshal(params, &doc); err != nil {
		return nil, fmt.Errorf("tool %s: parameters schema is not a JSON object: %v", decl.Name, err)
	}
	if t, ok := doc["type"]; ok && t != "object" {
		return nil, fmt.Errorf("tool %s: parameters schema must describe an object, not %v", decl.Name, t)
	}
	c := jsonschema.NewCompiler()
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("%w (%s)", ErrExternalRef, url)
	}
	const url = "agenttui:///parameters.json"
	if err := c.AddResource(url, bytes.NewReader(params)); err != nil {
		return nil, fmt.Errorf("tool %s: parameters schema: %v", decl.Name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: parameters schema: %v", decl.Name, err)
	}
	s := &Schema{tool: decl.Name, compiled: compiled}
	if props, ok := doc["properties"].(map[string]any); ok {
		for name := range props {
			s.declared = append(s.declared, name)
		}
		sort.Strings(s.declared)
	}
	extra, has := doc["additionalProperties"]
	s.strict = !has || extra == false
	if _, hasPatterns := doc["patternProperties"]; hasPatterns {
		s.strict = false
	}
	return s, nil
}

// Declared returns the names of the top-level arguments the schema declares.
func (s *Schema) Declared() []string { return slices.Clone(s.declared) }

// ArgumentsRefusal says why raw arguments do not fit the tool whose compiled
// schema is s, as the text the model reads for the call; ok is false when they
// fit as far as the schema checks (the tool checks the rest). The arguments
// are refused when they are not a JSON object (InvalidArguments), when they
// name an argument the schema does not declare, or when they fail the schema,
// in which case up to five problems are named.
func ArgumentsRefusal(s *Schema, raw string) (refusal string, refused bool) {
	var value any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&value); err != nil || dec.More() {
		return InvalidArguments(s.tool, raw), true
	}
	if _, err := dec.Token(); err != io.EOF {
		return InvalidArguments(s.tool, raw), true
	}
	obj, isObject := value.(map[string]any)
	if !isObject {
		return InvalidArguments(s.tool, raw), true
	}
	if s.strict {
		var unknown []string
		for name := range obj {
			if !slices.Contains(s.declared, name) {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return unknownArguments(s, unknown), true
		}
	}
	err := s.compiled.Validate(value)
	if err == nil {
		return "", false
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return UncheckedArguments(s.tool, err), true
	}
	return schemaProblems(s.tool, verr), true
}

// UncheckedArguments is what the model reads about a call to toolName whose
// arguments could not be checked against the tool's schema, for the reason
// err.
func UncheckedArguments(toolName string, err error) string {
	return fmt.Sprintf("The call to %s did not run: its arguments could not be checked: %v", toolName, err)
}

func unknownArguments(s *Schema, unknown []string) string {
	noun := "an argument"
	if len(unknown) > 1 {
		noun = "arguments"
	}
	declared := "it takes no arguments"
	if len(s.declared) > 0 {
		declared = "the arguments it takes are: " + strings.Join(s.declared, ", ")
	}
	return fmt.Sprintf("The call to %s did not run: it was given %s that %s does not take: %s; %s. "+
		"Call it again with only those.", s.tool, noun, s.tool, strings.Join(unknown, ", "), declared)
}

// schemaProblems lists the leaf problems of a validation error, sorted by
// where in the arguments they are, at most maxProblems of them.
func schemaProblems(toolName string, verr *jsonschema.ValidationError) string {
	type problem struct{ pointer, message string }
	var problems []problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			pointer := e.InstanceLocation
			if pointer == "" {
				pointer = "/"
			}
			problems = append(problems, problem{pointer, e.Message})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(verr)
	sort.SliceStable(problems, func(i, j int) bool {
		if problems[i].pointer != problems[j].pointer {
			return problems[i].pointer < problems[j].pointer
		}
		return problems[i].message < problems[j].message
	})
	problems = slices.CompactFunc(problems, func(a, b problem) bool { return a == b })
	var b strings.Builder
	fmt.Fprintf(&b, "The call to %s did not run: its arguments do not match the tool's schema:", toolName)
	for i, p := range problems {
		if i == maxProblems {
			fmt.Fprintf(&b, "\nand %d more", len(problems)-maxProblems)
			break
		}
		fmt.Fprintf(&b, "\n%s: %s", p.pointer, p.message)
	}
	b.WriteString("\nFix the arguments and call it again.")
	return b.String()
}
