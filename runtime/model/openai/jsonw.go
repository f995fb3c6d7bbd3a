package openai

import (
	"bytes"
	"strconv"

	"github.com/agenttui/agenttui/runtime/model/internal/jsonw"
)

// The Responses API's request body is written by hand (with jsonw) rather
// than by encoding/json: a reasoning item must go back exactly as it came,
// which encoding/json would validate and compact again on every request
// (its cost grows with the conversation), and writing it in one pass keeps
// a long session's request cheap to build and its bytes the same every
// time.

// appendInt appends n.
func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// appendObject appends raw compacted when it is a JSON object, and
// otherwise alt.
func appendObject(b []byte, raw []byte, alt string) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return append(b, alt...)
	}
	return jsonw.AppendCompact(b, raw, alt)
}

// isObjectText reports, cheaply, whether s looks like a JSON object: what a
// reasoning item kept from the wire is, having been checked whole when it
// arrived.
func isObjectText(s string) bool {
	return len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}'
}
