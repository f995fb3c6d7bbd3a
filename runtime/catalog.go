// Package runtime runs a tool-using agent: it validates each model reply
// against the tool catalogue, works out from the calls' footprints which may
// run side by side, passes every call through the hooks (the approval
// policy), runs them, tells the model what happened in call order, and ends
// each run in a GoalOutcome. Everything it does is published as events.
package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/feedback"
	"github.com/agenttui/agenttui/runtime/tool"
)

// ErrUnreachable is the error for a call to a tool the catalogue does not
// declare. There is no fuzzy matching and no fallback: a tool nobody declared
// cannot be called.
var ErrUnreachable = errors.New("no such tool in the catalogue")

// RefusedError is returned by Catalog.Prepare for a call that cannot run. Its
// Feedback is the exact text the model reads about the call.
type RefusedError struct {
	// Feedback is what the model reads.
	Feedback string
	// Err is ErrUnreachable for an unknown tool, nil for bad arguments.
	Err error
}

// Error returns the feedback text.
func (e *RefusedError) Error() string { return e.Feedback }

// Unwrap returns ErrUnreachable for unknown tools.
func (e *RefusedError) Unwrap() error { return e.Err }

type entry struct {
	tool tool.Tool
	decl tool.Declaration
	// schema returns the tool's compiled schema: compiled when the
	// catalogue was built, or on its first call for a catalogue made by
	// NewLazyCatalog.
	schema func() (*feedback.Schema, error)
}

// Catalog is the set of tools the model may call. It is built once, compiling
// every tool's schema (or, made by NewLazyCatalog, each one when its tool is
// first called), and is the only way to prepare a call. The runtime's
// control tools (ask_user, finish, remember) are always part of it. A Catalog
// is immutable and safe for concurrent use.
type Catalog struct {
	entries map[string]entry
	names   []string
	decls   []tool.Declaration
}

// NewCatalog builds a catalogue of the given tools and the runtime's control
// tools. It fails when a name is empty or declared twice, when a tool takes a
// control tool's name, or when a schema does not compile.
func NewCatalog(tools ...tool.Tool) (*Catalog, error) {
	c, left := buildCatalog(false, tools...)
	if len(left) > 0 {
		return nil, left[0]
	}
	return c, nil
}

// NewLazyCatalog is NewCatalog for the program's own tools, whose schemas
// are known to compile: it checks the names now and compiles each schema
// when a call to its tool is first prepared. Compiling a schema checks it
// against its draft's meta-schema, which for a dozen tools takes several
// milliseconds, and a session built before the console's first frame
// should not spend them there. Should a schema not compile after all,
// every call to its tool is refused with the compiler's error.
func NewLazyCatalog(tools ...tool.Tool) (*Catalog, error) {
	c, left := buildCatalog(true, tools...)
	if len(left) > 0 {
		return nil, left[0]
	}
	return c, nil
}

// BuildCatalog builds a catalogue of the tools that can be declared and
// leaves out the others, returning one error for each tool left out. It
// suits tools from elsewhere, such as an MCP server with one malformed
// schema, whose other tools should still load.
func BuildCatalog(tools ...tool.Tool) (*Catalog, []error) {
	return buildCatalog(false, tools...)
}

// buildCatalog builds a catalogue, compiling every schema now unless lazy.
func buildCatalog(lazy bool, tools ...tool.Tool) (*Catalog, []error) {
	c := &Catalog{entries: map[string]entry{}}
	var left []error
	for _, t := range controlTools() {
		if err := c.add(t, lazy); err != nil {
			panic(err) // the control tools' own schemas are fixed and valid
		}
	}
	for _, t := range tools {
		if err := c.add(t, lazy); err != nil {
			left = append(left, err)
		}
	}
	slices.Sort(c.names)
	for _, n := range c.names {
		c.decls = append(c.decls, c.entries[n].decl)
	}
	return c, left
}

func (c *Catalog) add(t tool.Tool, lazy bool) error {
	decl := t.Declaration()
	if decl.Name == "" {
		return errors.New("catalog: a tool has no name")
	}
	if _, dup := c.entries[decl.Name]; dup {
		if IsControl(decl.Name) {
			return fmt.Errorf("catalog: %s is a control tool of the runtime and cannot be declared again", decl.Name)
		}
		return fmt.Errorf("catalog: tool %s is declared twice", decl.Name)
	}
	e := entry{tool: t, decl: decl}
	if lazy {
		e.schema = sync.OnceValues(func() (*feedback.Schema, error) { return compileSchema(decl) })
	} else {
		schema, err := compileSchema(decl)
		if err != nil {
			return fmt.Errorf("catalog: %w", err)
		}
		e.schema = func() (*feedback.Schema, error) { return schema, nil }
	}
	c.entries[decl.Name] = e
	c.names = append(c.names, decl.Name)
	return nil
}

