package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// What a scenario's objects look like, for errors about a value that is
// not one.
const (
	scenarioShape = `a scenario is a JSON object such as {"steps": [{"text": "Done."}]}`
	stepShape     = `a step is a JSON object such as {"text": "Done."}`
	taskShape     = `a task's script is a JSON object such as {"steps": [{"text": "Done."}]}`
)

// strictDecode decodes one JSON object into v, refusing unknown fields and
// trailing data. Its errors are for the person who wrote the file: what is
// wrong and in which field, with JSON's names for kinds of values (never
// Go's types), syntax errors by line and column, and for a value that is
// not an object at all, what kind it is and shape, which says what one
// looks like.
func strictDecode(data []byte, v any, shape string) error {
	switch kind := jsonKind(data); {
	case kind == "nothing":
		return fmt.Errorf("it is empty; %s", shape)
	case kind != "an object" && json.Valid(data):
		return fmt.Errorf("it is %s; %s", kind, shape)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field != "":
			return fmt.Errorf("field %s: expected %s, got %s", typeErr.Field, typeWords(typeErr.Type), valueWords(typeErr.Value))
		case errors.As(err, &syntaxErr):
			line, col := position(data, syntaxErr.Offset-1)
			return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, syntaxErr)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errors.New("invalid JSON: it ends in the middle of a value")
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return fmt.Errorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		default:
			return errors.New(strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// jsonKind names the kind of the JSON value data starts with, "nothing"
// when it is empty.
func jsonKind(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}

// typeWords names what a Go type takes from JSON.
func typeWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another kind of value"
}

// valueWords words the kind of value encoding/json found ("number 1.5").
func valueWords(v string) string {
	kind, detail, _ := strings.Cut(v, " ")
	words := map[string]string{"string": "a string", "number": "a number", "bool": "true or false", "array": "an array", "object": "an object"}[kind]
	switch {
	case words == "":
		return v
	case detail != "":
		return words + " (" + detail + ")"
	}
	return words
}

// position returns the line and column, from 1, of the byte at off.
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	return bytes.Count(before, []byte("\n")) + 1, int(off) - bytes.LastIndexByte(before, '\n')
}
