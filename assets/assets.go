// Package assets holds what agenttui ships inside its binary: the system
// prompt the agent works under, and the built-in demo, an ordinary scenario
// whose workspace is the sample project in sample.txtar.
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

// SystemPrompt is the system prompt agenttui gives the model for coding
// work: how the runtime runs its calls, how to work on code, what each kind
// of result means and when to ask or finish. It is the same bytes in every
// request of every session, so that a provider's prompt cache can serve
// it; the configuration's system_prompt_file replaces it.
//
//go:embed system_prompt.md
var SystemPrompt string

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
