package runtime

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/runtime/provenance"
	"github.com/agenttui/agenttui/runtime/tool"
)

// DefaultUntrusted says which results are untrusted when Agent.Untrusted is
// not set: web pages, MCP tools' results, and workspace files that were not
// in the workspace as they are when the session began (a fetched or cloned
// file, one the agent wrote), however they were read: by read_file and the
// like, or by a command that named them (Fresh on a shell source). The
// person's words, agenttui's own text, other shell output and the
// workspace's own files are trusted.
func DefaultUntrusted(s tool.Source) bool {
	switch s.Kind {
	case tool.SourceWeb, tool.SourceMCP:
		return true
	case tool.SourceWorkspace, tool.SourceShell:
		return s.Fresh
	}
	return false
}

// untrusted reports whether results from s are untrusted. A result whose
// call carried untrusted text in its arguments (Tainted) is, whatever the
// configuration says of its kind: what the command printed may be that
// text.
func (a *Agent) untrusted(s tool.Source) bool {
	if s.Tainted {
		return true
	}
	if a.Untrusted != nil {
		return a.Untrusted(s)
	}
	return DefaultUntrusted(s)
}

// echoes reports whether a result from s can reproduce text the session
// read before, so that its trusted parts must not make that text trusted:
// anything but the person's words, agenttui's own and the workspace's
// files as they were when the session began.
func echoes(s tool.Source) bool {
	switch s.Kind {
	case tool.SourcePerson, tool.SourceAgenttui:
		return false
	case tool.SourceWorkspace:
		return s.Fresh
	}
	return true
}

// origins is a session's record of what the model has read and where it
// came from, which finds where a call's arguments came from. Texts learned
// before the session runs (read back from its journal) wait in pending
// until a run knows which sources are untrusted.
type origins struct {
	mu        sync.Mutex // guards index, untrusted, pending and seeded
	index     *provenance.Index
	untrusted func(tool.Source) bool
	pending   []learned
	seeded    map[string]bool // agenttui's own texts already indexed
}

// learned is a text the model read, and where it came from.
type learned struct {
	text string
	ref  provenance.Ref
}

// originsOf returns the session's record, making it on first use.
func (s *Session) originsOf() *origins {
	s.originsOnce.Do(func() {
		if s.origins == nil {
			s.origins = &origins{}
		}
	})
	return s.origins
}

// learn records a text the model read from ref's source.
func (s *Session) learn(text string, ref provenance.Ref) {
	if strings.TrimSpace(text) == "" {
		return
	}
	o := s.originsOf()
	o.mu.Lock()
	if o.index == nil {
		o.pending = append(o.pending, learned{text: text, ref: ref})
		o.mu.Unlock()
		return
	}
	idx, untrusted := o.index, o.untrusted(ref.Source)
	o.mu.Unlock()
	// Indexing a long page takes a while; the index has a lock of its
	// own, so other calls are traced meanwhile.
	add(idx, text, ref, untrusted)
}

// add indexes a text the model read. A trusted one that can reproduce
// earlier text (a command's output) is indexed as untrusted where it holds
// untrusted text, so that echoing a page does not launder it.
func add(idx *provenance.Index, text string, ref provenance.Ref, untrusted bool) {
	if !untrusted && echoes(ref.Source) {
		idx.AddEcho(text, ref)
		return
	}
	idx.Add(text, ref, untrusted)
}

// ReplayResult records the result of a call read back from a journal, so
// that a resumed session still knows where later calls' arguments came
// from.
func (s *Session) ReplayResult(text string, ref provenance.Ref) { s.learn(text, ref) }

// seedOrigins readies the session's record for a run of a: what counts as
// untrusted, what was learned before, and agenttui's own text (the system
// prompt and the local tools' descriptions), which is trusted.
func (r *run) seedOrigins() {
	a, s := r.agent, r.session
	o := s.originsOf()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.index == nil {
		o.index = provenance.New()
	}
	o.untrusted = a.untrusted
	if o.seeded == nil {
		o.seeded = map[string]bool{}
	}
	own := []string{a.system()}
	for _, d := range r.cat.Declarations() {
		if !d.Untrusted {
			// An MCP server's descriptions come from outside: they are
			// not agenttui's words.
			own = append(own, d.Description)
		}
	}
	for _, text := range own {
		if text == "" || o.seeded[text] {
			continue
		}
		o.seeded[text] = true
		// A task's system prompt starts with its parent's, indexed
		// already: only what it adds is indexed again.
		for seen := range o.seeded {
			if seen != text && len(seen) > len(text)/2 && strings.HasPrefix(text, seen) {
				text = text[len(seen):]
				break
			}
		}
		o.index.Add(text, provenance.Ref{Source: tool.Source{Kind: tool.SourceAgenttui}}, false)
	}
	// What was learned before comes after agenttui's own text, as it did
	// when the session first ran, so that an echo in it is judged alike.
	for _, l := range o.pending {
		add(o.index, l.text, l.ref, o.untrusted(l.ref.Source))
	}
	o.pending = nil
}

