package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
)

// dataCase returns a case with one data check.
func dataCase(t *testing.T, pointer, kind, value string) *Case {
	t.Helper()
	c := testCase("d")
	p, _ := json.Marshal(pointer)
	raw := fmt.Sprintf(`{"pointer": %s, %q: %s}`, p, kind, value)
	check, err := parseDataCheck(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("data check %s %s %s: %v", pointer, kind, value, err)
	}
	c.Expect.Data = []DataCheck{check}
	return c
}

func TestCheckStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		want runtime.Status
		got  runtime.GoalOutcome
		msg  string
	}{
		{"succeeded", runtime.StatusSucceeded, runtime.Succeeded("ok", nil), ""},
		{"failed as wanted", runtime.StatusFailed, runtime.Failed("g", "turn 1: model reply", nil), ""},
		{"refused as wanted", runtime.StatusRefused, runtime.Refused("which?"), ""},
		{"failed", runtime.StatusSucceeded, runtime.Failed("g", "turn 2: write_file", []string{"old", "permission denied"}),
			"status: want succeeded, got failed (turn 2: write_file: permission denied)"},
		{"failed, no attempts", runtime.StatusSucceeded, runtime.Failed("g", "turn 2: model reply", nil),
			"status: want succeeded, got failed (turn 2: model reply)"},
		{"refused", runtime.StatusSucceeded, runtime.Refused("Which file?"),
			`status: want succeeded, got refused (asked "Which file?")`},
		{"succeeded unwanted", runtime.StatusFailed, runtime.Succeeded("All done", nil),
			`status: want failed, got succeeded ("All done")`},
		{"no outcome", runtime.StatusSucceeded, runtime.GoalOutcome{},
			"status: want succeeded, got none (the runner gave no outcome)"},
		{"long detail", runtime.StatusSucceeded, runtime.Failed("g", "turn 9: run_shell", []string{strings.Repeat("e", 200)}),
			"status: want succeeded, got failed (turn 9: run_shell: " + strings.Repeat("e", 99-len("turn 9: run_shell: ")) + "…)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testCase("s")
			c.Expect.Status = tc.want
			got := checkRun(c, Attempt{Outcome: tc.got}, t.TempDir())
			var want []string
			if tc.msg != "" {
				want = []string{tc.msg}
			}
			if !slices.Equal(got, want) {
				t.Errorf("failures:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestCheckData(t *testing.T) {
	const data = `{"file": "b.txt", "changed": ["README.md", "x.go"], "count": 3, "meta": {"k": 1},
		"note": "fixed the typo", "a/b": true, "nested": {"list": [{"id": 1}]}, "nothing": null}`
	for _, tc := range []struct {
		pointer, kind, value string
		want                 string // "" passes
	}{
		{"/file", "equals", `"b.txt"`, ""},
		{"/file", "equals", `"a.txt"`, `data /file: want "a.txt", got "b.txt"`},
		{"/count", "equals", `3.0`, ""},
		{"/count", "equals", `4`, `data /count: want 4, got 3`},
		{"/count", "equals", `"3"`, `data /count: want "3", got 3`},
		{"/meta", "equals", `{"k": 1.0}`, ""},
		{"/nothing", "equals", `null`, ""},
		{"/a~1b", "equals", `true`, ""},
		{"/nested/list/0/id", "equals", `1`, ""},
		{"/missing", "equals", `1`, `data /missing: want 1, got nothing (no key "missing")`},
		{"/changed/5", "equals", `1`, `data /changed/5: want 1, got nothing (no element "5" under /changed (2 elements))`},
		{"", "equals", `{}`, `data (whole value): want {}, got {"a/b":true,"changed":["README.md","x.go"],"count":3,"file"…`},
		{"/note", "contains", `"typo"`, ""},
		{"/note", "contains", `"bug"`, `data /note: want a string containing "bug", got "fixed the typo"`},
		{"/note", "contains", `3`, `data /note: want an array with an element 3, got "fixed the typo"`},
		{"/changed", "contains", `"README.md"`, ""},
		{"/changed", "contains", `"go.mod"`, `data /changed: want an array with an element "go.mod", got ["README.md","x.go"]`},
		{"/nested/list", "contains", `{"id": 1.0}`, ""},
		{"/meta", "contains", `"k"`, ""},
		{"/meta", "contains", `"j"`, `data /meta: want an object with key "j", got {"k":1}`},
		{"/meta", "contains", `1`, `data /meta: want an array with an element 1, got {"k":1}`},
		{"/count", "contains", `3`, `data /count: want a string, array or object containing 3, got 3`},
		{"/nothing", "contains", `"x"`, `data /nothing: want a string, array or object containing "x", got null`},
		{"", "contains", `"file"`, ""},
		{"/gone", "contains", `"x"`, `data /gone: want something containing "x", got nothing (no key "gone")`},
	} {
		c := dataCase(t, tc.pointer, tc.kind, tc.value)
		got := checkRun(c, succeeded(data), t.TempDir())
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %s %s:\n got %q\nwant %q", tc.pointer, tc.kind, tc.value, got, want)
		}
	}
}

func TestCheckDataWithoutData(t *testing.T) {
	c := dataCase(t, "/file", "equals", `"a.txt"`)
	got := checkRun(c, succeeded(""), t.TempDir())
	if want := []string{`data /file: want "a.txt", got nothing (no extracted data)`}; !slices.Equal(got, want) {
		t.Errorf("failures = %q, want %q", got, want)
	}
	// extracted_data null is a value: the whole of it is null.
	c = dataCase(t, "", "equals", `null`)
	if got := checkRun(c, succeeded("null"), t.TempDir()); len(got) != 0 {
		t.Errorf("null equals null: %q", got)
	}
	c = dataCase(t, "", "equals", `1`)
	got = checkRun(c, succeeded("{not json"), t.TempDir())
	if len(got) != 1 || !strings.HasPrefix(got[0], "data: the extracted data is not valid JSON: ") {
		t.Errorf("failures = %q", got)
	}
}

func TestCheckFiles(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"README.md": "I receive mail\n", "docs/guide.md": "guide"})
	outside := filepath.Join(t.TempDir(), "secret.txt")
	writeTree(t, filepath.Dir(outside), map[string]string{"secret.txt": "receive"})
	if err := os.Symlink(outside, filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	text := func(s string) *string { return &s }
	for _, tc := range []struct {
		check FileCheck
		want  string
	}{
		{FileCheck{Path: "README.md", Exists: &yes}, ""},
		{FileCheck{Path: "README.md", Contains: text("receive")}, ""},
		{FileCheck{Path: "README.md", Exists: &yes, Contains: text("receive")}, ""},
		{FileCheck{Path: "./docs/../README.md", Contains: text("receive")}, ""},
		{FileCheck{Path: "docs/guide.md", Contains: text("guide")}, ""},
		{FileCheck{Path: "docs", Exists: &yes}, ""},
		{FileCheck{Path: "notes.txt", Exists: &no}, ""},
		{FileCheck{Path: "README.md", Contains: text("recieve")}, `file README.md: does not contain "recieve"`},
		{FileCheck{Path: "README.md", Exists: &no}, "file README.md: should not exist"},
		{FileCheck{Path: "notes.txt", Exists: &yes}, "file notes.txt: does not exist"},
		{FileCheck{Path: "notes.txt", Contains: text("x")}, "file notes.txt: does not exist"},
		{FileCheck{Path: "docs", Contains: text("x")}, "file docs: is a folder, not a file"},
		{FileCheck{Path: "link.txt", Contains: text("receive")}, "file link.txt: cannot be read: path escapes from parent"},
	} {
		c := testCase("f")
		c.Expect.Files = []FileCheck{tc.check}
		got := checkRun(c, succeeded(""), ws)
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v:\n got %q\nwant %q", tc.check, got, want)
		}
	}
}