// Digest returns a hash of every declaration (names, schemas, annotations),
// so a resumed session can tell whether its tools changed.
func (c *Catalog) Digest() string {
	h := sha256.New()
	for _, d := range c.decls {
		b, _ := json.Marshal(struct {
			Name        string
			Parameters  json.RawMessage
			Annotations tool.Annotations
			Untrusted   bool
		}{d.Name, d.Parameters, d.Annotations, d.Untrusted})
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Names returns the names of every tool, sorted.
func (c *Catalog) Names() []string { return slices.Clone(c.names) }

// Declarations returns every tool's declaration, sorted by name.
func (c *Catalog) Declarations() []tool.Declaration { return slices.Clone(c.decls) }

// Lookup returns the declaration of the tool called name.
func (c *Catalog) Lookup(name string) (tool.Declaration, bool) {
	e, ok := c.entries[name]
	return e.decl, ok
}

// Prepared is a call that passed the catalogue: its tool exists and its
// arguments fit the schema. Only Catalog.Prepare makes one.
type Prepared struct {
	// Call is the call as the model sent it.
	Call tool.Call
	// Args are the arguments the tool will receive.
	Args json.RawMessage
	// Touches is the call's normalized footprint.
	Touches tool.Touches
	// Decl is the tool's declaration.
	Decl tool.Declaration
	// Sandbox says how the call runs when its tool can confine it (see
	// tool.Sandboxer); nil otherwise.
	Sandbox *tool.Sandbox

	tool tool.Tool
	// origins and sources are where the arguments came from (see
	// CallInfo.Provenance and CallInfo.Sources), found when the reply
	// arrives.
	origins []tool.Origin
	sources func(argument string) ([]string, bool)
	// rewrittenBy names the hook that rewrote the arguments, and
	// rewrittenByWorkspace says it is the workspace's; hook is the
	// PreToolUse hooks' allow or ask for the approval policy; hookContext
	// is their context for the model, from contextOwners' hooks.
	rewrittenBy          string
	rewrittenByWorkspace bool
	hook                 *HookDecision
	hookContext          string
	contextOwners        feedback.HookOwners
}

// Prepare checks a call against the catalogue: the tool must exist (else a
// RefusedError wrapping ErrUnreachable) and the arguments must be a JSON
// object that fits the tool's schema (else a RefusedError). The returned call
// carries its normalized footprint.
func (c *Catalog) Prepare(call tool.Call) (*Prepared, error) {
	e, ok := c.entries[call.Name]
	if !ok {
		return nil, &RefusedError{Feedback: feedback.Unreachable(call.Name, c.names), Err: ErrUnreachable}
	}
	schema, err := e.schema()
	if err != nil {
		return nil, &RefusedError{Feedback: feedback.UncheckedArguments(call.Name, err)}
	}
	if refusal, refused := feedback.ArgumentsRefusal(schema, call.Arguments); refused {
		return nil, &RefusedError{Feedback: refusal}
	}
	p := &Prepared{Call: call, Args: json.RawMessage(strings.TrimSpace(call.Arguments)), Decl: e.decl, tool: e.tool}
	p.Touches = footprint(e, p.Args)
	p.Sandbox = sandboxOf(e, p.Args)
	return p, nil
}

// rewrite checks new arguments for an already prepared call, as a hook's
// RewriteArgs demands, and returns the call with them and its new footprint.
func (c *Catalog) rewrite(p *Prepared, args json.RawMessage) (*Prepared, error) {
	e := c.entries[p.Call.Name]
	schema, err := e.schema()
	if err != nil {
		return nil, &RefusedError{Feedback: feedback.UncheckedArguments(p.Call.Name, err)}
	}
	if refusal, refused := feedback.ArgumentsRefusal(schema, string(args)); refused {
		return nil, &RefusedError{Feedback: refusal}
	}
	q := *p
	q.Args = args
	q.Touches = footprint(e, args)
	q.Sandbox = sandboxOf(e, args)
	return &q, nil
}

// sandboxOf asks a tool that can confine its calls how this one runs.
func sandboxOf(e entry, args json.RawMessage) *tool.Sandbox {
	if s, ok := tool.As[tool.Sandboxer](e.tool); ok {
		return s.Sandbox(args)
	}
	return nil
}

// footprint asks the tool for a per-call footprint and falls back to its
// declared one. A tool that cannot footprint its arguments gets the widest
// footprint, so a mistake costs parallelism, never safety.
func footprint(e entry, args json.RawMessage) tool.Touches {
	if f, ok := tool.As[tool.Footprinter](e.tool); ok {
		t, err := f.Footprint(args)
		if err != nil {
			return tool.Writes(tool.Anything())
		}
		if e.decl.Untrusted && t.ReadsOnly() {
			// Untrusted tools never become Reads, whatever they compute.
			return tool.Independent()
		}
		return t.Normalized()
	}
	return e.decl.DefaultTouches().Normalized()
}

// schemas holds compiled schemas by tool name and parameters, so that a
// catalogue built again with the same tools (each task's, each change of an
// MCP server's list) does not compile them again. A compiled schema is
// immutable and safe to share. schemasMu guards schemas; the cache is
// emptied when it reaches maxCachedSchemas, which bounds it.
var (
	schemasMu sync.Mutex
	schemas   = map[string]*feedback.Schema{}
)

const maxCachedSchemas = 1024

func compileSchema(decl tool.Declaration) (*feedback.Schema, error) {
	key := decl.Name + "\x00" + string(decl.Parameters)
	schemasMu.Lock()
	s, ok := schemas[key]
	schemasMu.Unlock()
	if ok {
		return s, nil
	}
	s, err := feedback.CompileSchema(decl)
	if err != nil {
		return nil, err
	}
	schemasMu.Lock()
	if len(schemas) >= maxCachedSchemas {
		clear(schemas)
	}
	schemas[key] = s
	schemasMu.Unlock()
	return s, nil
}
