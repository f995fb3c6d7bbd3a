package eval

import (
	"slices"
	"testing"
)

func TestParsePointer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"/", []string{""}},
		{"/a", []string{"a"}},
		{"/a/0/b", []string{"a", "0", "b"}},
		{"/a~1b", []string{"a/b"}},
		{"/m~0n", []string{"m~n"}},
		// ~01 is ~ then 1, not /: ~1 is unescaped before ~0 would make one.
		{"/~01", []string{"~1"}},
		{"/~10", []string{"/0"}},
		{"//", []string{"", ""}},
		{"/ ", []string{" "}},
	} {
		got, err := parsePointer(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parsePointer(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"a", "a/b", "/~", "/a~", "/~2", "/a~x/b"} {
		if _, err := parsePointer(bad); err == nil {
			t.Errorf("parsePointer(%q) took it, want an error", bad)
		}
	}
}

// The examples of RFC 6901, section 5.
func TestLookupRFCExamples(t *testing.T) {
	doc, err := decodeValue([]byte(`{
		"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3,
		"g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ptr, want string }{
		{"", `{"":0," ":7,"a/b":1,"c%d":2,"e^f":3,"foo":["bar","baz"],"g|h":4,"i\\j":5,"k\"l":6,"m~n":8}`},
		{"/foo", `["bar","baz"]`},
		{"/foo/0", `"bar"`},
		{"/", `0`},
		{"/a~1b", `1`},
		{"/c%d", `2`},
		{"/e^f", `3`},
		{"/g|h", `4`},
		{"/i\\j", `5`},
		{"/k\"l", `6`},
		{"/ ", `7`},
		{"/m~0n", `8`},
	} {
		tokens, err := parsePointer(tc.ptr)
		if err != nil {
			t.Fatal(err)
		}
		v, err := lookup(doc, tokens)
		if err != nil {
			t.Errorf("lookup(%q): %v", tc.ptr, err)
			continue
		}
		if got := show(v); got != clip(tc.want, 60) {
			t.Errorf("lookup(%q) = %s, want %s", tc.ptr, got, tc.want)
		}
	}
}

func TestLookupMisses(t *testing.T) {
	doc, _ := decodeValue([]byte(`{"a": {"b": [10, 20, 30]}, "s": "text", "n": null}`))
	for _, tc := range []struct{ ptr, want string }{
		{"/x", `no key "x"`},
		{"/a/c", `no key "c" under /a`},
		{"/a/b/3", `no element "3" under /a/b (3 elements)`},
		{"/a/b/-", `no element "-" under /a/b (3 elements)`},
		{"/a/b/01", `no element "01" under /a/b (3 elements)`},
		{"/a/b/x", `no element "x" under /a/b (3 elements)`},
		{"/a/b/-1", `no element "-1" under /a/b (3 elements)`},
		{"/s/0", `/s is a string, which has no "0"`},
		{"/n/x", `/n is null, which has no "x"`},
		{"/a/b/0/x", `/a/b/0 is a number, which has no "x"`},
	} {
		tokens, err := parsePointer(tc.ptr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = lookup(doc, tokens)
		if err == nil || err.Error() != tc.want {
			t.Errorf("lookup(%q): %v, want %q", tc.ptr, err, tc.want)
		}
	}
	scalar, _ := decodeValue([]byte(`42`))
	if _, err := lookup(scalar, []string{"a"}); err == nil || err.Error() != `the value is a number, which has no "a"` {
		t.Errorf("lookup in a number: %v", err)
	}
	if v, err := lookup(doc, []string{"a", "b", "0"}); err != nil || show(v) != "10" {
		t.Errorf("lookup /a/b/0 = %v, %v; want 10", v, err)
	}
}

func TestJSONEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`100`, `1E2`, true},
		{`0.1`, `1e-1`, true},
		{`-0`, `0`, true},
		{`1`, `2`, false},
		{`9007199254740993`, `9007199254740992`, false}, // equal as float64s
		{`1`, `"1"`, false},
		{`"a"`, `"a"`, true},
		{`true`, `true`, true},
		{`true`, `false`, false},
		{`null`, `null`, true},
		{`null`, `false`, false},
		{`{"a": 1, "b": [1, 2]}`, `{"b": [1.0, 2], "a": 1}`, true},
		{`{"a": 1}`, `{"a": 1, "b": 2}`, false},
		{`{"a": 1}`, `{"b": 1}`, false},
		{`[1, 2]`, `[2, 1]`, false},
		{`[1]`, `[1, 1]`, false},
		{`[]`, `{}`, false},
		{`{"a": null}`, `{}`, false},
	} {
		a, err1 := decodeValue([]byte(tc.a))
		b, err2 := decodeValue([]byte(tc.b))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if got := jsonEqual(a, b); got != tc.want {
			t.Errorf("jsonEqual(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := jsonEqual(b, a); got != tc.want {
			t.Errorf("jsonEqual(%s, %s) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestShowClips(t *testing.T) {
	long := make([]byte, 100)
	for i := range long {
		long[i] = 'x'
	}
	got := show(string(long))
	if len([]rune(got)) != 60 || got[len(got)-len("…"):] != "…" {
		t.Errorf("show(100 x) = %q, want 60 characters ending in …", got)
	}
	if got := show("<a&b>"); got != `"<a&b>"` {
		t.Errorf("show escapes HTML: %s", got)
	}
}