func TestCheckBounds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expect Expect
		a      Attempt
		want   string
	}{
		{"turns within", Expect{MaxTurns: 5}, Attempt{Turns: 5}, ""},
		{"turns over", Expect{MaxTurns: 5}, Attempt{Turns: 7}, "turns: 7 > max 5"},
		{"turns one over", Expect{MaxTurns: 5}, Attempt{Turns: 6}, "turns: 6 > max 5"},
		{"tokens within", Expect{MaxTokens: 100}, Attempt{Usage: usage(60, 40, nil)}, ""},
		{"tokens over", Expect{MaxTokens: 100}, Attempt{Usage: usage(60, 41, nil)}, "tokens: 101 > max 100"},
		{"cost within", Expect{MaxCostUSD: 0.05}, Attempt{Usage: usage(1, 1, cost(0.05))}, ""},
		{"cost over", Expect{MaxCostUSD: 0.05}, Attempt{Usage: usage(1, 1, cost(0.0612))}, "cost: $0.0612 > max $0.0500"},
		{"cost a little over", Expect{MaxCostUSD: 0.05}, Attempt{Usage: usage(1, 1, cost(0.05001))}, "cost: $0.0500 > max $0.0500"},
		{"cost unknown", Expect{MaxCostUSD: 0.05}, Attempt{Usage: usage(1, 1, nil)}, "cost: not known, so it cannot be held to max $0.0500"},
		{"no bounds", Expect{}, Attempt{Turns: 1000, Usage: usage(1e6, 1e6, nil)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testCase("b")
			tc.expect.Status = runtime.StatusSucceeded
			c.Expect = tc.expect
			tc.a.Outcome = runtime.Succeeded("ok", nil)
			got := checkRun(c, tc.a, t.TempDir())
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if !slices.Equal(got, want) {
				t.Errorf("failures:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// Every failing check is recorded, in the order status, data, files,
// bounds, so the first is the one a person fixes first.
func TestCheckRecordsEveryFailure(t *testing.T) {
	c := dataCase(t, "/file", "equals", `"a.txt"`)
	no := false
	c.Expect.Files = []FileCheck{{Path: "x", Exists: &no}}
	c.Expect.MaxTurns, c.Expect.MaxTokens = 1, 10
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"x": ""})
	a := Attempt{Outcome: runtime.Failed("g", "turn 3: model reply", nil), Turns: 3, Usage: usage(10, 10, nil)}
	got := checkRun(c, a, ws)
	want := []string{
		"status: want succeeded, got failed (turn 3: model reply)",
		`data /file: want "a.txt", got nothing (no extracted data)`,
		"file x: should not exist",
		"turns: 3 > max 1",
		"tokens: 20 > max 10",
	}
	if !slices.Equal(got, want) {
		t.Errorf("failures:\n got %q\nwant %q", got, want)
	}
}

// A run that could not be run fails with that alone: the rest of its
// attempt means nothing.
func TestCheckRunError(t *testing.T) {
	c := testCase("e")
	c.Expect.MaxTurns = 1
	got := checkRun(c, Attempt{Err: errors.New("OPENAI_API_KEY is not set"), Turns: 9}, t.TempDir())
	if want := []string{"run: OPENAI_API_KEY is not set"}; !slices.Equal(got, want) {
		t.Errorf("failures = %q, want %q", got, want)
	}
}

// A case made by hand, not by Load, with a pointer Load would refuse fails
// its check rather than reading the wrong value.
func TestCheckHandMadePointer(t *testing.T) {
	c := testCase("h")
	c.Expect.Data = []DataCheck{{Pointer: "file", Equals: json.RawMessage(`"a"`)}}
	got := checkRun(c, succeeded(`{"file": "a"}`), t.TempDir())
	if want := []string{`data file: pointer "file" must be "" (the whole value) or start with /`}; !slices.Equal(got, want) {
		t.Errorf("failures = %q, want %q", got, want)
	}
}
