package jsonw

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzAppendString checks the hand-written JSON string encoder against
// encoding/json (with HTML escaping off): the same bytes for any string,
// valid UTF-8 or not.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `a "quoted" \ back`, "tab\tnew\nline\rcr\x00\x1f\x7f",
		"caf\xe9 \xff\xfe", "\u2028line\u2029para", "中文 and émoji 🙂", "<b>&amp;</b>",
		strings.Repeat("x", 7) + "\"" + strings.Repeat("y", 9), strings.Repeat("0123456789abcdef", 9) + "\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got := AppendString(nil, s)
		if string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("AppendString(%q)\n= %s\nwant %s", s, got, want.String())
		}
	})
}

func TestAppendCompact(t *testing.T) {
	if got := string(AppendCompact([]byte("x"), []byte("{ \"a\" : [1, 2] }"), "{}")); got != `x{"a":[1,2]}` {
		t.Errorf("compacted %s", got)
	}
	if got := string(AppendCompact([]byte("x"), []byte("{ \"a\" : "), "{}")); got != "x{}" {
		t.Errorf("not JSON: %s", got)
	}
}
