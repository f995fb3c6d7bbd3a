// Package assets holds what agenttui ships inside its binary: the demo
// scenario and the sample workspace the demo works in.
package assets

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/runtime/model"
)

//go:embed demo.json
var demoJSON []byte

// sampleArchive is the sample workspace as a txtar-style archive: a comment,
// then files each introduced by a line "-- path --". An archive keeps the
// sample's Go files out of agenttui's own build and tests.
//
//go:embed sample.txtar
var sampleArchive string

// DemoGoal is the goal the demo starts with when the person gives none.
const DemoGoal = "Customers say the last page of results is missing. Find and fix the bug."

// DemoScenario returns the built-in demo scenario.
func DemoScenario() (*model.Scenario, error) {
	sc, err := model.ParseScenario(demoJSON)
	if err != nil {
		return nil, fmt.Errorf("the built-in demo scenario is broken: %w", err)
	}
	return sc, nil
}

// SampleFiles returns the sample workspace's files by slash-separated path.
func SampleFiles() (map[string]string, error) {
	files := map[string]string{}
	var name string
	var body strings.Builder
	flush := func() {
		if name != "" {
			files[name] = body.String()
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(sampleArchive, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			name = trimmed[3 : len(trimmed)-3]
			if !filepath.IsLocal(name) {
				return nil, fmt.Errorf("sample archive: bad path %q", name)
			}
			continue
		}
		if name != "" {
			body.WriteString(line)
		}
	}
	flush()
	if len(files) == 0 {
		return nil, errors.New("sample archive holds no files")
	}
	return files, nil
}

// CopySampleWorkspace writes the sample workspace into a new temporary
// folder and returns it with a function that removes it.
func CopySampleWorkspace() (dir string, cleanup func(), err error) {
	files, err := SampleFiles()
	if err != nil {
		return "", nil, err
	}
	dir, err = os.MkdirTemp("", "agenttui-demo-")
	if err != nil {
		return "", nil, fmt.Errorf("creating the demo workspace: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := WriteSample(dir, files); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

// WriteSample writes files into dir, creating folders as needed.
func WriteSample(dir string, files map[string]string) error {
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("creating the demo workspace: %w", err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return fmt.Errorf("creating the demo workspace: %w", err)
		}
	}
	return nil
}
