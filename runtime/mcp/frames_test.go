package mcp

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestIDScanner(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		id     string
		answer bool
	}{
		{`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"x"}]}}`, "5", true},
		{`{"result":{"id":9,"text":"a \"quoted\" } and , id"},"jsonrpc":"2.0","id":12}`, "12", true},
		{`{"id":"abc\"d","error":{"code":1}}`, `"abc\"d"`, true},
		{`{ "id" : 7 , "method":"notify"}`, "7", false},
		{`{"method":"notifications/message","params":{"id":3}}`, "", false},
	} {
		var s idScanner
		s.feed([]byte(tc.msg))
		if string(s.id) != tc.id || s.answer != tc.answer {
			t.Errorf("%s: id %q answer %v, want %q %v", tc.msg, s.id, s.answer, tc.id, tc.answer)
		}
	}
}

// TestFrameGuard passes ordinary messages on untouched and replaces one too
// large with an error answer to the same request, holding no more than the
// limit of it.
func TestFrameGuard(t *testing.T) {
	big := `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 5000) + `"}]},"jsonrpc":"2.0","id":42}`
	in := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + big + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	var sizes []int
	g := newFrameGuard(io.NopCloser(strings.NewReader(in)), 1000, func(id string, size int) { sizes = append(sizes, size) })
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0] != `{"jsonrpc":"2.0","id":1,"result":{}}` || lines[2] != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("lines %q", lines)
	}
	var e struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &e); err != nil || e.ID != 42 || e.Error.Code != oversizeCode ||
		!strings.Contains(e.Error.Message, "larger than the 1000 B a message may be") {
		t.Fatalf("replacement %s (%v)", lines[1], err)
	}
	if len(sizes) != 1 || sizes[0] != len(big) {
		t.Errorf("sizes %v", sizes)
	}
}
