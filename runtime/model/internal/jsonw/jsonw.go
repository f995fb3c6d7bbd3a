// Package jsonw writes the JSON of a model request by hand, for the
// providers whose request bodies are built in one pass rather than through
// encoding/json: a long session's body must be cheap to build (a reply's
// reasoning and every earlier call go back in each request), and its bytes
// must be the same every time it is built, so that a resumed session sends
// what the uninterrupted one would have.
package jsonw

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// hex are the digits of a \u escape.
const hex = "0123456789abcdef"

// plain marks the ASCII bytes a JSON string holds as they are: all but
// the control characters, the quote and the backslash.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString writes s as a JSON string, escaped as encoding/json escapes
// it except that <, > and & are left as they are: quotes, backslashes and
// control characters escaped, U+2028 and U+2029 escaped for JavaScript, and
// bytes that are not UTF-8 replaced by U+FFFD. A string that is valid
// UTF-8, which is nearly every string, is copied in runs: eight bytes at a
// time while none needs a look.
func AppendString(w []byte, s string) []byte {
	w = append(w, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		for i+8 <= len(s) && !special(word(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			if !plain[c] {
				w = append(w, s[start:i]...)
				w = appendEscape(w, c)
				start = i + 1
			}
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9):
			// U+2028 and U+2029 end a line in JavaScript.
			w = append(w, s[start:i]...)
			w = append(w, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf])
			i += 2
			start = i + 1
		default:
			// A character of more than one byte is copied whole; the
			// first byte that is not UTF-8 hands the rest to the slow
			// path, which replaces such bytes.
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return appendStringSlow(append(w, s[start:i]...), s[i:])
			}
			i += size - 1
		}
	}
	w = append(w, s[start:]...)
	return append(w, '"')
}

// word returns the eight bytes of s from i as one little-endian number.
func word(s string, i int) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// special reports whether any of the eight bytes of x needs a look: a
// control character, a quote, a backslash, or a byte of a multi-byte
// character.
func special(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := (x - ones*0x20) &^ x
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	return (control|(quote-ones)&^quote|(backslash-ones)&^backslash|x)&highs != 0
}

// appendStringSlow is appendString for a string that is not valid UTF-8 or
// holds U+2028 or U+2029, rune by rune; w already has the opening quote.
func appendStringSlow(w []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !plain[c] {
				w = append(w, s[start:i]...)
				w = appendEscape(w, c)
				start = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			w = append(w, s[start:i]...)
			w = append(w, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			w = append(w, s[start:i]...)
			w = append(w, '\\', 'u', '2', '0', '2', hex[r&0xf])
			start = i + size
		}
		i += size
	}
	w = append(w, s[start:]...)
	return append(w, '"')
}

// appendEscape writes the escape of an ASCII byte that is not plain.
func appendEscape(w []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(w, '\\', c)
	case '\n':
		return append(w, '\\', 'n')
	case '\r':
		return append(w, '\\', 'r')
	case '\t':
		return append(w, '\\', 't')
	case '\b':
		return append(w, '\\', 'b')
	case '\f':
		return append(w, '\\', 'f')
	}
	return append(w, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// AppendCompact writes the JSON object src without the white space between
// its tokens, so that a call's arguments are sent back the same however the
// model spaced them; alt is written instead when src is not valid JSON.
func AppendCompact(w []byte, src []byte, alt string) []byte {
	buf := bytes.NewBuffer(w)
	if json.Compact(buf, src) != nil {
		return append(w, alt...)
	}
	return buf.Bytes()
}
