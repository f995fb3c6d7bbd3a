package assets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemoScenarioParses(t *testing.T) {
	sc, err := DemoScenario()
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Steps) < 8 || sc.Description == "" {
		t.Errorf("demo has %d steps, description %q", len(sc.Steps), sc.Description)
	}
}

func TestSampleWorkspaceHasTheBug(t *testing.T) {
	dir, cleanup, err := CopySampleWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	for _, name := range []string{"README.md", "NOTES.md", "pager.go", "pager_test.go", "go.mod", "docs/usage.md"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("sample file %s missing: %v", name, err)
		}
	}
	src, _ := os.ReadFile(filepath.Join(dir, "pager.go"))
	if strings.Count(string(src), "return total / size") != 1 {
		t.Error("the demo's edit needs exactly one 'return total / size' in pager.go")
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("cleanup left the demo workspace behind")
	}
}
