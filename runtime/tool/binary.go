package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// IsBinary reports whether output is binary rather than text: it holds a
// NUL byte, or most of it is not UTF-8.
func IsBinary(output string) bool {
	if strings.IndexByte(output, 0) >= 0 {
		return true
	}
	if utf8.ValidString(output) {
		return false
	}
	sample := output[:min(len(output), 8<<10)]
	invalid := 0
	for i := 0; i < len(sample); {
		r, n := utf8.DecodeRuneInString(sample[i:])
		if r == utf8.RuneError && n == 1 {
			invalid++
		}
		i += n
	}
	return invalid*100 > len(sample)*30
}

// DescribeBinary is what the model reads in place of a binary output: its
// size, a short hex head, and how to look into it, rather than mojibake.
// output is its start, or all of it; total is its whole size.
func DescribeBinary(output string, total int64) string {
	head := output[:min(len(output), 16)]
	var hex strings.Builder
	for i := 0; i < len(head); i++ {
		if i > 0 {
			hex.WriteByte(' ')
		}
		fmt.Fprintf(&hex, "%02x", head[i])
	}
	if total > int64(len(head)) {
		hex.WriteString(" …")
	}
	return fmt.Sprintf("[The output is binary, not text (%s), so it is not shown. Its first bytes, in hex: %s; "+
		"to look into it, have it written to a file and inspect that with file, xxd | head or strings | head.]", FormatSize(total), hex.String())
}
