package playground

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
)

// scenarioWith writes a scenario file beside the archive text, as
// ws.txtar, and returns its path and the scenario.
func scenarioWith(t *testing.T, archive string) (string, *model.Scenario) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ws.txtar"), []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "sc.json"), &model.Scenario{Name: "sc", Workspace: "ws.txtar"}
}

// TestPrepareUnpacksIntoATemporaryOrAnEmptyFolder checks both places a
// scenario's workspace may go, and that only the temporary one is removed.
func TestPrepareUnpacksIntoATemporaryOrAnEmptyFolder(t *testing.T) {
	if p, err := Prepare(&model.Scenario{}, Options{}); p != nil || err != nil {
		t.Fatalf("a scenario without a workspace: %v, %v", p, err)
	}
	file, sc := scenarioWith(t, "-- notes.txt --\nremember the milk\n")
	p, err := Prepare(sc, Options{ScenarioFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(p.Dir, "notes.txt")); !p.Temp || string(b) != "remember the milk\n" {
		t.Fatalf("temporary folder %+v: %q, %v", p, b, err)
	}
	if !strings.Contains(p.Note(), "temporary folder made from its workspace archive") {
		t.Errorf("note %q", p.Note())
	}
	p.Cleanup()
	if _, err := os.Stat(p.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary folder is still there: %v", err)
	}

	into := t.TempDir()
	p, err = Prepare(sc, Options{ScenarioFile: file, Into: into})
	if err != nil || p.Temp || p.Dir != into {
		t.Fatalf("into an empty folder: %+v, %v", p, err)
	}
	p.Cleanup()
	if _, err := os.Stat(filepath.Join(into, "notes.txt")); err != nil {
		t.Errorf("a folder the person named lost its files: %v", err)
	}
	var pe *Error
	if _, err := Prepare(sc, Options{ScenarioFile: file, Into: into}); !errors.As(err, &pe) || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("into a folder with files: %v", err)
	}
}

// TestPrepareRefusesABadArchive checks archives that are missing or leave
// their folder are refused with an *Error before anything is unpacked.
func TestPrepareRefusesABadArchive(t *testing.T) {
	var pe *Error
	file, sc := scenarioWith(t, "-- ../escape.txt --\nx\n")
	if _, err := Prepare(sc, Options{ScenarioFile: file}); !errors.As(err, &pe) || !strings.Contains(err.Error(), "the name leaves the folder") {
		t.Errorf("an archive that leaves its folder: %v", err)
	}
	os.Remove(filepath.Join(filepath.Dir(file), "ws.txtar"))
	if _, err := Prepare(sc, Options{ScenarioFile: file}); !errors.As(err, &pe) || !strings.HasSuffix(err.Error(), "ws.txtar cannot be read: no such file or directory") {
		t.Errorf("a missing archive: %v", err)
	}
}