// shareOrigins makes s (a task's session) use parent's record: a task's
// agent reads the same workspace and web, and what it reads counts for the
// session's later calls too.
func (s *Session) shareOrigins(parent *Session) {
	o := parent.originsOf()
	s.originsOnce.Do(func() { s.origins = o })
}

// trace finds where the arguments of a call came from: the spans of its
// string arguments found in untrusted results, and a function that gives,
// for a top-level string argument, the kinds of source it was found in
// (worked out only when a protected-argument rule asks).
func (s *Session) trace(name string, args json.RawMessage) ([]tool.Origin, func(string) ([]string, bool)) {
	o := s.originsOf()
	o.mu.Lock()
	idx := o.index
	o.mu.Unlock()
	if idx == nil || IsControl(name) {
		return nil, nil
	}
	sources := func(arg string) ([]string, bool) {
		var obj map[string]json.RawMessage
		var str string
		if json.Unmarshal(args, &obj) != nil || json.Unmarshal(obj[arg], &str) != nil {
			return nil, false
		}
		return idx.Sources(str), true
	}
	if idx.Untrusted() == 0 {
		// Nothing untrusted read yet: nothing can have come from it.
		return nil, sources
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return nil, sources
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []tool.Origin
	for _, k := range keys {
		walkStrings(obj[k], "", func(ptr, str string) {
			if ptr == "" {
				ptr = k
			} else {
				ptr = "/" + pointerToken(k) + ptr
			}
			out = append(out, origin(ptr, str, idx)...)
		})
	}
	return out, sources
}

// origin turns the untrusted spans of one argument's value into origins.
func origin(arg, value string, idx *provenance.Index) []tool.Origin {
	var out []tool.Origin
	for _, sp := range idx.Trace(value) {
		out = append(out, tool.Origin{Argument: arg, Start: sp.Start, End: sp.End, Turn: sp.Ref.Turn, Index: sp.Ref.Index,
			Tool: sp.Ref.Tool, Task: slices.Clone(sp.Ref.Task), Source: sp.Ref.Source.Label()})
	}
	return out
}

// walkStrings calls f for every string below raw, with its JSON pointer.
func walkStrings(raw json.RawMessage, ptr string, f func(ptr, value string)) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			f(ptr, s)
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkStrings(obj[k], ptr+"/"+pointerToken(k), f)
		}
	case '[':
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil {
			return
		}
		for i, v := range arr {
			walkStrings(v, ptr+"/"+strconv.Itoa(i), f)
		}
	}
}

// pointerToken escapes a key for a JSON pointer.
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// sourceOf says where a call's result came from: what its tool said, else
// what its kind of tool implies; nil for a result that is agenttui's or
// the tool's own words (control tools, write_file), which the model did
// not read from anywhere.
func sourceOf(p *Prepared, ret tool.Return, turn, index int) *tool.Source {
	s := toolSource(p, ret, turn, index)
	if s != nil && len(p.origins) > 0 && echoes(*s) {
		// The call's arguments carried untrusted text: what it printed
		// may be that text, put together anew (a command that joins a
		// page's pieces).
		s.Tainted = true
	}
	return s
}

// toolSource is sourceOf before the call's own provenance is considered.
func toolSource(p *Prepared, ret tool.Return, turn, index int) *tool.Source {
	if ret.Source != nil {
		s := *ret.Source
		return &s
	}
	name := p.Call.Name
	switch {
	case IsControl(name):
		return nil
	case name == Task:
		return &tool.Source{Kind: tool.SourceTask, Name: TaskID(turn, index)}
	case p.Decl.Untrusted || strings.HasPrefix(p.Decl.Source, "tool://"):
		server, t, _ := strings.Cut(strings.TrimPrefix(p.Decl.Source, "tool://"), "/")
		if t == "" {
			server, t, _ = strings.Cut(name, "__")
		}
		return &tool.Source{Kind: tool.SourceMCP, Name: server + "/" + t}
	}
	// A local tool that says nothing of its output's source writes its own
	// words (write_file's report): nothing to trace arguments to.
	return nil
}

// learn records what the model reads of c's result, and where it came from,
// so that later calls' arguments can be traced to it.
func (r *replyRun) learn(c *callRun) {
	if c.source == nil || r.sess == nil {
		return
	}
	r.sess.learn(c.result.Content, provenance.Ref{Turn: r.turn, Index: c.index, Tool: c.p.Call.Name,
		Task: r.agent.task, Source: *c.source})
}
