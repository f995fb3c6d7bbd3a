package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/agenttui/agenttui/internal/plural"
)

// parsePointer splits an RFC 6901 JSON pointer into its reference tokens,
// unescaped: "" is the whole value (no tokens), "/a~1b/0" is ["a/b", "0"].
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf(`pointer %q must be "" (the whole value) or start with /`, p)
	}
	parts := strings.Split(p[1:], "/")
	for i, part := range parts {
		// Only ~0 and ~1 are escapes; any other ~ would be read differently
		// by another implementation, so it is refused rather than guessed.
		for j := 0; j < len(part); j++ {
			if part[j] == '~' && (j+1 == len(part) || (part[j+1] != '0' && part[j+1] != '1')) {
				return nil, fmt.Errorf(`pointer %q: a ~ must be followed by 0 (for ~) or 1 (for /)`, p)
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// escapeToken escapes one reference token for a pointer.
func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// lookup returns the value the tokens name in v, a value decoded with
// decodeValue. When there is none, it says why, naming the step at fault.
func lookup(v any, tokens []string) (any, error) {
	at := ""
	for _, tok := range tokens {
		where := ""
		if at != "" {
			where = " under " + at
		}
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("no key %q%s", tok, where)
			}
			v = next
		case []any:
			i, ok := arrayIndex(tok)
			if !ok || i >= len(x) {
				return nil, fmt.Errorf("no element %q%s (%s)", tok, where, plural.Of(len(x), "element"))
			}
			v = x[i]
		default:
			if at == "" {
				return nil, fmt.Errorf("the value is %s, which has no %q", kindOf(v), tok)
			}
			return nil, fmt.Errorf("%s is %s, which has no %q", at, kindOf(v), tok)
		}
		at += "/" + escapeToken(tok)
	}
	return v, nil
}

// arrayIndex reads an array index token: digits without a leading zero.
// "-", the element past the end, names nothing to read.
func arrayIndex(tok string) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	for _, r := range tok {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil
}

// kindOf names the JSON type of a decoded value, with an article.
func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// decodeValue decodes one JSON value keeping numbers as json.Number, so
// that they compare exactly.
func decodeValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// jsonEqual reports whether two decoded values are equal as JSON: numbers
// as numbers (1, 1.0 and 1e0 are equal), objects whatever their key
// order, arrays element by element.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(x, y)
	default:
		// Strings, booleans and null compare as Go values.
		return a == b
	}
}

// numbersEqual compares two JSON numbers exactly, as rationals, so that
// neither large integers nor decimals lose precision.
func numbersEqual(a, b json.Number) bool {
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	if !ok1 || !ok2 {
		return a == b
	}
	return x.Cmp(y) == 0
}

// show returns v as compact JSON, cut to a length a message line can
// carry.
func show(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return clip(strings.TrimSuffix(b.String(), "\n"), 60)
}

// clip cuts s to at most n characters, marking the cut with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
