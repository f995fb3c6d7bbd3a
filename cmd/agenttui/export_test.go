package main

import (
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
)

// TestExportCommandLine checks the export's command line: the scenario on
// standard output without --out, and one clear line (exit 2) for what
// cannot work.
func TestExportCommandLine(t *testing.T) {
	ws := workspaceWithNotes(t)
	id := headlessSession(t, ws, scenario(t, "succeeds.json"), 0, "read the notes")
	r := runBinary(t, ws, "", "sessions", "export", id)
	if r.code != 0 || !strings.Contains(r.stderr, "to standard output: ") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sc, err := model.ParseScenario([]byte(r.stdout))
	if err != nil || sc.Steps[0].Input != "read the notes" {
		t.Fatalf("standard output holds %v (%v):\n%s", sc, err, r.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "export"}, "agenttui sessions export takes one session id (agenttui sessions lists them), not 0"},
		{[]string{"sessions", "export", id, id}, "takes one session id (agenttui sessions lists them), not 2"},
		{[]string{"sessions", "export", "nosuch"}, "no such session nosuch"},
		{[]string{"sessions", "export", id, "--workspace-from", ws}, "--workspace-from needs --out FILE"},
		{[]string{"sessions", "export", id, "--out", t.TempDir() + "/x.json", "--workspace-from", ws + "/missing"}, "--workspace-from " + ws + "/missing: no such file or directory"},
		{[]string{"sessions", "export", id, "--bogus"}, "unknown flag --bogus"},
	} {
		r := runBinary(t, ws, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("agenttui %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}
