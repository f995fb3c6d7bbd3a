package tool

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Scope is what a call reads or writes: either Anything, or a set of absolute
// paths, each covering everything below it. Resources that are not files use
// the same form with a URI-like absolute prefix (/mem/<key>, /mcp/<server>),
// so one overlap rule serves them all.
//
// The zero Scope is empty: it names nothing and overlaps nothing.
type Scope struct {
	anything bool
	paths    []string
}

// Anything returns the scope that covers everything.
func Anything() Scope { return Scope{anything: true} }

// Paths returns the scope of the given paths. It is not normalized; see
// Normalized.
func Paths(paths ...string) Scope { return Scope{paths: slices.Clone(paths)} }

// IsAnything reports whether the scope covers everything.
func (s Scope) IsAnything() bool { return s.anything }

// IsEmpty reports whether the scope names nothing.
func (s Scope) IsEmpty() bool { return !s.anything && len(s.paths) == 0 }

// PathList returns a copy of the scope's paths; it is nil for Anything.
func (s Scope) PathList() []string { return slices.Clone(s.paths) }

// Overlaps reports whether the two scopes share anything: a path of one is
// equal to or below a path of the other, compared component by component, so
// /w/src and /w/srcx do not overlap. Anything overlaps every non-empty scope.
func (s Scope) Overlaps(o Scope) bool {
	if s.IsEmpty() || o.IsEmpty() {
		return false
	}
	if s.anything || o.anything {
		return true
	}
	for _, a := range s.paths {
		for _, b := range o.paths {
			if covers(a, b) || covers(b, a) {
				return true
			}
		}
	}
	return false
}

// covers reports whether path b is equal to or below path a, component by
// component. Both are expected to be clean.
func covers(a, b string) bool {
	if a == b || a == "/" {
		return true
	}
	return strings.HasPrefix(b, a) && b[len(a)] == '/'
}

// Normalized returns the scope in canonical form: each path cleaned of . and
// .. textually (symlinks are not resolved; tools declare resolved paths),
// sorted, without duplicates and without paths covered by another path of the
// set. A relative path makes the whole scope Anything, because what it names
// is not known.
func (s Scope) Normalized() Scope {
	if s.anything {
		return Anything()
	}
	if len(s.paths) == 0 {
		return Scope{}
	}
	cleaned := make([]string, 0, len(s.paths))
	for _, p := range s.paths {
		if !strings.HasPrefix(p, "/") {
			return Anything()
		}
		cleaned = append(cleaned, path.Clean(p))
	}
	slices.Sort(cleaned)
	cleaned = slices.Compact(cleaned)
	// After sorting, a covering path comes before everything it covers, and
	// its covered paths follow it in one run, so one pass suffices.
	out := cleaned[:0]
	for _, p := range cleaned {
		if len(out) > 0 && covers(out[len(out)-1], p) {
			continue
		}
		out = append(out, p)
	}
	return Scope{paths: out}
}

// String returns "anything", or the paths joined by commas.
func (s Scope) String() string {
	if s.anything {
		return "anything"
	}
	if len(s.paths) == 0 {
		return "nothing"
	}
	return strings.Join(s.paths, ", ")
}

// MarshalJSON encodes the scope as "anything" or an array of paths.
func (s Scope) MarshalJSON() ([]byte, error) {
	if s.anything {
		return []byte(`"anything"`), nil
	}
	if s.paths == nil {
		return []byte(`[]`), nil
	}
	return json.Marshal(s.paths)
}

// UnmarshalJSON decodes the form written by MarshalJSON.
func (s *Scope) UnmarshalJSON(data []byte) error {
	var word string
	if err := json.Unmarshal(data, &word); err == nil {
		if word != "anything" {
			return fmt.Errorf("tool: scope must be \"anything\" or an array of paths, not %q", word)
		}
		*s = Anything()
		return nil
	}
	var paths []string
	if err := json.Unmarshal(data, &paths); err != nil {
		return fmt.Errorf("tool: scope must be \"anything\" or an array of paths")
	}
	*s = Scope{paths: paths}
	return nil
}
