package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// The readers of JSON values below return errors that say what was
// expected and what was found, for the Problem of an Error.

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// objectOf decodes a JSON object, refusing duplicate-free garbage such as
// trailing data.
func objectOf(raw json.RawMessage) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil || m == nil {
		if err != nil && !strings.Contains(err.Error(), "cannot unmarshal") {
			return nil, err
		}
		return nil, fmt.Errorf("expected an object, got %s", kindOf(raw))
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the object")
	}
	return m, nil
}

func boolOf(raw json.RawMessage) (bool, error) {
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, fmt.Errorf("expected true or false, got %s", kindOf(raw))
	}
	return b, nil
}

func stringOf(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("expected a string, got %s", kindOf(raw))
	}
	return s, nil
}

func stringMap(raw json.RawMessage) (map[string]string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("expected an object of argument patterns, got %s", kindOf(raw))
	}
	out := map[string]string{}
	for _, k := range sortedKeys(m) {
		s, err := stringOf(m[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		out[k] = s
	}
	return out, nil
}

func positiveInt(raw json.RawMessage) (int, error) {
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("expected a whole number, got %s", kindOf(raw))
	}
	if n != float64(int(n)) || n < 1 {
		return 0, fmt.Errorf("must be a whole number of at least 1, not %s", strings.TrimSpace(string(raw)))
	}
	return int(n), nil
}

// countOf reads a whole number of at least 0.
func countOf(raw json.RawMessage) (int, error) {
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("expected a whole number, got %s", kindOf(raw))
	}
	if n != float64(int(n)) || n < 0 {
		return 0, fmt.Errorf("must be a whole number of at least 0, not %s", strings.TrimSpace(string(raw)))
	}
	return int(n), nil
}

func duration(raw json.RawMessage) (time.Duration, error) {
	s, err := stringOf(raw)
	if err != nil {
		return 0, errors.New(`expected a duration such as "15m" or "90s"`)
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf(`%q is not a positive duration such as "15m" or "90s"`, s)
	}
	return d, nil
}

// kindOf names the JSON type of raw for error messages.
func kindOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
