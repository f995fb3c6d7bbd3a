// Package assets holds what agenttui ships inside its binary: the built-in
// demo, an ordinary scenario whose workspace is the sample project in
// sample.txtar.
package assets

import (
	"embed"
	"fmt"

	"github.com/agenttui/agenttui/runtime/model"
)

// files holds the demo scenario and the archive of the sample workspace it
// names. An archive keeps the sample's Go files out of agenttui's own build
// and tests.
//
//go:embed demo.json sample.txtar
var files embed.FS

// DemoScenario returns the built-in demo scenario. Its workspace field
// names an archive that ReadFile reads.
func DemoScenario() (*model.Scenario, error) {
	data, err := files.ReadFile("demo.json")
	if err != nil {
		return nil, err
	}
	sc, err := model.ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("the built-in demo scenario is broken: %w", err)
	}
	return sc, nil
}

// ReadFile reads a file the demo scenario names, such as its workspace
// archive, as a scenario file's neighbour would be read.
func ReadFile(name string) ([]byte, error) { return files.ReadFile(name) }
