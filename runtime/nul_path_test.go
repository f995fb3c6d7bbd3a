package runtime_test

import (
	"context"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// A NUL in a path or a pattern is refused with the reason, quoted so the
// NUL reads as \u0000: the model reads why, not that the output is binary.
func TestANULInAPathIsRefusedInWords(t *testing.T) {
	steps := []model.Step{step("",
		call("read_file", map[string]any{"path": "a\x00b"}),
		call("list_dir", map[string]any{"path": "a\x00b"}),
		call("write_file", map[string]any{"path": "a\x00b", "content": "x"}),
		call("edit_file", map[string]any{"path": "a\x00b", "old": "x", "new": "y"}),
		call("grep", map[string]any{"pattern": "x", "path": "a\x00b"}),
		call("grep", map[string]any{"pattern": "x\x00"}),
		call("glob", map[string]any{"pattern": "*\x00"})),
		finish("done")}
	_, a, s, rm := setup(t, steps...)
	if out := a.Run(context.Background(), s, "go"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	const path = `path "a\u0000b" holds a NUL character, which no file name can contain; nothing was done`
	want := []string{path, path, path, path, path,
		`pattern "x\u0000" holds a NUL character, which no text file holds (grep searches text files only); nothing was done`,
		`pattern "*\u0000" holds a NUL character, which no file name can contain; nothing was done`}
	req := rm.requests[1]
	results := req[len(req)-1].Results
	if len(results) != len(want) {
		t.Fatalf("%d results: %+v", len(results), results)
	}
	for i, r := range results {
		if r.Content != want[i] || !r.IsError {
			t.Errorf("%s read %q (error %v), want %q", r.Name, r.Content, r.IsError, want[i])
		}
	}
}
