package assets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/txtar"
	"github.com/agenttui/agenttui/runtime/model"
)

// TestDemoIsAScenarioThatCarriesItsPerson checks the demo uses the fields
// any scenario may: its workspace archive, the person's goal and answer,
// and a decision for every call that asks in reads mode.
func TestDemoIsAScenarioThatCarriesItsPerson(t *testing.T) {
	sc, err := DemoScenario()
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Steps) < 8 || sc.Description == "" || sc.Workspace != "sample.txtar" {
		t.Fatalf("demo has %d steps, description %q, workspace %q", len(sc.Steps), sc.Description, sc.Workspace)
	}
	if !strings.Contains(sc.Steps[0].Input, "last page") {
		t.Errorf("the demo's goal is %q", sc.Steps[0].Input)
	}
	var inputs, decisions int
	for _, st := range sc.Steps {
		if st.Input != "" {
			inputs++
		}
		for _, c := range st.Calls {
			if c.Decision != nil {
				decisions++
				if c.Decision.Kind != model.DecisionApprove {
					t.Errorf("%s: decision %s", c.Name, c.Decision)
				}
			}
		}
	}
	if inputs != 2 || decisions != 3 {
		t.Errorf("the demo has %d inputs and %d decisions, want the goal and the answer, and the edit, the changelog and the tests approved", inputs, decisions)
	}
}

func TestSampleWorkspaceHasTheBug(t *testing.T) {
	data, err := ReadFile("sample.txtar")
	if err != nil {
		t.Fatal(err)
	}
	a, err := txtar.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := a.Unpack(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"README.md", "NOTES.md", "pager.go", "pager_test.go", "go.mod", "docs/usage.md"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("sample file %s missing: %v", name, err)
		}
	}
	src, _ := os.ReadFile(filepath.Join(dir, "pager.go"))
	if strings.Count(string(src), "return total / size") != 1 {
		t.Error("the demo's edit needs exactly one 'return total / size' in pager.go")
	}
}
